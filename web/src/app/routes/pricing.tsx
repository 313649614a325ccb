import { PricingPage } from '@/features/pricing/components/pricing-page';
import { UpgradeRequestForm } from '@/features/upgrade/components/upgrade-request-form';

export const PricingRoute = () => <PricingPage upgradeSlot={<UpgradeRequestForm origin="pricing" />} />;
