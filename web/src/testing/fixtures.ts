import type { JobDetail, Quota, User } from '@/types/api';

export function quota(overrides: Partial<Quota> = {}): Quota {
  return {
    plan_name: 'free',
    daily_limit: null,
    monthly_limit: null,
    lifetime_limit: 2,
    daily_used: 0,
    monthly_used: 0,
    lifetime_used: 0,
    can_analyze: true,
    ...overrides,
  };
}

export function user(overrides: Partial<User> = {}): User {
  return {
    id: 'u1',
    email: 'ayse@example.com',
    full_name: 'Ayşe Yılmaz',
    is_admin: false,
    last_login_at: '2025-03-04T15:06:07Z',
    created_at: '2025-01-02T08:09:00Z',
    quota: quota(),
    ...overrides,
  };
}

export const admin = (overrides: Partial<User> = {}) => user({ id: 'a1', email: 'admin@example.com', full_name: 'Admin Kişi', is_admin: true, quota: quota({ plan_name: 'enterprise', lifetime_limit: null }), ...overrides });

export function job(overrides: Partial<JobDetail> = {}): JobDetail {
  return {
    job_id: 'job-1',
    status: 'queued',
    created_at: '2025-03-04T10:00:00Z',
    input_filename: 'pole.mp4',
    model_used: null,
    estimated_cost: null,
    currency: 'USD',
    error: null,
    logs: [{ event: 'job_queued', timestamp: '2025-03-04T10:00:00Z' }],
    result: null,
    ...overrides,
  };
}

export function doneJob(overrides: Partial<JobDetail> = {}): JobDetail {
  return job({
    status: 'done',
    model_used: 'baret-offline (human centernet+movenet, learned PPE classifier)',
    estimated_cost: 0.0123,
    logs: [
      { event: 'job_queued', timestamp: '2025-03-04T10:00:00Z' },
      { event: 'job_started', timestamp: '2025-03-04T10:00:05Z' },
      { event: 'job_completed', timestamp: '2025-03-04T10:01:30Z' },
    ],
    result: {
      job_type: 'ag_pano_bakim',
      job_display_name: 'LV panel maintenance',
      required_groups: [['pic1'], ['pic7', 'pic8'], ['pic30']],
      required_groups_name: ['Helmet', 'Insulating gloves', 'Voltage tester'],
      missing_groups: [['pic7', 'pic8']],
      missing_groups_name: ['Insulating gloves'],
      satisfied_groups: [['pic1']],
      satisfied_equipment: ['pic1'],
      satisfied_equipment_name: ['Helmet'],
      not_checked: [['pic30']],
      not_checked_name: ['Voltage tester'],
      composites_processed: 6,
      model_used: 'baret-offline (human centernet+movenet, learned PPE classifier)',
      token_usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, estimated_cost: 0.0123, currency: 'USD' },
      evidence: [{ code: 'pic1', name: 'Helmet', composite_index: 0, frame_time_sec: 3.5, image_url: '/jobs/job-1/evidence/0' }],
      duration_seconds: 85,
    },
    ...overrides,
  });
}
