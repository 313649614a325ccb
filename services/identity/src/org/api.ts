import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { auditSourceOf, IdParams, principalOf, problems, QuotaSchema, requestOrigin } from '@baret/platform';
import { ORG_NAME_MAX } from './businessLogic.js';
import type { Orgs } from './orgs.js';

const bearer = [{ bearer: [] }];
const Role = Type.Union([Type.Literal('manager'), Type.Literal('member')]);
const OrgSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    role: Role,
    created_at: Type.String(),
    member_count: Type.Integer(),
    quota: QuotaSchema,
  },
  { description: 'An organisation as its member sees it: your role, and the plan and quota every member’s analyses are charged to' },
);
const MemberSchema = Type.Object({
  user_id: Type.String(),
  email: Type.String(),
  full_name: Type.Union([Type.String(), Type.Null()]),
  role: Role,
  joined_at: Type.String(),
});
const PendingInviteSchema = Type.Object({ invite_id: Type.String(), email: Type.String(), role: Role, created_at: Type.String(), expires_at: Type.String() });
const OrgSettingsSchema = Type.Object(
  {
    blur_third_party: Type.Boolean({ description: 'Frames sent to a third-party vision model (an OpenAI-compatible endpoint) have their faces blurred too. Default true.' }),
    managers_see_unblurred: Type.Boolean({
      description:
        'Keep an unblurred copy of the evidence that only the organisation’s managers can open (`?unblurred=true` on the evidence routes). Default false: unblurred frames are never stored. Applies to jobs analysed after the change.',
    }),
    time_zone: Type.String({
      minLength: 1,
      maxLength: 64,
      examples: ['Europe/Istanbul'],
      description:
        'The IANA time zone the organisation’s reports write dates and times in, named (issue 54). Default Europe/Istanbul. An unknown name is refused with a 400; a name is answered as Intl spells it ("europe/istanbul" → "Europe/Istanbul").',
    }),
  },
  { description: 'How the organisation’s evidence treats faces (issue 30; stored evidence always has faces blurred) and the time zone of its reports (issue 54).' },
);
const TokenParams = Type.Object({ token: Type.String({ minLength: 20, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }) });
/** A member of an organisation: `/orgs/{id}/members/{user_id}`. */
const MemberParams = Type.Object({ id: IdParams.properties.id, user_id: IdParams.properties.id });

/** Creating an organisation, and the one you belong to. */
function orgCreationRoutes(instance: FastifyInstance, orgs: Orgs): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/orgs',
    {
      preHandler: app.requireUser,
      config: { rateLimit: { max: 20, timeWindow: '1 hour' } },
      schema: {
        tags: ['organisations'],
        summary: 'Create an organisation and become its manager (a user belongs to at most one)',
        security: bearer,
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: ORG_NAME_MAX }) }, { additionalProperties: false }),
        response: { 201: OrgSchema, ...problems(400, 401, 409, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await orgs.createOrg(principalOf(request).userId, request.body.name)),
  );

  app.get(
    '/orgs/current',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['organisations'],
        summary: 'The organisation you belong to; 204 without a body when you belong to none',
        security: bearer,
        response: { 200: OrgSchema, 204: Type.Null(), ...problems(401) },
      },
    },
    async (request, reply) => {
      const org = await orgs.currentOrNull(principalOf(request).userId);
      return org ? org : reply.code(204).send(null);
    },
  );
}

/** Invitations: a manager invites an address; the invited user previews and accepts. */
function invitationRoutes(instance: FastifyInstance, orgs: Orgs): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/orgs/:id/invites',
    {
      preHandler: app.requireUser,
      config: { rateLimit: { max: 100, timeWindow: '1 hour' } },
      schema: {
        tags: ['organisations'],
        summary: 'Invite an email address as manager or member (managers only); the token and link are shown once',
        description:
          '`url` is the invitation page relative to the app’s address (`/invite/{token}`); the web app shows it whole for the manager to share. ' +
          'Only the user registered with the invited address can accept it, within 14 days.',
        security: bearer,
        params: IdParams,
        body: Type.Object({ email: Type.String({ format: 'email', minLength: 3, maxLength: 254 }), role: Role }, { additionalProperties: false }),
        response: {
          201: Type.Object({ invite_id: Type.String(), email: Type.String(), role: Role, expires_at: Type.String(), token: Type.String(), url: Type.String() }),
          ...problems(400, 401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await orgs.invite(principalOf(request).userId, request.params.id, request.body.email, request.body.role, requestOrigin(request))),
  );

  app.get(
    '/orgs/:id/invites',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['organisations'],
        summary: 'Invitations not accepted yet and not expired (managers only)',
        security: bearer,
        params: IdParams,
        response: { 200: Type.Array(PendingInviteSchema), ...problems(401, 403, 404) },
      },
    },
    async (request) => orgs.pendingInvites(principalOf(request).userId, request.params.id),
  );

  // Public (issue 54): the token is the secret the mail carried, and a person who has no account
  // yet (or is logged out) must see which organisation invites them before signing up or in.
  app.get(
    '/invites/:token',
    {
      schema: {
        tags: ['organisations'],
        summary: 'What an invitation is for: the organisation, the address and the role (no login needed: the token is the secret)',
        params: TokenParams,
        response: {
          200: Type.Object({ org_id: Type.String(), org_name: Type.String(), email: Type.String(), role: Role, expires_at: Type.String(), accepted: Type.Boolean() }),
          ...problems(400, 404),
        },
      },
    },
    async (request) => orgs.previewInvite(request.params.token),
  );

  app.post(
    '/invites/:token/accept',
    {
      preHandler: app.requireUser,
      config: { rateLimit: { max: 30, timeWindow: '1 hour' } },
      schema: {
        tags: ['organisations'],
        summary: 'Accept an invitation sent to your address and join the organisation',
        security: bearer,
        params: TokenParams,
        response: { 200: OrgSchema, ...problems(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => orgs.accept(principalOf(request).userId, request.params.token),
  );
}

/** The organisation's settings: any member reads them, managers change them. */
function orgSettingsRoutes(instance: FastifyInstance, orgs: Orgs): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/orgs/:id/settings',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['organisations'],
        summary: 'The organisation’s settings (any member may read them)',
        security: bearer,
        params: IdParams,
        response: { 200: OrgSettingsSchema, ...problems(401, 404) },
      },
    },
    async (request) => orgs.settings(principalOf(request).userId, request.params.id),
  );

  app.patch(
    '/orgs/:id/settings',
    {
      preHandler: app.requireUser,
      config: { rateLimit: { max: 60, timeWindow: '1 hour' } },
      schema: {
        tags: ['organisations'],
        summary: 'Change settings of the organisation (managers only); settings left out stay as they are',
        security: bearer,
        params: IdParams,
        body: Type.Partial(OrgSettingsSchema, { additionalProperties: false, minProperties: 1 }),
        response: { 200: OrgSettingsSchema, ...problems(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const by = principalOf(request).userId;
      return orgs.changeSettings(by, request.params.id, request.body, auditSourceOf(request, by));
    },
  );
}

/** The members: who they are, their roles, removing them (or leaving). */
function memberRoutes(instance: FastifyInstance, orgs: Orgs): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/orgs/:id/members',
    {
      preHandler: app.requireUser,
      schema: { tags: ['organisations'], summary: 'The members of your organisation with their roles', security: bearer, params: IdParams, response: { 200: Type.Array(MemberSchema), ...problems(401, 404) } },
    },
    async (request) => orgs.members(principalOf(request).userId, request.params.id),
  );

  app.patch(
    '/orgs/:id/members/:user_id',
    {
      preHandler: app.requireUser,
      config: { rateLimit: { max: 100, timeWindow: '1 hour' } },
      schema: {
        tags: ['organisations'],
        summary: 'Change a member’s role (managers); the last manager cannot demote themselves (409)',
        description: 'Takes effect on the member’s next request. Recorded in the audit log (`member.role_changed`); setting the role a member already has changes nothing and records nothing.',
        security: bearer,
        params: MemberParams,
        body: Type.Object({ role: Role }, { additionalProperties: false }),
        response: { 200: MemberSchema, ...problems(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const by = principalOf(request).userId;
      return orgs.changeRole(by, request.params.id, request.params.user_id, request.body.role, auditSourceOf(request, by));
    },
  );

  app.delete(
    '/orgs/:id/members/:user_id',
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['organisations'],
        summary: 'Remove a member (managers), or leave (yourself); their jobs stay with the organisation',
        security: bearer,
        params: MemberParams,
        response: { 204: Type.Null(), ...problems(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await orgs.removeMember(principalOf(request).userId, request.params.id, request.params.user_id);
      return reply.code(204).send(null);
    },
  );
}

/** Organisations: members, roles and invitations (issue 30). */
export const orgRoutes =
  (orgs: Orgs): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    orgCreationRoutes(instance, orgs);
    invitationRoutes(instance, orgs);
    orgSettingsRoutes(instance, orgs);
    memberRoutes(instance, orgs);
  };
