import { useMemo } from 'react';
import { Navigate, RouterProvider, createBrowserRouter, type RouteObject } from 'react-router-dom';

import { GuestOnly, RequireAuth, SessionGate } from '@/app/guards';
import { AdminRoute } from '@/app/routes/app/admin';
import { AnalyzeRoute } from '@/app/routes/app/analyze';
import { ApiKeysRoute } from '@/app/routes/app/api-keys';
import { HistoryRoute } from '@/app/routes/app/history';
import { ProfileRoute } from '@/app/routes/app/profile';
import { LoginRoute } from '@/app/routes/auth/login';
import { RegisterRoute } from '@/app/routes/auth/register';
import { ContactRoute } from '@/app/routes/contact';
import { HowItWorksRoute } from '@/app/routes/how-it-works';
import { LandingRoute } from '@/app/routes/landing';
import { PpeRoute } from '@/app/routes/ppe';
import { PricingRoute } from '@/app/routes/pricing';
import { ScrollManager } from '@/app/routes/scroll-manager';
import { DashboardLayout } from '@/components/layouts/dashboard-layout';
import { PublicLayout } from '@/components/layouts/public-layout';
import { paths } from '@/config/paths';

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
          { path: paths.home.path, element: <LandingRoute /> },
          { path: paths.howItWorks.path, element: <HowItWorksRoute /> },
          { path: paths.ppe.path, element: <PpeRoute /> },
          { path: paths.pricing.path, element: <PricingRoute /> },
          { path: paths.contact.path, element: <ContactRoute /> },
          {
            element: <GuestOnly />,
            children: [
              { path: paths.auth.login.path, element: <LoginRoute /> },
              { path: paths.auth.register.path, element: <RegisterRoute /> },
            ],
          },
        ],
      },
      {
        element: <RequireAuth />,
        children: [
          {
            element: <DashboardLayout />,
            children: [
              { path: paths.app.dashboard.path, element: <AnalyzeRoute /> },
              { path: paths.app.history.path, element: <HistoryRoute /> },
              { path: paths.app.apiKeys.path, element: <ApiKeysRoute /> },
              { path: paths.app.profile.path, element: <ProfileRoute /> },
              { path: paths.app.admin.path, element: <AdminRoute /> },
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
