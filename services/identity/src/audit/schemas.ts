import { Type, type Static } from '@sinclair/typebox';
import { AUDIT_ACTIONS, AUDIT_OBJECT_TYPES, IdParams } from '@baret/platform';

const Str = Type.String();
const NullableStr = Type.Union([Type.String(), Type.Null()]);
export const AuditEntrySchema = Type.Object({
  id: Str,
  at: Str,
  action: Type.String({ description: `What was done: ${AUDIT_ACTIONS.join(', ')} (more may be added)` }),
  outcome: Type.Union([Type.Literal('success'), Type.Literal('failure')]),
  actor_id: Type.Union([Str, Type.Null()], { description: 'Who: a user id; null for an unknown address (a failed sign-in) or the system' }),
  actor_email: Type.Union([Str, Type.Null()], { description: 'The actor’s address, read from the account; null once the account is deleted or erased' }),
  org_id: NullableStr,
  object_type: Type.String({ description: `What it was done to: ${AUDIT_OBJECT_TYPES.join(', ')}` }),
  object_id: NullableStr,
  ip: NullableStr,
  user_agent: NullableStr,
  details: Type.Record(Str, Str, { description: 'A few facts: the new and previous role, the setting and its value, the format, why a sign-in failed' }),
});
export type AuditEntry = Static<typeof AuditEntrySchema>;
const DateParam = Type.String({ maxLength: 40, description: 'YYYY-MM-DD (a whole UTC day) or an ISO date-time' });
export const AuditQuery = Type.Object({
  from: Type.Optional(DateParam),
  to: Type.Optional(DateParam),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 60, pattern: '^[a-z_]+\\.[a-z_]+$', description: `One action: ${AUDIT_ACTIONS.join(', ')}` })),
  actor: Type.Optional(IdParams.properties.id),
  object: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.:-]+$', description: 'an object id: a job, user, organisation or setting' })),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 200, pattern: '^[A-Za-z0-9_-]+$', description: 'next_cursor of the previous page' })),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { default: 'json' })),
  lang: Type.Optional(Type.Union([Type.Literal('tr'), Type.Literal('en')])),
});
export type AuditQuery = Static<typeof AuditQuery>;
export const PageSchema = Type.Object({
  entries: Type.Array(AuditEntrySchema),
  next_cursor: Type.Union([Str, Type.Null()], { description: 'Pass as cursor for the next (older) page; null at the end' }),
});
