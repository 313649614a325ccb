import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AuthResolvers, Principal } from './auth.js';
import { SERVICE_HEADER, signServiceToken } from './serviceToken.js';
import type { ServiceClient } from './internal.js';

/**
 * Principals cached at the gateway, dropped when identity says they changed (docs/adr/0019).
 *
 * Identity's user and API-key projections announce, after applying an event, the user it concerns
 * (`user_registered`, `user_promoted`, `user_deleted`, `api_key_created`, `api_key_deleted`, …);
 * identity streams those announcements to the gateway (`GET /internal/principal-changes`, one JSON
 * line each, a heartbeat every 10 s). The gateway keeps principals only while that stream is
 * connected: a change empties the user's entries at once (a deleted key or user, a revoked admin
 * right stop working within the round trip of one line), a lost stream empties everything and
 * every request asks identity again until it is back. Entries also expire after `ttlMs`.
 */

/** What identity announces: the user whose principal (or one of whose API keys) changed. */
export interface PrincipalChange {
  user_id: string;
}

/** The in-process side at identity: projections emit, the stream route listens. */
export class PrincipalChanges extends EventEmitter<{ change: [PrincipalChange] }> {
  constructor() {
    super();
    // One listener per connected gateway.
    this.setMaxListeners(0);
  }

  announce(userId: string): void {
    this.emit('change', { user_id: userId });
  }
}

export const PRINCIPAL_CHANGES_PATH = '/principal-changes';
const HEARTBEAT_MS = 10_000;

/** Identity's internal route (under /internal): the announcements as they happen, one JSON line each. */
export function principalChangesRoute(changes: PrincipalChanges) {
  return async (app: FastifyInstance) => {
    const open = new Set<() => void>();
    // Streams never end by themselves: end them when the server closes, so shutdown does not wait.
    app.addHook('preClose', async () => {
      for (const end of open) end();
    });
    app.get(PRINCIPAL_CHANGES_PATH, async (request, reply) => {
      const raw = reply.raw;
      reply.hijack();
      raw.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store', 'x-request-id': String(request.id) });
      const send = (line: object) => raw.write(`${JSON.stringify(line)}\n`);
      const onChange = (change: PrincipalChange) => send(change);
      const heartbeat = setInterval(() => send({ heartbeat: true }), HEARTBEAT_MS);
      const end = () => {
        clearInterval(heartbeat);
        changes.off('change', onChange);
        open.delete(end);
        raw.end();
      };
      open.add(end);
      changes.on('change', onChange);
      request.raw.socket.setTimeout(0);
      raw.on('close', end);
      send({ ready: true });
    });
  };
}

interface Entry {
  principal: Omit<Principal, 'via'>;
  at: number;
}

export interface PrincipalCacheOptions {
  /** Longest an entry is used without asking identity again (a safety net). Default 60 s. */
  ttlMs?: number;
  now?: () => number;
}

/**
 * AuthResolvers that remember identity's answers while `live` (the change stream connected), and
 * forget a user's entries when a change for that user arrives. A lookup during which any change
 * arrived is used but not remembered (it may predate the change).
 */
export class PrincipalCache implements AuthResolvers {
  private users = new Map<string, Entry>();
  private keys = new Map<string, Entry>();
  private keysOfUser = new Map<string, Set<string>>();
  private generation = 0;
  private live = false;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly inner: AuthResolvers,
    options: PrincipalCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  isApiKey(token: string): boolean {
    return this.inner.isApiKey(token);
  }

  /** The change stream connected (true) or lost (false): either way, start from nothing. */
  setLive(live: boolean): void {
    this.live = live;
    this.clear();
  }

  get isLive(): boolean {
    return this.live;
  }

  /** A change for one user: their principal and every API key of theirs are asked again. */
  invalidate(userId: string): void {
    this.generation++;
    this.users.delete(userId);
    for (const hash of this.keysOfUser.get(userId) ?? []) this.keys.delete(hash);
    this.keysOfUser.delete(userId);
  }

  clear(): void {
    this.generation++;
    this.users.clear();
    this.keys.clear();
    this.keysOfUser.clear();
  }

  async userById(userId: string): Promise<Omit<Principal, 'via'> | null> {
    const hit = this.fresh(this.users.get(userId));
    if (hit) return hit;
    const generation = this.generation;
    const principal = await this.inner.userById(userId);
    if (principal && this.live && generation === this.generation) this.users.set(userId, { principal, at: this.now() });
    return principal;
  }

  async userByApiKey(token: string): Promise<Omit<Principal, 'via'> | null> {
    const hash = createHash('sha256').update(token).digest('base64url');
    const hit = this.fresh(this.keys.get(hash));
    if (hit) return hit;
    const generation = this.generation;
    const principal = await this.inner.userByApiKey(token);
    if (principal && this.live && generation === this.generation) {
      this.keys.set(hash, { principal, at: this.now() });
      let set = this.keysOfUser.get(principal.userId);
      if (!set) this.keysOfUser.set(principal.userId, (set = new Set()));
      set.add(hash);
    }
    return principal;
  }

  private fresh(entry: Entry | undefined): Omit<Principal, 'via'> | null {
    if (!entry || !this.live) return null;
    return this.now() - entry.at <= this.ttlMs ? entry.principal : null;
  }
}

/**
 * Follows identity's change stream for `cache` until `signal` aborts: connects, marks the cache
 * live on the first line, invalidates on every change, and on any failure (identity restarting, no
 * line for 3 heartbeats) marks it not live and connects again with backoff and jitter.
 */
export async function followPrincipalChanges(options: {
  identity: ServiceClient;
  secret: string;
  cache: PrincipalCache;
  log: Logger;
  signal: AbortSignal;
  /** Called each time the stream is (re)connected. */
  onConnected?: () => void;
}): Promise<void> {
  const { identity, secret, cache, log, signal } = options;
  let failures = 0;
  while (!signal.aborted) {
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let watchdog: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => abort.abort(), HEARTBEAT_MS * 3);
    };
    try {
      arm();
      const res = await fetch(new URL(`/internal${PRINCIPAL_CHANGES_PATH}`, identity.baseUrl), {
        headers: { [SERVICE_HEADER]: signServiceToken(secret, { iss: 'gateway' }) },
        signal: abort.signal,
      });
      if (!res.ok || !res.body) throw new Error(`identity answered ${res.status}`);
      let buffered = '';
      const decoder = new TextDecoder();
      for await (const chunk of res.body) {
        arm();
        buffered += decoder.decode(chunk as Uint8Array, { stream: true });
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = JSON.parse(buffered.slice(0, newline)) as { ready?: boolean; user_id?: string };
          buffered = buffered.slice(newline + 1);
          if (line.ready) {
            cache.setLive(true);
            options.onConnected?.();
            failures = 0;
            log.info('principal changes followed: caching principals');
          } else if (typeof line.user_id === 'string') cache.invalidate(line.user_id);
        }
      }
      throw new Error('identity ended the stream');
    } catch (e) {
      if (cache.isLive) log.warn({ err: e instanceof Error ? e.message : String(e) }, 'principal changes lost: not caching principals until they are back');
      cache.setLive(false);
    } finally {
      clearTimeout(watchdog);
      signal.removeEventListener('abort', onAbort);
    }
    if (signal.aborted) return;
    failures++;
    const delay = Math.min(10_000, 250 * 2 ** Math.min(failures, 6)) * (0.5 + Math.random() / 2);
    await new Promise((resolve) => setTimeout(resolve, delay).unref());
  }
}
