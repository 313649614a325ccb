import { AuditLog } from '@/features/audit/components/audit-log';
import { OrganisationPage } from '@/features/organisation/components/organisation-page';

export const OrganisationRoute = () => <OrganisationPage auditLog={(orgId) => <AuditLog scope={{ kind: 'org', orgId }} />} />;
