import { ApiKeysPage } from '@/features/api-keys/components/api-keys-page';

export const ApiKeysRoute = () => <ApiKeysPage />;
