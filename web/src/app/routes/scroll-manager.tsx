import { useEffect } from 'react';
import { Outlet, useLocation } from 'react-router-dom';

/** Scrolls to the top on navigation, or to the element named by the hash. */
export function ScrollManager() {
  const { pathname, hash } = useLocation();
  useEffect(() => {
    if (hash) {
      document.getElementById(decodeURIComponent(hash.slice(1)))?.scrollIntoView();
      return;
    }
    if (typeof window.scrollTo === 'function') {
      try {
        window.scrollTo(0, 0);
      } catch {
        /* not implemented in some test environments */
      }
    }
  }, [pathname, hash]);
  return <Outlet />;
}
