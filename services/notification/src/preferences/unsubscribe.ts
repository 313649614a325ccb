import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ValidationError, type Lang } from '@baret/platform';
import { readUnsubscribeToken } from '../email.js';
import { langOf, type RoutesDeps } from '../routeDeps.js';
import { preferencesOf } from '../store.js';

const unsubscribePage = (lang: Lang, state: 'ask' | 'done', token: string) => {
  const t = {
    tr: { title: 'Abonelikten çık', ask: 'Bu tür e-postaları artık almak istemiyor musunuz?', button: 'Abonelikten çık', done: 'Bu tür e-postaları artık almayacaksınız. Tercihlerinizi profil sayfanızdan değiştirebilirsiniz.' },
    en: { title: 'Unsubscribe', ask: 'Stop receiving this kind of e-mail?', button: 'Unsubscribe', done: 'You will no longer receive this kind of e-mail. You can change this on your profile page.' },
  }[lang];
  const body =
    state === 'ask'
      ? `<p>${t.ask}</p><form method="post" action="/notifications/unsubscribe?token=${encodeURIComponent(token)}"><button type="submit">${t.button}</button></form>`
      : `<p>${t.done}</p>`;
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${t.title} · Baret</title></head><body style="font-family:system-ui,sans-serif;max-width:480px;margin:48px auto;padding:0 16px"><h1>${t.title}</h1>${body}</body></html>`;
};

/** An e-mail's one-click unsubscribe link (no login): the page it opens, and the click that turns that kind of e-mail off. */
export const unsubscribeRoutes = (deps: RoutesDeps) => async (instance: FastifyInstance) => {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { cols } = deps;

  const unsubscribeQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 500 }) });
  app.get(
    '/notifications/unsubscribe',
    {
      schema: { tags: ['notifications'], summary: 'The page an e-mail\'s unsubscribe link opens (no login): one button turns that kind of e-mail off', querystring: unsubscribeQuery, produces: ['text/html'] },
    },
    async (request, reply) => {
      if (!readUnsubscribeToken((await deps.keys()).unsubscribeSecret, request.query.token)) throw new ValidationError('This unsubscribe link is not valid.');
      return reply.code(200).type('text/html; charset=utf-8').send(unsubscribePage(langOf(request), 'ask', request.query.token));
    },
  );

  app.post(
    '/notifications/unsubscribe',
    {
      schema: {
        tags: ['notifications'],
        summary: 'One-click unsubscribe (RFC 8058, no login): the signed token names the user and the kind of e-mail to turn off',
        querystring: unsubscribeQuery,
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      const lang = langOf(request);
      const target = readUnsubscribeToken((await deps.keys()).unsubscribeSecret, request.query.token);
      if (!target) throw new ValidationError('This unsubscribe link is not valid.');
      const prefs = await preferencesOf(cols.preferences, target.userId);
      prefs[target.kind].email = false;
      await cols.preferences.put(target.userId, { id: target.userId, preferences: prefs });
      return reply.code(200).type('text/html; charset=utf-8').send(unsubscribePage(lang, 'done', ''));
    },
  );
};
