import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';

let app: TestApp;
let port: number;

beforeAll(async () => {
  app = await startTestApp({ HTTP_IDLE_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_BODY_TIMEOUT_MS: '2000' }, { background: false });
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.app.server.address() as { port: number }).port;
});
afterAll(() => app.close());

/** Opens a raw connection; `closed` resolves with the milliseconds until the server closed it. */
function open(): Promise<{ socket: Socket; closed: Promise<number>; received: () => string }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let data = '';
    const socket = connect(port, '127.0.0.1', () => resolve({ socket, closed, received: () => data }));
    socket.on('data', (c: Buffer) => (data += c.toString()));
    socket.on('error', () => undefined);
    const closed = new Promise<number>((r) => socket.on('close', () => r(Date.now() - started)));
    socket.once('error', reject);
  });
}

describe('slow clients are cut off', () => {
  it('a client that stops in the middle of its headers is disconnected', async () => {
    const c = await open();
    c.socket.write('POST /contact HTTP/1.1\r\nHost: localhost\r\n');
    const ms = await c.closed;
    // Idle timeout 1 s: closed long before the old behaviour (still open after 330 s).
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(ms).toBeLessThan(60_000);
  });

  it('a client that trickles a small body (never idle) is cut off by the whole-request deadline', async () => {
    const c = await open();
    c.socket.write('POST /contact HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    let sent = 1;
    const trickle = setInterval(() => {
      if (!c.socket.destroyed) {
        c.socket.write(' ');
        sent++;
      }
    }, 300);
    const ms = await c.closed;
    clearInterval(trickle);
    expect(sent).toBeLessThan(1000); // the body never completed
    expect(ms).toBeGreaterThanOrEqual(1900);
    expect(ms).toBeLessThan(60_000);
  });

  it('a client that sends its request in time is answered', async () => {
    const body = JSON.stringify({ email: 'a@example.com', message: 'Merhaba, bir sorum var.' });
    const c = await open();
    c.socket.write(`POST /contact HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 202/);
  });
});
