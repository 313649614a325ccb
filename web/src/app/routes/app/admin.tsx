import { AdminPage } from '@/features/admin/components/admin-page';
import { AuditLog } from '@/features/audit/components/audit-log';

export const AdminRoute = () => <AdminPage auditLog={<AuditLog scope={{ kind: 'admin' }} />} />;
