import { ContactPage } from '@/features/contact/components/contact-page';

export const ContactRoute = () => <ContactPage />;
