import { AdminPage } from '@/features/admin/components/admin-page';

export const AdminRoute = () => <AdminPage />;
