import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { KeyedMutex, TooManyRequestsError, type DocumentStore } from '@baret/platform';

/**
 * Slowing down online password guessing without letting a stranger lock the owner out
 * (docs/adr/0005-login-throttling.md; OWASP Authentication Cheat Sheet, "device cookies").
 *
 * A login attempt comes from a *source*: the client's address, and the device cookie the server
 * gave that client at an earlier successful login. A source is *trusted* for an account when it
 * holds a valid device cookie for it, or when its address logged in to the account before.
 * - Trusted source: only its own counter for this account applies (5 free failures, then a delay
 *   that doubles with each failure, at most 15 minutes). A stranger's guesses never touch it.
 * - Untrusted source: three counters apply — its address over all accounts (20 free failures, then
 *   doubling delays), the pair account × address (5 free, then doubling delays), and the account
 *   for all untrusted sources together (5 failures per 15 minutes, then untrusted sources wait
 *   until the window passes; trusted sources still get in).
 * Each attempt is counted *before* the password is checked, one at a time per key, so a burst of
 * concurrent guesses cannot all pass the check: at most the free allowance is ever verified.
 * A success clears the counters of that source and account.
 */
export interface ThrottleRules {
  /** Failures of the account from untrusted sources per window before they must wait. */
  accountMax: number;
  windowMs: number;
  pairFree: number;
  addressFree: number;
  trustedFree: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_THROTTLE: ThrottleRules = {
  accountMax: 5,
  windowMs: 15 * 60_000,
  pairFree: 5,
  addressFree: 20,
  trustedFree: 5,
  baseDelayMs: 1000,
  maxDelayMs: 15 * 60_000,
};

interface Counter extends Record<string, unknown> {
  /** Failures (attempts reserved and not cleared by a success) in the current run. */
  failures: number;
  /** For the account window: when the first counted failure happened. */
  since: string;
  /** No attempt from this key before this time. */
  blocked_until: string | null;
}

export interface LoginSource {
  ip: string;
  /** The device cookie the client sent, if any. */
  device?: string;
}

const hash = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 40);

export class LoginThrottle {
  private readonly counters;
  private readonly known;
  private readonly mutex = new KeyedMutex();

  constructor(
    documents: DocumentStore,
    private readonly secret: string,
    private readonly clock: () => Date,
    private readonly rules: ThrottleRules = DEFAULT_THROTTLE,
  ) {
    this.counters = documents.collection<Counter>('identity_login_throttle');
    this.known = documents.collection<{ at: string }>('identity_login_sources');
  }

  /** A device cookie value for `email`: a nonce and its MAC, so it cannot be made for another account. */
  deviceToken(email: string): string {
    const nonce = randomBytes(12).toString('base64url');
    return `${nonce}.${this.mac(email, nonce)}`;
  }

  private mac(email: string, nonce: string): string {
    return createHmac('sha256', this.secret).update(`device:${email}:${nonce}`).digest('base64url');
  }

  private validDevice(email: string, token: string | undefined): boolean {
    if (!token) return false;
    const [nonce, mac] = token.split('.');
    if (!nonce || !mac) return false;
    const expected = Buffer.from(this.mac(email, nonce));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private async trusted(email: string, source: LoginSource): Promise<boolean> {
    return this.validDevice(email, source.device) || (await this.known.get(hash(`${email}|${source.ip}`))) !== null;
  }

  /**
   * Reserves one attempt for `email` from `source`, or throws a 429 saying how long to wait.
   * The reservation counts as a failure until `succeeded` clears it.
   */
  async reserve(email: string, source: LoginSource): Promise<{ keys: string[] }> {
    const trusted = await this.trusted(email, source);
    const keys = trusted
      ? [`trusted:${hash(`${email}|${source.ip}|${source.device ?? ''}`)}`]
      : [`address:${hash(source.ip)}`, `pair:${hash(`${email}|${source.ip}`)}`, `account:${hash(email)}`];
    const reserved: string[] = [];
    try {
      for (const key of keys) {
        await this.mutex.run(key, () => this.take(key));
        reserved.push(key);
      }
    } catch (e) {
      // Refused by a later counter: the attempt was not made, so the earlier ones give it back.
      for (const key of reserved) await this.mutex.run(key, () => this.giveBack(key));
      throw e;
    }
    return { keys };
  }

  /** The password was right: this source starts afresh, and its address becomes known for the account. */
  async succeeded(email: string, source: LoginSource, reservation: { keys: string[] }): Promise<void> {
    for (const key of reservation.keys) {
      if (key.startsWith('address:')) await this.mutex.run(key, () => this.giveBack(key));
      else await this.mutex.run(key, () => this.counters.delete(key).then(() => undefined));
    }
    await this.known.put(hash(`${email}|${source.ip}`), { at: this.clock().toISOString() });
  }

  private free(key: string): number {
    if (key.startsWith('address:')) return this.rules.addressFree;
    if (key.startsWith('pair:')) return this.rules.pairFree;
    if (key.startsWith('trusted:')) return this.rules.trustedFree;
    return this.rules.accountMax;
  }

  private async take(key: string): Promise<void> {
    const now = this.clock().getTime();
    let c = await this.counters.get(key);
    if (key.startsWith('account:') && c && now - Date.parse(c.since) >= this.rules.windowMs) c = null;
    if (c?.blocked_until && Date.parse(c.blocked_until) > now) throw this.wait(Date.parse(c.blocked_until) - now);
    const failures = (c?.failures ?? 0) + 1;
    const since = c?.since ?? new Date(now).toISOString();
    let blockedUntil: string | null = null;
    if (key.startsWith('account:')) {
      if (failures > this.rules.accountMax) throw this.wait(Date.parse(since) + this.rules.windowMs - now);
      if (failures === this.rules.accountMax) blockedUntil = new Date(Date.parse(since) + this.rules.windowMs).toISOString();
    } else if (failures >= this.free(key)) {
      const delay = Math.min(this.rules.maxDelayMs, this.rules.baseDelayMs * 2 ** (failures - this.free(key)));
      blockedUntil = new Date(now + delay).toISOString();
    }
    await this.counters.put(key, { failures, since, blocked_until: blockedUntil });
  }

  private async giveBack(key: string): Promise<void> {
    const c = await this.counters.get(key);
    if (!c) return;
    const failures = Math.max(0, c.failures - 1);
    await this.counters.put(key, { ...c, failures, blocked_until: failures < this.free(key) ? null : c.blocked_until });
  }

  private wait(ms: number): TooManyRequestsError {
    const seconds = Math.max(1, Math.ceil(ms / 1000));
    const message =
      seconds > 120
        ? `Too many failed login attempts. Please wait ${Math.ceil(seconds / 60)} minutes and try again.`
        : `Too many failed login attempts. Please wait ${seconds} seconds and try again.`;
    return new TooManyRequestsError(message, { retryAfterSeconds: seconds });
  }
}
