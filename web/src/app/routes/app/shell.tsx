import { DashboardLayout } from '@/components/layouts/dashboard-layout';
import { NotificationBell } from '@/features/notifications/components/notification-bell';
import { VerifyBanner } from '@/features/notifications/components/verify-banner';

/** The frame of every signed-in page, loaded with the first of them (issue 40). */
export const AppShellRoute = () => <DashboardLayout tools={<NotificationBell />} banner={<VerifyBanner />} />;
