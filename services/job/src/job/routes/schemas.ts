import { Type, type Static } from '@sinclair/typebox';

/** The schemas of the job routes: what a job, its result and the usage look like to a client. */

export const Str = Type.String();
export const NullableStr = Type.Union([Type.String(), Type.Null()]);
export const StatusSchema = Type.Union(['queued', 'running', 'done', 'error', 'cancelled'].map((s) => Type.Literal(s)));

export const JobItemSchema = Type.Object({
  job_id: Str,
  status: StatusSchema,
  created_at: Str,
  input_filename: Str,
  model_used: NullableStr,
  estimated_cost: Type.Union([Type.Number(), Type.Null()]),
  currency: Str,
  error: NullableStr,
  job_type: Type.Optional(Str),
  job_display_name: Type.Optional(NullableStr),
  user_email: Type.Optional(Str),
  user_full_name: Type.Optional(NullableStr),
  site_id: Type.Optional(NullableStr),
  site_name: Type.Optional(Type.Union([Str, Type.Null()], { description: 'the site’s name (kept when the site is archived)' })),
  crew_id: Type.Optional(NullableStr),
  crew_name: Type.Optional(Type.Union([Str, Type.Null()], { description: 'the crew’s name (kept when the crew is archived)' })),
  work_order: Type.Optional(NullableStr),
  video_duration_sec: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'the length of the video, once the analysis has opened it' })),
  processing_sec: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'how long the analysis took, from its start to its end' })),
  has_violations: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'whether the finished job found violations; null until done' })),
});
export const DateParam = Type.String({ maxLength: 40, description: 'YYYY-MM-DD (a whole UTC day) or an ISO date-time' });

export const LogSchema = Type.Object({ event: Str, timestamp: Str, data: Type.Optional(Type.Record(Str, Type.Unknown())) });
export const Group = Type.Array(Str, { description: 'An equipment group: any one of its codes satisfies it' });
export const ViolationSchema = Type.Object({
  group: Group,
  group_name: Str,
  worker: Type.Integer({ minimum: 1, description: 'Number of the worker over the whole video, in order of first appearance (followed from frame to frame by position, camera movement and look; see workers)' }),
  time_sec: Type.Number({ description: "When the worker was first seen: the start of the worker's track (one violation per worker and group, decided from the whole track)" }),
  end_sec: Type.Optional(Type.Number({ description: "When the worker was last seen: the end of the worker's track (equals time_sec for a single frame)" })),
  frames: Type.Optional(Type.Integer({ minimum: 1, description: 'Sampled frames of the track that showed the worker without it' })),
  evidence_sec: Type.Optional(Type.Number({ description: 'Time of the evidence frame: the clearest frame of the track without it (large, confident)' })),
  confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: "How sure the verdict is: the frames without it, weighed by the analyzer's confidence, as a share of the frames judged" })),
  box: Type.Object(
    { x: Type.Number(), y: Type.Number(), w: Type.Number(), h: Type.Number() },
    { description: "The worker's box as fractions (0..1) of the evidence frame" },
  ),
  image_url: Type.String({ description: 'The worker cropped out of the frame: GET /jobs/{id}/violations/{n} (owner or admin)' }),
  reason: Type.Optional(
    Type.Union([Type.Literal('other_headgear'), Type.Literal('bare_head'), Type.Null()], {
      description: 'What the worker had instead, when the analyzer can tell: other_headgear (a cap, sun hat, beanie or hood — not a hard hat) or bare_head',
    }),
  ),
  reason_name: Type.Optional(Type.Union([Str, Type.Null()], { description: 'The reason in the reader’s language ("cap or hat, not a hard hat", "bare head")' })),
});
/** The documented part of a result; every other field the analysis stores passes through. */
export const ResultSchema = Type.Object(
  {
    job_type: Str,
    job_type_source: Type.Optional(
      Type.Union(['manual', 'model', 'fallback'].map((s) => Type.Literal(s)), {
        description: 'manual: chosen by the user; model: recognised by the vision model; fallback: not recognised (the offline analyzer cannot classify), general rules applied',
      }),
    ),
    job_type_confidence: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: 'The model’s confidence in the job type; 0 for the fallback, null when chosen' })),
    required_groups: Type.Array(Group),
    missing_groups: Type.Array(Group, {
      description: 'Groups a worker was seen without (or that the vision model said were missing); never a group the analyzer cannot check, nor one no worker could be judged for',
    }),
    not_checked: Type.Optional(Type.Array(Group, { description: 'Groups neither satisfied nor missing: beyond what the analyzer checks, or not judged (see not_judged)' })),
    not_judged: Type.Optional(Type.Array(Group, { description: 'Of not_checked, the groups the analyzer checks but no worker could be judged for (no worker seen, or none judged)' })),
    workers_seen: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Workers seen in the sampled frames (null: the analyzer did not say)' })),
    no_worker_seen: Type.Optional(Type.Boolean({ description: 'No sampled frame showed a worker: nothing was judged, nothing is missing, no violation' })),
    note: Type.Optional(Type.String({ description: 'A note for the reader, e.g. "No worker seen — nothing to judge", or what dedupe did not ask a paid model about' })),
    not_asked: Type.Optional(
      Type.Array(Type.Object({ composite_index: Type.Integer({ minimum: 0 }), codes: Type.Array(Str) }), {
        description: 'What "don\'t ask again about missing equipment" left out, per composite (a paid model only, and only where every worker shown was judged already); empty with the built-in analyzer',
      }),
    ),
    satisfied_equipment: Type.Array(Str, { description: 'One item per group seen worn and never violated' }),
    violations: Type.Optional(Type.Array(ViolationSchema, { description: 'Each worker seen without a required group: one item per worker and group, decided from the whole track, at most 12 per group' })),
    workers: Type.Optional(
      Type.Array(
        Type.Object({
          worker: Type.Integer({ minimum: 1 }),
          first_sec: Type.Number({ description: 'When the worker was first seen' }),
          last_sec: Type.Number({ description: 'When the worker was last seen' }),
          frames: Type.Integer({ minimum: 1, description: 'Sampled frames that showed the worker' }),
          items: Type.Record(
            Str,
            Type.Object({
              verdict: Type.Union([Type.Literal('worn'), Type.Literal('missing'), Type.Literal('cannot_tell')]),
              frames_worn: Type.Integer({ minimum: 0 }),
              frames_without: Type.Integer({ minimum: 0 }),
              confidence: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]),
            }),
            { description: 'By required group (its codes joined by commas): worn, missing, or cannot_tell (seen too briefly, too small or too unclear to decide)' },
          ),
        }),
        { description: 'Every worker followed through the video, with one verdict per required group the analyzer judges (the built-in analyzer: hard hat and hi-vis)' },
      ),
    ),
    missing_evidence: Type.Optional(
      Type.Array(
        Type.Object({
          group: Group,
          violation: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Index into violations, or null: no sampled frame showed the item' }),
          image_url: NullableStr,
        }),
        { description: 'For each missing group, in order: the frame that proves it' },
      ),
    ),
  },
  { additionalProperties: true },
);
export type PresentedResult = Static<typeof ResultSchema>;
export const JobDetailSchema = Type.Composite([JobItemSchema, Type.Object({ logs: Type.Array(LogSchema), result: Type.Union([ResultSchema, Type.Null()]) })]);

export const UsageSchema = Type.Object({
  total_prompt_tokens: Type.Integer(),
  total_completion_tokens: Type.Integer(),
  total_cost: Type.Number(),
  currency: Str,
  users: Type.Array(
    Type.Object({
      user_id: Str,
      email: Str,
      full_name: NullableStr,
      job_count: Type.Integer(),
      total_prompt_tokens: Type.Integer(),
      total_completion_tokens: Type.Integer(),
      total_cost: Type.Number(),
    }),
  ),
});

export const bearer = [{ bearer: [] }];

export const UnblurredQuery = Type.Object({
  unblurred: Type.Optional(Type.Boolean({ description: 'The unblurred copy (managers of the job’s organisation only, when it keeps one)' })),
});
export const UNBLURRED_DESCRIPTION =
  'Stored evidence has every face blurred (issue 30). `?unblurred=true` answers the unblurred copy, which exists only for jobs of an organisation ' +
  'whose setting `managers_see_unblurred` was on when they were analysed, and only to that organisation’s managers (403 for anyone else, 404 when no copy exists).';

