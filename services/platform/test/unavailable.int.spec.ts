import { createHttpApp, createLogger, isUnavailable, parseConfig, ServiceCallError, ServiceUnavailableError } from '@baret/platform';
import type { FastifyInstance } from 'fastify';
import { MongoServerSelectionError } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Issue 27: a dependency that is down is answered 503 service_unavailable with Retry-After, never 500. */
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const failures: Record<string, () => unknown> = {
  'postgres-refused': refused,
  'postgres-shutdown': () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
  'postgres-terminated': () => new Error('Connection terminated unexpectedly'),
  'mongo-selection': () => new MongoServerSelectionError('connect ECONNREFUSED 127.0.0.1:27017', { type: 'Unknown', servers: new Map(), stale: false, compatible: true, heartbeatFrequencyMS: 1000, localThresholdMS: 15, setName: null, maxElectionId: null, maxSetVersion: null, commonWireVersion: 0, logicalSessionTimeoutMinutes: null } as never),
  'kafka-connection': () => Object.assign(new Error('Connection error: connect ECONNREFUSED 127.0.0.1:9092'), { name: 'KafkaJSConnectionError' }),
  's3-unavailable': () => Object.assign(new Error('Server not initialized, please try again.'), { code: 'XMinioServerNotInitialized' }),
  'wrapped-aggregate': () => new AggregateError([refused(), refused()], 'connect failed'),
  'identity-unreachable': () => new ServiceCallError('identity', null, 'identity is not reachable: fetch failed'),
  'identity-503': () => new ServiceCallError('identity', 503, 'identity answered 503'),
  'domain-503': () => new ServiceUnavailableError('redis down'),
};

let app: FastifyInstance;
beforeAll(async () => {
  const config = parseConfig({ LOG_LEVEL: 'silent' });
  app = await createHttpApp(config, createLogger('silent'));
  for (const [name, make] of Object.entries(failures)) app.get(`/fail/${name}`, async () => { throw make(); });
  app.get('/fail/bug', async () => { throw new Error('undefined is not a function'); });
  app.get('/fail/identity-500', async () => { throw new ServiceCallError('identity', 500, 'identity answered 500'); });
  await app.ready();
});
afterAll(() => app?.close());

describe('answers when a dependency is down', () => {
  it.each(Object.keys(failures))('%s: 503 service_unavailable with Retry-After, in the asked language, nothing leaked', async (name) => {
    for (const [lang, detail] of [['en', /not reachable right now|temporarily unavailable/], ['tr', /ulaşılamıyor|kullanılamıyor/]] as const) {
      const res = await app.inject({ url: `/fail/${name}`, headers: { 'accept-language': lang } });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      const body = res.json() as { code: string; detail: string };
      expect(body.code).toBe('service_unavailable');
      expect(body.detail).toMatch(detail);
      expect(res.body).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|redis/);
    }
  });

  it('a bug stays a 500 internal_error, and so does a service that answered 500', async () => {
    for (const path of ['/fail/bug', '/fail/identity-500']) {
      const res = await app.inject(path);
      expect(res.statusCode).toBe(500);
      expect((res.json() as { code: string }).code).toBe('internal_error');
    }
    expect(isUnavailable(new Error('undefined is not a function'))).toBe(false);
    expect(isUnavailable(null)).toBe(false);
  });
});
