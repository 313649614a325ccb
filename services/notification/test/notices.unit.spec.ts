/** What a reviewed finding tells (issue 53): a webhook `job.reviewed` when the job's violation count changed, nothing otherwise. */
import { describe, expect, it } from 'vitest';
import { noticeOf } from '../src/notices.js';

const event = (data: Record<string, unknown>) => ({ id: 'e1', type: 'finding_reviewed', streamId: 'job-j1', createdAt: new Date('2026-01-02T09:00:00Z'), data }) as unknown as Parameters<typeof noticeOf>[0];
const reviewed = { job_id: 'j1', user_id: 'crew-1', input_filename: 'direk.mp4', org_id: 'org-1', worker: 1, group: 'pic1,pic2,pic3', model_verdict: 'missing', verdict: 'worn', reviewer_id: 'manager-1' };

describe('a reviewed finding', () => {
  it('is a webhook-only job.reviewed carrying the count as reviewed when the count changed', () => {
    expect(noticeOf(event({ ...reviewed, violation_count: 0, previous_violation_count: 1 }))).toMatchObject({
      userId: 'crew-1',
      kind: 'report_ready',
      webhookEvent: 'job.reviewed',
      webhookOnly: true,
      jobId: 'j1',
      data: { job_id: 'j1', status: 'done', violation_count: 0, previous_violation_count: 1, org_id: 'org-1', reviewed_by: 'manager-1' },
    });
  });

  it('tells nothing when the count stayed (a confirmation)', () => {
    expect(noticeOf(event({ ...reviewed, verdict: 'confirmed', violation_count: 1, previous_violation_count: 1 }))).toBeNull();
  });
});
