import { InvitePage } from '@/features/organisation/components/invite-page';

export const InviteRoute = () => <InvitePage />;
