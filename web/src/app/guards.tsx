import { type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, Outlet, useLocation, useSearchParams } from 'react-router-dom';

import { PageSpinner } from '@/components/ui/spinner';
import { paths, safeRedirect } from '@/config/paths';
import { useAuth } from '@/lib/auth';

/** While the session resolves, the 'Yükleniyor…' spinner shows instead of any page. */
export function SessionGate({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { status } = useAuth();
  if (status === 'loading') return <PageSpinner label={t('common.loading')} />;
  return <>{children}</>;
}

/** Login required: visitors go to /login, remembering the path and query they asked for. */
export function RequireAuth() {
  const { user, loggedOut } = useAuth();
  const location = useLocation();
  if (!user && loggedOut) return <Navigate to={paths.home.path} replace />;
  if (!user) return <Navigate to={paths.auth.login.getHref(`${location.pathname}${location.search}`)} replace />;
  return <Outlet />;
}

/** Logged-out only: a logged-in user goes to the remembered path or /dashboard. */
export function GuestOnly() {
  const { user } = useAuth();
  const [params] = useSearchParams();
  if (user) return <Navigate to={safeRedirect(params.get('redirectTo')) ?? paths.app.dashboard.path} replace />;
  return <Outlet />;
}
