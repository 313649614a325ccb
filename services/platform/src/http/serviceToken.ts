import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Principal } from './principal.js';

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

/** How many credentials a signer or verifier keeps; the oldest go first beyond it. */
const KEPT = 10_000;

/**
 * Signs service credentials for a hot path (the gateway's proxy, one per request): a credential for
 * the same claims is signed once and sent again while at least half of its lifetime is left, so a
 * receiving service never gets one with less than TTL_SECONDS / 2 to live. It still expires
 * TTL_SECONDS after it was signed, and other claims (another principal, a changed role, another
 * client address) get their own credential.
 */
export class ServiceCredentialSigner {
  private readonly signed = new Map<string, { token: string; renewAt: number }>();

  constructor(
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  sign(claims: Omit<ServiceClaims, 'exp'>): string {
    const key = JSON.stringify(claims);
    const now = this.now();
    const kept = this.signed.get(key);
    if (kept && now < kept.renewAt) return kept.token;
    const token = signServiceToken(this.secret, claims, now);
    this.signed.delete(key);
    if (this.signed.size >= KEPT) this.signed.delete(this.signed.keys().next().value!);
    this.signed.set(key, { token, renewAt: now + (TTL_SECONDS * 1000) / 2 });
    return token;
  }
}

/**
 * Verifies service credentials for a hot path (every request a service process receives): a
 * credential verified once is recognised by its exact text until it expires, without computing its
 * MAC again. Anything not seen before is verified in full; an expired one is refused as before.
 */
export class ServiceCredentialVerifier {
  private readonly valid = new Map<string, ServiceClaims>();

  constructor(
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  verify(token: string | undefined): ServiceClaims | null {
    if (!token) return null;
    const now = this.now();
    const known = this.valid.get(token);
    if (known) {
      if (known.exp * 1000 >= now) return known;
      this.valid.delete(token);
    }
    const claims = verifyServiceToken(this.secret, token, now);
    if (!claims) return null;
    // Shared by every request that sends this credential: read-only.
    if (claims.principal) Object.freeze(claims.principal);
    Object.freeze(claims);
    if (this.valid.size >= KEPT) this.valid.delete(this.valid.keys().next().value!);
    this.valid.set(token, claims);
    return claims;
  }
}
