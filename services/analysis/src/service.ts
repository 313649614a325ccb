import { fromJson, type JsonValue } from '@bufbuild/protobuf';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { JobQueuedSchema } from '@baret/proto';
import {
  decodeEnvelope,
  NotFoundError,
  preferredLang,
  runConsumer,
  type Config,
  type DocumentStore,
  type MessageBus,
  type ObjectStore,
  type ServiceModule,
  type TaskCatalogClient,
  type VideoProber,
} from '@baret/platform';
import type { Logger } from 'pino';
import { findTask, offlineCheckableCodes, taskOptions } from './catalog/index.js';
import { DetectorPool } from './engine/detectorPool.js';
import type { DetectFn } from './engine/frames.js';
import { OfflineAnalyzer, type CellJudge } from './engine/offlineAnalyzer.js';
import { OpenAiAnalyzer, openAiOptionsFromConfig } from './engine/openaiAnalyzer.js';
import { ModelPricing } from './engine/pricing.js';
import { probeVideo } from './engine/probe.js';
import { traceAnalyzer } from './engine/tracedAnalyzer.js';
import type { VisionAnalyzer } from './engine/types.js';
import { unblurredPrefix } from './pipeline.js';
import { AnalysisWorker, CANCELS, ORG_PRIVACY, UNBLURRED, type CancelDoc, type OrgPrivacyDoc, type UnblurredDoc } from './worker.js';

/** The task the offline analyzer assumes, as it cannot tell job types apart. */
export const OFFLINE_FALLBACK_TASK = 'genel_saha_girisi';

export interface AnalysisOptions {
  config: Pick<Config, 'OPENAI_BASE_URL' | 'OPENAI_API_KEY' | 'OPENAI_MODEL' | 'OPENAI_TIMEOUT_MS' | 'MODEL_PRICING_JSON'>;
  documents: DocumentStore;
  objects: ObjectStore;
  bus: MessageBus;
  log: Logger;
  clock?: () => Date;
  /** Folder for temporary files (the scratch folder of the data dir). */
  scratchDir?: string;
  /** Tests may swap the analyzer or the person detector. */
  analyzer?: VisionAnalyzer;
  detect?: DetectFn;
}

/**
 * The configured vision model: an OpenAI-compatible endpoint when one is set, else the offline
 * analyzer (its cells judged by `judge`: the detector pool's threads in the service).
 */
export function chooseAnalyzer(config: AnalysisOptions['config'], judge?: CellJudge): VisionAnalyzer {
  if (config.OPENAI_BASE_URL || config.OPENAI_API_KEY) return new OpenAiAnalyzer(openAiOptionsFromConfig(config));
  return new OfflineAnalyzer({
    hardHatCodes: offlineCheckableCodes('hard_hat'),
    hiVisCodes: offlineCheckableCodes('hi_vis'),
    fallbackTaskSlug: OFFLINE_FALLBACK_TASK,
    judge,
  });
}

/**
 * An organisation changed its evidence privacy (issue 30): later jobs follow it; when its
 * managers may no longer see unblurred evidence, the copies kept so far are deleted.
 */
function privacyFollower({ documents, objects, log }: Pick<AnalysisOptions, 'documents' | 'objects' | 'log'>): (data: Record<string, unknown>) => Promise<void> {
  const privacy = documents.collection<OrgPrivacyDoc>(ORG_PRIVACY);
  const unblurred = documents.collection<UnblurredDoc>(UNBLURRED);
  return async (data) => {
    const orgId = String(data.org_id ?? '');
    if (!orgId) return;
    const doc: OrgPrivacyDoc = (await privacy.get(orgId)) ?? { org_id: orgId, blur_third_party: true, managers_see_unblurred: false };
    if (typeof data.blur_third_party === 'boolean') doc.blur_third_party = data.blur_third_party;
    if (typeof data.managers_see_unblurred === 'boolean') doc.managers_see_unblurred = data.managers_see_unblurred;
    await privacy.put(orgId, doc);
    if (doc.managers_see_unblurred) return;
    for (const job of await unblurred.find({ where: { org_id: orgId } })) {
      for (const key of await objects.list(unblurredPrefix(job.job_id))) await objects.delete(key);
      await unblurred.delete(job.job_id);
    }
    log.info({ org_id: orgId }, 'unblurred evidence of the organisation deleted (managers may no longer see it)');
  };
}

/** `GET /tasks`: the task catalogue, named in the caller's language. */
async function catalogRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/tasks',
    {
      schema: {
        tags: ['jobs'],
        summary: 'The task catalogue, named in the language of Accept-Language (Turkish by default)',
        response: { 200: Type.Array(Type.Object({ slug: Type.String(), name: Type.String() })) },
      },
    },
    async (request) => taskOptions(preferredLang(request.headers['accept-language'])),
  );
}

/** The internal `GET /tasks/:slug`: whether a task exists (the job service asks before it queues a job). */
async function catalogInternalRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/tasks/:slug', { schema: { params: Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) }) } }, async (request) => {
    const task = findTask(request.params.slug);
    if (!task) throw new NotFoundError('This task does not exist.');
    return { slug: request.params.slug };
  });
}

/** The analysis service: the worker, and the task catalogue (`GET /tasks`). */
export function createAnalysisService(opts: AnalysisOptions) {
  const { bus, documents, log } = opts;
  // The detector and the offline verdicts run in worker threads, off the API's event loop.
  const pool = new DetectorPool();
  const analyzer = opts.analyzer ?? chooseAnalyzer(opts.config, pool.judgeCells);
  const worker = new AnalysisWorker({
    objects: opts.objects,
    bus,
    documents,
    analyzer: traceAnalyzer(analyzer),
    pricing: ModelPricing.fromJson(opts.config.MODEL_PRICING_JSON),
    detect: opts.detect ?? pool.detect,
    blurFaces: pool.blurFaces,
    log,
    clock: opts.clock ?? (() => new Date()),
    scratchDir: opts.scratchDir,
  });
  const cancels = documents.collection<CancelDoc>(CANCELS);
  const orgSettingsChanged = privacyFollower(opts);
  log.info({ model: analyzer.modelName }, 'vision analyzer ready');

  const module: ServiceModule = {
    name: 'analysis',
    routes: catalogRoutes,
    internal: catalogInternalRoutes,
    tasks: [
      {
        // One job at a time: this machine's cores go to ffmpeg and the detector.
        name: 'analysis:worker',
        run: (signal) =>
          runConsumer(bus, 'analysis', ['job-events'], async (message) => {
            const event = decodeEnvelope(message.value);
            if (event.type !== 'job_queued') return;
            const job = fromJson(JobQueuedSchema, event.data as JsonValue);
            log.info({ job_id: job.jobId }, 'job received');
            const started = Date.now();
            await worker.handle(job);
            log.info({ job_id: job.jobId, elapsed_ms: Date.now() - started }, 'job handled');
          }, signal, { maxAttempts: 3 }),
      },
      {
        // The organisations' evidence privacy settings (identity's events).
        name: 'analysis:org-settings',
        run: (signal) =>
          runConsumer(bus, 'analysis-org-settings', ['org-events'], async (message) => {
            const event = decodeEnvelope(message.value);
            if (event.type === 'org_settings_changed') await orgSettingsChanged(event.data);
          }, signal),
      },
      {
        // Cancel requests are read by their own group, so they arrive while a job is running.
        name: 'analysis:cancels',
        run: (signal) =>
          runConsumer(bus, 'analysis-cancels', ['job-events'], async (message) => {
            const event = decodeEnvelope(message.value);
            if (event.type !== 'job_cancel_requested') return;
            const jobId = String(event.data.job_id);
            await cancels.put(jobId, { job_id: jobId, requested_by: String(event.data.requested_by ?? '') });
          }, signal),
      },
    ],
  };

  const catalogClient: TaskCatalogClient = { isTask: async (slug) => findTask(slug) !== undefined };
  const probe: VideoProber = (path) => probeVideo(path);

  return { module, analyzer, worker, catalogClient, probe, pool };
}

export type AnalysisService = ReturnType<typeof createAnalysisService>;
