import { NotificationPreferences } from '@/features/notifications/components/notification-preferences';
import { ProfilePage } from '@/features/profile/components/profile-page';
import { UpgradeRequestForm, showsUpgradeForm } from '@/features/upgrade/components/upgrade-request-form';
import { useAuth } from '@/lib/auth';

export function ProfileRoute() {
  const { user } = useAuth();
  return (
    <ProfilePage
      upgradeSlot={user && showsUpgradeForm(user.quota?.plan_name) ? <UpgradeRequestForm origin="profile" /> : undefined}
      notificationsSlot={<NotificationPreferences />}
    />
  );
}
