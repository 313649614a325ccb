import { api } from '@/lib/api-client';
import type { User } from '@/types/api';

export interface RegisterInput {
  email: string;
  password: string;
  full_name?: string;
}

/** POST /auth/register; full_name is omitted when empty. */
export function registerWithEmailAndPassword(input: RegisterInput): Promise<User> {
  const fullName = input.full_name?.trim();
  return api.post<User>('/auth/register', {
    email: input.email.trim(),
    password: input.password,
    ...(fullName ? { full_name: fullName } : {}),
  });
}
