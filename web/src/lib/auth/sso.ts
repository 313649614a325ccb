import { api } from '@/lib/api-client';

/** Single sign-on with the company account (OpenID Connect, issue 30). */
export interface SsoCallbackResponse {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  created: boolean;
  redirect_to: string | null;
}

/** GET /auth/sso: whether this server offers the company account. */
export function getSsoStatus(): Promise<{ enabled: boolean }> {
  return api.get<{ enabled: boolean }>('/auth/sso');
}

/** POST /auth/sso/start: where to send the browser; the answer sets the flow's cookie. */
export function startSso(redirectTo: string | null): Promise<{ authorization_url: string }> {
  return api.post<{ authorization_url: string }>('/auth/sso/start', redirectTo ? { redirect_to: redirectTo } : {});
}

/** The parameters the issuer sent back to /login/sso that the server wants. */
export const SSO_CALLBACK_PARAMS = ['code', 'state', 'iss', 'error', 'error_description', 'session_state'] as const;

/** POST /auth/sso/callback with what the issuer sent back: an access token, or a problem saying why not. */
export function finishSso(params: URLSearchParams): Promise<SsoCallbackResponse> {
  const body: Record<string, string> = {};
  for (const key of SSO_CALLBACK_PARAMS) {
    const value = params.get(key);
    if (value) body[key] = value;
  }
  return api.post<SsoCallbackResponse>('/auth/sso/callback', body);
}
