/**
 * The compliance row (issue 28), defined once: the job service's read model sums these counts, its
 * route answers with the schema, and the web app reads the type (a type-only import: nothing of
 * this file reaches the browser's bundle). Only @sinclair/typebox is imported here, so the web's
 * type check can follow it.
 */
import { Type, type Static } from '@sinclair/typebox';

/** What is counted of finished jobs: in a row of the report, and per site × crew × job type of a day in the read model. */
export const ComplianceCountsSchema = Type.Object({
  jobs: Type.Integer(),
  jobs_with_violations: Type.Integer(),
  workers_seen: Type.Integer(),
  violations: Type.Record(Type.String(), Type.Integer(), { description: 'violations by equipment group (codes joined by commas)' }),
});
export type ComplianceCounts = Static<typeof ComplianceCountsSchema>;

/** One row of `GET /orgs/{id}/compliance`: a site, crew or job type in one period. */
export const ComplianceRowSchema = Type.Composite([
  Type.Object({
    key: Type.Union([Type.String(), Type.Null()]),
    name: Type.String(),
    period_start: Type.String({ description: 'first day of the period (UTC): the day, the Monday of the week, or the 1st of the month' }),
  }),
  ComplianceCountsSchema,
]);
export type ComplianceRow = Static<typeof ComplianceRowSchema>;
