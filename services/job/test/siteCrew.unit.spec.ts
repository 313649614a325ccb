import { describe, expect, it } from 'vitest';
import { IllegalStateError, NotFoundError, ValidationError } from '@baret/platform';
import { deciderSpec } from '@baret/platform/testing';
import { unitDecider } from '../src/siteCrew/businessLogic.js';
import { csvCell, periodStart, rangeOf } from '../src/compliance/queries.js';
import { jobContextOf } from '../src/params.js';

const now = new Date('2026-05-01T08:00:00.000Z');
const at = now.toISOString();

describe('Site and crew decider', () => {
  const spec = deciderSpec(unitDecider);
  const site = { type: 'site_created' as const, data: { id: 's1', org_id: 'o1', name: 'Kadıköy', city: 'İstanbul', created_by: 'm1', at } };
  it('creates a site with its city and a crew without one', () => {
    spec.given([]).when({ type: 'create_unit', data: { kind: 'site', id: 's1', org_id: 'o1', name: ' Kadıköy ', city: 'İstanbul', by: 'm1', now } }).then([site]);
    spec
      .given([])
      .when({ type: 'create_unit', data: { kind: 'crew', id: 'c1', org_id: 'o1', name: 'Hat', city: 'Ankara', by: 'm1', now } })
      .then([{ type: 'crew_created', data: { id: 'c1', org_id: 'o1', name: 'Hat', city: null, created_by: 'm1', at } }]);
    spec.given([]).when({ type: 'create_unit', data: { kind: 'crew', id: 'c1', org_id: 'o1', name: ' ', city: null, by: 'm1', now } }).thenThrows(ValidationError);
    spec.given([site]).when({ type: 'create_unit', data: { kind: 'site', id: 's1', org_id: 'o1', name: 'x', city: null, by: 'm1', now } }).thenThrows(IllegalStateError);
  });
  it('archives once, and only within its organisation', () => {
    const archived = { type: 'site_archived' as const, data: { id: 's1', org_id: 'o1', archived_by: 'm1', at } };
    spec.given([site]).when({ type: 'archive_unit', data: { kind: 'site', org_id: 'o1', by: 'm1', now } }).then([archived]);
    spec.given([site, archived]).when({ type: 'archive_unit', data: { kind: 'site', org_id: 'o1', by: 'm1', now } }).then([]);
    spec.given([site]).when({ type: 'archive_unit', data: { kind: 'site', org_id: 'o2', by: 'x', now } }).thenThrows(NotFoundError);
  });
});

describe('compliance helpers', () => {
  it('puts a moment in its UTC day, Monday-based week and month', () => {
    expect(periodStart('2026-05-03T23:59:00.000Z', 'day')).toBe('2026-05-03');
    expect(periodStart('2026-05-03T23:59:00.000Z', 'week')).toBe('2026-04-27'); // a Sunday belongs to the week of the Monday before
    expect(periodStart('2026-05-04T00:00:00.000Z', 'week')).toBe('2026-05-04');
    expect(periodStart('2026-05-31T12:00:00.000Z', 'month')).toBe('2026-05-01');
  });
  it('reads date ranges: whole days, to inclusive; twelve weeks by default', () => {
    expect(rangeOf({ from: '2026-05-01', to: '2026-05-01' }, now)).toEqual({ from: '2026-05-01T00:00:00.000Z', to: '2026-05-02T00:00:00.000Z' });
    expect(rangeOf({}, now)).toEqual({ from: '2026-02-06T08:00:00.000Z', to: at });
    expect(() => rangeOf({ from: '2026-05-02', to: '2026-05-01' }, now)).toThrow(ValidationError);
    expect(() => rangeOf({ from: 'soon' }, now)).toThrow(ValidationError);
  });
  it('writes CSV cells that a spreadsheet shows as text', () => {
    expect(csvCell('Kadıköy; Trafo', ';')).toBe('"Kadıköy; Trafo"');
    expect(csvCell('=HYPERLINK("x")', ',')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('+90 555', ',')).toBe("'+90 555");
    expect(csvCell(3, ',')).toBe('3');
  });
  it('reads site, crew and work order from the payload', () => {
    expect(jobContextOf(JSON.stringify({ site_id: 's1', params: { crew_id: 'c1' }, work_order: ' İE\u202e-7 ' }))).toEqual({ site_id: 's1', crew_id: 'c1', work_order: 'İE-7' });
    expect(jobContextOf(undefined)).toEqual({ site_id: null, crew_id: null, work_order: null });
    expect(() => jobContextOf(JSON.stringify({ work_order: 'x'.repeat(65) }))).toThrow(ValidationError);
    expect(() => jobContextOf(JSON.stringify({ site_id: '../x' }))).toThrow(ValidationError);
  });
});
