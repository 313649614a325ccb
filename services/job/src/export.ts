import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { principalOf, problems, type Collection, type ObjectStore, type PersonalDataSource, type Principal } from '@baret/platform';
import type { Logger } from 'pino';
import { ownerStillMayRead, type JobDoc } from './readModels/jobs.js';
import { maySeeUnblurred, unblurredPrefix } from './unblurred.js';
import { zipStream } from './zipStream.js';

/**
 * `GET /me/export` (issue 30, docs/adr/0025): a ZIP of everything Baret keeps about the caller —
 * profile, jobs with their results and timelines, the evidence images of each, and what the other
 * services hand in through `PersonalDataSource`s (the profile with the audit log's entries about
 * them, notifications). Streamed with fflate as it is written: one image at a time in memory, never the archive.
 */
export interface ExportDeps {
  jobs: Collection<JobDoc>;
  objects: ObjectStore;
  /** Other services' parts of the person's data, by file name (profile.json, with the audit entries about them; notifications.json). */
  sources: readonly PersonalDataSource[];
  clock: () => Date;
  log: Logger;
}

const README = `Baret — kişisel verileriniz / your personal data

profile.json         hesabınız ve sizinle ilgili denetim kayıtları (audit_entries) / your account and the audit log entries about you (audit_entries)
jobs.json            analizleriniz / your analyses (list); ayrıldığınız bir kuruluşun işleri yalnızca kimlik ve tarihle / jobs of an organisation you left: id and dates only
jobs/<id>/job.json   bir analiz: sonuç ve zaman çizelgesi / one analysis: result and timeline
jobs/<id>/...        kanıt görüntüleri (kareler, kompozitler, ihlal kırpımları) / evidence images (frames, composites, violation crops)
notifications.json   bildirimleriniz, tercihleriniz, webhook'larınız / your notifications, preferences, webhooks
`;

/** What of a job document goes out (no storage keys). */
function jobOut(job: JobDoc): Record<string, unknown> {
  const { video_key: _key, revision: _revision, reviewed: _reviewed, ...rest } = job;
  // A reviewer's address is theirs, not the job owner's (issue 53): their name and id stay, as the job page shows them.
  return rest.reviews ? { ...rest, reviews: rest.reviews.map(({ reviewer_email: _email, ...r }) => r) } : rest;
}

export function writeExport(deps: ExportDeps, principal: Principal): Readable {
  const zip = zipStream();
  const { out } = zip;
  const addJson = (name: string, value: unknown) => zip.add(name, new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`), true);
  const addObject = async (name: string, key: string) => zip.addStream(name, await deps.objects.get(key));

  void (async () => {
    try {
      await zip.add('README.txt', new TextEncoder().encode(README), true);
      await addJson('export.json', { user_id: principal.userId, exported_at: deps.clock().toISOString(), format: 1 });
      const sourced = new Set<string>();
      for (const source of deps.sources) {
        await addJson(source.file, await source.collect(principal));
        sourced.add(source.file);
      }
      if (!sourced.has('profile.json')) {
        await addJson('profile.json', { id: principal.userId, email: principal.email, full_name: principal.fullName, org_id: principal.orgId ?? null, org_role: principal.orgRole ?? null });
      }
      const jobs = await deps.jobs.find({ where: { user_id: principal.userId }, orderBy: [{ field: 'created_at' }] });
      // A job recorded for an organisation the person has left stays with it (issue 37): listed by id and dates only.
      const theirs = new Set(jobs.filter((j) => ownerStillMayRead(j, principal)));
      await addJson(
        'jobs.json',
        jobs.map((j) =>
          theirs.has(j)
            ? { job_id: j.id, status: j.status, created_at: j.created_at, input_filename: j.input_filename, org_id: j.org_id }
            : { job_id: j.id, created_at: j.created_at, completed_at: j.completed_at, kept_by_organisation: true },
        ),
      );
      for (const job of theirs) {
        if (zip.failed()) return;
        await addJson(`jobs/${job.id}/job.json`, jobOut(job));
        // The unblurred copy only for those the evidence routes show it to: the organisation's managers.
        const unblurred = maySeeUnblurred(principal, job) ? null : unblurredPrefix(job.id);
        for (const key of await deps.objects.list(`jobs/${job.id}/`)) {
          if (zip.failed()) return;
          if (unblurred && key.startsWith(unblurred)) continue;
          await addObject(key, key);
        }
      }
      zip.end();
    } catch (err) {
      deps.log.warn({ err, user_id: principal.userId }, 'the export could not be completed');
      out.destroy(err instanceof Error ? err : new Error(String(err)));
    }
  })();
  return out;
}

export const exportRoutes =
  (deps: ExportDeps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/me/export',
      {
        preHandler: app.requireUser,
        // Each export reads every job's images: a few an hour are plenty.
        config: { rateLimit: { max: 10, timeWindow: '1 hour' } },
        schema: {
          tags: ['auth'],
          summary: 'Download everything Baret keeps about you as a ZIP (profile, jobs, results, evidence images, notifications, audit entries)',
          security: [{ bearer: [] }],
          produces: ['application/zip'],
          response: { 200: Type.Any({ description: 'application/zip, streamed' }), ...problems(401, 429) },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const day = deps.clock().toISOString().slice(0, 10);
        return reply
          .type('application/zip')
          .header('content-disposition', `attachment; filename="baret-export-${day}.zip"`)
          .header('cache-control', 'private, no-store')
          .send(writeExport(deps, principal));
      },
    );
  };
