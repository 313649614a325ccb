/** Single sign-on (issue 30): the deciders it adds, the reading of openid-client's errors, and every refusal in Turkish. */
import { describe, expect, it } from 'vitest';
import { ConflictError, ForbiddenError, IllegalStateError, localizeMessage, NotFoundError, parseConfig } from '@baret/platform';
import { deciderSpec } from '@baret/platform/testing';
import { orgDecider } from '../src/org/businessLogic.js';
import type { OrgEvent } from '../src/org/org.js';
import { classify, SSO_ERRORS } from '../src/sso/oidc.js';
import { linkSsoIdentity, ssoLinkDecider, ssoLinkStream } from '../src/sso/ssoLink.js';
import { ssoOptionsFromConfig } from '../src/service.js';
import { userDecider } from '../src/user/businessLogic.js';

const now = new Date('2026-05-01T08:00:00.000Z');
const at = now.toISOString();
const sso = { issuer: 'https://login.example.com', subject: 'sub-1' };

describe('a user from single sign-on', () => {
  const spec = deciderSpec(userDecider);
  const base = { user_id: 'u1', email: 'a@example.com', full_name: 'A', is_admin: false, now };
  it('is registered with the company account it came from, without a password, verified when the issuer says so', () =>
    spec
      .given([])
      .when({ type: 'register_user', data: { ...base, password_hash: '', sso, email_verified: true } })
      .then([{ type: 'user_registered', data: { user_id: 'u1', email: 'a@example.com', full_name: 'A', is_admin: false, password_hash: '', sso, email_verified: true, registered_at: at } }]));
  it('cannot have both a company account and a password', () =>
    spec.given([]).when({ type: 'register_user', data: { ...base, password_hash: 'scrypt$x', sso } }).thenThrows(IllegalStateError));
  const registered = (email_verified: boolean, password_hash = 'h') =>
    ({ type: 'user_registered' as const, data: { user_id: 'u1', email: 'a@example.com', full_name: null, is_admin: false, password_hash, registered_at: at, email_verified } });
  it('an existing user whose address was confirmed is linked to a company account, password kept', () =>
    spec.given([registered(true)]).when({ type: 'link_sso', data: { ...sso, now } }).then([{ type: 'user_sso_linked', data: { user_id: 'u1', ...sso, at } }]));
  it('an existing user whose address was never confirmed: the link confirms it and the password set before stops working', () =>
    spec
      .given([registered(false)])
      .when({ type: 'link_sso', data: { ...sso, now } })
      .then([
        { type: 'user_sso_linked', data: { user_id: 'u1', ...sso, at } },
        { type: 'email_verified', data: { user_id: 'u1', at, by: 'sso' } },
        { type: 'unconfirmed_password_removed', data: { user_id: 'u1', at } },
      ]));
});

describe('the link of a company account to its user', () => {
  const spec = deciderSpec(ssoLinkDecider);
  const link = (user_id: string, abandoned_owner: string | null = null) => linkSsoIdentity(user_id, sso, abandoned_owner, now);
  const linked = (user_id: string) => ({ type: 'sso_identity_linked' as const, data: { user_id, ...sso, at } });
  it('links once; the same link again changes nothing; another user is refused', () => {
    spec.given([]).when(link('u1')).then([linked('u1')]);
    spec.given([linked('u1')]).when(link('u1')).then([]);
    spec.given([linked('u1')]).when(link('u2')).thenThrows(ConflictError);
  });
  it('takes over the link of a user who never came to exist (or was deleted)', () => spec.given([linked('u1')]).when(link('u2', 'u1')).then([linked('u2')]));
  it('is one stream per issuer and subject', () => {
    expect(ssoLinkStream('https://a', 'x')).toBe(ssoLinkStream('https://a', 'x'));
    expect(ssoLinkStream('https://a', 'x')).not.toBe(ssoLinkStream('https://b', 'x'));
    expect(ssoLinkStream('https://a', 'x')).toMatch(/^ssolink-[0-9a-f]{40}$/);
  });
});

describe('an organisation’s sign-in', () => {
  const spec = deciderSpec(orgDecider);
  const created: OrgEvent[] = [
    { type: 'org_created', data: { org_id: 'o1', name: 'Baret', created_by: 'm1', at } },
    { type: 'org_member_added', data: { org_id: 'o1', user_id: 'm1', role: 'manager', invite_id: null, at } },
    { type: 'org_member_added', data: { org_id: 'o1', user_id: 'u1', role: 'member', invite_id: null, at } },
  ];
  const set = (enabled: boolean, by: string, admin = false) => ({ type: 'set_password_login' as const, data: { enabled, by, admin, now } });
  const off: OrgEvent = { type: 'org_password_login_changed', data: { org_id: 'o1', enabled: false, by: 'm1', at } };
  it('password login is turned off by a manager or an admin, not by a member or a stranger; twice changes nothing', () => {
    spec.given(created).when(set(false, 'm1')).then([off]);
    spec.given(created).when(set(false, 'admin', true)).then([{ ...off, data: { ...off.data, by: 'admin' } }]);
    spec.given(created).when(set(false, 'u1')).thenThrows(ForbiddenError);
    spec.given(created).when(set(false, 'stranger')).thenThrows(NotFoundError);
    spec.given([...created, off]).when(set(false, 'm1')).then([]);
    spec.given([...created, off]).when(set(true, 'm1')).then([{ type: 'org_password_login_changed', data: { org_id: 'o1', enabled: true, by: 'm1', at } }]);
  });
  it('a user from single sign-on joins as a member, once', () => {
    spec.given(created.slice(0, 2)).when({ type: 'add_sso_member', data: { user_id: 'u1', now } }).then([created[2]!]);
    spec.given(created).when({ type: 'add_sso_member', data: { user_id: 'u1', now } }).then([]);
  });
});

describe('the refusals of a single sign-on', () => {
  const ope = (message: string, code: string, claim?: string) => Object.assign(new Error(message), { code, cause: claim ? { claim } : undefined });
  const wrapped = (inner: Error) => Object.assign(new Error('unexpected JWT claim value encountered'), { code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', cause: inner });
  it('reads openid-client’s errors as what the person is told', () => {
    expect(classify(ope('unexpected JWT "exp" (expiration time) claim value, expiration is past current timestamp', 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED', 'exp')).code).toBe('sso_token_expired');
    expect(classify(wrapped(ope('unexpected JWT "aud" (audience) claim value', 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'aud'))).code).toBe('sso_token_audience');
    expect(classify(ope('JWT signature verification failed', 'OAUTH_INVALID_RESPONSE')).code).toBe('sso_token_signature');
    expect(classify(ope('unexpected ID Token "nonce" claim value', 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'nonce')).code).toBe('sso_token_invalid');
    expect(classify(Object.assign(new Error('server responded with an error in the response body'), { code: 'OAUTH_RESPONSE_BODY_ERROR', error: 'invalid_grant' })).code).toBe('sso_code_invalid');
    expect(classify(Object.assign(new TypeError('fetch failed'))).code).toBe('sso_unavailable');
    // A wrong client secret is the server's setup, not the person's token.
    expect(classify(Object.assign(new Error('server responded with an error in the response body'), { code: 'OAUTH_RESPONSE_BODY_ERROR', error: 'invalid_client' })).code).toBe('sso_unavailable');
  });
  it('says every refusal in Turkish too', () => {
    for (const make of Object.values(SSO_ERRORS)) {
      const e = make();
      expect(localizeMessage(e.message, 'tr'), e.code).not.toBe(e.message);
      expect(e.status).toBeGreaterThanOrEqual(400);
    }
  });
});

describe('the single sign-on settings', () => {
  it('are off without an issuer, and all three of issuer, client id and secret are needed', () => {
    expect(ssoOptionsFromConfig(parseConfig({}))).toBeUndefined();
    expect(() => parseConfig({ OIDC_ISSUER: 'https://login.example.com' })).toThrow(/OIDC_CLIENT_ID: required.*\n.*OIDC_CLIENT_SECRET: required/);
    expect(() => parseConfig({ OIDC_ORG_DOMAINS: 'example.com' })).toThrow(/OIDC_ORG_DOMAINS: "example.com" is not domain=organisation-id/);
  });
  it('default the redirect URL to the web app’s /login/sso page and read the domains', () => {
    const options = ssoOptionsFromConfig(
      parseConfig({
        OIDC_ISSUER: 'https://login.example.com/realms/baret',
        OIDC_CLIENT_ID: 'baret',
        OIDC_CLIENT_SECRET: 's3cret',
        PUBLIC_URL: 'https://baret.example.com/',
        OIDC_ORG_DOMAINS: 'Example.com=11111111-1111-4111-8111-111111111111, acme.com.tr=22222222-2222-4222-8222-222222222222',
      }),
    )!;
    expect(options.redirectUrl).toBe('https://baret.example.com/login/sso');
    expect([...options.orgDomains]).toEqual([
      ['example.com', '11111111-1111-4111-8111-111111111111'],
      ['acme.com.tr', '22222222-2222-4222-8222-222222222222'],
    ]);
    expect(options.scopes).toBe('openid email profile');
  });
});
