import { KafkaMessageBus, type MessageBus } from '@baret/platform';
import { engineInstalled, kafkaLibs, messageBusContract, startKafka, type KafkaLine } from '@baret/platform/testing';
import { afterAll, beforeAll, describe } from 'vitest';

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
      const connect = () => KafkaMessageBus.connect({ brokers: kafka.brokers, clientId: `contract-${run}`, sessionTimeoutMs: 3000 });
      let bus: MessageBus = await connect();
      const abandoned: MessageBus[] = [];
      return {
        get bus() {
          return bus;
        },
        crashAndRestart: async () => {
          // Never closed: its consumer stops heartbeating while stuck, and the group moves on.
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
  });
}
