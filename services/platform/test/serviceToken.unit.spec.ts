import { describe, expect, it } from 'vitest';
import { ServiceCredentialSigner, ServiceCredentialVerifier, signServiceToken, verifyServiceToken } from '../src/http/serviceToken.js';
import type { Principal } from '../src/http/auth.js';

const SECRET = 'service-secret-service-secret-service-secret';
const OTHER = 'another-secret-another-secret-another-secret';
const ada: Principal = { userId: 'u1', email: 'ada@example.com', fullName: null, isAdmin: false, orgId: 'o1', orgRole: 'manager', via: 'jwt' };

describe('service credentials on the hot path (issue 27)', () => {
  it('the signer sends one credential again for the same claims for half its minute, then signs a new one; it always verifies', () => {
    let now = 1_000_000_000;
    const signer = new ServiceCredentialSigner(SECRET, () => now);
    const first = signer.sign({ iss: 'gateway', ip: '10.0.0.1', principal: ada });
    expect(signer.sign({ iss: 'gateway', ip: '10.0.0.1', principal: { ...ada } })).toBe(first);
    now += 29_000;
    expect(signer.sign({ iss: 'gateway', ip: '10.0.0.1', principal: ada })).toBe(first);
    // A credential is never sent with less than half its lifetime left.
    expect(verifyServiceToken(SECRET, first, now + 30_000)).not.toBeNull();
    now += 1_000;
    const second = signer.sign({ iss: 'gateway', ip: '10.0.0.1', principal: ada });
    expect(second).not.toBe(first);
    expect(verifyServiceToken(SECRET, second, now)?.exp).toBe(Math.floor(now / 1000) + 60);
  });

  it('the signer gives other claims their own credential: a role taken away, another user, another address', () => {
    const signer = new ServiceCredentialSigner(SECRET);
    const manager = signer.sign({ iss: 'gateway', ip: '10.0.0.1', principal: ada });
    const member = signer.sign({ iss: 'gateway', ip: '10.0.0.1', principal: { ...ada, orgRole: 'member' } });
    const other = signer.sign({ iss: 'gateway', ip: '10.0.0.1', principal: { ...ada, userId: 'u2' } });
    const elsewhere = signer.sign({ iss: 'gateway', ip: '10.0.0.2', principal: ada });
    expect(new Set([manager, member, other, elsewhere]).size).toBe(4);
    expect(verifyServiceToken(SECRET, member)?.principal?.orgRole).toBe('member');
    expect(verifyServiceToken(SECRET, other)?.principal?.userId).toBe('u2');
    expect(verifyServiceToken(SECRET, elsewhere)?.ip).toBe('10.0.0.2');
  });

  it('the verifier answers as verifyServiceToken does: forged, altered or expired credentials are refused, also after a valid one was seen', () => {
    let now = 2_000_000_000;
    const verifier = new ServiceCredentialVerifier(SECRET, () => now);
    const token = signServiceToken(SECRET, { iss: 'gateway', principal: ada }, now);
    expect(verifier.verify(token)?.principal).toEqual(ada);
    expect(verifier.verify(token)?.principal?.userId).toBe('u1');
    expect(verifier.verify(undefined)).toBeNull();
    expect(verifier.verify(signServiceToken(OTHER, { iss: 'gateway', principal: ada }, now))).toBeNull();
    const [body, mac] = token.split('.');
    const altered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), principal: { ...ada, isAdmin: true } })).toString('base64url');
    expect(verifier.verify(`${altered}.${mac}`)).toBeNull();
    // Once expired, the same text is refused, though it was valid before.
    now += 61_000;
    expect(verifier.verify(token)).toBeNull();
  });

  it('the claims a verifier shares between requests cannot be changed by one of them', () => {
    const verifier = new ServiceCredentialVerifier(SECRET);
    const claims = verifier.verify(signServiceToken(SECRET, { iss: 'gateway', principal: ada }))!;
    expect(() => {
      (claims.principal as { isAdmin: boolean }).isAdmin = true;
    }).toThrow(TypeError);
    expect(verifier.verify(signServiceToken(SECRET, { iss: 'gateway', principal: ada }))?.principal?.isAdmin).toBe(false);
  });
});
