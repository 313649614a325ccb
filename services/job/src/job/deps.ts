import type {
  AuditRecorder,
  Collection,
  DocumentStore,
  EventStore,
  ObjectStore,
  Projection,
  QuotaClient,
  shredderOf,
  TaskCatalogClient,
  VideoProber,
} from '@baret/platform';
import type { Logger } from 'pino';
import type { JobDoc, UsageDoc } from '../readModels/jobs.js';
import type { JobReadCache } from '../readModels/jobsCache.js';
import type { ObjectStoreDataStore } from '../resumable/tusStore.js';

/**
 * What the job's use cases (submit, cancel, remove, purge, …: one exported function each, in this
 * folder) are given, once, by the service's composition (createJobService).
 */
export interface JobDeps {
  eventStore: EventStore;
  documents: DocumentStore;
  objects: ObjectStore;
  quota: QuotaClient;
  tasks: TaskCatalogClient;
  probe: VideoProber;
  log: Logger;
  clock: () => Date;
  jobs: Collection<JobDoc>;
  usage: Collection<UsageDoc>;
  /**
   * Users' own job lists and jobs in memory, dropped as the jobs projection applies their events
   * (inline after a command here, and by this replica's catch-up runner for every replica's).
   */
  cache: JobReadCache;
  /** The jobs read model, telling the cache which jobs changed. */
  jobsView: Projection;
  /** Audit entries of this service's actions (issue 30, docs/adr/0023); the identity service keeps the log. */
  audit: AuditRecorder;
  /** Crypto-shredding (docs/adr/0025): the store's keys, when it seals personal data (every Baret composition's does). */
  shredder: ReturnType<typeof shredderOf>;
  /** Resumable (tus) uploads, kept through the object store port; the gateway serves them. */
  resumable: ObjectStoreDataStore;
  /** Folder for temporary files (the scratch folder of the data dir); default the system's temp folder. */
  scratchDir?: string;
}
