import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export const CONTACT_MESSAGE_MIN = 10;
export const CONTACT_MESSAGE_MAX = 2000;

export interface ContactInput {
  name: string;
  email: string;
  subject: string;
  message: string;
}

/** POST /contact — blank name and subject are sent as null. */
export function sendContact(input: ContactInput): Promise<unknown> {
  const blankToNull = (value: string) => (value.trim() ? value.trim() : null);
  return api.post('/contact', { name: blankToNull(input.name), email: input.email.trim(), subject: blankToNull(input.subject), message: input.message.trim() });
}

export function useSendContact() {
  return useMutation({ mutationFn: sendContact });
}
