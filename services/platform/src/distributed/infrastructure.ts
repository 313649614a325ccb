import type { Logger } from 'pino';
import { csv, HAS_EVENT_STORE, type Config, type ServiceName } from '../config.js';
import { assemble, type Infrastructure } from '../infrastructure.js';
import type { EventStore } from '../ports/eventStore.js';
import type { ObjectStore } from '../ports/objectStore.js';
import { KafkaMessageBus } from './kafkaMessageBus.js';
import { KurrentEventStore } from './kurrentEventStore.js';
import { MongoDocumentStore } from './mongoDocumentStore.js';
import { PostgresEventStore } from './postgresEventStore.js';
import { S3ObjectStore } from './s3ObjectStore.js';
import { backoffMs } from '../unavailable.js';
import { DocumentSubjectKeyStore, ShreddingEventStore } from '../shredding.js';

/** Services that keep objects: the job media (raw videos, evidence) is handed from job to analysis. */
const USES_OBJECTS: Record<ServiceName, boolean> = { gateway: false, identity: false, quota: false, job: true, analysis: true, notification: false };

/** Stream categories each service owns: its relay publishes these and no others (docs/adr/0011). */
export const OWNED_CATEGORIES: Record<ServiceName, readonly string[]> = {
  gateway: [],
  identity: ['user', 'email', 'apikey', 'org', 'membership', 'ssolink', 'audit'],
  quota: ['quota', 'upgrade', 'audit'],
  job: ['job', 'site', 'crew', 'audit'],
  analysis: [],
  notification: ['contact'],
};

/** A port this service does not have: using it is a programming error, said plainly. */
function absent<T extends object>(service: string, port: string): T {
  return new Proxy({} as T, {
    get: (_target, prop) =>
      prop === 'ping' || prop === 'close'
        ? () => Promise.resolve()
        : prop === 'then'
          ? undefined
          : () => {
              throw new Error(`the ${service} service has no ${port}`);
            },
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Connects, waiting for an engine that is still starting (up to `waitMs`), saying so in the log. */
export async function connectWithRetry<T>(what: string, connect: () => Promise<T>, log?: Logger, waitMs = 120_000): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await connect();
    } catch (e) {
      // A setting that can never work (a wrong scheme) is said at once, not waited on.
      if ((e as { fatal?: boolean }).fatal) throw e;
      if (Date.now() > deadline) throw new Error(`${what} is not reachable: ${e instanceof Error ? e.message : String(e)}`);
      log?.warn({ attempt, err: e instanceof Error ? e.message : String(e) }, `waiting for ${what}`);
      await sleep(backoffMs(attempt, 250, 5000));
    }
  }
}

/**
 * The distributed adapters for one service: its own event store schema (PostgreSQL) or streams
 * (KurrentDB), its own MongoDB database, Kafka, and the job media bucket for the services that use
 * it. Each engine is waited for at start.
 */
export async function createDistributedInfrastructure(config: Config, service: ServiceName, log?: Logger): Promise<Infrastructure> {
  const bus = await connectWithRetry('Kafka', () => KafkaMessageBus.connect({ brokers: csv(config.KAFKA_BROKERS!), clientId: `baret-${service}`, log, sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS }), log);
  const documents = await connectWithRetry('MongoDB', () => MongoDocumentStore.connect(config.MONGODB_URL!, `${config.MONGODB_DATABASE}_${service}`), log);
  // Personal data in events sealed with a key per job and per user (docs/adr/0025): the keys in a
  // table of the service's PostgreSQL schema, or (KurrentDB, which has no tables) in its MongoDB database.
  let eventStore: EventStore;
  if (!HAS_EVENT_STORE[service]) eventStore = absent<EventStore>(service, 'event store');
  else if (config.EVENT_STORE === 'postgres') {
    const pg = await connectWithRetry('PostgreSQL', () => PostgresEventStore.connect(config.POSTGRES_URL!, { schema: `baret_${service}` }), log);
    eventStore = new ShreddingEventStore(pg, pg.subjectKeys());
  } else {
    eventStore = new ShreddingEventStore(await connectWithRetry('KurrentDB', () => KurrentEventStore.connect(config.EVENTSTORE_URL!), log), new DocumentSubjectKeyStore(documents));
  }
  const objects: ObjectStore = USES_OBJECTS[service]
    ? await connectWithRetry(
        'S3',
        () =>
          S3ObjectStore.connect({
            endPoint: config.S3_ENDPOINT!,
            accessKey: config.S3_ACCESS_KEY!,
            secretKey: config.S3_SECRET_KEY!,
            bucket: config.S3_BUCKET,
            region: config.S3_REGION,
            prefix: 'media/',
          }),
        log,
      )
    : absent<ObjectStore>(service, 'object store');
  return assemble({ eventStore, bus, documents, objects });
}
