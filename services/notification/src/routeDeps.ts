import { Type } from '@sinclair/typebox';
import { Nullable, preferredLang, type Collection } from '@baret/platform';
import type { Collections, OutboxDoc, ServiceKeys } from './store.js';

/** What the notification routes (routes.ts and each resource's api.ts) are given, and what they share. */
export interface RoutesDeps {
  cols: Collections;
  outbox: Collection<OutboxDoc>;
  keys: () => Promise<ServiceKeys>;
  allowPrivateHosts: boolean;
  clock: () => Date;
}

export const bearer = [{ bearer: [] }];
export const Str = Type.String();
export const NullableStr = Nullable(Type.String());

/** The reader's language, from Accept-Language. */
export const langOf = (request: { headers: Record<string, string | string[] | undefined> }) => preferredLang(request.headers['accept-language'] as string | undefined);
