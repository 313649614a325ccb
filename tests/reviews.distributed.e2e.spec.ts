/**
 * Reviews of findings (issue 53) on the distributed run: every service its own process over
 * PostgreSQL, Kafka, FerretDB and MinIO, behind the gateway. A member's video of workers analysed
 * to the end; the member cannot review it; the organisation's manager reviews one finding so that
 * the job's violation count changes; the job, its reviews, the compliance figures and the CSV
 * follow the reviewed verdict, and the audit log gets its entry over the bus.
 */
import { readFileSync } from 'node:fs';
import { engineInstalled } from '@baret/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoFixtures } from '../services/analysis/test/fixtures/videos.js';
import { eventually } from './helpers/app.js';
import { distributedEngines } from './helpers/distributed.js';
import { multipart } from './helpers/jobs.js';
import { startOrgStack, type OrgStack } from './helpers/orgStack.js';

const installed = Object.entries(distributedEngines()).every(([engine, ok]) => engineInstalled('reviews, distributed', ok, engine));

interface Detail {
  status: string;
  violation_count: number | null;
  result: {
    violations?: Array<{ worker: number; group: string[]; dismissed?: boolean; added_by_review?: boolean }>;
    workers?: Array<{ worker: number; items: Record<string, { verdict: string; reviewed_verdict?: string }> }>;
  } | null;
}

describe.skipIf(!installed)('reviews of findings on the distributed run', () => {
  let baret: OrgStack;
  let fx: Awaited<ReturnType<typeof videoFixtures>>;
  let workers: Buffer;

  beforeAll(async () => {
    fx = await videoFixtures();
    workers = readFileSync((await fx.photos('ppe.mp4', 6)).path);
    baret = await startOrgStack();
  }, 300_000);
  afterAll(async () => {
    await baret?.close();
    await fx?.dispose();
  }, 120_000);

  it('a manager’s review changes what counts: the job, the compliance figures, the CSV; the crew member is refused; the audit log has it', async () => {
    const manager = await baret.signUp('review-manager@example.com');
    const alice = await baret.signUp('review-alice@example.com');
    const org = await baret.createOrg(manager, 'Boğaziçi Elektrik');
    expect(org.status).toBe(201);
    const orgId = org.body.id;
    expect((await baret.join(orgId, manager, alice)).accepted.status).toBe(200);

    const body = await multipart(
      { payload: JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 2, frames_per_composite: 4 }) },
      { name: 'direk.mp4', type: 'video/mp4', data: workers },
    );
    const res = await fetch(`${baret.gateway}/analyze`, { method: 'POST', headers: { ...body.headers, authorization: `Bearer ${alice.token}` }, body: body.payload });
    expect(res.status).toBe(202);
    const { job_id: jobId } = (await res.json()) as { job_id: string };
    const done = await eventually(async () => {
      const job = (await baret.call<Detail>(`/jobs/${jobId}`, manager.token)).body;
      return ['done', 'error', 'cancelled'].includes(job.status) ? job : undefined;
    }, 240_000);
    expect(done.status).toBe('done');

    // A finding to review: a violation to dismiss, else an item the model said worn to mark missing.
    const violation = done.result?.violations?.[0];
    const worn = done.result?.workers?.flatMap((w) => Object.entries(w.items).filter(([, i]) => i.verdict === 'worn').map(([group]) => ({ worker: w.worker, group }))).at(0);
    const finding = violation ? { worker: violation.worker, group: violation.group.join(','), verdict: 'worn' } : worn ? { ...worn, verdict: 'missing' } : null;
    expect(finding, 'the video shows workers with findings').not.toBeNull();
    const before = done.violation_count!;
    const expected = violation ? before - 1 : before + 1;

    const refused = await baret.send<{ detail: string }>('POST', `/jobs/${jobId}/reviews`, alice.token, finding);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('Only the managers of the job’s organisation can review its findings.');

    const reviewed = await baret.send<{ violation_count: number; reviews: unknown[] }>('POST', `/jobs/${jobId}/reviews`, manager.token, finding);
    expect(reviewed.status, JSON.stringify(reviewed.body)).toBe(200);
    expect(reviewed.body).toMatchObject({ violation_count: expected, reviews: [expect.objectContaining({ worker: finding!.worker, group: finding!.group, verdict: finding!.verdict })] });
    // The same review again records nothing more.
    expect((await baret.send('POST', `/jobs/${jobId}/reviews`, manager.token, finding)).status).toBe(200);

    const after = (await baret.call<Detail & { logs: Array<{ event: string }> }>(`/jobs/${jobId}`, alice.token)).body;
    expect(after.violation_count).toBe(expected);
    expect(after.logs.filter((l) => l.event === 'finding_reviewed')).toHaveLength(1);
    if (violation) expect(after.result!.violations![0]).toMatchObject({ dismissed: true });
    else expect(after.result!.violations!.at(-1)).toMatchObject({ added_by_review: true, worker: finding!.worker });

    const compliance = await baret.call<{ rows: Array<{ violations: Record<string, number> }> }>(`/orgs/${orgId}/compliance?by=site&interval=month`, manager.token);
    expect(compliance.status).toBe(200);
    expect(compliance.body.rows.reduce((s, r) => s + Object.values(r.violations).reduce((a, b) => a + b, 0), 0)).toBe(expected);
    const csv = await fetch(`${baret.gateway}/orgs/${orgId}/jobs.csv?lang=tr`, { headers: { authorization: `Bearer ${manager.token}` } });
    const [header, row] = (await csv.text()).replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    const columns = header!.split(';').map((h, i) => (h.startsWith('İhlal: ') ? i : -1)).filter((i) => i >= 0);
    expect(columns.reduce((s, i) => s + Number(row!.split(';')[i]), 0)).toBe(expected);

    const audit = await eventually(async () => {
      const list = (await baret.call<{ entries: Array<{ action: string; actor_id: string; object_id: string }> }>(`/orgs/${orgId}/audit?action=job.finding_reviewed`, manager.token)).body.entries;
      return list.length > 0 ? list : undefined;
    }, 30_000);
    expect(audit).toEqual([expect.objectContaining({ actor_id: manager.id, object_id: jobId })]);
  }, 400_000);
});
