import { Blob as NodeBlob } from 'node:buffer';

import { beforeEach, describe, expect, it, vi } from 'vitest';

import type { QueueSession, QueuedUpload } from '@/features/analyze/offline/queue-db';
import { HttpResponse, http, server } from '@/testing/server';

/** The queue in memory instead of IndexedDB (jsdom has none); the same claim rules. */
const store = vi.hoisted(() => ({
  items: new Map<string, QueuedUpload>(),
  files: new Map<string, Blob>(),
  sessions: new Map<string, QueueSession>(),
  history: [] as Array<{ id: string; state: string; bytesSent: number }>,
}));
vi.mock('@/features/analyze/offline/queue-db', () => {
  const record = (item: QueuedUpload) => store.history.push({ id: item.id, state: item.state, bytesSent: item.bytesSent });
  return {
    listAllQueued: () => Promise.resolve([...store.items.values()]),
    getQueued: (id: string) => Promise.resolve(store.items.get(id)),
    getQueuedFile: (id: string) => Promise.resolve(store.files.get(id)),
    getSession: (userId: string) => Promise.resolve(store.sessions.get(userId)),
    removeQueued: (id: string) => {
      store.items.delete(id);
      store.files.delete(id);
      return Promise.resolve();
    },
    claimQueued: (id: string, owner: string) => {
      const item = store.items.get(id);
      if (!item || item.state === 'failed' || (item.claim && item.claim.owner !== owner && item.claim.until > Date.now())) return Promise.resolve(null);
      const next = { ...item, state: 'uploading' as const, claim: { owner, until: Date.now() + 60_000 } };
      store.items.set(id, next);
      record(next);
      return Promise.resolve(next);
    },
    renewClaim: (id: string, owner: string, patch: Partial<QueuedUpload>) => {
      const item = store.items.get(id);
      if (!item || item.claim?.owner !== owner) return Promise.resolve(false);
      const next = { ...item, ...patch };
      store.items.set(id, next);
      record(next);
      return Promise.resolve(true);
    },
    releaseClaim: (id: string, _owner: string, patch: Partial<QueuedUpload>) => {
      const item = store.items.get(id);
      if (item) store.items.set(id, { ...item, ...patch, claim: null });
      return Promise.resolve();
    },
  };
});

const { replayFromServiceWorker } = await import('@/features/analyze/offline/sw-replay');

const BASE = 'http://api.test';
const params = { job_type: 'auto', sampling: 'uniform' as const, target_composites: 2, frames_per_composite: 4, dedupe_by_equipment: true };

function queue(id: string, userId = 'u1', size = 300_000): void {
  store.items.set(id, {
    id,
    userId,
    name: `${id}.mp4`,
    type: 'video/mp4',
    size,
    params,
    createdAt: `2025-01-01T00:00:0${store.items.size}Z`,
    state: 'waiting',
    bytesSent: 0,
    uploadUrl: null,
    error: null,
  });
  store.files.set(id, new NodeBlob([new Uint8Array(size)]) as unknown as Blob);
}

/** The server: tus at /uploads and POST /analyze, with what it was sent. */
function api(analyze: (payload: Record<string, unknown>) => Response = () => HttpResponse.json({ job_id: 'job-1', status: 'queued' }, { status: 202 })) {
  const seen: string[] = [];
  let received = 0;
  server.use(
    http.post(`${BASE}/uploads`, ({ request }) => {
      seen.push(`POST /uploads ${request.headers.get('authorization')}`);
      return new HttpResponse(null, { status: 201, headers: { Location: '/uploads/abc' } });
    }),
    http.patch(`${BASE}/uploads/abc`, async ({ request }) => {
      received += (await request.arrayBuffer()).byteLength;
      return new HttpResponse(null, { status: 204, headers: { 'Upload-Offset': String(received) } });
    }),
    http.post(`${BASE}/analyze`, async ({ request }) => {
      const form = await request.formData();
      const payload = JSON.parse(String(form.get('payload'))) as Record<string, unknown>;
      seen.push(`POST /analyze ${String(payload.upload_id)} ${request.headers.get('authorization')} ${request.headers.get('accept-language')}`);
      return analyze(payload);
    }),
  );
  return seen;
}

beforeEach(() => {
  store.items.clear();
  store.files.clear();
  store.sessions.clear();
  store.history.length = 0;
  store.sessions.set('u1', { userId: 'u1', token: 'tok-1', apiBase: BASE, language: 'en', updatedAt: '' });
});

describe('replayFromServiceWorker', () => {
  it('uploads with the mirrored session, starts the job with payload.upload_id, then removes the item and reports the job', async () => {
    queue('a');
    const seen = api();
    const jobs: string[] = [];
    const result = await replayFromServiceWorker({ defaultApiBase: 'http://unused', onJob: (job, item) => jobs.push(`${job.job_id} ${item.name}`) });
    expect(result).toEqual({ done: 1, networkFailed: false });
    expect(seen).toEqual(['POST /uploads Bearer tok-1', 'POST /analyze abc Bearer tok-1 en']);
    expect(jobs).toEqual(['job-1 a.mp4']);
    expect(store.items.size).toBe(0);
    // The waiting list saw it uploading, with progress, before it left.
    expect(store.history.map((h) => h.state)).toContain('uploading');
    expect(Math.max(...store.history.map((h) => h.bytesSent))).toBe(300_000);
  });

  it('a 401 keeps the item queued as loginNeeded (no retry of the sync), with its upload address to resume', async () => {
    queue('a');
    api(() => HttpResponse.json({ detail: 'Please log in to continue.' }, { status: 401 }));
    const result = await replayFromServiceWorker({ defaultApiBase: BASE, onJob: () => undefined });
    expect(result).toEqual({ done: 0, networkFailed: false });
    expect(store.items.get('a')).toMatchObject({ state: 'loginNeeded', error: { key: 'offline.queue.loginNeeded' }, uploadUrl: `${BASE}/uploads/abc`, bytesSent: 300_000 });
  });

  it('another 4xx marks the item failed with the server detail; a network failure leaves it waiting and asks for another sync', async () => {
    queue('a');
    api(() => HttpResponse.json({ detail: 'Aylık kotanız doldu.' }, { status: 403 }));
    await replayFromServiceWorker({ defaultApiBase: BASE, onJob: () => undefined });
    expect(store.items.get('a')).toMatchObject({ state: 'failed', error: { text: 'Aylık kotanız doldu.' } });

    queue('b');
    server.use(http.post(`${BASE}/uploads`, () => HttpResponse.error()));
    const result = await replayFromServiceWorker({ defaultApiBase: BASE, onJob: () => undefined, retryDelays: [] });
    expect(result.networkFailed).toBe(true);
    expect(store.items.get('b')).toMatchObject({ state: 'waiting', uploadUrl: null, claim: null });
  });

  it('skips an item another uploader (a page) has claimed, and items of a user without a session', async () => {
    queue('a');
    store.items.set('a', { ...store.items.get('a')!, state: 'uploading', claim: { owner: 'page-1', until: Date.now() + 60_000 } });
    queue('b', 'u2');
    const seen = api();
    const result = await replayFromServiceWorker({ defaultApiBase: BASE, onJob: () => undefined });
    expect(result).toEqual({ done: 0, networkFailed: false });
    expect(seen).toEqual([]);
    expect(store.items.size).toBe(2);
  });
});
