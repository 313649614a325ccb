import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { retryDelayMs, signatureHeader, stableUuid } from '../src/engine.js';
import { readUnsubscribeToken, unsubscribeToken } from '../src/email.js';

describe('webhook signing and retries', () => {
  it('signs "<t>.<raw body>" with HMAC-SHA256 in hex', () => {
    const body = '{"id":"d1","event":"job.completed"}';
    expect(signatureHeader('whsec_x', 1_700_000_000, body)).toBe(`t=1700000000,v1=${createHmac('sha256', 'whsec_x').update(`1700000000.${body}`).digest('hex')}`);
  });

  it('keeps one delivery id per event and webhook', () => {
    expect(stableUuid('baret:delivery:e1:w1')).toBe(stableUuid('baret:delivery:e1:w1'));
    expect(stableUuid('baret:delivery:e1:w1')).not.toBe(stableUuid('baret:delivery:e1:w2'));
    expect(stableUuid('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('retries first within a minute, then doubling up to an hour, with jitter, and keeps trying for 24 h', () => {
    const base = 30_000;
    expect(retryDelayMs(1, base, () => 0)).toBe(15_000);
    expect(retryDelayMs(1, base, () => 0.999999)).toBeLessThanOrEqual(60_000);
    expect(retryDelayMs(2, base, () => 1)).toBe(60_000);
    expect(retryDelayMs(20, base, () => 1)).toBe(3_600_000);
    // Even with the longest delays, a day holds more than 20 attempts.
    let t = 0;
    let n = 0;
    while (t < 24 * 3600_000) t += retryDelayMs(++n, base, () => 1);
    expect(n).toBeGreaterThan(20);
  });
});

describe('unsubscribe tokens', () => {
  it('name the user and the kind, and a changed token is refused', () => {
    const token = unsubscribeToken('secret', 'u1', 'report_ready');
    expect(readUnsubscribeToken('secret', token)).toEqual({ userId: 'u1', kind: 'report_ready' });
    expect(readUnsubscribeToken('other', token)).toBeNull();
    const [payload, sig] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ u: 'u2', k: 'report_ready' })).toString('base64url');
    expect(readUnsubscribeToken('secret', `${forged}.${sig}`)).toBeNull();
    expect(readUnsubscribeToken('secret', `${payload}`)).toBeNull();
  });
});
