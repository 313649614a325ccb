import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation, useMatches } from 'react-router-dom';

function titleKeyOf(handle: unknown): string | null {
  return typeof handle === 'object' && handle !== null && 'title' in handle && typeof handle.title === 'string' ? handle.title : null;
}

/** Scrolls to the top on navigation, or to the element named by the hash; names the page in the document title. */
export function ScrollManager() {
  const { pathname, hash } = useLocation();
  const { t, i18n } = useTranslation();
  const matches = useMatches();
  const titleKey = matches.map((match) => titleKeyOf(match.handle)).findLast((key) => key !== null) ?? null;

  useEffect(() => {
    document.title = titleKey ? `${t(titleKey)} · Baret` : 'Baret';
  }, [titleKey, t, i18n.language]);

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
