import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { IdParams, principalOf, problems } from '@baret/platform';
import { CITY_MAX, UNIT_NAME_MAX } from './businessLogic.js';
import type { SitesCrews } from './handlers.js';
import type { UnitKind } from './siteCrew.js';

const bearer = [{ bearer: [] }];
const Str = Type.String();
const NullableStr = Type.Union([Type.String(), Type.Null()]);
const UnitSchema = Type.Object({ id: Str, name: Str, city: NullableStr, archived: Type.Boolean(), created_at: Str });
const Id = IdParams.properties.id;

/** An organisation's sites and crews: add, list, archive. */
export const siteCrewRoutes =
  (deps: { sitesCrews: SitesCrews }): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    for (const kind of ['site', 'crew'] as const satisfies readonly UnitKind[]) {
      const plural = `${kind}s`;
      const Body =
        kind === 'site'
          ? Type.Object({ name: Type.String({ minLength: 1, maxLength: UNIT_NAME_MAX }), city: Type.Optional(Type.Union([Type.String({ maxLength: CITY_MAX }), Type.Null()])) }, { additionalProperties: false })
          : Type.Object({ name: Type.String({ minLength: 1, maxLength: UNIT_NAME_MAX }) }, { additionalProperties: false });
      app.post(
        `/orgs/:id/${plural}`,
        {
          preHandler: app.requireUser,
          schema: {
            tags: ['organisations'],
            summary: kind === 'site' ? 'Add a site (where crews work) to your organisation (managers)' : 'Add a crew to your organisation (managers)',
            security: bearer,
            params: IdParams,
            body: Body,
            response: { 201: UnitSchema, ...problems(400, 401, 403, 404) },
          },
        },
        async (request, reply) => {
          const body = request.body as { name: string; city?: string | null };
          return reply.code(201).send(await deps.sitesCrews.create(principalOf(request), request.params.id, kind, body));
        },
      );
      app.get(
        `/orgs/:id/${plural}`,
        {
          preHandler: app.requireUser,
          schema: {
            tags: ['organisations'],
            summary: `Your organisation’s ${plural} by name (members); archived ones only with archived=true`,
            security: bearer,
            params: IdParams,
            querystring: Type.Object({ archived: Type.Optional(Type.Boolean({ default: false })) }),
            response: { 200: Type.Array(UnitSchema), ...problems(400, 401, 404) },
          },
        },
        async (request) => deps.sitesCrews.list(principalOf(request), request.params.id, kind, request.query.archived === true),
      );
      app.post(
        `/orgs/:id/${plural}/:unit_id/archive`,
        {
          preHandler: app.requireUser,
          schema: {
            tags: ['organisations'],
            summary: `Archive a ${kind}: no new job can name it; its jobs keep it (managers)`,
            security: bearer,
            params: Type.Object({ id: Id, unit_id: Id }),
            response: { 200: UnitSchema, ...problems(401, 403, 404) },
          },
        },
        async (request) => deps.sitesCrews.archive(principalOf(request), request.params.id, kind, request.params.unit_id),
      );
    }
  };
