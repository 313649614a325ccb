import { HowItWorksPage } from '@/features/how-it-works/components/how-it-works-page';

export const HowItWorksRoute = () => <HowItWorksPage />;
