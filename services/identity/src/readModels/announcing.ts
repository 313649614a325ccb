import type { PrincipalChanges, Projection, RecordedEvent } from '@baret/platform';

/** The user an identity event concerns: the stream's user, or the owner of an API key. */
function userOf(event: RecordedEvent): string | null {
  if (event.streamId.startsWith('user-')) return event.streamId.slice('user-'.length);
  const owner = (event.data as { user_id?: unknown } | null)?.user_id;
  return typeof owner === 'string' ? owner : null;
}

/** The projection, announcing the user of every event it applied (docs/adr/0019). */
export function announcing(projection: Projection, changes: PrincipalChanges): Projection {
  return {
    ...projection,
    async apply(event, documents, events) {
      await projection.apply(event, documents, events);
      const userId = userOf(event);
      if (userId) changes.announce(userId);
    },
  };
}
