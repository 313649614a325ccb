import { Type, type Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { auditSourceOf, IdParams, principalOf, problems } from '@baret/platform';
import { NOTE_MAX } from '../findings.js';
import type { JobRoutesDeps } from './deps.js';
import { bearer, NullableStr, ReviewVerdictSchema, Str } from './schemas.js';

const VerdictOfModel = Type.Union(['worn', 'missing', 'cannot_tell'].map((v) => Type.Literal(v)), { description: 'What the model said of the finding' });
const ReviewEntrySchema = Type.Object({
  worker: Type.Integer({ minimum: 1 }),
  group: Str,
  model_verdict: VerdictOfModel,
  verdict: ReviewVerdictSchema,
  by: Type.String({ description: 'The reviewer’s user id' }),
  by_name: Type.Union([Str, Type.Null()], { description: 'The reviewer’s name (or address); null once their account is erased' }),
  at: Str,
  note: NullableStr,
});
export const ReviewsSchema = Type.Object({
  job_id: Str,
  violation_count: Type.Integer({ minimum: 0, description: 'The job’s violations as reviewed' }),
  reviews: Type.Array(ReviewEntrySchema, { description: 'The review standing for each reviewed finding (the latest of each)' }),
  history: Type.Array(ReviewEntrySchema, { description: 'Every review, oldest first: a changed review keeps its earlier ones here' }),
});
export const ReviewBody = Type.Object(
  {
    worker: Type.Integer({ minimum: 1, maximum: 100_000, description: 'The worker’s number in the result (`workers[].worker`, `violations[].worker`)' }),
    group: Type.String({ minLength: 1, maxLength: 200, pattern: '^[a-z0-9_]+(,[a-z0-9_]+)*$', description: 'The group key: its codes joined by commas, as in `workers[].items` ("pic1,pic2,pic3")' }),
    verdict: ReviewVerdictSchema,
    note: Type.Optional(Type.Union([Type.String({ maxLength: NOTE_MAX }), Type.Null()], { description: `Why, at most ${NOTE_MAX} characters` })),
  },
  { additionalProperties: false },
);
export type ReviewBody = Static<typeof ReviewBody>;

const WHO =
  'Who may review: for a job of an organisation, its managers — never the person who recorded the job (403), so a crew member cannot clear their own violation; ' +
  'a member (crew) of the organisation may not (403); for a personal job (no organisation), its owner. Admins read jobs but do not sign reviews (403). ' +
  'Signed in with a password or company account only (an API key is refused: a review is a person’s signature). Another organisation’s job is 404.';

/** The reviews of a job's findings (issue 53): each a `finding_reviewed` event in the job's stream. */
export const reviewRoutes =
  (deps: JobRoutesDeps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/jobs/:id/reviews',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['jobs'],
          summary: 'The reviews of a job’s findings: those standing and their history (whoever may see the job)',
          security: bearer,
          params: IdParams,
          response: { 200: ReviewsSchema, ...problems(401, 404) },
        },
      },
      async (request) => deps.reviewsOf(await deps.visibleJob(principalOf(request), request.params.id)),
    );

    app.post(
      '/jobs/:id/reviews',
      {
        preHandler: app.requireLogin,
        config: { principalLimit: { max: 120, timeWindow: '1 minute' } },
        schema: {
          tags: ['jobs'],
          summary: 'Review one finding of a done job: the model was right (confirmed), or what is true (worn, missing, not_a_worker)',
          description:
            'A finding is one worker and one required group of the result. The latest review of a finding stands; every review stays in the job’s timeline ' +
            '(event `finding_reviewed`) and the organisation’s audit log. What counts from then on is the reviewed verdict (`reviewed_verdict` in the result): ' +
            'a violation reviewed worn or not_a_worker is dismissed (kept in the JSON with `dismissed: true`, counted nowhere); a finding reviewed missing that the ' +
            'model did not list becomes a violation (`added_by_review: true`). The same verdict and note already standing records nothing (idempotent). ' +
            `${WHO} 409: the job is not done.`,
          security: bearer,
          params: IdParams,
          body: ReviewBody,
          response: { 200: ReviewsSchema, ...problems(400, 401, 403, 404, 409, 429) },
        },
      },
      async (request) => deps.review(principalOf(request), request.params.id, request.body, auditSourceOf(request)),
    );
  };

