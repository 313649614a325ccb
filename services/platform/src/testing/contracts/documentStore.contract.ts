import { describe, expect, it } from 'vitest';
import type { DocumentStore } from '../../ports/documentStore.js';

export interface DocumentStoreHarness {
  store: DocumentStore;
  /** A collection name unique to this test run. */
  collection(name: string): string;
  dispose(): Promise<void>;
}

interface JobDoc extends Record<string, unknown> {
  job_id: string;
  user_id: string;
  status: string;
  created_at: string;
  cost: number;
  done: boolean;
  filename: string | null;
  quota: { plan_name: string };
}

const job = (n: number, over: Partial<JobDoc> = {}): JobDoc => ({
  job_id: `j${n}`,
  user_id: n % 2 ? 'u1' : 'u2',
  status: n % 3 === 0 ? 'done' : 'queued',
  created_at: `2026-01-0${n}T00:00:00.000Z`,
  cost: n / 10,
  done: n % 3 === 0,
  filename: `Video_${n}.MP4`,
  quota: { plan_name: n === 1 ? 'pro' : 'free' },
  ...over,
});

/** Runs a test on a fresh harness whose `jobs` collection holds jobs 1 to 6, and disposes of it afterwards. */
type WithJobs = (fn: (h: DocumentStoreHarness, c: ReturnType<DocumentStore['collection']>) => Promise<void>) => () => Promise<void>;

/** Writing documents: put, get, delete, the conditional writes and what a document keeps. */
function writeTests(withJobs: WithJobs): void {
  it('puts, gets, replaces and deletes by id', withJobs(async (_h, c) => {
    expect(await c.get('j1')).toEqual(job(1));
    expect(await c.get('nope')).toBeNull();
    await c.put('j1', job(1, { status: 'running' }));
    expect((await c.get('j1'))?.status).toBe('running');
    expect(await c.delete('j1')).toBe(true);
    expect(await c.delete('j1')).toBe(false);
    expect(await c.get('j1')).toBeNull();
  }));

  it('takes many puts of the same new id at once (a projection applied inline and by its runner)', withJobs(async (_h, c) => {
    for (let round = 0; round < 5; round++) {
      const id = `race-${round}`;
      await Promise.all(Array.from({ length: 8 }, (_, i) => c.put(id, job(7, { status: `s${i}` }))));
      expect((await c.get(id))?.status).toMatch(/^s[0-7]$/);
    }
  }));

  it('putIfNewer writes a newer revision only, atomically: of racing writers the highest revision stays', withJobs(async (_h, c) => {
    expect(await c.putIfNewer('rev', { ...job(7), revision: 2 })).toBe(true);
    expect(await c.putIfNewer('rev', { ...job(7, { status: 'older' }), revision: 1 })).toBe(false);
    expect(await c.putIfNewer('rev', { ...job(7, { status: 'same' }), revision: 2 })).toBe(false);
    expect(await c.get('rev')).toMatchObject({ status: 'queued', revision: 2 });
    expect(await c.putIfNewer('rev', { ...job(7, { status: 'newer' }), revision: 3 })).toBe(true);
    expect(await c.get('rev')).toMatchObject({ status: 'newer', revision: 3 });
    // A document written without a revision is replaced.
    expect(await c.putIfNewer('j1', { ...job(1, { status: 'revised' }), revision: 0 })).toBe(true);
    expect((await c.get('j1'))?.status).toBe('revised');
    for (let round = 0; round < 5; round++) {
      const id = `rev-race-${round}`;
      const order = Array.from({ length: 10 }, (_, i) => i).sort(() => Math.random() - 0.5);
      const written = await Promise.all(order.map((r) => c.putIfNewer(id, { ...job(8, { status: `r${r}` }), revision: r })));
      expect(written.some(Boolean)).toBe(true);
      expect(await c.get(id)).toMatchObject({ status: 'r9', revision: 9 });
    }
  }));

  it('insert writes only a new id, atomically: of racing inserts exactly one wins and its document stays', withJobs(async (_h, c) => {
    expect(await c.insert('ins', job(9, { status: 'first' }))).toBe(true);
    expect(await c.insert('ins', job(9, { status: 'second' }))).toBe(false);
    expect((await c.get('ins'))?.status).toBe('first');
    expect(await c.insert('j1', job(1, { status: 'again' }))).toBe(false);
    for (let round = 0; round < 5; round++) {
      const id = `ins-race-${round}`;
      const won = await Promise.all(Array.from({ length: 8 }, (_, i) => c.insert(id, job(9, { status: `w${i}` }))));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect((await c.get(id))?.status).toBe(`w${won.indexOf(true)}`);
    }
  }));

  it('keeps nested arrays and dates of a document as they were', withJobs(async (_h, c) => {
    const result = { required_groups: [['pic1', 'pic2'], ['pic3']], empty: [[]], deep: [[['x']]], list: [{ codes: [['a']] }] };
    await c.put('nested', { ...job(8), result } as unknown as JobDoc);
    expect((await c.get('nested'))?.result).toEqual(result);
    expect((await c.find({ where: { job_id: 'j8' } }))[0]?.result).toEqual(result);
  }));

  it('keeps collections apart', withJobs(async (h, c) => {
    const other = h.store.collection(h.collection('other'));
    expect(await other.get('j1')).toBeNull();
    expect(await c.count()).toBe(6);
  }));
}

/** Querying: filters, search, order and paging, counting and deleting by filter. */
function queryTests(withJobs: WithJobs): void {
  it('filters by equality, booleans, nested fields, $in, $ne and ranges', withJobs(async (_h, c) => {
    const ids = async (q: Parameters<typeof c.find>[0]) => (await c.find({ ...q, orderBy: [{ field: 'job_id' }] })).map((d) => d.job_id);
    expect(await ids({ where: { user_id: 'u1' } })).toEqual(['j1', 'j3', 'j5']);
    expect(await ids({ where: { done: true } })).toEqual(['j3', 'j6']);
    expect(await ids({ where: { 'quota.plan_name': 'pro' } })).toEqual(['j1']);
    expect(await ids({ where: { status: { $in: ['done'] }, user_id: 'u2' } })).toEqual(['j6']);
    expect(await ids({ where: { status: { $ne: 'queued' } } })).toEqual(['j3', 'j6']);
    expect(await ids({ where: { cost: { $gte: 0.2, $lt: 0.5 } } })).toEqual(['j2', 'j3', 'j4']);
    expect(await ids({ where: { created_at: { $gt: '2026-01-05' } } })).toEqual(['j5', 'j6']);
    expect(await ids({ where: { status: { $in: [] } } })).toEqual([]);
  }));

  it('matches null values and absent fields alike', withJobs(async (_h, c) => {
    await c.put('j2', job(2, { filename: null }));
    // A document written before the field existed (the jobs read model's to_review, issue 53).
    const { filename: _none, ...older } = job(4);
    await c.put('j4', older);
    expect((await c.find({ where: { filename: null }, orderBy: [{ field: 'job_id' }] })).map((d) => d.job_id)).toEqual(['j2', 'j4']);
    expect(await c.count({ filename: null, status: 'queued' })).toBe(2);
  }));

  it('searches case-insensitively across fields, literally', withJobs(async (_h, c) => {
    const found = await c.find({ search: { text: 'video_4.mp4', fields: ['job_id', 'filename'] } });
    expect(found.map((d) => d.job_id)).toEqual(['j4']);
    expect(await c.find({ search: { text: '%', fields: ['filename'] } })).toEqual([]);
    expect((await c.find({ search: { text: 'J5', fields: ['job_id', 'filename'] } })).map((d) => d.job_id)).toEqual(['j5']);
  }));

  it('sorts, limits and skips', withJobs(async (_h, c) => {
    const page = await c.find({ orderBy: [{ field: 'created_at', direction: 'desc' }], limit: 2, offset: 1 });
    expect(page.map((d) => d.job_id)).toEqual(['j5', 'j4']);
    const byUser = await c.find({ orderBy: [{ field: 'user_id' }, { field: 'cost', direction: 'desc' }], limit: 3 });
    expect(byUser.map((d) => d.job_id)).toEqual(['j5', 'j3', 'j1']);
  }));

  it('counts and deletes by filter', withJobs(async (_h, c) => {
    expect(await c.count({ user_id: 'u2' })).toBe(3);
    expect(await c.deleteMany({ user_id: 'u2' })).toBe(3);
    expect(await c.count()).toBe(3);
  }));
}

/** The queries every DocumentStore adapter answers alike. */
export function documentStoreContract(name: string, create: () => Promise<DocumentStoreHarness>): void {
  describe(`DocumentStore contract: ${name}`, () => {
    const withJobs: WithJobs = (fn) => async () => {
      const h = await create();
      try {
        const c = h.store.collection<JobDoc>(h.collection('jobs'));
        for (let n = 1; n <= 6; n++) await c.put(`j${n}`, job(n));
        await fn(h, c);
      } finally {
        await h.dispose();
      }
    };
    writeTests(withJobs);
    queryTests(withJobs);
  });
}
