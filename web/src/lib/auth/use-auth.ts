import { useContext } from 'react';

import { AuthContext, type AuthContextValue } from '@/lib/auth/auth-provider';

/** The auth facility; using it outside AuthProvider is a programming error. */
export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used within an AuthProvider');
  return value;
}
