import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConflictError, ForbiddenError, IllegalStateError, NotFoundError, ValidationError } from '@baret/platform';
import { deciderSpec } from '@baret/platform/testing';
import { apiKeyDecider } from '../src/apiKey/businessLogic.js';
import type { ApiKeyEvent } from '../src/apiKey/apiKey.js';
import { claimEmail, emailDecider, emailStream } from '../src/user/emailClaim.js';
import { userDecider } from '../src/user/businessLogic.js';
import type { UserEvent } from '../src/user/user.js';

const now = new Date('2026-05-01T08:00:00.000Z');
const registered: UserEvent = {
  type: 'user_registered',
  data: { user_id: 'u1', email: 'a@example.com', full_name: null, is_admin: false, password_hash: 'h', registered_at: now.toISOString() },
};

describe('User decider', () => {
  const spec = deciderSpec(userDecider);
  it('registers a new user', () =>
    spec
      .given([])
      .when({ type: 'register_user', data: { user_id: 'u1', email: 'a@example.com', full_name: null, password_hash: 'h', is_admin: false, now } })
      .then([registered]));
  it('refuses to register the same user twice', () =>
    spec
      .given([registered])
      .when({ type: 'register_user', data: { user_id: 'u1', email: 'a@example.com', full_name: null, password_hash: 'h', is_admin: false, now } })
      .thenThrows(IllegalStateError));
  it('records a login', () =>
    spec.given([registered]).when({ type: 'record_login', data: { now } }).then([{ type: 'user_logged_in', data: { user_id: 'u1', at: now.toISOString() } }]));
  it('refuses a login of a deleted user', () =>
    spec
      .given([registered, { type: 'user_deleted', data: { user_id: 'u1', deleted_by: 'admin', at: now.toISOString() } }])
      .when({ type: 'record_login', data: { now } })
      .thenThrows(NotFoundError));
  it('promotes once; promoting an admin again changes nothing', () => {
    spec.given([registered]).when({ type: 'promote_user', data: {} }).then([{ type: 'user_promoted', data: { user_id: 'u1' } }]);
    spec.given([registered, { type: 'user_promoted', data: { user_id: 'u1' } }]).when({ type: 'promote_user', data: {} }).then([]);
  });
  it('deletes a user, but an admin cannot delete themself', () => {
    spec
      .given([registered])
      .when({ type: 'delete_user', data: { deleted_by: 'admin', now } })
      .then([{ type: 'user_deleted', data: { user_id: 'u1', deleted_by: 'admin', at: now.toISOString() } }]);
    spec.given([registered]).when({ type: 'delete_user', data: { deleted_by: 'u1', now } }).thenThrows(ForbiddenError);
  });
  it('cannot delete a user that does not exist', () =>
    spec.given([]).when({ type: 'delete_user', data: { deleted_by: 'admin', now } }).thenThrows(NotFoundError));
});

describe('Email claim decider', () => {
  const spec = deciderSpec(emailDecider);
  it('claims a free address', () =>
    spec.given([]).when(claimEmail('u1', null)).then([{ type: 'email_claimed', data: { user_id: 'u1' } }]));
  it('refuses an address another user holds', () =>
    spec
      .given([{ type: 'email_claimed', data: { user_id: 'u1' } }])
      .when(claimEmail('u2', null))
      .thenThrows(ConflictError));
  it('takes over a claim whose user never came to exist', () =>
    spec
      .given([{ type: 'email_claimed', data: { user_id: 'u1' } }])
      .when(claimEmail('u2', 'u1'))
      .then([{ type: 'email_claimed', data: { user_id: 'u2' } }]));
  it('frees the address when its user is deleted', () =>
    spec
      .given([{ type: 'email_claimed', data: { user_id: 'u1' } }, { type: 'email_released', data: { user_id: 'u1' } }])
      .when(claimEmail('u2', null))
      .then([{ type: 'email_claimed', data: { user_id: 'u2' } }]));
  it('only its holder releases an address; the holder claiming again changes nothing', () => {
    spec.given([{ type: 'email_claimed', data: { user_id: 'u1' } }]).when({ type: 'release', data: { user_id: 'u2' } }).then([]);
    spec.given([{ type: 'email_claimed', data: { user_id: 'u1' } }]).when({ type: 'release', data: { user_id: 'u1' } }).then([{ type: 'email_released', data: { user_id: 'u1' } }]);
    spec.given([{ type: 'email_claimed', data: { user_id: 'u1' } }]).when(claimEmail('u1', null)).then([]);
  });
  it('keeps the stream of the stored claims: email- and the SHA-256 of the normalised address', () =>
    expect(emailStream(' A@Example.com ')).toBe(`email-${createHash('sha256').update('a@example.com').digest('hex').slice(0, 40)}`));
});

describe('ApiKey decider', () => {
  const spec = deciderSpec(apiKeyDecider);
  const create = (name: string) =>
    ({ type: 'create_api_key', data: { key_id: 'k1', user_id: 'u1', name, token_prefix: 'baret_ab12cd34', token_hash: 'x', now } }) as const;
  const created: ApiKeyEvent = {
    type: 'api_key_created',
    data: { key_id: 'k1', user_id: 'u1', name: 'CI', token_prefix: 'baret_ab12cd34', token_hash: 'x', created_at: now.toISOString() },
  };
  it('creates a key with a trimmed name', () => spec.given([]).when(create('  CI  ')).then([created]));
  it('refuses an empty name and a name over 100 characters', () => {
    spec.given([]).when(create('   ')).thenThrows(ValidationError);
    spec.given([]).when(create('x'.repeat(101))).thenThrows(ValidationError, /at most 100/);
  });
  it('accepts a name of exactly 100 characters', () =>
    spec.given([]).when(create('x'.repeat(100))).then([{ ...created, data: { ...created.data, name: 'x'.repeat(100) } }]));
  it('lets the owner delete it', () =>
    spec
      .given([created])
      .when({ type: 'delete_api_key', data: { by_user: 'u1', now } })
      .then([{ type: 'api_key_deleted', data: { key_id: 'k1', user_id: 'u1', at: now.toISOString() } }]));
  it('answers another user as if the key did not exist', () =>
    spec.given([created]).when({ type: 'delete_api_key', data: { by_user: 'u2', now } }).thenThrows(NotFoundError));
  it('cannot delete a key twice', () =>
    spec
      .given([created, { type: 'api_key_deleted', data: { key_id: 'k1', user_id: 'u1', at: now.toISOString() } }])
      .when({ type: 'delete_api_key', data: { by_user: 'u1', now } })
      .thenThrows(NotFoundError));
});
