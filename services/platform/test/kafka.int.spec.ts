import { KafkaMessageBus, type MessageBus } from '@baret/platform';
import { engineInstalled, kafkaLibs, messageBusContract, startKafka, waitUntil, type KafkaLine } from '@baret/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

for (const line of ['3.9', '4'] as KafkaLine[]) {
  const installed = engineInstalled(`Kafka ${line} message bus contract`, kafkaLibs(line) !== null, `Kafka ${line}`);
  describe.skipIf(!installed)(`Kafka ${line}`, () => {
    let kafka: Awaited<ReturnType<typeof startKafka>>;
    let n = 0;
    beforeAll(async () => {
      kafka = await startKafka(line);
    }, 180_000);
    afterAll(async () => {
      await kafka?.stop();
    });

    messageBusContract(`Kafka ${line}`, async () => {
      const run = `${line.replace('.', '')}-${++n}`;
      const connect = () => KafkaMessageBus.connect({ brokers: kafka.brokers, clientId: `contract-${run}`, sessionTimeoutMs: 3000, maxHandlerMs: 2000 });
      let bus: MessageBus = await connect();
      const abandoned: MessageBus[] = [];
      return {
        get bus() {
          return bus;
        },
        crashAndRestart: async () => {
          // Never closed: its handler is stuck, so past maxHandlerMs its consumer stops heartbeating and the group moves on.
          abandoned.push(bus);
          bus = await connect();
          return bus;
        },
        topic: (name) => `${name}-${run}`,
        dispose: async () => {
          await bus.close();
        },
      };
    });

    if (line === '4') {
      it('keeps a message with the consumer whose handler outlasts the session timeout (a long analysis job)', async () => {
        const topic = `long-${Date.now()}`;
        const connect = () => KafkaMessageBus.connect({ brokers: kafka.brokers, clientId: 'long-job', sessionTimeoutMs: 3000 });
        const [a, b] = [await connect(), await connect()];
        const handled: string[] = [];
        const slow = (who: string) => async () => {
          handled.push(who);
          await new Promise((r) => setTimeout(r, 8000)); // well past the 3 s session
        };
        try {
          const subA = await a.subscribe('long-jobs', [topic], slow('a'));
          await a.publish(topic, [{ key: 'job-1', value: new TextEncoder().encode('job') }]);
          await waitUntil(async () => handled.length === 1, 20_000, () => 'message not delivered');
          // Another worker joins mid-job: the group rebalances, and the job stays where it is.
          const subB = await b.subscribe('long-jobs', [topic], slow('b'));
          await new Promise((r) => setTimeout(r, 10_000));
          expect(handled).toEqual(['a']);
          await Promise.all([subA.close(), subB.close()]);
        } finally {
          await Promise.all([a.close(), b.close()]);
        }
      }, 60_000);
    }
  });
}
