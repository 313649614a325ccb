import { useEffect, useState } from 'react';

/** An object URL for a Blob or File, revoked when it changes or the component goes away. */
export function useObjectUrl(blob: Blob | null | undefined): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    // Object URLs are an external resource: created here, revoked in the cleanup (StrictMode-safe).
    const created = blob && typeof URL.createObjectURL === 'function' ? URL.createObjectURL(blob) : null;
    // eslint-disable-next-line react-hooks/set-state-in-effect -- syncing with the browser's object-URL registry
    setUrl(created);
    return () => {
      if (created) URL.revokeObjectURL(created);
    };
  }, [blob]);
  return url;
}
