import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Principal } from './auth.js';

/** The header that carries the service credential between Baret's processes (docs/adr/0011). */
export const SERVICE_HEADER = 'x-baret-service';

/** What a service credential says: who calls, and for a proxied public request, for whom. */
export interface ServiceClaims {
  /** The calling service. */
  iss: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
  /** The principal the gateway authenticated; absent for anonymous requests and internal calls. */
  principal?: Principal;
  /** The client's address as the gateway saw it (login throttling counts per address). */
  ip?: string;
}

const TTL_SECONDS = 60;
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64url');
const mac = (secret: string, body: string) => createHmac('sha256', secret).update(`baret-service.${body}`).digest();

/** A short-lived HMAC-SHA256 credential: `base64url(claims).base64url(mac)`. */
export function signServiceToken(secret: string, claims: Omit<ServiceClaims, 'exp'>, now = Date.now()): string {
  const body = b64(JSON.stringify({ ...claims, exp: Math.floor(now / 1000) + TTL_SECONDS }));
  return `${body}.${b64(mac(secret, body))}`;
}

/** The claims of a valid, unexpired credential; null for anything else. */
export function verifyServiceToken(secret: string, token: string | undefined, now = Date.now()): ServiceClaims | null {
  if (!token || token.length > 8192) return null;
  const [body, signature, extra] = token.split('.');
  if (!body || !signature || extra !== undefined) return null;
  const expected = mac(secret, body);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as ServiceClaims;
    if (typeof claims.iss !== 'string' || typeof claims.exp !== 'number' || claims.exp * 1000 < now) return null;
    return claims;
  } catch {
    return null;
  }
}
