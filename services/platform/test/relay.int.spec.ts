import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedInfrastructure, decodeEnvelope, runRelay, type Checkpoint, type Infrastructure, type IncomingMessage } from '@baret/platform';

let infra: Infrastructure | undefined;
let dir = '';
afterEach(async () => {
  await infra?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function collect(i: Infrastructure, group: string, topic: string, count: number): Promise<IncomingMessage[]> {
  const seen: IncomingMessage[] = [];
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const sub = await i.bus.subscribe(group, [topic], async (m) => {
    seen.push(m);
    if (seen.length >= count) done();
  });
  await Promise.race([finished, new Promise((r) => setTimeout(r, 15_000))]);
  await sub.close();
  return seen;
}

describe('event relay: event store → bus', () => {
  it('publishes committed contract events as binary protobuf envelopes keyed by stream, and skips the rest', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baret-relay-'));
    infra = await createEmbeddedInfrastructure({ BARET_DATA_DIR: dir });
    await infra.eventStore.appendToStream('user-u1', [
      { type: 'user_registered', data: { user_id: 'u1', email: 'a@example.com', full_name: null, is_admin: false, password_hash: 'secret-hash' } },
      { type: 'user_logged_in', data: { user_id: 'u1', at: 'now' } },
      { type: 'user_deleted', data: { user_id: 'u1', deleted_by: 'admin' } },
    ]);
    const controller = new AbortController();
    const relay = runRelay({ name: 'r', eventStore: infra.eventStore, bus: infra.bus, checkpoints: infra.documents.collection<Checkpoint>('checkpoints'), signal: controller.signal });
    const messages = await collect(infra, 'g', 'user-events', 2);
    controller.abort();
    await relay;
    expect(messages.map((m) => m.key)).toEqual(['user-u1', 'user-u1']);
    const decoded = messages.map((m) => decodeEnvelope(m.value));
    expect(decoded.map((d) => d.type)).toEqual(['user_registered', 'user_deleted']);
    expect(decoded[0]!.data).toEqual({ user_id: 'u1', email: 'a@example.com' });
    expect(JSON.stringify(decoded)).not.toContain('secret-hash');
    expect(decoded[1]).toMatchObject({ streamId: 'user-u1', revision: 2, data: { user_id: 'u1', deleted_by: 'admin' } });
    expect((await infra.documents.collection<Checkpoint>('checkpoints').get('r'))?.position).toBe(3);
  });

  it('resumes from its checkpoint after a restart without publishing twice', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baret-relay-'));
    infra = await createEmbeddedInfrastructure({ BARET_DATA_DIR: dir });
    const start = (i: Infrastructure) => {
      const controller = new AbortController();
      const p = runRelay({ name: 'r', eventStore: i.eventStore, bus: i.bus, checkpoints: i.documents.collection<Checkpoint>('checkpoints'), signal: controller.signal });
      return async () => {
        controller.abort();
        await p;
      };
    };
    await infra.eventStore.appendToStream('user-a', [{ type: 'user_promoted', data: { user_id: 'a' } }]);
    let stop = start(infra);
    expect(await collect(infra, 'first', 'user-events', 1)).toHaveLength(1);
    await stop();
    await infra.close();
    infra = await createEmbeddedInfrastructure({ BARET_DATA_DIR: dir });
    await infra.eventStore.appendToStream('user-b', [{ type: 'user_promoted', data: { user_id: 'b' } }]);
    stop = start(infra);
    const all = await collect(infra, 'second', 'user-events', 3);
    await stop();
    expect(all.map((m) => decodeEnvelope(m.value).data.user_id)).toEqual(['a', 'b']);
  });
});
