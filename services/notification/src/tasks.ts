import { decodeEnvelope, runConsumer, type BackgroundTask, type DecodedEnvelope, type MessageBus } from '@baret/platform';
import type { Engine } from './engine.js';

/** What each consumer does with a message of its topics. */
export interface Consumers {
  /** Job and quota events → the owner's (and their managers') notifications. */
  onJobOrQuotaEvent: (event: DecodedEnvelope, signal: AbortSignal) => Promise<void>;
  onUserEvent: (event: DecodedEnvelope, signal: AbortSignal) => Promise<void>;
  onOrgEvent: (event: DecodedEnvelope) => Promise<void>;
  onTeamEvent: (event: DecodedEnvelope) => Promise<void>;
}

/** The notification service's consumers of the bus, and its webhook dispatcher. */
export function notificationTasks(bus: MessageBus, engine: Pick<Engine, 'runDispatcher'>, c: Consumers): BackgroundTask[] {
  return [
    {
      // Job and quota events → the owner's notifications; at least once from the bus, once to the person.
      name: 'notification:events',
      run: (signal) =>
        runConsumer(bus, 'notification-events', ['job-events', 'quota-events'], async (message) => c.onJobOrQuotaEvent(decodeEnvelope(message.value), signal), signal, {
          maxAttempts: 10,
          retryDelayMs: 500,
        }),
    },
    {
      name: 'notification:users',
      run: (signal) => runConsumer(bus, 'notification-users', ['user-events'], async (message) => c.onUserEvent(decodeEnvelope(message.value), signal), signal, { maxAttempts: 10, retryDelayMs: 500 }),
    },
    {
      // Who manages which organisation, and the invitation mails (issue 28).
      name: 'notification:orgs',
      run: (signal) => runConsumer(bus, 'notification-orgs', ['org-events'], async (message) => c.onOrgEvent(decodeEnvelope(message.value)), signal, { maxAttempts: 10, retryDelayMs: 500 }),
    },
    { name: 'notification:webhooks', run: (signal) => engine.runDispatcher(signal) },
    {
      name: 'notification:team',
      run: (signal) => runConsumer(bus, 'notification', ['contact-events', 'upgrade-events'], async (message) => c.onTeamEvent(decodeEnvelope(message.value)), signal),
    },
  ];
}
