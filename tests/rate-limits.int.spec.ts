import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServiceApp, createLogger, parseConfig, type AuthResolvers, type Config } from '@baret/platform';
import { buildGateway } from '@baret/gateway';
import { fetchManifests } from '../services/gateway/src/plugins/proxy.js';
import { ServiceClient } from '@baret/platform';
import { startTestApp, type TestApp } from './helpers/app.js';
import { multipart } from './helpers/jobs.js';

/** A real multipart upload of `mib` MiB, as a browser sends it. */
const upload = (mib: number) => multipart({ payload: JSON.stringify({ job_type: 'auto' }) }, { name: 'crew.mp4', type: 'video/mp4', data: Buffer.alloc(mib * 1024 * 1024, 7) });

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { code?: string; detail?: string; status?: number };
}

/**
 * Sends a body over a real socket in 64 KiB writes, as a phone on a slow link does, and resolves
 * with the answer; a broken pipe or reset rejects.
 */
function post(url: string, payload: Buffer, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(payload.length) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? (JSON.parse(text) as Answer['body']) : {} }));
      res.on('error', reject);
    });
    req.on('error', reject);
    let offset = 0;
    const write = () => {
      while (offset < payload.length) {
        const ok = req.write(payload.subarray(offset, (offset += 64 * 1024)));
        if (!ok) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

describe('rate limits per user or API key (embedded)', () => {
  let app: TestApp;
  let base: string;
  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '1000' });
    base = await app.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => app.close());

  it('gives every member of a crew behind one address their own 30 analyses an hour, and answers an over-limit upload with a clean 429', async () => {
    const a = await app.signUp('crew-a@example.com');
    const b = await app.signUp('crew-b@example.com');
    const key = (await app.request({ method: 'POST', url: '/auth/tokens', token: a.token, payload: { name: 'truck 7' } })).json() as { token: string };
    const empty = await multipart({ payload: '{}' });
    const send = (token: string, body = empty, lang = 'en') => post(`${base}/analyze`, body.payload, { ...body.headers, authorization: `Bearer ${token}`, 'accept-language': lang });

    // 30 submissions of user A without a video (400 each) use up A's hour, all from 127.0.0.1.
    for (let i = 0; i < 30; i++) expect((await send(a.token)).status).toBe(400);

    // A's 31st, a 6 MiB upload: the 429 arrives whole, no broken pipe.
    const video = await upload(6);
    const refused = await send(a.token, video);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.body).toMatchObject({ status: 429, code: 'too_many_requests' });
    expect(refused.body.detail).toMatch(/^Too many requests\. Please wait (\d+) minutes and try again\.$/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(60);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    const turkish = await send(a.token, video, 'tr-TR,tr;q=0.9');
    expect(turkish.status).toBe(429);
    expect(turkish.body.detail).toMatch(/^Çok fazla istek\. Lütfen \d+ dakika bekleyip yeniden deneyin\.$/);

    // The connection stays usable after the refused upload (the body was read, not cut off).
    expect((await fetch(`${base}/healthz`)).status).toBe(200);

    // B, from the same address, and A's API key (its own allowance) still get through.
    expect((await send(b.token)).status).toBe(400);
    expect((await send(key.token)).status).toBe(400);
    expect((await send(b.token, video)).status).not.toBe(429);

    // The OpenAPI document says so.
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { info: { description: string }; paths: Record<string, Record<string, { description?: string }>> };
    expect(doc.paths['/analyze']!.post!.description).toContain('Limited to 30 per hour per user or API key');
    expect(doc.info.description).toContain('flood guard of 1000 a minute per client address');
  }, 60_000);
});

describe('the per-address flood guard', () => {
  it('refuses every request of an address above RATE_LIMIT_PER_ADDRESS_PER_MINUTE, signed in or not', async () => {
    const app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '8' });
    try {
      const remoteAddress = '10.20.30.40';
      const codes: number[] = [];
      for (let i = 0; i < 10; i++) codes.push((await app.request({ method: 'GET', url: '/tasks', remoteAddress })).statusCode);
      expect(codes.slice(0, 8).every((c) => c !== 429)).toBe(true);
      expect(codes.slice(8)).toEqual([429, 429]);
      // Another address is not affected; health and metrics are never limited.
      expect((await app.request({ method: 'GET', url: '/tasks', remoteAddress: '10.20.30.41' })).statusCode).not.toBe(429);
      expect((await app.request({ method: 'GET', url: '/healthz', remoteAddress })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('rate limits in the distributed run (gateway in front of a service process)', () => {
  const SECRET = 's'.repeat(40);
  let service: FastifyInstance;
  let gateway: FastifyInstance;
  let base: string;
  let received = 0;
  beforeAll(async () => {
    const config: Config = { ...parseConfig({ LOG_LEVEL: 'silent' }), JWT_SECRET: 'j'.repeat(40), SERVICE_SECRET: SECRET };
    service = await buildServiceApp({
      name: 'job',
      config,
      log: createLogger('silent'),
      ready: async () => undefined,
      modules: [
        {
          name: 'uploads',
          routes: async (app) => {
            app.removeAllContentTypeParsers();
            app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
            app.post('/analyze', { preHandler: app.requireUser, config: { principalLimit: { max: 2, timeWindow: '1 hour' } } }, async (request, reply) => {
              for await (const _chunk of request.raw);
              received++;
              return reply.code(202).send({ ok: true });
            });
            app.post('/auth/login', { config: { rateLimit: { max: 1, timeWindow: '1 hour' } } }, async () => ({ ok: true }));
          },
        },
      ],
    });
    const upstream = await service.listen({ host: '127.0.0.1', port: 0 });
    const users: Record<string, string> = { tok_a: 'ua', tok_b: 'ub' };
    const auth: AuthResolvers = {
      isApiKey: (t) => t.startsWith('tok_'),
      userById: async () => null,
      userByApiKey: async (t) => (users[t] ? { userId: users[t]!, email: `${users[t]}@example.com`, fullName: null, isAdmin: false } : null),
    };
    const manifests = await fetchManifests([new ServiceClient('job', upstream, SECRET, 'gateway')], createLogger('silent'));
    gateway = await buildGateway({ config, logger: createLogger('silent'), infra: { ready: async () => undefined }, auth, modules: [], proxy: { upstreams: manifests, secret: SECRET } });
    base = await gateway.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await gateway?.close();
    await service?.close();
  });

  it("enforces a service route's own limit at the gateway, before the upload goes upstream, and answers it cleanly", async () => {
    const video = await upload(5);
    const send = (token: string) => post(`${base}/analyze`, video.payload, { ...video.headers, authorization: `Bearer ${token}`, 'accept-language': 'en' });
    expect((await send('tok_a')).status).toBe(202);
    expect((await send('tok_a')).status).toBe(202);
    const refused = await send('tok_a');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('too_many_requests');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(received).toBe(2);
    expect((await send('tok_b')).status).toBe(202);
    expect(received).toBe(3);
  }, 60_000);

  it("answers a service's own per-address limit as problem+json with a code, in the client's language", async () => {
    const login = (lang: string) => fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-language': lang }, body: '{}' });
    expect((await login('en')).status).toBe(200);
    const refused = await login('tr');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = (await refused.json()) as { code: string; detail: string };
    expect(body.code).toBe('too_many_requests');
    expect(body.detail).toMatch(/^Çok fazla istek\./);
  });
});
