import { describe, expect, it } from 'vitest';

import { PRESETS, changedFields, decideSave, draftFromQuota, isDirty, isValidLimit } from '@/features/admin/model/quota-draft';
import { quota } from '@/testing/fixtures';

describe('quota draft', () => {
  const server = quota({ plan_name: 'free', daily_limit: null, monthly_limit: 50, lifetime_limit: 2 });

  it('given the server value, the draft shows limits as text and blank for unlimited', () => {
    expect(draftFromQuota(server)).toEqual({ plan_name: 'free', daily_limit: '', monthly_limit: '50', lifetime_limit: '2' });
  });

  it('accepts blank or whole numbers ≥ 0 only', () => {
    for (const ok of ['', '  ', '0', '7', '100']) expect(isValidLimit(ok)).toBe(true);
    for (const bad of ['-1', '1.5', 'abc', '1e3', '+2']) expect(isValidLimit(bad)).toBe(false);
  });

  it('when nothing changed, then nothing is sent', () => {
    expect(decideSave(server, draftFromQuota(server))).toEqual({ kind: 'unchanged' });
    expect(isDirty(server, draftFromQuota(server))).toBe(false);
  });

  it('when a value is invalid, then save is blocked', () => {
    expect(decideSave(server, { ...draftFromQuota(server), daily_limit: '-3' })).toEqual({ kind: 'invalid', fields: ['daily_limit'] });
  });

  it('when some fields changed, then only those are sent; blank → null; empty plan → null', () => {
    expect(decideSave(server, { plan_name: '', daily_limit: '5', monthly_limit: '50', lifetime_limit: '' })).toEqual({
      kind: 'save',
      changes: { plan_name: null, daily_limit: 5, lifetime_limit: null },
    });
  });

  it('presets fill the draft: free = lifetime 2, daily and monthly unlimited; pro = 10/day, 100/month, lifetime unlimited', () => {
    expect(PRESETS.free).toEqual({ plan_name: 'free', daily_limit: '', monthly_limit: '', lifetime_limit: '2' });
    expect(PRESETS.pro).toEqual({ plan_name: 'pro', daily_limit: '10', monthly_limit: '100', lifetime_limit: '' });
    expect(changedFields(server, PRESETS.pro)).toEqual({ plan_name: 'pro', daily_limit: 10, monthly_limit: 100, lifetime_limit: null });
  });
});
