import { ApiKeysPage } from '@/features/api-keys/components/api-keys-page';
import { WebhooksCard } from '@/features/webhooks/components/webhooks-card';

export const ApiKeysRoute = () => <ApiKeysPage webhooksSlot={<WebhooksCard />} />;
