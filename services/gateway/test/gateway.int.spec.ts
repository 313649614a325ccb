import { Writable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, parseConfig, ServiceUnavailableError, ValidationError, type AuthResolvers, type Config } from '@baret/platform';
import { buildGateway } from '@baret/gateway';
import { requestVerbatim } from '@baret/platform/testing';
import type { FastifyInstance } from 'fastify';

const config: Config = { ...parseConfig({ CORS_ORIGINS: 'https://app.example.com', RATE_LIMIT_PER_MINUTE: '5' }), BARET_DATA_DIR: '/tmp/x', JWT_SECRET: 'x'.repeat(40) };
const auth: AuthResolvers = {
  isApiKey: (t) => t.startsWith('baret_'),
  userById: async (id) => (id === 'u1' ? { userId: 'u1', email: 'a@example.com', fullName: null, isAdmin: false } : null),
  userByApiKey: async () => null,
};

let app: FastifyInstance;
let lines: string[] = [];
let ready = true;
async function build(): Promise<FastifyInstance> {
  lines = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  app = await buildGateway({
    config,
    logger: createLogger('info', 'test', sink),
    infra: { ready: async () => { if (!ready) throw new Error('db down'); } },
    auth,
    modules: [
      {
        name: 'demo',
        routes: async (i) => {
          i.post('/demo', { schema: { body: Type.Object({ n: Type.Integer({ minimum: 1 }) }) } }, async (req) => {
            req.log.info({ password: 'hunter2', headers: { authorization: 'Bearer abc' } }, 'handling');
            return { ok: true };
          });
          i.get('/demo/domain', async () => { throw new ValidationError('That is not allowed here.'); });
          i.get('/demo/crash', async () => { throw new Error('SELECT secret FROM internals failed'); });
          i.get('/demo/unavailable', async () => { throw new ServiceUnavailableError('redis at 10.0.0.5 down'); });
          i.get('/demo/me', { preHandler: i.requireUser }, async (req) => ({ user: req.principal?.userId }));
        },
      },
    ],
  });
  await app.ready();
  return app;
}
afterEach(async () => {
  ready = true;
  await app.close();
});

describe('gateway', () => {
  it('answers /healthz, and /readyz only when the stores answer', async () => {
    await build();
    expect((await app.inject('/healthz')).json()).toMatchObject({ status: 'ok' });
    expect((await app.inject('/readyz')).statusCode).toBe(200);
    ready = false;
    const res = await app.inject('/readyz');
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.body).not.toContain('db down');
  });

  it('answers errors as problem+json, and never leaks 5xx internals', async () => {
    await build();
    const bad = await app.inject({ method: 'POST', url: '/demo', payload: { n: 0 }, headers: { 'accept-language': 'en' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400, code: 'validation_error', detail: 'n must be 1 or more.' });
    const domain = await app.inject({ url: '/demo/domain', headers: { 'accept-language': 'en' } });
    expect(domain.json()).toMatchObject({ status: 400, detail: 'That is not allowed here.', instance: '/demo/domain' });
    const crash = await app.inject('/demo/crash');
    expect(crash.statusCode).toBe(500);
    expect(crash.body).not.toMatch(/SELECT|internals/);
    expect(crash.json().request_id).toBe(crash.headers['x-request-id']);
    const unavailable = await app.inject('/demo/unavailable');
    expect(unavailable.statusCode).toBe(503);
    expect(unavailable.body).not.toContain('10.0.0.5');
    const missing = await app.inject('/no/such/route');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toContain('application/problem+json');
  });

  it('authenticates bearer JWTs and refuses everything else with 401', async () => {
    await build();
    expect((await app.inject('/demo/me')).statusCode).toBe(401);
    const token = app.signAccessToken('u1');
    expect((await app.inject({ url: '/demo/me', headers: { authorization: `Bearer ${token}` } })).json()).toEqual({ user: 'u1' });
    expect((await app.inject({ url: '/demo/me', headers: { authorization: `Bearer ${app.signAccessToken('gone')}` } })).statusCode).toBe(401);
    expect((await app.inject({ url: '/demo/me', headers: { authorization: `Bearer ${token}x` } })).statusCode).toBe(401);
  });

  it('logs JSON with the request id on every request line and redacts secrets', async () => {
    await build();
    await app.inject({ method: 'POST', url: '/demo', payload: { n: 1 }, headers: { 'x-request-id': 'req-123' } });
    await app.inject({ method: 'POST', url: '/demo', payload: { n: 1 }, headers: { authorization: 'Bearer not-a-jwt', 'x-request-id': 'req-456' } });
    const mine = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.request_id === 'req-123');
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(lines.join('\n')).not.toMatch(/hunter2|Bearer abc|not-a-jwt/);
    expect(lines.join('\n')).toContain('[redacted]');
  });

  it('sends security headers, allows only configured CORS origins, and rate-limits', async () => {
    await build();
    const res = await app.inject({ url: '/healthz', headers: { origin: 'https://app.example.com' } });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const evil = await app.inject({ url: '/healthz', headers: { origin: 'https://evil.example.com' } });
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    const codes = [];
    for (let i = 0; i < 7; i++) codes.push((await app.inject({ method: 'POST', url: '/demo', payload: { n: 1 } })).statusCode);
    expect(codes.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(codes[6]).toBe(429);
  });

  it('serves an OpenAPI document generated from the route schemas, and a docs page', async () => {
    await build();
    const doc = (await app.inject('/openapi.json')).json() as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/healthz', '/readyz', '/demo']));
    const docs = await app.inject('/docs/');
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });
});

describe('media', () => {
  it('serves the demo video from the media folder, and 404 when there is none', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const mediaDir = mkdtempSync(join(tmpdir(), 'baret-media-'));
    const media = await buildGateway({ config, logger: createLogger('silent'), infra: { ready: async () => undefined }, auth, modules: [], mediaDir });
    try {
      expect((await media.inject({ method: 'HEAD', url: '/media/demo.mov' })).statusCode).toBe(404);
      writeFileSync(join(mediaDir, 'demo.mov'), Buffer.alloc(1000, 1));
      const res = await media.inject({ method: 'GET', url: '/media/demo.mov' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('video/quicktime');
      expect(res.rawPayload.length).toBe(1000);
      expect((await media.inject({ method: 'GET', url: '/media/../jwt-secret' })).statusCode).toBe(404);
    } finally {
      await media.close();
    }
  });

  it('says at /media/demo.json whether the demo video is there now, never to be cached (an installed app asks it)', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const mediaDir = mkdtempSync(join(tmpdir(), 'baret-media-'));
    const media = await buildGateway({ config, logger: createLogger('silent'), infra: { ready: async () => undefined }, auth, modules: [], mediaDir });
    try {
      const none = await media.inject({ method: 'GET', url: '/media/demo.json' });
      expect(none.statusCode).toBe(200);
      expect(none.headers['cache-control']).toBe('no-cache');
      expect(none.json()).toEqual({ video: null });
      writeFileSync(join(mediaDir, 'demo.mov'), Buffer.alloc(10, 1));
      expect((await media.inject({ method: 'GET', url: '/media/demo.json' })).json()).toEqual({ video: '/media/demo.mov' });
      rmSync(join(mediaDir, 'demo.mov'));
      expect((await media.inject({ method: 'GET', url: '/media/demo.json' })).json()).toEqual({ video: null });
      const doc = (await media.inject('/openapi.json')).json() as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths)).not.toContain('/media/demo.json');
    } finally {
      await media.close();
    }
  });
});

describe('a path that climbs out of /media', () => {
  it('is a 400 problem (Turkish and English) in every spelling, never a file or the web app; media files and app routes still load', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    // The data folder as a run lays it out: media/ beside a file that must never be served.
    const data = mkdtempSync(join(tmpdir(), 'baret-data-'));
    const mediaDir = join(data, 'media');
    const webDir = join(data, 'web');
    mkdirSync(webDir);
    writeFileSync(join(data, 'baret.sqlite'), 'SECRET DATABASE');
    writeFileSync(join(webDir, 'index.html'), '<!doctype html><title>Baret</title>');
    const gw = await buildGateway({ config: { ...config, RATE_LIMIT_PER_MINUTE: 1000 }, logger: createLogger('silent'), infra: { ready: async () => undefined }, auth, modules: [], mediaDir, webDir });
    try {
      const base = await gw.listen({ port: 0, host: '127.0.0.1' });
      // Sent byte for byte: fetch and inject would resolve the `..` before the gateway sees it.
      const getVerbatim = async (path: string, headers: Record<string, string> = {}) => {
        const res = await requestVerbatim(base, { path, headers });
        return { status: res.status, type: String(res.headers['content-type'] ?? ''), body: res.body };
      };
      writeFileSync(join(mediaDir, 'demo.mov'), Buffer.alloc(10, 1));
      const html = { accept: 'text/html,application/xhtml+xml', 'accept-language': 'en' };
      const climbs = [
        '/media/../baret.sqlite',
        '/media/%2e%2e/baret.sqlite',
        '/media/%2E%2E/%2e%2e/%2e%2e/etc/passwd',
        '/media/.%2e/baret.sqlite',
        '/media/..%2fbaret.sqlite',
        '/media/..%2Fbaret.sqlite',
        '/media/..%5cbaret.sqlite',
        '/media%2f..%2fbaret.sqlite',
        '/media/%252e%252e/baret.sqlite',
        '/media/x/../../baret.sqlite',
        '/media/./demo.mov',
        '/media/..',
        '/media/%2e%2e',
        '/media/..?x=1',
      ];
      for (const path of climbs) {
        const res = await getVerbatim(path, html);
        expect(res.status, path).toBe(400);
        expect(res.type, path).toContain('application/problem+json');
        expect(JSON.parse(res.body), path).toMatchObject({ status: 400, code: 'bad_path', detail: 'This address leads out of the media folder.' });
        expect(res.body, path).not.toContain('SECRET');
      }
      const turkish = await getVerbatim('/media/%2e%2e/baret.sqlite', { 'accept-language': 'tr' });
      expect(JSON.parse(turkish.body)).toMatchObject({ status: 400, detail: 'Bu adres medya klasörünün dışına çıkıyor.' });
      // What stays as it was: a media file, a missing one (404 problem), the app's page for its routes.
      expect(await getVerbatim('/media/demo.mov')).toMatchObject({ status: 200, type: 'video/quicktime' });
      expect(await getVerbatim('/media/missing.mov', html)).toMatchObject({ status: 404, type: expect.stringContaining('application/problem+json') });
      for (const path of ['/', '/dashboard/history', '/media-kit', '/jobs/..%2fx']) {
        const res = await getVerbatim(path, html);
        if (path.startsWith('/jobs')) expect(res.status, path).toBe(404);
        else expect(res.body, path).toContain('<title>Baret</title>');
      }
    } finally {
      await gw.close();
    }
  });
});

describe('the web app', () => {
  it('serves index.html for page loads of app routes (also /contact, which POST uses for the API), never for API paths', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const webDir = mkdtempSync(join(tmpdir(), 'baret-web-'));
    writeFileSync(join(webDir, 'index.html'), '<!doctype html><title>Baret</title>');
    const web = await buildGateway({ config, logger: createLogger('silent'), infra: { ready: async () => undefined }, auth, modules: [], webDir });
    try {
      const html = { accept: 'text/html,application/xhtml+xml' };
      for (const path of ['/', '/contact', '/dashboard/history?x=1', '/pricing', '/nope']) {
        const res = await web.inject({ url: path, headers: html });
        expect(res.statusCode, path).toBe(200);
        expect(res.body).toContain('<title>Baret</title>');
      }
      for (const path of ['/jobs/123', '/admin/usage', '/auth/unknown']) {
        const res = await web.inject({ url: path, headers: html });
        expect(res.statusCode, path).toBe(404);
        expect(res.headers['content-type']).toContain('application/problem+json');
      }
      expect((await web.inject({ url: '/contact', headers: { accept: 'application/json' } })).statusCode).toBe(404);
      // curl, a load balancer's probe of the front page: no Accept, or */*, gets the app too.
      for (const headers of [{}, { accept: '*/*' }]) {
        const res = await web.inject({ url: '/', headers });
        expect(res.statusCode).toBe(200);
        expect(res.body).toContain('<title>Baret</title>');
      }
    } finally {
      await web.close();
    }
  });
});

describe('languages', () => {
  it('answers problems in Turkish by default and in English when the client prefers it', async () => {
    await build();
    const tr = await app.inject({ method: 'POST', url: '/demo', payload: { n: 0 } });
    expect(tr.json()).toMatchObject({ detail: 'n en az 1 olmalı.', errors: [{ field: 'n', message: 'n en az 1 olmalı.' }] });
    const en = await app.inject({ method: 'POST', url: '/demo', payload: { n: 0 }, headers: { 'accept-language': 'en-US,en;q=0.9,tr;q=0.5' } });
    expect(en.json()).toMatchObject({ detail: 'n must be 1 or more.' });
    expect((await app.inject('/demo/me')).json()).toMatchObject({ detail: 'Devam etmek için lütfen giriş yapın.' });
    expect((await app.inject({ url: '/nope', headers: { 'accept-language': 'tr' } })).json()).toMatchObject({ detail: 'GET /nope için bir yol yok.' });
  });
});

describe('transport and tokens', () => {
  it('sends HSTS only over HTTPS: never on plain HTTP, and behind a trusted proxy that says https', async () => {
    await build();
    expect((await app.inject('/healthz')).headers['strict-transport-security']).toBeUndefined();
    expect((await app.inject({ url: '/healthz', headers: { 'x-forwarded-proto': 'https' } })).headers['strict-transport-security']).toBeUndefined();
    const proxied = await buildGateway({ config: { ...config, TRUST_PROXY: true }, logger: createLogger('silent'), infra: { ready: async () => undefined }, auth, modules: [] });
    try {
      const res = await proxied.inject({ url: '/healthz', headers: { 'x-forwarded-proto': 'https' } });
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect((await proxied.inject('/healthz')).headers['strict-transport-security']).toBeUndefined();
    } finally {
      await proxied.close();
    }
  });

  it('accepts only EdDSA tokens of its own key that carry exp: not HS256 with the secret, not another key, not alg none', async () => {
    const { createSigner } = await import('fast-jwt');
    const { keyPairOf } = await import('@baret/platform');
    await build();
    const good = app.signAccessToken('u1');
    expect((await app.inject({ url: '/demo/me', headers: { authorization: `Bearer ${good}` } })).statusCode).toBe(200);
    const own = keyPairOf(config.JWT_SECRET);
    const pem = own.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const noExp = createSigner({ key: pem, algorithm: 'EdDSA', kid: own.kid, noTimestamp: true })({ sub: 'u1' });
    expect((await app.inject({ url: '/demo/me', headers: { authorization: `Bearer ${noExp}` } })).statusCode).toBe(401);
    const expired = createSigner({ key: pem, algorithm: 'EdDSA', kid: own.kid, expiresIn: 1000, clockTimestamp: Date.now() - 60_000 })({ sub: 'u1' });
    expect((await app.inject({ url: '/demo/me', headers: { authorization: `Bearer ${expired}` } })).statusCode).toBe(401);
    const hs256 = createSigner({ key: config.JWT_SECRET, algorithm: 'HS256', kid: own.kid, expiresIn: 60_000 })({ sub: 'u1' });
    expect((await app.inject({ url: '/demo/me', headers: { authorization: `Bearer ${hs256}` } })).statusCode).toBe(401);
    const other = keyPairOf('another-secret-another-secret-0123456789');
    const otherPem = other.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    for (const kid of [other.kid, own.kid]) {
      const forged = createSigner({ key: otherPem, algorithm: 'EdDSA', kid, expiresIn: 60_000 })({ sub: 'u1' });
      expect((await app.inject({ url: '/demo/me', headers: { authorization: `Bearer ${forged}` } })).statusCode).toBe(401);
    }
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'u1', exp: Math.floor(Date.now() / 1000) + 60 })).toString('base64url')}.`;
    expect((await app.inject({ url: '/demo/me', headers: { authorization: `Bearer ${none}` } })).statusCode).toBe(401);
  });

});
