import { CompliancePage } from '@/features/compliance/components/compliance-page';

export const ComplianceRoute = () => <CompliancePage />;
