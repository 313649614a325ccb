/**
 * `npm run admin -- seed-demo`: a demo organisation to look at the manager's dashboard with — a
 * manager and four crew leads, 3 sites, 4 crews, and 200 finished jobs over the last 12 weeks whose
 * compliance gets better week after week. Every job goes through the job decider (queued,
 * started, completed), so the read models are projected from its events like any other.
 * Deterministic for a given `seed`.
 */
import { findTask, groupName, offlineCheckableCodes, taskName } from '@baret/analysis';
import { orgQuotaAccount, seededRandom, type Lang, type Principal } from '@baret/platform';
import { PRESETS } from '@baret/quota';
import sharp from 'sharp';
import type { Standalone } from './compose.js';

const JOB_TYPES_LIST = ['ag_havai_hat_bakim', 'ag_sayac_montaji', 'ag_kesme_baglama', 'genel_saha_girisi'];
export const DEMO_PASSWORD = 'baret-demo-2026';
export const DEMO_JOB_TYPES = JOB_TYPES_LIST;
export const DEMO_MANAGER = 'demo-manager@example.com';
const DEMO_MEMBERS = ['ekip1@example.com', 'ekip2@example.com', 'ekip3@example.com', 'ekip4@example.com'];
const SITES = [
  { name: 'Kadıköy Trafo Merkezi', city: 'İstanbul' },
  { name: 'Çankaya Dağıtım Hattı', city: 'Ankara' },
  { name: 'Bornova Direk Sahası', city: 'İzmir' },
];
const CREWS = ['Hat Bakım Ekibi', 'Trafo Ekibi', 'Yüksekte Çalışma Ekibi', 'Arıza Ekibi'];
const JOB_TYPES = JOB_TYPES_LIST;
const WEEKS = 12;
const DAY = 86_400_000;

/** A result as the analysis reports it, with `bare` workers without a hard hat and `noVest` without hi-vis. */
export function demoResult(jobType: string, workers: number, bare: number[], noVest: number[], rnd: () => number) {
  const task = findTask(jobType)!;
  const required = task.required_groups.map((g) => [...g]);
  const hardHat = new Set(offlineCheckableCodes('hard_hat'));
  const hiVis = new Set(offlineCheckableCodes('hi_vis'));
  const hatGroup = required.find((g) => g.some((c) => hardHat.has(c)))!;
  const vestGroup = required.find((g) => g.some((c) => hiVis.has(c)))!;
  const violations = [
    ...bare.map((w) => ({ group: [...hatGroup], worker: w })),
    ...noVest.map((w) => ({ group: [...vestGroup], worker: w })),
  ].map((v, i) => {
    const t = Math.round((5 + rnd() * 100) * 10) / 10;
    return { ...v, time_sec: t, end_sec: t + 2, frames: 2, frame_index: i, composite_index: 0, box: { x: 0.2, y: 0.1, w: 0.3, h: 0.8 } };
  });
  const violated = new Set(violations.map((v) => v.group.join(',')));
  const checkable = (g: string[]) => g.some((c) => hardHat.has(c) || hiVis.has(c));
  const missing = required.filter((g) => violated.has(g.join(',')));
  const satisfied = required.filter((g) => checkable(g) && !violated.has(g.join(',')));
  const notChecked = required.filter((g) => !checkable(g));
  const names = (lang: Lang) => ({
    job_display_name: taskName(jobType, lang),
    required_groups_name: required.map((g) => groupName(g, lang)),
    missing_groups_name: missing.map((g) => groupName(g, lang)),
    satisfied_equipment_name: satisfied.map((g) => groupName([g[0]!], lang)),
    not_checked_name: notChecked.map((g) => groupName(g, lang)),
    evidence_names: {},
    violation_group_names: violations.map((v) => groupName(v.group, lang)),
  });
  return {
    job_type: jobType,
    job_type_source: 'manual',
    job_type_confidence: null,
    required_groups: required,
    missing_groups: missing,
    satisfied_groups: satisfied,
    satisfied_equipment: satisfied.map((g) => g[0]!),
    not_checked: notChecked,
    composites_processed: 6,
    workers_seen: workers,
    model_used: 'baret-demo',
    token_usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, estimated_cost: 0, currency: 'USD' },
    evidence: [],
    violations,
    missing_evidence: missing.map((g) => ({ group: g, violation: violations.findIndex((v) => v.group.join(',') === g.join(',')) })),
    names: { tr: names('tr'), en: names('en') },
  };
}

/**
 * The evidence crop of a demo violation: a drawn worker (no photograph of anyone), without a hard
 * hat or without a vest, labelled DEMO, at the size real crops have (at least 480 px high).
 */
async function demoCrop(missing: 'hat' | 'vest'): Promise<Buffer> {
  const hat = missing === 'hat' ? '' : '<path d="M120 92 q60 -70 120 0 z" fill="#facc15"/><rect x="108" y="90" width="144" height="12" rx="6" fill="#eab308"/>';
  const vest = missing === 'vest' ? '#3b4a66' : '#f97316';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="360" height="480" viewBox="0 0 360 480">
    <rect width="360" height="480" fill="#9fb4c8"/><rect y="380" width="360" height="100" fill="#6b7f4e"/>
    <circle cx="180" cy="130" r="42" fill="#e0b48c"/>${hat}
    <rect x="120" y="180" width="120" height="170" rx="24" fill="${vest}"/>
    <rect x="120" y="250" width="120" height="14" fill="${missing === 'vest' ? '#3b4a66' : '#e5e7eb'}"/>
    <rect x="130" y="350" width="40" height="110" fill="#1f2937"/><rect x="190" y="350" width="40" height="110" fill="#1f2937"/>
    <rect x="10" y="10" width="86" height="30" rx="6" fill="#111827"/><text x="53" y="32" font-family="sans-serif" font-size="18" fill="#fff" text-anchor="middle">DEMO</text>
  </svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 80 }).toBuffer();
}

export interface DemoSummary {
  org_id: string;
  site_ids: string[];
  crew_ids: string[];
  /** The member who records for each crew (same order as crew_ids). */
  member_ids: string[];
  manager: string;
  password: string;
  sites: number;
  crews: number;
  jobs: number;
}

export async function seedDemo(standalone: Standalone, options: { now?: Date; seed?: number; jobs?: number } = {}): Promise<DemoSummary> {
  const { identity, quota, job } = standalone;
  const now = options.now ?? new Date();
  const rnd = seededRandom(options.seed ?? 28); // the same demo every time
  const total = options.jobs ?? 200;
  if (await identity.users.byEmail(DEMO_MANAGER)) throw new Error(`The demo organisation already exists (${DEMO_MANAGER}); use a fresh data folder to seed it again.`);

  const manager = await identity.commands.register({ email: DEMO_MANAGER, password: DEMO_PASSWORD, full_name: 'Ayşe Yılmaz' });
  const org = await identity.orgs.createOrg(manager.id, 'Demo Elektrik Dağıtım A.Ş.');
  const { plan_name, daily_limit, monthly_limit, lifetime_limit } = PRESETS.enterprise;
  await quota.changeLimits(orgQuotaAccount(org.id), { plan_name, daily_limit, monthly_limit, lifetime_limit }, 'seed-demo');
  const principal = (u: { id: string; email: string; full_name: string | null }, role: 'manager' | 'member'): Principal => ({
    userId: u.id,
    email: u.email,
    fullName: u.full_name,
    isAdmin: false,
    orgId: org.id,
    orgRole: role,
    via: 'jwt',
  });
  const managerP = principal(manager, 'manager');
  const members: Principal[] = [];
  for (const [i, email] of DEMO_MEMBERS.entries()) {
    const user = await identity.commands.register({ email, password: DEMO_PASSWORD, full_name: `Ekip Şefi ${i + 1}` });
    const invite = await identity.orgs.invite(manager.id, org.id, email, 'member');
    await identity.orgs.accept(user.id, invite.token);
    members.push(principal(user, 'member'));
  }
  const sites = [];
  for (const s of SITES) sites.push(await job.sitesCrews.create(managerP, org.id, 'site', s));
  const crews = [];
  for (const name of CREWS) crews.push(await job.sitesCrews.create(managerP, org.id, 'crew', { name }));

  // Spread over the 12 weeks before `now`; each crew leader records for their crew. Compliance
  // improves over the weeks, and differs by site and crew, so the dashboard has something to show.
  const crops = { hat: await demoCrop('hat'), vest: await demoCrop('vest') };
  const start = now.getTime() - WEEKS * 7 * DAY;
  for (let i = 0; i < total; i++) {
    const at = new Date(start + ((i + rnd()) / total) * (WEEKS * 7 * DAY - 3600_000));
    const progress = (at.getTime() - start) / (WEEKS * 7 * DAY);
    const crewIndex = Math.floor(rnd() * crews.length);
    const siteIndex = Math.floor(rnd() * sites.length);
    const risk = (0.55 - 0.35 * progress) * (1 + 0.3 * crewIndex - 0.2 * siteIndex) * 0.8;
    const workers = 1 + Math.floor(rnd() * 4);
    const bare: number[] = [];
    const noVest: number[] = [];
    for (let w = 1; w <= workers; w++) {
      if (rnd() < risk * 0.6) bare.push(w);
      if (rnd() < risk * 0.4) noVest.push(w);
    }
    const jobType = JOB_TYPES[Math.floor(rnd() * JOB_TYPES.length)]!;
    const jobId = await job.recordFinishedJobWithoutVideo(members[crewIndex]!, {
      queued_at: at,
      finished_at: new Date(at.getTime() + 60_000 + Math.floor(rnd() * 120_000)),
      job_type: jobType,
      input_filename: `saha-${String(i + 1).padStart(3, '0')}.mp4`,
      result: demoResult(jobType, workers, bare, noVest, rnd),
      site_id: sites[siteIndex]!.id,
      crew_id: crews[crewIndex]!.id,
      work_order: `İE-2026-${String(1000 + i)}`,
      video_duration_sec: 30 + ((i * 37) % 150), // not from rnd: the seeded figures stay as they were
    });
    // Each violation's crop, where the job page and the dashboard look for it.
    const missing = [...bare.map(() => crops.hat), ...noVest.map(() => crops.vest)];
    for (const [n, jpeg] of missing.entries()) await standalone.infra.objects.put(`jobs/${jobId}/violations/${n}.jpg`, jpeg, { contentType: 'image/jpeg', size: jpeg.length });
  }
  return { org_id: org.id, site_ids: sites.map((x) => x.id), crew_ids: crews.map((x) => x.id), member_ids: members.map((m) => m.userId), manager: DEMO_MANAGER, password: DEMO_PASSWORD, sites: sites.length, crews: crews.length, jobs: total };
}
