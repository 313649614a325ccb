import { hostname } from 'node:os';
import type { Collection } from '@baret/platform';

/**
 * Claims: before a notification process sends an e-mail, a push or a webhook attempt, it claims
 * that send (one key per event id + person + channel, or per delivery attempt), so two replicas
 * handling one event (a Kafka rebalance, a redelivery) or polling the same due delivery never both
 * send it. A claim is a document inserted atomically (`Collection.insert`: the unique id decides,
 * on every adapter); it holds for a lease, so a process that died holding one does not block the
 * send for ever: after the lease the next claimer inserts the next generation (`<key>#<n+1>`),
 * which again only one can. The process that holds a claim may go on (its earlier try ended: one
 * event is handled at a time).
 */
export interface ClaimDoc extends Record<string, unknown> {
  id: string;
  key: string;
  owner: string;
  /** Unix ms: until then nobody else may take it. */
  lease_until: number;
  claimed_at: string;
}

/**
 * Another process is sending this right now. The bus treats it like a dependency that is not
 * there yet (`unavailable`): it waits and delivers the message again, never dead-lettering it.
 */
export class ClaimedElsewhere extends Error {
  readonly unavailable = true;
  constructor(key: string) {
    super(`another notification process is sending ${key}`);
    this.name = 'ClaimedElsewhere';
  }
}

/**
 * This process is stopping: the message is left for the bus to deliver again (not acknowledged),
 * like a dependency that is not there, so it is never dead-lettered for it.
 */
export class Stopping extends Error {
  readonly unavailable = true;
  constructor() {
    super('the notification service is stopping: left for the next try');
    this.name = 'Stopping';
  }
}

/** This process: the pod (hostname) and the process in it; a container restarted in its pod is the same owner. */
export const defaultOwner = (): string => `${hostname()}:${process.pid}`;

export function createClaims(col: Collection<ClaimDoc>, opts: { owner: string; leaseMs: number; now?: () => number }) {
  const now = opts.now ?? Date.now;
  /** The newest generation of `key`'s claim (null when never claimed), and the number the next one takes. */
  async function latest(key: string): Promise<{ last: ClaimDoc | null; gen: number }> {
    let gen = 0;
    let last: ClaimDoc | null = null;
    for (;;) {
      const doc = await col.get(`${key}#${gen}`);
      if (!doc) return { last, gen };
      last = doc;
      gen++;
    }
  }
  /** Whether this process holds `key` now (taking it when free, or when its holder's lease is over). */
  async function claim(key: string): Promise<boolean> {
    const { last, gen } = await latest(key);
    if (last?.owner === opts.owner) return true;
    const t = now();
    if (last && last.lease_until > t) return false;
    const id = `${key}#${gen}`;
    return col.insert(id, { id, key, owner: opts.owner, lease_until: t + opts.leaseMs, claimed_at: new Date(t).toISOString() });
  }
  /** Claims `key` or throws ClaimedElsewhere (the bus comes back to it). */
  async function claimOrWait(key: string): Promise<void> {
    if (!(await claim(key))) throw new ClaimedElsewhere(key);
  }
  /**
   * Gives up `key` if this process holds it (a send it did not make, cut off by a stop): another
   * process, or this one restarted, may take it at once rather than when the lease ends. The claim
   * is kept but owned by nobody with its lease over, so every next claimer, this one too, must
   * insert the next generation, which only one can (deleting it would let an earlier holder of an
   * older generation think it still held it).
   */
  async function release(key: string): Promise<void> {
    const { last } = await latest(key);
    if (last?.owner === opts.owner) await col.put(last.id, { ...last, owner: '', lease_until: 0 });
  }
  return { claim, claimOrWait, release, owner: opts.owner };
}
export type Claims = ReturnType<typeof createClaims>;
