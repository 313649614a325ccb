import { csv, publicUrlOf } from '@baret/platform';
import type { OidcSettings } from './oidc.js';

export interface SsoOptions extends OidcSettings {
  /** A first sign-in with an address at one of these domains joins that organisation as a member (OIDC_ORG_DOMAINS). */
  orgDomains: ReadonlyMap<string, string>;
}

/** A sign-in, decided: who (when known), how, and how it ended. */
export type SignInFact =
  | { outcome: 'signed_in'; method: 'sso'; user_id: string; email: string; issuer: string; created: boolean; org_id: string | null; ip: string; at: string }
  | { outcome: 'failed'; method: 'sso'; code: string; reason: string; email: string | null; ip: string; at: string };

/** The single sign-on settings of a configuration, or undefined when OIDC_ISSUER is not set. */
export function ssoOptionsFromConfig(config: {
  OIDC_ISSUER?: string;
  OIDC_CLIENT_ID?: string;
  OIDC_CLIENT_SECRET?: string;
  OIDC_REDIRECT_URL?: string;
  OIDC_ORG_DOMAINS: string;
  OIDC_SCOPES: string;
  PUBLIC_URL?: string;
  PORT: number;
}): SsoOptions | undefined {
  if (!config.OIDC_ISSUER || !config.OIDC_CLIENT_ID || !config.OIDC_CLIENT_SECRET) return undefined;
  const orgDomains = new Map(
    csv(config.OIDC_ORG_DOMAINS).map((pair) => {
      const [domain = '', orgId = ''] = pair.split('=').map((x) => x.trim());
      return [domain.toLowerCase(), orgId.toLowerCase()] as const;
    }),
  );
  return {
    issuer: config.OIDC_ISSUER,
    clientId: config.OIDC_CLIENT_ID,
    clientSecret: config.OIDC_CLIENT_SECRET,
    redirectUrl: config.OIDC_REDIRECT_URL ?? `${publicUrlOf(config)}/login/sso`,
    scopes: config.OIDC_SCOPES,
    orgDomains,
  };
}
