/**
 * Two notification processes (replicas) on the real bus and store: Kafka, FerretDB, a real SMTP
 * server and a webhook receiver (issue 29). Each job event is mailed once and each webhook
 * delivery attempted once, though both replicas consume the same topics (one group) and both
 * dispatchers poll the same due deliveries; and when both handle the very same event at once (a
 * rebalance hands it over while the first is still at it), one sends and the other waits for it.
 * And a replica's stop ends at once though a webhook attempt of it is on the wire to a receiver that
 * never answers and a handler of it waits on a claim another process holds; what the stop cut off
 * is sent once after a restart (issue 29: such a stop hung for minutes).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createNotificationService, type NotificationService } from '@baret/notification';
import { decodeEnvelope, encodeEnvelope, KafkaMessageBus, MongoDocumentStore, type DocumentStore, type EventStore, type MessageBus, type RecordedEvent } from '@baret/platform';
import { engineInstalled, ferretDbBinary, kafkaLibs, startFerretDb, startKafka } from '@baret/platform/testing';
import { eventually } from './helpers/app.js';
import { decodeHeader, parseMail, startReceiver, startSmtp, type TestReceiver, type TestSmtp } from './helpers/notify.js';

const installed =
  engineInstalled('two notification replicas (Kafka)', kafkaLibs('3.9') !== null, 'Kafka 3.9') && engineInstalled('two notification replicas (FerretDB)', ferretDbBinary() !== null, 'FerretDB');

let position = 0;
const event = (streamId: string, type: string, data: Record<string, unknown>): RecordedEvent => ({
  id: randomUUID(),
  streamId,
  revision: 0,
  position: ++position,
  type,
  data,
  metadata: {},
  createdAt: new Date(),
});

describe.skipIf(!installed)('two notification replicas on Kafka and FerretDB', () => {
  let kafka: Awaited<ReturnType<typeof startKafka>>;
  let ferret: Awaited<ReturnType<typeof startFerretDb>>;
  let smtp: TestSmtp;
  let hooks: TestReceiver;
  let silent: TestReceiver;
  type Replica = { name: string; service: NotificationService; stop: () => Promise<number>; stopped: boolean };
  const replicas: Replica[] = [];
  let publisher: KafkaMessageBus;
  /** The test's own view of the replicas' store (no tasks run), readable while replicas stop and start. */
  let viewDocs: MongoDocumentStore;
  let view: NotificationService;
  /** How long each replica's stop took (ms), for the log. */
  const stopTimes: Record<string, number> = {};

  /**
   * Stops a replica, as its process would on SIGTERM (tasks aborted and awaited, then the bus and
   * the store closed), and says how long that took; one that takes longer than a minute fails the
   * test (it would hang a rolling update) rather than hanging the suite.
   */
  const stop = async (r: Replica): Promise<number> => {
    r.stopped = true;
    let timer: NodeJS.Timeout | undefined;
    const guard = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`replica ${r.name}: stop() did not end within 60 s`)), 60_000)));
    try {
      const ms = await Promise.race([r.stop(), guard]);
      stopTimes[r.name] = ms;
      return ms;
    } finally {
      clearTimeout(timer);
    }
  };

  const makeService = (documents: DocumentStore, bus: MessageBus, name: string) =>
    createNotificationService({
      eventStore: {} as EventStore, // the team's contact form is not used here
      documents,
      bus,
      teamEmail: 'team@baret.test',
      smtpUrl: smtp.url,
      smtpFrom: 'Baret <noreply@baret.test>',
      publicUrl: 'https://baret.example',
      allowPrivateHosts: true,
      instanceId: `replica-${name}`,
      claimLeaseMs: 60_000,
      log: pino({ level: 'silent' }),
    });

  const startReplica = async (name: string): Promise<Replica> => {
    const documents = await MongoDocumentStore.connect(ferret.url, 'replicas');
    const bus = await KafkaMessageBus.connect({ brokers: kafka.brokers, clientId: `notification-${name}`, sessionTimeoutMs: 6000 });
    const service = makeService(documents, bus, name);
    const abort = new AbortController();
    const running = service.module.tasks!.map((t) => t.run(abort.signal));
    const replica: Replica = {
      name,
      service,
      stopped: false,
      stop: async () => {
        const t0 = Date.now();
        abort.abort();
        await Promise.allSettled(running);
        service.close();
        await bus.close();
        await documents.close();
        return Date.now() - t0;
      },
    };
    replicas.push(replica);
    return replica;
  };

  beforeAll(async () => {
    [kafka, ferret, smtp, hooks, silent] = await Promise.all([startKafka('3.9'), startFerretDb(), startSmtp(), startReceiver([200]), startReceiver([0])]);
    publisher = await KafkaMessageBus.connect({ brokers: kafka.brokers, clientId: 'replicas-test' });
    for (const name of ['a', 'b']) await startReplica(name);
    viewDocs = await MongoDocumentStore.connect(ferret.url, 'replicas');
    view = makeService(viewDocs, publisher, 'view');
  }, 240_000);

  afterAll(async () => {
    // Every stop must end (the guard fails the suite after a minute instead of hanging it).
    const errors: unknown[] = [];
    for (const r of replicas.filter((x) => !x.stopped)) await stop(r).catch((e: unknown) => errors.push(e));
    console.info(`notification replicas: stop() took ${JSON.stringify(stopTimes)} ms`);
    view?.close();
    await viewDocs?.close();
    await publisher?.close();
    await Promise.all([smtp?.close(), hooks?.close(), silent?.close()]);
    await Promise.all([kafka?.stop(), ferret?.stop()]);
    if (errors.length > 0) throw errors[0];
  }, 180_000);

  const subjectOf = (m: { raw: string }) => decodeHeader(parseMail(m.raw).headers.subject ?? '');
  const reports = (jobId: string) => smtp.accepted.filter((m) => subjectOf(m) === '[Baret] Report ready' && (parseMail(m.raw).text ?? '').includes(jobId));

  it('mails each job event once and attempts each webhook delivery once', async () => {
    const [a] = replicas;
    const userId = randomUUID();
    await publisher.publish('user-events', [{ key: `user-${userId}`, value: encodeEnvelope(event(`user-${userId}`, 'user_registered', { user_id: userId, email: 'crew@example.com', full_name: 'Ekip', language: 'en', is_admin: false, registered_at: new Date().toISOString() })) }]);
    await eventually(async () => (await a!.service.cols.recipients.get(userId)) ?? undefined, 60_000);
    const now = new Date().toISOString();
    await a!.service.cols.webhooks.put('hook-1', { id: 'hook-1', user_id: userId, url: `${hooks.url}/hook`, events: ['job.completed'], secret: 'whsec_test', created_at: now, disabled_at: null, failing_since: null });

    // Answer slower than a dispatcher polls (1 s): while one replica's attempts are on the wire, the
    // other's poll finds the same deliveries pending and due.
    hooks.delayMs = 1500;
    const jobs = Array.from({ length: 12 }, () => randomUUID());
    await publisher.publish(
      'job-events',
      jobs.map((jobId) => ({ key: `job-${jobId}`, value: encodeEnvelope(event(`job-${jobId}`, 'job_completed', { job_id: jobId, user_id: userId, input_filename: `${jobId.slice(0, 4)}.mp4`, violation_count: 1 })) })),
    );
    await eventually(async () => (jobs.every((j) => reports(j).length >= 1) ? true : undefined), 90_000);
    const deliveries = await eventually(async () => {
      const all = await a!.service.cols.deliveries.find({ where: { webhook_id: 'hook-1' } });
      return all.length === jobs.length && all.every((d) => d.status === 'delivered') ? all : undefined;
    }, 90_000);
    // One mail per job, one attempt per delivery, one request per delivery id.
    for (const j of jobs) expect(reports(j), j).toHaveLength(1);
    expect(deliveries.every((d) => d.attempts === 1)).toBe(true);
    const ids = hooks.requests.filter((r) => r.url === '/hook').map((r) => String(r.headers['baret-delivery']));
    expect(ids.sort()).toEqual(deliveries.map((d) => d.id).sort());
  }, 240_000);

  it('when both handle the same event at once, one sends and the other waits for it, then sends nothing', async () => {
    const [a, b] = replicas;
    const userId = randomUUID();
    await publisher.publish('user-events', [{ key: `user-${userId}`, value: encodeEnvelope(event(`user-${userId}`, 'user_registered', { user_id: userId, email: 'twice@example.com', full_name: null, language: 'tr', is_admin: false, registered_at: new Date().toISOString() })) }]);
    await eventually(async () => (await a!.service.cols.recipients.get(userId)) ?? undefined, 60_000);
    const jobs = Array.from({ length: 6 }, () => randomUUID());
    for (const jobId of jobs) {
      const decoded = decodeEnvelope(encodeEnvelope(event(`job-${jobId}`, 'job_failed', { job_id: jobId, user_id: userId, input_filename: 'x.mp4', error: 'unreadable' })));
      const outcomes = await Promise.allSettled([a!.service.engine.handleEvent(decoded), b!.service.engine.handleEvent(decoded)]);
      // At most one of them was told to wait (the other holds the claim); the other finished.
      expect(outcomes.filter((o) => o.status === 'fulfilled').length).toBeGreaterThanOrEqual(1);
      for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as Error).name).toBe('ClaimedElsewhere');
      // The bus delivers the message again to whoever was told to wait: nothing more is sent.
      await Promise.all([a!.service.engine.handleEvent(decoded), b!.service.engine.handleEvent(decoded)]);
    }
    const failed = () => smtp.accepted.filter((m) => m.to.includes('twice@example.com') && subjectOf(m) === '[Baret] Analiz başarısız');
    await eventually(async () => (failed().length >= jobs.length ? true : undefined), 30_000);
    expect(failed()).toHaveLength(jobs.length);
    for (const jobId of jobs) expect(failed().filter((m) => (parseMail(m.raw).text ?? '').includes(jobId)), jobId).toHaveLength(1);
    expect(await a!.service.cols.inApp.count({ user_id: userId })).toBe(jobs.length);
  }, 120_000);

  it('stops a replica at once while its webhook attempt waits on a receiver that never answers and its handler waits on a claim; after a restart one e-mail and one delivery id', async () => {
    const [a, b] = replicas;
    const { cols } = view;
    const userId = randomUUID();
    await publisher.publish('user-events', [{ key: `user-${userId}`, value: encodeEnvelope(event(`user-${userId}`, 'user_registered', { user_id: userId, email: 'stop@example.com', full_name: null, language: 'en', is_admin: false, registered_at: new Date().toISOString() })) }]);
    await eventually(async () => (await cols.recipients.get(userId)) ?? undefined, 60_000);
    const now = new Date().toISOString();
    await cols.webhooks.put('hook-stop', { id: 'hook-stop', user_id: userId, url: `${silent.url}/hook`, events: ['job.completed'], secret: 'whsec_stop', created_at: now, disabled_at: null, failing_since: null });

    // A process that is gone holds the claim on this event's e-mail: whichever replica handles the
    // event waits for it (the bus delivers the message to it again and again, unacknowledged).
    const jobId = randomUUID();
    const completed = event(`job-${jobId}`, 'job_completed', { job_id: jobId, user_id: userId, input_filename: 'stop.mp4', violation_count: 2 });
    const mailClaim = `mail:${completed.id}:${userId}:email#0`;
    await cols.claims.put(mailClaim, { id: mailClaim, key: `mail:${completed.id}:${userId}:email`, owner: 'replica-gone', lease_until: Date.now() + 3600_000, claimed_at: now });
    await publisher.publish('job-events', [{ key: `job-${jobId}`, value: encodeEnvelope(completed) }]);

    // The webhook attempt is on the wire (the receiver holds it without answering), and the event's
    // handler went on to the e-mail, which it cannot send.
    await eventually(async () => (silent.requests.length >= 1 ? true : undefined), 60_000);
    const delivery = (await cols.deliveries.find({ where: { webhook_id: 'hook-stop' } }))[0]!;
    expect(await cols.handled.get(completed.id)).toBeNull();

    // Both replicas stop (as in a rolling update that replaces both); each stop ends (the guard fails
    // the test past a minute; before issue 29's fix such stops hung for minutes).
    const took = await Promise.all([stop(a!), stop(b!)]);
    console.info(`replicas stopped mid-send in ${took.join(' ms and ')} ms`);
    // The attempt cut off is not counted and its claim is given up: the delivery waits for the next
    // process, due now, rather than after a 10 s timeout and a retry delay.
    const after = (await cols.deliveries.get(delivery.id))!;
    expect(after).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await cols.claims.get(`webhook:${delivery.id}:1#0`)).toMatchObject({ owner: '', lease_until: 0 });
    expect(reports(jobId)).toHaveLength(0);

    // A replica starts again; the gone process's lease ends; the receiver answers now.
    silent.respondWith([200]);
    await startReplica('c');
    const held = (await cols.claims.get(mailClaim))!;
    await cols.claims.put(mailClaim, { ...held, lease_until: Date.now() - 1 });

    await eventually(async () => (reports(jobId).length >= 1 ? true : undefined), 90_000);
    const done = await eventually(async () => {
      const d = await cols.deliveries.get(delivery.id);
      return d?.status === 'delivered' ? d : undefined;
    }, 90_000);
    await eventually(async () => ((await cols.handled.get(completed.id)) ? true : undefined), 60_000);
    // One e-mail; one delivery id on every request the receiver saw (the cut-off one and the one it
    // answered), and one counted attempt.
    expect(reports(jobId)).toHaveLength(1);
    expect(done.attempts).toBe(1);
    const ids = new Set(silent.requests.filter((r) => r.url === '/hook').map((r) => String(r.headers['baret-delivery'])));
    expect([...ids]).toEqual([delivery.id]);
  }, 240_000);
});
