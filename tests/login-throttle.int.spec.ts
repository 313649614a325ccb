import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

let n = 0;
const PASSWORD = 'the right password 1';
async function account(): Promise<string> {
  const email = `owner${++n}@example.com`;
  const res = await app.request({ method: 'POST', url: '/auth/register', remoteAddress: '127.9.9.9', payload: { email, password: PASSWORD } });
  expect(res.statusCode).toBe(201);
  return email;
}
const login = (email: string, password: string, remoteAddress: string, cookie?: string) =>
  app.request({ method: 'POST', url: '/auth/login', remoteAddress, payload: { email, password }, headers: cookie ? { cookie } : {} });
const cookieOf = (setCookie: unknown) => String(Array.isArray(setCookie) ? setCookie[0] : setCookie).split(';')[0]!;

describe('login throttling', () => {
  it('a burst of 40 wrong passwords from 40 addresses gets at most 5 password checks; the rest wait (429, Retry-After)', async () => {
    const email = await account();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => login(email, `guess number ${i}`, `127.20.0.${i + 1}`)));
    const checked = answers.filter((a) => a.statusCode === 401).length;
    const refused = answers.filter((a) => a.statusCode === 429);
    expect(checked).toBeLessThanOrEqual(5);
    expect(checked + refused.length).toBe(40);
    expect(Number(refused[0]!.headers['retry-after'])).toBeGreaterThan(0);
    expect((refused[0]!.json() as { detail: string }).detail).toMatch(/Too many failed login attempts/);
  });

  it('a stranger cannot lock the owner out: a known address, or a browser with the device cookie, still gets in', async () => {
    const email = await account();
    const first = await login(email, PASSWORD, '127.30.0.1'); // the owner's office
    expect(first.statusCode).toBe(200);
    const device = cookieOf(first.headers['set-cookie']);
    expect(device).toMatch(/^baret_device=/);
    expect(String(first.headers['set-cookie'])).toMatch(/HttpOnly/);

    // A stranger guesses wrong from elsewhere until the account refuses unknown sources.
    for (let i = 0; i < 8; i++) await login(email, `wrong ${i}`, `127.31.0.${i + 1}`);
    expect((await login(email, PASSWORD, '127.32.0.1')).statusCode).toBe(429); // a new place: protected

    expect((await login(email, PASSWORD, '127.30.0.1')).statusCode).toBe(200); // the known address
    expect((await login(email, PASSWORD, '127.33.0.1', device)).statusCode).toBe(200); // the phone on a new network
    // A device cookie of another account does not help.
    const other = await account();
    expect((await login(other, PASSWORD, '127.34.0.1')).statusCode).toBe(200);
    for (let i = 0; i < 6; i++) await login(other, `wrong ${i}`, `127.35.0.${i + 1}`);
    expect((await login(other, PASSWORD, '127.36.0.1', device)).statusCode).toBe(429);
  });

  it('one address that keeps guessing waits longer each time (doubling delays)', async () => {
    const email = await account();
    for (let i = 0; i < 5; i++) expect((await login(email, `wrong ${i}`, '127.40.0.1')).statusCode).toBe(401);
    const waits: number[] = [];
    for (let round = 0; round < 3; round++) {
      const refused = await login(email, 'wrong again', '127.40.0.1');
      expect(refused.statusCode).toBe(429);
      waits.push(Number(refused.headers['retry-after']));
      app.clock.advance(16 * 60_000); // past the account window and any delay so far
      expect((await login(email, `wrong round ${round}`, '127.40.0.1')).statusCode).toBe(401);
    }
    // The pair delay doubles with each failure past the allowance; the account window (15 min) is the floor at first.
    const pair = await login(email, 'wrong again', '127.40.0.1');
    expect(pair.statusCode).toBe(429);
    expect(waits[0]).toBeGreaterThan(0);
    expect(Number(pair.headers['retry-after'])).toBe(8); // 1 s × 2³ after the 8th failure
    app.clock.advance(9000);
    expect((await login(email, PASSWORD, '127.40.0.1')).statusCode).toBe(200);
  });
});
