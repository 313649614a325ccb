import { api } from '@/lib/api-client';
import type { LoginResponse } from '@/types/api';

export interface LoginInput {
  email: string;
  password: string;
}

/** POST /auth/login */
export function loginWithEmailAndPassword(input: LoginInput): Promise<LoginResponse> {
  return api.post<LoginResponse>('/auth/login', input);
}
