import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf, problems } from '@baret/platform';
import { CHANNELS, NOTICE_KINDS } from '../notices.js';
import { bearer, type RoutesDeps } from '../routeDeps.js';
import { preferencesOf } from '../store.js';

const ChannelPrefs = Type.Object(Object.fromEntries(CHANNELS.map((c) => [c, Type.Boolean()])) as Record<(typeof CHANNELS)[number], ReturnType<typeof Type.Boolean>>);
const PreferencesSchema = Type.Object(Object.fromEntries(NOTICE_KINDS.map((k) => [k, ChannelPrefs])) as Record<(typeof NOTICE_KINDS)[number], typeof ChannelPrefs>);
const PartialChannelPrefs = Type.Partial(ChannelPrefs, { additionalProperties: false });
const PreferencesPatch = Type.Partial(
  Type.Object(Object.fromEntries(NOTICE_KINDS.map((k) => [k, PartialChannelPrefs])) as Record<(typeof NOTICE_KINDS)[number], typeof PartialChannelPrefs>),
  { additionalProperties: false },
);
const PreferencesAnswer = Type.Object({ preferences: PreferencesSchema, language: Type.Union([Type.Literal('tr'), Type.Literal('en')]) });

/** Which notifications you get on which channel, and the language of your mails and pushes. */
export const preferencesRoutes = (deps: RoutesDeps) => async (instance: FastifyInstance) => {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { cols } = deps;

  app.get(
    '/notifications/preferences',
    {
      preHandler: app.requireUser,
      schema: { tags: ['notifications'], summary: 'Which notifications you get on which channel, and their language', security: bearer, response: { 200: PreferencesAnswer, ...problems(401) } },
    },
    async (request) => {
      const userId = principalOf(request).userId;
      return { preferences: await preferencesOf(cols.preferences, userId), language: (await cols.recipients.get(userId))?.language ?? 'tr' };
    },
  );

  app.put(
    '/notifications/preferences',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['notifications'],
        summary: 'Change some of your notification preferences (kinds × channels) or the language of your mails and pushes',
        security: bearer,
        body: Type.Object({ preferences: Type.Optional(PreferencesPatch), language: Type.Optional(Type.Union([Type.Literal('tr'), Type.Literal('en')])) }, { additionalProperties: false }),
        response: { 200: PreferencesAnswer, ...problems(400, 401) },
      },
    },
    async (request) => {
      const userId = principalOf(request).userId;
      const prefs = await preferencesOf(cols.preferences, userId);
      for (const [kind, channels] of Object.entries(request.body.preferences ?? {})) {
        for (const [channel, on] of Object.entries(channels ?? {})) if (typeof on === 'boolean') prefs[kind as keyof typeof prefs][channel as keyof (typeof prefs)['quota']] = on;
      }
      await cols.preferences.put(userId, { id: userId, preferences: prefs });
      const recipient = await cols.recipients.get(userId);
      if (request.body.language && recipient && recipient.language !== request.body.language) await cols.recipients.put(userId, { ...recipient, language: request.body.language });
      return { preferences: prefs, language: request.body.language ?? recipient?.language ?? 'tr' };
    },
  );
};
