import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { NullableString, problems, ValidationError, type EventStore } from '@baret/platform';

/** A message to the team (the contact form): recorded as an event, mailed to the team and listed in its inbox (team/teamMail.ts). */

export const CONTACT_MESSAGE_MIN = 10;
export const MESSAGE_MAX = 2000;

const blankToNull = (s: string | null | undefined): string | null => s?.trim() || null;

export interface ContactDeps {
  eventStore: EventStore;
  clock: () => Date;
}

export async function submitContact(deps: ContactDeps, input: { name?: string | null; email: string; subject?: string | null; message: string }, userId: string | null) {
  const email = input.email.trim();
  const message = input.message.trim();
  if (!email) throw new ValidationError('Please enter your email address.');
  if (message.length < CONTACT_MESSAGE_MIN) throw new ValidationError(`Please write a message of at least ${CONTACT_MESSAGE_MIN} characters.`);
  if (message.length > MESSAGE_MAX) throw new ValidationError(`The message must be at most ${MESSAGE_MAX} characters long.`);
  const id = randomUUID();
  await deps.eventStore.appendToStream(
    `contact-${id}`,
    [
      {
        type: 'contact_message_submitted',
        data: { message_id: id, name: blankToNull(input.name), email, subject: blankToNull(input.subject), message, user_id: userId, submitted_at: deps.clock().toISOString() },
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  return id;
}

/** POST /contact, rate-limited per address. */
export const contactRoutes = (deps: ContactDeps & { contactRateLimit?: number }) => async (instance: FastifyInstance) => {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/contact',
    {
      config: { rateLimit: { max: deps.contactRateLimit ?? 5, timeWindow: '10 minutes', keyGenerator: (req: { ip: string }) => `contact:${req.ip}` } },
      schema: {
        tags: ['contact'],
        summary: 'Send a message to the team',
        body: Type.Object({
          name: Type.Optional(NullableString({ maxLength: 200 })),
          email: Type.String({ format: 'email', maxLength: 254 }),
          subject: Type.Optional(NullableString({ maxLength: 200 })),
          message: Type.String({ maxLength: MESSAGE_MAX + 200 }),
        }),
        response: { 202: Type.Object({ status: Type.Literal('received'), message_id: Type.String() }), ...problems(400, 429) },
      },
    },
    async (request, reply) => {
      const id = await submitContact(deps, request.body, request.principal?.userId ?? null);
      return reply.code(202).send({ status: 'received' as const, message_id: id });
    },
  );
};
