import type { DecodedEnvelope, Lang } from '@baret/platform';

/**
 * What the people are told, from the events the service consumes: a job's report is ready, its
 * analysis failed, its owner's quota runs low or is used up, and (the service's own) a webhook was
 * disabled. Each notice names its kind (the preference it falls under), the webhook event it is,
 * its texts in Turkish and English, and the page it links to.
 */
export const NOTICE_KINDS = ['report_ready', 'analysis_failed', 'quota'] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];
export const CHANNELS = ['email', 'push', 'in_app'] as const;
export type Channel = (typeof CHANNELS)[number];

/** `job.reviewed` (issue 53): a review changed a done job's violation count; its data carries the count as reviewed. */
export const WEBHOOK_EVENTS = ['job.completed', 'job.failed', 'quota.low', 'job.reviewed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface Notice {
  /** The source event's id: the idempotency key of everything sent for it. */
  eventId: string;
  userId: string;
  /** Preference kind; `webhook_disabled` is always sent (in-app and e-mail). */
  kind: NoticeKind | 'webhook_disabled';
  webhookEvent: WebhookEvent | null;
  jobId: string | null;
  /** Path of the page it links to, e.g. /dashboard/jobs/<id>. */
  path: string;
  /** Data for the webhook body and the texts. */
  data: Record<string, string | number | null>;
  createdAt: string;
  /** Sent to webhooks only: no e-mail, push or in-app item (a review's changed count is for systems, not a person's inbox). */
  webhookOnly?: boolean;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0) || 0);

/** The notice an event raises, or null for events that tell nobody anything. */
export function noticeOf(event: DecodedEnvelope): Notice | null {
  const d = event.data;
  const base = { eventId: event.id, userId: str(d.user_id), createdAt: event.createdAt.toISOString() };
  if (!base.userId) return null;
  switch (event.type) {
    case 'job_completed':
      return {
        ...base,
        kind: 'report_ready',
        webhookEvent: 'job.completed',
        jobId: str(d.job_id),
        path: `/dashboard/jobs/${str(d.job_id)}`,
        data: { job_id: str(d.job_id), status: 'done', input_filename: str(d.input_filename), violation_count: num(d.violation_count), ...org(d) },
      };
    case 'job_failed':
      return {
        ...base,
        kind: 'analysis_failed',
        webhookEvent: 'job.failed',
        jobId: str(d.job_id),
        path: `/dashboard/jobs/${str(d.job_id)}`,
        data: { job_id: str(d.job_id), status: 'error', input_filename: str(d.input_filename), error: str(d.error), ...org(d) },
      };
    case 'finding_reviewed': {
      // Only a review that changed the job's violation count is news to a subscriber (the report's figures changed).
      if (num(d.violation_count) === num(d.previous_violation_count)) return null;
      return {
        ...base,
        kind: 'report_ready',
        webhookEvent: 'job.reviewed',
        webhookOnly: true,
        jobId: str(d.job_id),
        path: `/dashboard/jobs/${str(d.job_id)}`,
        data: {
          job_id: str(d.job_id),
          status: 'done',
          input_filename: str(d.input_filename),
          violation_count: num(d.violation_count),
          previous_violation_count: num(d.previous_violation_count),
          reviewed_by: str(d.reviewer_id),
          ...org(d),
        },
      };
    }
    case 'quota_threshold_reached': {
      const orgQuota = /^org_(.+)$/.exec(base.userId)?.[1] ?? null;
      return {
        ...base,
        kind: 'quota',
        webhookEvent: 'quota.low',
        jobId: null,
        path: orgQuota ? '/dashboard/organisation' : '/dashboard/profile',
        // An organisation's quota account (`org_<id>`): its managers are told, in words for an organisation.
        data: { window: str(d.window), level: str(d.level), used: num(d.used), limit: num(d.limit), ...(orgQuota ? { org_id: orgQuota } : {}) },
      };
    }
    default:
      return null;
  }
}

/** The organisation of a job (job events carry it since issue 29): its managers are told too. */
const org = (d: Record<string, unknown>): { org_id: string } | Record<string, never> => (typeof d.org_id === 'string' && d.org_id ? { org_id: d.org_id } : {});

const WINDOW: Record<Lang, Record<string, string>> = {
  tr: { daily: 'günlük', monthly: 'aylık', lifetime: 'toplam' },
  en: { daily: 'daily', monthly: 'monthly', lifetime: 'lifetime' },
};

/** Title and one-paragraph body in the user's language. */
export function noticeText(n: Notice, lang: Lang): { title: string; body: string } {
  const d = n.data;
  const file = d.input_filename ? `“${String(d.input_filename)}”` : '';
  switch (n.kind) {
    case 'report_ready': {
      const v = Number(d.violation_count ?? 0);
      if (lang === 'tr') {
        return {
          title: 'Rapor hazır',
          body: `${file ? `${file} videosunun` : 'Videonuzun'} analizi tamamlandı: ${v === 0 ? 'ihlal bulunmadı.' : `${v} ihlal bulundu.`}`,
        };
      }
      return {
        title: 'Report ready',
        body: `The analysis of ${file || 'your video'} is done: ${v === 0 ? 'no violations found.' : `${v} violation${v === 1 ? '' : 's'} found.`}`,
      };
    }
    case 'analysis_failed':
      return lang === 'tr'
        ? { title: 'Analiz başarısız', body: `${file ? `${file} videosunun` : 'Videonuzun'} analizi tamamlanamadı. Kullanım hakkınız iade edildiyse yeniden deneyebilirsiniz.` }
        : { title: 'Analysis failed', body: `The analysis of ${file || 'your video'} could not be completed. If your unit was given back, you can try again.` };
    case 'quota': {
      const w = WINDOW[lang][String(d.window)] ?? String(d.window);
      const exhausted = d.level === 'exhausted';
      if (d.org_id) {
        if (lang === 'tr') {
          return exhausted
            ? { title: 'Kuruluşunuzun kullanım limiti doldu', body: `Kuruluşunuz ${w} limitinin tamamını kullandı (${d.used}/${d.limit}). Daha fazla analiz için planı yükseltebilirsiniz.` }
            : { title: 'Kuruluşunuzun kullanım limiti azalıyor', body: `Kuruluşunuz ${w} limitinin %80'ini kullandı (${d.used}/${d.limit}).` };
        }
        return exhausted
          ? { title: 'Your organisation’s usage limit is reached', body: `Your organisation has used all of its ${w} limit (${d.used}/${d.limit}). Upgrade the plan for more analyses.` }
          : { title: 'Your organisation’s usage limit is running low', body: `Your organisation has used 80% of its ${w} limit (${d.used}/${d.limit}).` };
      }
      if (lang === 'tr') {
        return exhausted
          ? { title: 'Kullanım limitiniz doldu', body: `${w} limitinizin tamamını kullandınız (${d.used}/${d.limit}). Daha fazla analiz için planınızı yükseltebilirsiniz.` }
          : { title: 'Kullanım limitiniz azalıyor', body: `${w} limitinizin %80'ini kullandınız (${d.used}/${d.limit}).` };
      }
      return exhausted
        ? { title: 'Usage limit reached', body: `You have used all of your ${w} limit (${d.used}/${d.limit}). Upgrade your plan for more analyses.` }
        : { title: 'Usage limit running low', body: `You have used 80% of your ${w} limit (${d.used}/${d.limit}).` };
    }
    case 'webhook_disabled':
      return lang === 'tr'
        ? { title: 'Webhook devre dışı bırakıldı', body: `${String(d.url)} adresine yapılan gönderimler 3 gündür başarısız olduğu için webhook devre dışı bırakıldı.` }
        : { title: 'Webhook disabled', body: `Deliveries to ${String(d.url)} have failed for 3 days, so the webhook was disabled.` };
  }
}
