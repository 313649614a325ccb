import { createHash, createPrivateKey, createPublicKey, hkdfSync, type KeyObject } from 'node:crypto';
import { createSigner, createVerifier } from 'fast-jwt';

/**
 * Access tokens (docs/adr/0019): EdDSA (Ed25519) JWTs that must carry `exp` and `sub`. Identity
 * (and the embedded run) signs them with a private key derived from `JWT_SECRET`; whoever checks
 * them needs only the public keys, published as a JSON Web Key Set, so the gateway of the
 * distributed run verifies tokens itself and holds no secret that could mint one.
 */

export interface TokenClaims {
  sub: string;
  /** The user's session version at sign-in (absent: 0); a password reset ends older sessions. */
  sv?: number;
  /** When the token was issued (seconds): a recent sign-in is proof enough for erasing an account without a password (issue 30). */
  iat?: number;
}

/** A public key of the set, RFC 8037 (OKP, Ed25519). */
export interface Jwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export interface Jwks {
  keys: Jwk[];
}

export const ACCESS_TOKEN_ALGORITHM = 'EdDSA';

/** PKCS#8 prefix of an Ed25519 private key; the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

interface KeyPair {
  kid: string;
  privateKey: KeyObject;
  jwk: Jwk;
}

/**
 * The key pair behind a secret: the same secret gives the same key on every replica and after every
 * restart (HKDF-SHA256 of the secret as the Ed25519 seed), so tokens survive both and no key file
 * has to be shared. The key id is the RFC 7638 thumbprint of the public key.
 */
export function keyPairOf(secret: string): KeyPair {
  const seed = Buffer.from(hkdfSync('sha256', secret, 'baret', 'access-token-ed25519', 32));
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' }) as { x: string };
  const kid = createHash('sha256').update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x })).digest('base64url');
  return { kid, privateKey, jwk: { kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' } };
}

/**
 * The signing side: tokens signed with the current secret's key; the set publishes that key and,
 * during a rotation, the previous secret's (tokens it signed stay valid until they expire).
 */
export function accessTokenKeys(secret: string, previousSecret?: string): { sign: (userId: string, ttlSeconds: number, sessionVersion?: number) => string; jwks: Jwks } {
  const current = keyPairOf(secret);
  const previous = previousSecret && previousSecret !== secret ? keyPairOf(previousSecret) : null;
  const signers = new Map<number, (payload: Record<string, unknown>) => string>();
  const pem = current.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  return {
    sign: (userId, ttlSeconds, sessionVersion = 0) => {
      let signer = signers.get(ttlSeconds);
      if (!signer) signers.set(ttlSeconds, (signer = createSigner({ key: pem, algorithm: ACCESS_TOKEN_ALGORITHM, kid: current.kid, expiresIn: ttlSeconds * 1000 })));
      return signer(sessionVersion ? { sub: userId, sv: sessionVersion } : { sub: userId });
    },
    jwks: { keys: previous ? [current.jwk, previous.jwk] : [current.jwk] },
  };
}

export class InvalidTokenError extends Error {}

const headerOf = (token: string): { kid?: unknown; alg?: unknown } | null => {
  const dot = token.indexOf('.');
  if (dot <= 0 || dot > 1024) return null;
  try {
    return JSON.parse(Buffer.from(token.slice(0, dot), 'base64url').toString('utf8')) as { kid?: unknown; alg?: unknown };
  } catch {
    return null;
  }
};

export interface VerifierOptions {
  /** How often the key set is fetched again in any case (keys removed from it stop verifying). Default 10 minutes. */
  refreshMs?: number;
  /** A token naming an unknown key fetches the set again, at most this often. Default 1 s. */
  minRefetchMs?: number;
  now?: () => number;
}

/**
 * Checks access tokens against a key set that may change: keys are picked by `kid`; a token naming
 * a key not in the set fetches the set again (a rotation at the signer), at most once a second; the
 * set is fetched again every `refreshMs` anyway, so a key taken out of it stops verifying. Verified
 * tokens are remembered (the exact string, until their `exp`, while their key is in the set), so a
 * token polled many times a second is checked once.
 */
export class AccessTokenVerifier {
  private verifiers = new Map<string, (token: string) => TokenClaims>();
  /** Tokens verified already (the exact string), with the key that verified them and their expiry. */
  private verified = new Map<string, { claims: TokenClaims; kid: string; expiresAt: number }>();
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private inflight: Promise<void> | null = null;
  private readonly refreshMs: number;
  private readonly minRefetchMs: number;
  private readonly now: () => number;

  constructor(
    private readonly source: () => Jwks | Promise<Jwks>,
    options: VerifierOptions = {},
  ) {
    this.refreshMs = options.refreshMs ?? 600_000;
    this.minRefetchMs = options.minRefetchMs ?? 1_000;
    this.now = options.now ?? Date.now;
  }

  /** The claims of a valid token; InvalidTokenError for anything else (bad signature, expired, no exp or sub, another algorithm). */
  async verify(token: string): Promise<TokenClaims> {
    const known = this.verified.get(token);
    if (known && known.expiresAt > this.now() && this.verifiers.has(known.kid) && this.now() - this.fetchedAt <= this.refreshMs) return known.claims;
    const header = headerOf(token);
    if (!header || header.alg !== ACCESS_TOKEN_ALGORITHM || typeof header.kid !== 'string') throw new InvalidTokenError('not an access token of this service');
    // The periodic fetch failing (the signer restarting) keeps the keys there are.
    if (this.now() - this.fetchedAt > this.refreshMs) await this.refresh().catch((e: unknown) => {
      if (this.verifiers.size === 0) throw e;
    });
    let verifier = this.verifiers.get(header.kid);
    if (!verifier && this.now() - this.fetchedAt >= this.minRefetchMs) {
      await this.refresh();
      verifier = this.verifiers.get(header.kid);
    }
    if (!verifier) throw new InvalidTokenError('signed with an unknown key');
    let claims: TokenClaims & { exp?: number };
    try {
      claims = verifier(token);
    } catch (e) {
      throw new InvalidTokenError(e instanceof Error ? e.message : String(e));
    }
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= this.now()) throw new InvalidTokenError('expired');
    if (this.verified.size >= 10_000) this.verified.clear();
    const kept: TokenClaims = {
      sub: claims.sub,
      ...(typeof claims.sv === 'number' ? { sv: claims.sv } : {}),
      ...(typeof claims.iat === 'number' ? { iat: claims.iat } : {}),
    };
    this.verified.set(token, { claims: kept, kid: header.kid, expiresAt: claims.exp * 1000 });
    return kept;
  }

  /** Fetches the key set once (concurrent callers share the fetch); a failed fetch keeps the keys it had. */
  refresh(): Promise<void> {
    this.inflight ??= (async () => {
      try {
        const set = await this.source();
        const next = new Map<string, (token: string) => TokenClaims>();
        for (const jwk of set.keys) {
          if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.kid !== 'string') continue;
          const existing = this.verifiers.get(jwk.kid);
          const pem = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' }).export({ format: 'pem', type: 'spki' }).toString();
          next.set(jwk.kid, existing ?? (createVerifier({ key: pem, algorithms: [ACCESS_TOKEN_ALGORITHM], requiredClaims: ['exp', 'sub'] }) as (token: string) => TokenClaims));
        }
        this.verifiers = next;
      } finally {
        this.fetchedAt = this.now();
        this.inflight = null;
      }
    })();
    return this.inflight;
  }
}
