export { AuthProvider, type AuthContextValue } from '@/lib/auth/auth-provider';
export { useAuth } from '@/lib/auth/use-auth';
export type { LoginInput } from '@/lib/auth/login';
export type { RegisterInput } from '@/lib/auth/register';
