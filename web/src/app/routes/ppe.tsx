import { PpeGallery } from '@/features/ppe/components/ppe-gallery';

export const PpeRoute = () => <PpeGallery />;
