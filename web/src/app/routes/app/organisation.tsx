import { OrganisationPage } from '@/features/organisation/components/organisation-page';

export const OrganisationRoute = () => <OrganisationPage />;
