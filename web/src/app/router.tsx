import { Suspense, lazy, useMemo, type ComponentType, type LazyExoticComponent } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, RouterProvider, createBrowserRouter, type RouteObject } from 'react-router-dom';

import { GuestOnly, RequireAuth, SessionGate } from '@/app/guards';
import { ScrollManager } from '@/app/routes/scroll-manager';
import { PublicLayout } from '@/components/layouts/public-layout';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { withAllTexts } from '@/lib/i18n';

/**
 * Every page is its own chunk (React.lazy), so the first visit downloads only the page it opens;
 * `handle.title` is the i18n key of the page's document title (see ScrollManager).
 */
const LandingRoute = lazy(() => import('@/app/routes/landing').then((m) => ({ default: m.LandingRoute })));
const HowItWorksRoute = lazy(withAllTexts(() => import('@/app/routes/how-it-works').then((m) => ({ default: m.HowItWorksRoute }))));
const PpeRoute = lazy(withAllTexts(() => import('@/app/routes/ppe').then((m) => ({ default: m.PpeRoute }))));
const PricingRoute = lazy(withAllTexts(() => import('@/app/routes/pricing').then((m) => ({ default: m.PricingRoute }))));
const ContactRoute = lazy(withAllTexts(() => import('@/app/routes/contact').then((m) => ({ default: m.ContactRoute }))));
const LoginRoute = lazy(withAllTexts(() => import('@/app/routes/auth/login').then((m) => ({ default: m.LoginRoute }))));
const SsoCallbackRoute = lazy(withAllTexts(() => import('@/app/routes/auth/sso').then((m) => ({ default: m.SsoCallbackRoute }))));
const RegisterRoute = lazy(withAllTexts(() => import('@/app/routes/auth/register').then((m) => ({ default: m.RegisterRoute }))));
const ForgotPasswordRoute = lazy(withAllTexts(() => import('@/app/routes/auth/recovery').then((m) => ({ default: m.ForgotPasswordRoute }))));
const ResetPasswordRoute = lazy(withAllTexts(() => import('@/app/routes/auth/recovery').then((m) => ({ default: m.ResetPasswordRoute }))));
const VerifyEmailRoute = lazy(withAllTexts(() => import('@/app/routes/auth/recovery').then((m) => ({ default: m.VerifyEmailRoute }))));
const AnalyzeRoute = lazy(withAllTexts(() => import('@/app/routes/app/analyze').then((m) => ({ default: m.AnalyzeRoute }))));
const JobRoute = lazy(withAllTexts(() => import('@/app/routes/app/job').then((m) => ({ default: m.JobRoute }))));
const HistoryRoute = lazy(withAllTexts(() => import('@/app/routes/app/history').then((m) => ({ default: m.HistoryRoute }))));
const ApiKeysRoute = lazy(withAllTexts(() => import('@/app/routes/app/api-keys').then((m) => ({ default: m.ApiKeysRoute }))));
const ProfileRoute = lazy(withAllTexts(() => import('@/app/routes/app/profile').then((m) => ({ default: m.ProfileRoute }))));
const ComplianceRoute = lazy(withAllTexts(() => import('@/app/routes/app/compliance').then((m) => ({ default: m.ComplianceRoute }))));
const OrganisationRoute = lazy(withAllTexts(() => import('@/app/routes/app/organisation').then((m) => ({ default: m.OrganisationRoute }))));
const InviteRoute = lazy(withAllTexts(() => import('@/app/routes/app/invite').then((m) => ({ default: m.InviteRoute }))));
// The signed-in frame (navigation, notification bell, verify banner) is the app's code: not on the landing page's first load.
const AppShellRoute = lazy(withAllTexts(() => import('@/app/routes/app/shell').then((m) => ({ default: m.AppShellRoute }))));
const AdminRoute = lazy(withAllTexts(() => import('@/app/routes/app/admin').then((m) => ({ default: m.AdminRoute }))));

function PageFallback() {
  const { t } = useTranslation();
  return <Spinner label={t('common.loading')} />;
}

function page(path: string, Page: LazyExoticComponent<ComponentType>, title: string): RouteObject {
  return {
    path,
    handle: { title },
    element: (
      <Suspense fallback={<PageFallback />}>
        <Page />
      </Suspense>
    ),
  };
}

export const routes: RouteObject[] = [
  {
    element: (
      <SessionGate>
        <ScrollManager />
      </SessionGate>
    ),
    children: [
      {
        element: <PublicLayout />,
        children: [
          page(paths.home.path, LandingRoute, 'titles.home'),
          page(paths.howItWorks.path, HowItWorksRoute, 'nav.howItWorks'),
          page(paths.ppe.path, PpeRoute, 'nav.ppe'),
          page(paths.pricing.path, PricingRoute, 'nav.pricing'),
          page(paths.contact.path, ContactRoute, 'nav.contact'),
          {
            element: <GuestOnly />,
            children: [
              page(paths.auth.login.path, LoginRoute, 'nav.login'),
              page(paths.auth.register.path, RegisterRoute, 'nav.register'),
              page(paths.auth.forgotPassword.path, ForgotPasswordRoute, 'recovery.forgotTitle'),
            ],
          },
          page(paths.auth.sso.path, SsoCallbackRoute, 'auth.sso.title'),
          page(paths.auth.resetPassword.path, ResetPasswordRoute, 'recovery.resetTitle'),
          page(paths.auth.verifyEmail.path, VerifyEmailRoute, 'verify.title'),
        ],
      },
      {
        element: <RequireAuth />,
        children: [
          {
            element: (
              <Suspense fallback={<PageFallback />}>
                <AppShellRoute />
              </Suspense>
            ),
            children: [
              page(paths.app.dashboard.path, AnalyzeRoute, 'analyze.title'),
              page(paths.app.job.path, JobRoute, 'job.title'),
              page(paths.app.history.path, HistoryRoute, 'history.title'),
              page(paths.app.apiKeys.path, ApiKeysRoute, 'titles.apiKeys'),
              page(paths.app.profile.path, ProfileRoute, 'nav.profile'),
              page(paths.app.admin.path, AdminRoute, 'nav.admin'),
              page(paths.app.compliance.path, ComplianceRoute, 'compliance.title'),
              page(paths.app.organisation.path, OrganisationRoute, 'nav.organisation'),
              page(paths.app.invite.path, InviteRoute, 'org.invitation'),
            ],
          },
        ],
      },
      { path: '*', element: <Navigate to={paths.home.path} replace /> },
    ],
  },
];

export function AppRouter() {
  const router = useMemo(() => createBrowserRouter(routes), []);
  return <RouterProvider router={router} />;
}
