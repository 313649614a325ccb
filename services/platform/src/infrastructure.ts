import { join } from 'node:path';
import { observeQueueLag } from './metrics.js';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { FsObjectStore } from './embedded/fsObjectStore.js';
import { openSqlite } from './embedded/sqlite.js';
import { SqliteDocumentStore } from './embedded/sqliteDocumentStore.js';
import { SqliteEventStore } from './embedded/sqliteEventStore.js';
import { SqliteMessageBus } from './embedded/sqliteMessageBus.js';
import type { DocumentStore } from './ports/documentStore.js';
import type { EventStore } from './ports/eventStore.js';
import type { MessageBus } from './ports/messageBus.js';
import type { ObjectStore } from './ports/objectStore.js';
import { ShreddingEventStore, SqliteSubjectKeyStore } from './shredding.js';

/** The ports a service is written against; which adapters fill them is the composition root's choice. */
export interface Infrastructure {
  eventStore: EventStore;
  bus: MessageBus;
  documents: DocumentStore;
  objects: ObjectStore;
  /** Resolves when every store answers; rejects naming the first that does not. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** How long one store may take to answer a readiness check before it counts as down. */
const PING_TIMEOUT_MS = 2000;

/** Every store at once, each with a deadline: a store that is down makes the check fail within seconds, never hang. */
export async function checkReady(parts: Record<string, { ping(): Promise<void> }>): Promise<void> {
  await Promise.all(
    Object.entries(parts).map(async ([name, part]) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          part.ping(),
          new Promise<never>((_resolve, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
          }),
        ]);
      } catch (e) {
        throw new Error(`${name} is not reachable: ${e instanceof Error ? e.message : String(e)}`);
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

/** The four ports as one Infrastructure: ready when each answers; closed once, bus first. */
export function assemble(
  ports: Pick<Infrastructure, 'eventStore' | 'bus' | 'documents' | 'objects'>,
  afterClose?: () => void,
): Infrastructure {
  const { eventStore, bus, documents, objects } = ports;
  // /metrics reports how far this process's consumer groups are behind.
  const unobserve = observeQueueLag(() => bus.lag?.() ?? Promise.resolve([]));
  let closed = false;
  return {
    ...ports,
    ready: () => checkReady({ eventStore, bus, documents, objects }),
    close: async () => {
      if (closed) return;
      closed = true;
      unobserve();
      await bus.close();
      await eventStore.close();
      await objects.close();
      await documents.close();
      afterClose?.();
    },
  };
}

/** Embedded adapters: one SQLite file and one folder under BARET_DATA_DIR. */
export async function createEmbeddedInfrastructure(
  config: Pick<Config, 'BARET_DATA_DIR'>,
  log?: Logger,
  clock?: () => Date,
): Promise<Infrastructure> {
  const db = openSqlite(join(config.BARET_DATA_DIR, 'baret.db'));
  // Personal data in events sealed with a key per job and per user, the keys in the same file (docs/adr/0025).
  const eventStore = new ShreddingEventStore(new SqliteEventStore(db, clock), new SqliteSubjectKeyStore(db));
  const bus = new SqliteMessageBus(db, log);
  const documents = new SqliteDocumentStore(db);
  const objects = await new FsObjectStore(join(config.BARET_DATA_DIR, 'objects')).init();
  return assemble({ eventStore, bus, documents, objects }, () => db.close());
}
