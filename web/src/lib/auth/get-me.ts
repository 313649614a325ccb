import { api } from '@/lib/api-client';
import type { User } from '@/types/api';

/** GET /auth/me */
export function getMe(): Promise<User> {
  return api.get<User>('/auth/me');
}
