import { useEffect, useState } from 'react';
import { useLocation } from 'react-router-dom';

import { useIsDesktop } from '@/hooks/use-media-query';

/** Open/closed state of a slide-in menu: closes on navigation, on Escape and at the desktop breakpoint. */
export function useMobileMenu() {
  const [open, setOpen] = useState(false);
  const location = useLocation();
  const isDesktop = useIsDesktop();

  const [lastPath, setLastPath] = useState(location.pathname);
  if (lastPath !== location.pathname) {
    setLastPath(location.pathname);
    setOpen(false);
  }
  const [wasDesktop, setWasDesktop] = useState(isDesktop);
  if (wasDesktop !== isDesktop) {
    setWasDesktop(isDesktop);
    if (isDesktop) setOpen(false);
  }

  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.body.classList.add('menu-open');
    return () => {
      document.removeEventListener('keydown', onKey);
      document.body.classList.remove('menu-open');
    };
  }, [open]);

  return { open, setOpen, toggle: () => setOpen((v) => !v), close: () => setOpen(false) };
}
