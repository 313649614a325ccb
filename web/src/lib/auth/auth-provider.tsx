import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useEffect, useMemo, useReducer, useRef, type ReactNode } from 'react';

import { ApiError, setAuthToken } from '@/lib/api-client';
import { getMe } from '@/lib/auth/get-me';
import { loginWithEmailAndPassword, type LoginInput } from '@/lib/auth/login';
import { registerWithEmailAndPassword, type RegisterInput } from '@/lib/auth/register';
import { evolveAuth, initialAuthState, type AuthState } from '@/lib/auth/session';
import { STORAGE_KEYS, storage } from '@/lib/storage';
import type { User } from '@/types/api';

export interface AuthContextValue {
  status: AuthState['status'];
  user: User | null;
  isAdmin: boolean;
  /** True right after the user logged out, so guards send them home rather than to /login. */
  loggedOut: boolean;
  login: (input: LoginInput) => Promise<User>;
  /** Starts the session with an access token from elsewhere (single sign-on). */
  loginWithToken: (token: string) => Promise<User>;
  register: (input: RegisterInput) => Promise<User>;
  logout: () => void;
  /** Re-reads the current user (and with it the quota); a failure ends the session silently. */
  refreshUser: () => Promise<User | null>;
}

const isUser = (value: unknown): value is User =>
  typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string' && typeof (value as { email?: unknown }).email === 'string';

export const AuthContext = createContext<AuthContextValue | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [state, dispatch] = useReducer(evolveAuth, undefined, () => initialAuthState(storage.get(STORAGE_KEYS.token) !== null));
  const started = useRef(false);

  const forget = useCallback(() => {
    storage.remove(STORAGE_KEYS.token);
    storage.remove(STORAGE_KEYS.user);
    setAuthToken(null);
  }, []);

  const clearSession = useCallback(() => {
    forget();
    dispatch({ type: 'UserLoadFailed' });
  }, [forget]);

  const loadUser = useCallback(async (): Promise<User | null> => {
    try {
      const user = await getMe();
      storage.setJson(STORAGE_KEYS.user, user);
      dispatch({ type: 'UserLoaded', user });
      return user;
    } catch (error) {
      // No network (field mode): keep the session with the user last seen, instead of logging out.
      const cached = error instanceof ApiError && error.status === 0 ? storage.getJson(STORAGE_KEYS.user, isUser) : null;
      if (cached) {
        dispatch({ type: 'UserLoaded', user: cached });
        return cached;
      }
      clearSession();
      return null;
    }
  }, [clearSession]);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const token = storage.get(STORAGE_KEYS.token);
    if (!token) {
      setAuthToken(null);
      dispatch({ type: 'TokenMissing' });
      return;
    }
    setAuthToken(token);
    void loadUser();
  }, [loadUser]);

  const loginWithToken = useCallback(
    async (token: string): Promise<User> => {
      storage.set(STORAGE_KEYS.token, token);
      setAuthToken(token);
      const user = await getMe().catch((error: unknown) => {
        clearSession();
        throw error;
      });
      storage.setJson(STORAGE_KEYS.user, user);
      dispatch({ type: 'UserLoaded', user });
      return user;
    },
    [clearSession],
  );

  const login = useCallback(
    async (input: LoginInput): Promise<User> => {
      const { access_token: token } = await loginWithEmailAndPassword({ email: input.email.trim(), password: input.password });
      return loginWithToken(token);
    },
    [loginWithToken],
  );

  const register = useCallback(
    async (input: RegisterInput): Promise<User> => {
      await registerWithEmailAndPassword(input);
      await login({ email: input.email, password: input.password });
      const user = await loadUser();
      if (!user) throw new Error('Could not load the new account');
      return user;
    },
    [login, loadUser],
  );

  const logout = useCallback(() => {
    forget();
    dispatch({ type: 'LoggedOut' });
    queryClient.clear();
  }, [forget, queryClient]);

  const value = useMemo<AuthContextValue>(
    () => ({
      status: state.status,
      user: state.user,
      isAdmin: state.user?.is_admin === true,
      loggedOut: state.status === 'anonymous' && state.loggedOut === true,
      login,
      loginWithToken,
      register,
      logout,
      refreshUser: loadUser,
    }),
    [state, login, loginWithToken, register, logout, loadUser],
  );

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
