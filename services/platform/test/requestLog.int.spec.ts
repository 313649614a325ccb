import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpApp, SLOW_REQUEST_MS } from '../src/http/app.js';
import { loggerOptions } from '../src/logger.js';
import type { FastifyInstance } from 'fastify';

const config = { TRUST_PROXY: false, HTTP_IDLE_TIMEOUT_MS: 60_000, HTTP_HEADERS_TIMEOUT_MS: 20_000, HTTP_BODY_TIMEOUT_MS: 30_000 };

/** A server on a real socket whose log lines are kept. */
async function server(behindGateway: boolean, level = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (chunk.toString().split('\n').filter(Boolean).forEach((l) => lines.push(JSON.parse(l))), done()) });
  const app = await createHttpApp(config, pino(loggerOptions(level), sink), { trustAllProxies: behindGateway, behindGateway });
  app.get('/fast', async () => ({ ok: true }));
  app.get('/slow', async () => new Promise((resolve) => setTimeout(() => resolve({ ok: true }), SLOW_REQUEST_MS + 50)));
  app.get('/broken', async () => {
    throw new Error('boom');
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  return { app, lines, port };
}

/** One request on its own connection, closed by the client right after the answer. */
const get = (port: number, path: string, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { connection: 'close', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

describe('request log lines (issue 27: one per request and hop)', () => {
  it('at the edge: one "request completed" line per request with method, url, client, route, status, duration and request id; no arrival line', async () => {
    const s = await server(false);
    apps.push(s.app);
    expect(await get(s.port, '/fast?x=1', { 'x-request-id': 'req-1' })).toBe(200);
    expect(await get(s.port, '/nowhere')).toBe(404);
    await expect.poll(() => s.lines.filter((l) => l.msg === 'request completed').length).toBe(2);
    const line = s.lines.find((l) => l.msg === 'request completed' && l.request_id === 'req-1')!;
    expect(line).toMatchObject({ level: 'info', req: { method: 'GET', url: '/fast?x=1', remoteAddress: '127.0.0.1' }, route: '/fast', res: { statusCode: 200 } });
    expect(typeof line.responseTime).toBe('number');
    expect(s.lines.filter((l) => l.msg === 'incoming request')).toEqual([]);
    expect(s.lines.filter((l) => l.request_id === 'req-1')).toHaveLength(1);
  });

  it('behind the gateway: only a failed or slow request is logged at info, with the address the gateway forwarded; the rest at debug', async () => {
    const s = await server(true);
    apps.push(s.app);
    expect(await get(s.port, '/fast', { 'x-request-id': 'quiet', 'x-forwarded-for': '203.0.113.7' })).toBe(200);
    expect(await get(s.port, '/broken', { 'x-request-id': 'failed' })).toBe(500);
    expect(await get(s.port, '/slow', { 'x-request-id': 'slow', 'x-forwarded-for': '203.0.113.7' })).toBe(200);
    await expect.poll(() => s.lines.filter((l) => l.msg === 'request completed').length).toBe(2);
    const completed = s.lines.filter((l) => l.msg === 'request completed');
    expect(completed.map((l) => l.request_id).sort()).toEqual(['failed', 'slow']);
    expect(completed.find((l) => l.request_id === 'slow')).toMatchObject({ req: { remoteAddress: '203.0.113.7' }, res: { statusCode: 200 } });
    expect(completed.find((l) => l.request_id === 'failed')).toMatchObject({ res: { statusCode: 500 } });
    expect(s.lines.filter((l) => l.request_id === 'quiet')).toEqual([]);
  });

  it('behind the gateway at LOG_LEVEL=debug: every request, its arrival too', async () => {
    const s = await server(true, 'debug');
    apps.push(s.app);
    expect(await get(s.port, '/fast', { 'x-request-id': 'seen' })).toBe(200);
    await expect.poll(() => s.lines.filter((l) => l.request_id === 'seen').map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
  });
});
