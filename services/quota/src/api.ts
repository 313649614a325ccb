import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { auditSourceOf, IdParams, NotFoundError, NullableInteger, NullableString, orgQuotaAccount, principalOf, problems, QuotaSchema, type AuditSource, type QuotaClient, type QuotaView, type UserDirectory } from '@baret/platform';
import type { Limits } from './quota/quota.js';

const LimitInput = NullableInteger({ minimum: 0, maximum: 1_000_000_000 });
const RowSchema = Type.Object({
  user_id: Type.String(),
  email: Type.String(),
  full_name: Type.Union([Type.String(), Type.Null()]),
  quota: QuotaSchema,
});
const OrgRowSchema = Type.Object({ org_id: Type.String(), name: Type.String(), member_count: Type.Integer(), quota: QuotaSchema });
const LimitsBody = Type.Object(
  {
    plan_name: Type.Optional(NullableString({ maxLength: 50 })),
    daily_limit: Type.Optional(LimitInput),
    monthly_limit: Type.Optional(LimitInput),
    lifetime_limit: Type.Optional(LimitInput),
  },
  { additionalProperties: false },
);
const bearer = [{ bearer: [] }];

/** The limits sent: an empty plan name puts the account back on the default plan. */
function changesOf(body: { plan_name?: string | null } & Partial<Omit<Limits, 'plan_name'>>): Partial<Limits> {
  const { plan_name, ...limits } = body;
  const changes: Partial<Limits> = { ...limits };
  if (plan_name !== undefined) changes.plan_name = plan_name?.trim() || 'free';
  return changes;
}

interface Deps {
  client: QuotaClient;
  changeLimits(userId: string, changes: Partial<Limits>, by: string, from?: AuditSource): Promise<QuotaView>;
  requestUpgrade(input: { user_id: string; email: string; origin: 'pricing' | 'profile'; message: string | null }): Promise<string>;
  directory: UserDirectory;
  clock: () => Date;
}

/** An admin reads and changes the quotas of users. */
function userQuotaRoutes(instance: FastifyInstance, deps: Deps): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/admin/users/quotas',
    {
      preHandler: app.requireAdmin,
      schema: { tags: ['admin'], summary: 'Every user with plan, limits and usage', security: bearer, response: { 200: Type.Array(RowSchema), ...problems(401, 403) } },
    },
    async () => {
      const users = await deps.directory.listUsers();
      return Promise.all(users.map(async (u) => ({ user_id: u.id, email: u.email, full_name: u.full_name, quota: await deps.client.getQuota(u.id) })));
    },
  );

  app.patch(
    '/admin/users/:id/quota',
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Change a user’s plan or limits; only the fields sent change; null means unlimited',
        security: bearer,
        params: IdParams,
        body: Type.Object(
          {
            plan_name: Type.Optional(NullableString({ maxLength: 50 })),
            daily_limit: Type.Optional(LimitInput),
            monthly_limit: Type.Optional(LimitInput),
            lifetime_limit: Type.Optional(LimitInput),
          },
          { additionalProperties: false },
        ),
        response: { 200: RowSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const [user] = await deps.directory.getUsers([request.params.id]);
      if (!user) throw new NotFoundError('This user does not exist.');
      const { plan_name, ...limits } = request.body;
      const changes: Partial<Limits> = { ...limits };
      // An empty plan name puts the user back on the default plan.
      if (plan_name !== undefined) changes.plan_name = plan_name?.trim() || 'free';
      const quota = await deps.changeLimits(user.id, changes, principalOf(request).userId, auditSourceOf(request));
      return { user_id: user.id, email: user.email, full_name: user.full_name, quota };
    },
  );
}

/** An admin reads and changes the quotas of organisations (their members' analyses are charged to them). */
function orgQuotaRoutes(instance: FastifyInstance, deps: Deps): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/admin/orgs/quotas',
    {
      preHandler: app.requireAdmin,
      schema: { tags: ['admin'], summary: 'Every organisation with plan, limits and usage (its members’ analyses are charged to it)', security: bearer, response: { 200: Type.Array(OrgRowSchema), ...problems(401, 403) } },
    },
    async () => {
      const orgs = await deps.directory.listOrgs();
      return Promise.all(orgs.map(async (o) => ({ org_id: o.id, name: o.name, member_count: o.member_count, quota: await deps.client.getQuota(orgQuotaAccount(o.id)) })));
    },
  );

  app.patch(
    '/admin/orgs/:id/quota',
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Change an organisation’s plan or limits, as for a user',
        security: bearer,
        params: IdParams,
        body: LimitsBody,
        response: { 200: OrgRowSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const org = (await deps.directory.listOrgs()).find((o) => o.id === request.params.id);
      if (!org) throw new NotFoundError('This organisation does not exist.');
      const quota = await deps.changeLimits(orgQuotaAccount(org.id), changesOf(request.body), principalOf(request).userId, auditSourceOf(request));
      return { org_id: org.id, name: org.name, member_count: org.member_count, quota };
    },
  );
}

/** A user asks for the Pro plan. */
function upgradeRequestRoutes(instance: FastifyInstance, deps: Deps): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/usage/request-upgrade',
    {
      preHandler: app.requireUser,
      config: { principalLimit: { max: 5, timeWindow: '1 hour' } },
      schema: {
        tags: ['usage'],
        summary: 'Ask the team for the Pro plan',
        security: bearer,
        body: Type.Object({
          origin: Type.Union([Type.Literal('pricing'), Type.Literal('profile')]),
          message: Type.Optional(NullableString({ maxLength: 2000 })),
        }),
        response: { 202: Type.Object({ status: Type.Literal('received'), request_id: Type.String() }), ...problems(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const requestId = await deps.requestUpgrade({
        user_id: principal.userId,
        email: principal.email,
        origin: request.body.origin,
        message: request.body.message?.trim() || null,
      });
      return reply.code(202).send({ status: 'received' as const, request_id: requestId });
    },
  );
}

export const quotaRoutes =
  (deps: Deps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    userQuotaRoutes(instance, deps);
    orgQuotaRoutes(instance, deps);
    upgradeRequestRoutes(instance, deps);
  };
