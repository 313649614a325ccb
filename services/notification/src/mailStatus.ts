import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';

/**
 * `GET /mail/status`: whether this Baret can send mail (issue 54). Without a mail server, account
 * mails are kept in the admin's outbox and reach nobody: the web then says so, and whom to ask,
 * instead of "sent, check your inbox". Public: the sign-up and password-reset pages ask it before
 * anyone is logged in, and it reveals no address.
 */
export function mailStatusRoutes(delivers: boolean) {
  return async (instance: FastifyInstance): Promise<void> => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/mail/status',
      {
        schema: {
          tags: ['notifications'],
          summary: 'Whether this Baret sends mail (false: no mail server, mails stay in the admin outbox)',
          response: { 200: Type.Object({ delivers: Type.Boolean({ description: 'true when a mail server (SMTP_URL) is configured' }) }) },
        },
      },
      async () => ({ delivers }),
    );
  };
}
