import { describe, expect, it } from 'vitest';
import { ForbiddenError, IllegalStateError, NotFoundError, ValidationError } from '@baret/platform';
import { deciderSpec } from '@baret/platform/testing';
import { membershipDecider } from '../src/membership/businessLogic.js';
import { orgDecider } from '../src/org/businessLogic.js';
import type { OrgEvent } from '../src/org/org.js';

const now = new Date('2026-05-01T08:00:00.000Z');
const at = now.toISOString();
const created: OrgEvent[] = [
  { type: 'org_created', data: { org_id: 'o1', name: 'Baret A.Ş.', created_by: 'm1', at } },
  { type: 'org_member_added', data: { org_id: 'o1', user_id: 'm1', role: 'manager', invite_id: null, at } },
];
const invited: OrgEvent = {
  type: 'org_invite_created',
  data: { org_id: 'o1', invite_id: 'i1', email: 'Ali@Example.com', role: 'member', token_hash: 'h', invited_by: 'm1', expires_at: '2026-05-15T08:00:00.000Z', at },
};
const mailRequested: OrgEvent = {
  type: 'org_invite_mail_requested',
  data: { org_id: 'o1', org_name: 'Baret A.Ş.', invite_id: 'i1', email: 'Ali@Example.com', role: 'member', invited_by: 'm1', token: 't0k3n', expires_at: '2026-05-15T08:00:00.000Z', at },
};
const accepted: OrgEvent = { type: 'org_member_added', data: { org_id: 'o1', user_id: 'u1', role: 'member', invite_id: 'i1', at } };

describe('Organisation decider', () => {
  const spec = deciderSpec(orgDecider);
  it('creates an organisation with its creator as manager; a blank name is refused', () => {
    spec.given([]).when({ type: 'create_org', data: { org_id: 'o1', name: '  Baret A.Ş. ', user_id: 'm1', now } }).then(created);
    spec.given([]).when({ type: 'create_org', data: { org_id: 'o1', name: '  ', user_id: 'm1', now } }).thenThrows(ValidationError);
  });
  it('lets managers invite, not members, not strangers; the invitation is to be mailed with its token (its decision keeps only the hash)', () => {
    const cmd = (by: string) => ({ type: 'invite_member' as const, data: { invite_id: 'i1', email: 'Ali@Example.com', role: 'member' as const, token: 't0k3n', token_hash: 'h', by, expires_at: new Date('2026-05-15T08:00:00.000Z'), now } });
    spec.given(created).when(cmd('m1')).then([invited, mailRequested]);
    spec.given([...created, invited, accepted]).when(cmd('u1')).thenThrows(ForbiddenError);
    spec.given(created).when(cmd('stranger')).thenThrows(NotFoundError);
  });
  it('accepts an invitation once, for its address only, before it expires', () => {
    const accept = (userId: string, email: string, when = now) => ({ type: 'accept_invite' as const, data: { invite_id: 'i1', user_id: userId, email, now: when } });
    spec.given([...created, invited]).when(accept('u1', 'ali@example.com')).then([accepted]);
    spec.given([...created, invited, accepted]).when(accept('u1', 'ali@example.com')).then([]);
    spec.given([...created, invited, accepted]).when(accept('u2', 'ali@example.com')).thenThrows(IllegalStateError);
    spec.given([...created, invited]).when(accept('u2', 'veli@example.com')).thenThrows(ForbiddenError);
    spec.given([...created, invited]).when(accept('u1', 'ali@example.com', new Date('2026-05-16T00:00:00.000Z'))).thenThrows(NotFoundError);
  });
  it('changes roles (managers only), changes nothing for the same role, never demotes the last manager (issue 30)', () => {
    const change = (userId: string, role: 'manager' | 'member', by: string) => ({ type: 'change_member_role' as const, data: { user_id: userId, role, by, now } });
    const promoted: OrgEvent = { type: 'org_member_role_changed', data: { org_id: 'o1', user_id: 'u1', role: 'manager', previous_role: 'member', changed_by: 'm1', at } };
    spec.given([...created, invited, accepted]).when(change('u1', 'manager', 'm1')).then([promoted]);
    spec.given([...created, invited, accepted, promoted]).when(change('u1', 'manager', 'm1')).then([]);
    spec.given([...created, invited, accepted]).when(change('m1', 'member', 'u1')).thenThrows(ForbiddenError);
    spec.given([...created, invited, accepted]).when(change('m1', 'member', 'm1')).thenThrows(IllegalStateError);
    spec.given([...created, invited, accepted]).when(change('stranger', 'manager', 'm1')).thenThrows(NotFoundError);
    spec
      .given([...created, invited, accepted, promoted])
      .when(change('m1', 'member', 'm1'))
      .then([{ type: 'org_member_role_changed', data: { org_id: 'o1', user_id: 'm1', role: 'member', previous_role: 'manager', changed_by: 'm1', at } }]);
  });
  it('removes members: managers anyone, members themselves; never the last manager while others remain', () => {
    const remove = (userId: string, by: string) => ({ type: 'remove_member' as const, data: { user_id: userId, by, now } });
    const members = [...created, invited, accepted];
    spec.given(members).when(remove('u1', 'm1')).then([{ type: 'org_member_removed', data: { org_id: 'o1', user_id: 'u1', removed_by: 'm1', at } }]);
    spec.given(members).when(remove('u1', 'u1')).then([{ type: 'org_member_removed', data: { org_id: 'o1', user_id: 'u1', removed_by: 'u1', at } }]);
    spec.given(members).when(remove('m1', 'u1')).thenThrows(ForbiddenError);
    spec.given(members).when(remove('m1', 'm1')).thenThrows(IllegalStateError);
  });
  it('lets managers change the evidence privacy settings (issue 30); an unchanged value records nothing; members and strangers cannot', () => {
    const change = (by: string, settings: Record<string, boolean>) => ({ type: 'change_org_settings' as const, data: { by, settings, now } });
    const members = [...created, invited, accepted];
    const unblurredOn = { type: 'org_settings_changed' as const, data: { org_id: 'o1', changed_by: 'm1', at, managers_see_unblurred: true } };
    spec.given(members).when(change('m1', { managers_see_unblurred: true, blur_third_party: true })).then([unblurredOn]);
    // The defaults: blur for third parties on, unblurred copies off — asking for them changes nothing.
    spec.given(members).when(change('m1', { managers_see_unblurred: false, blur_third_party: true })).then([]);
    spec.given([...members, unblurredOn]).when(change('m1', { managers_see_unblurred: true })).then([]);
    spec.given([...members, unblurredOn]).when(change('m1', { managers_see_unblurred: false })).then([
      { type: 'org_settings_changed', data: { org_id: 'o1', changed_by: 'm1', at, managers_see_unblurred: false } },
    ]);
    spec.given(members).when(change('u1', { blur_third_party: false })).thenThrows(ForbiddenError);
    spec.given(members).when(change('stranger', { blur_third_party: false })).thenThrows(NotFoundError);
  });
  it('lets managers choose the time zone of the reports (issue 54): an IANA name, spelt as Intl spells it; the default Europe/Istanbul changes nothing; unknown names and offsets are refused naming the field', () => {
    const change = (by: string, settings: Record<string, string>) => ({ type: 'change_org_settings' as const, data: { by, settings, now } });
    const members = [...created, invited, accepted];
    const berlin = { type: 'org_settings_changed' as const, data: { org_id: 'o1', changed_by: 'm1', at, time_zone: 'Europe/Berlin' } };
    spec.given(members).when(change('m1', { time_zone: 'europe/berlin' })).then([berlin]);
    spec.given(members).when(change('m1', { time_zone: 'Europe/Istanbul' })).then([]);
    spec.given([...members, berlin]).when(change('m1', { time_zone: 'Europe/Berlin' })).then([]);
    spec.given([...members, berlin]).when(change('m1', { time_zone: 'UTC' })).then([{ type: 'org_settings_changed', data: { org_id: 'o1', changed_by: 'm1', at, time_zone: 'UTC' } }]);
    for (const bad of ['Mars/Olympus_Mons', '+03:00', 'Europe/Istanbul; DROP', ' ']) {
      spec.given(members).when(change('m1', { time_zone: bad })).thenThrows(ValidationError);
      expect(() => orgDecider.decide(change('m1', { time_zone: bad }), members.reduce(orgDecider.evolve, orgDecider.initialState()))).toThrow(/^time_zone must be a time zone name/);
    }
    spec.given(members).when(change('u1', { time_zone: 'UTC' })).thenThrows(ForbiddenError);
    spec.given(members).when(change('stranger', { time_zone: 'UTC' })).thenThrows(NotFoundError);
  });
  it('keeps the settings of events from before the time zone existed: the default zone', () => {
    const old = { type: 'org_settings_changed' as const, data: { org_id: 'o1', changed_by: 'm1', at, blur_third_party: false } };
    const state = [...created, old].reduce(orgDecider.evolve, orgDecider.initialState());
    expect(state.status === 'active' && state.settings).toEqual({ blur_third_party: false, managers_see_unblurred: false, time_zone: 'Europe/Istanbul' });
  });
});

describe('Membership decider', () => {
  const spec = deciderSpec(membershipDecider);
  const join = (org: string) => ({ type: 'join_org' as const, data: { user_id: 'u1', org_id: org, role: 'member' as const, now } });
  const started = { type: 'membership_started' as const, data: { user_id: 'u1', org_id: 'o1', role: 'member' as const, at } };
  it('joins one organisation at most; the same one again changes nothing', () => {
    spec.given([]).when(join('o1')).then([started]);
    spec.given([started]).when(join('o1')).then([]);
    spec.given([started]).when(join('o2')).thenThrows(IllegalStateError);
  });
  it('leaves, and may then join another', () => {
    const ended = { type: 'membership_ended' as const, data: { user_id: 'u1', org_id: 'o1', at } };
    spec.given([started]).when({ type: 'leave_org', data: { user_id: 'u1', org_id: 'o1', now } }).then([ended]);
    spec.given([started, ended]).when(join('o2')).then([{ ...started, data: { ...started.data, org_id: 'o2' } }]);
  });
});
