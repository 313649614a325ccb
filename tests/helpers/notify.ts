import { createECDH, createHmac, createPublicKey, randomBytes, timingSafeEqual, verify, type ECDH } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import ece from 'http_ece';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on loopback (smtp-server): every message it accepted, as raw RFC 5322 text. */
export interface TestSmtp {
  url: string;
  /** Messages answered with 250 (delivered). */
  accepted: Array<{ to: string[]; raw: string }>;
  /** Messages whose DATA arrived, answered or not. */
  received: Array<{ to: string[]; raw: string }>;
  /** When set, DATA of the next message is received but not answered; the promise resolves with it. */
  holdNext(): Promise<void>;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const accepted: TestSmtp['accepted'] = [];
  const received: TestSmtp['received'] = [];
  let hold: (() => void) | null = null;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      stream.on('end', () => {
        const message = { to: session.envelope.rcptTo.map((r) => r.address), raw };
        received.push(message);
        if (hold) {
          const h = hold;
          hold = null;
          h(); // never answered: the sender does not know it arrived
          return;
        }
        accepted.push(message);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    accepted,
    received,
    holdNext: () => new Promise<void>((resolve) => (hold = resolve)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One part of a mail: its headers and decoded body. */
export interface MailPart {
  headers: Record<string, string>;
  body: string;
}

const decodeQp = (s: string): string =>
  Buffer.from(
    s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
    'latin1',
  ).toString('utf8');

function parseHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return headers;
}

function decodeBody(headers: Record<string, string>, body: string): string {
  const enc = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  if (enc === 'quoted-printable') return decodeQp(body);
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

/** Decodes an encoded-word header (=?UTF-8?Q?…?= or =?UTF-8?B?…?=). */
export function decodeHeader(value: string): string {
  return value.replace(/=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi, (_m, enc: string, text: string) =>
    enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQp(text.replace(/_/g, ' ')),
  );
}

/** A mail's headers and its text and HTML parts. */
export function parseMail(raw: string): { headers: Record<string, string>; text: string | null; html: string | null } {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = parseHeaders(raw.slice(0, split));
  const rest = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  const parts: MailPart[] = [];
  if (boundary) {
    for (const chunk of rest.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      const s = chunk.replace(/^\r?\n/, '');
      const at = s.search(/\r?\n\r?\n/);
      const h = parseHeaders(s.slice(0, at));
      parts.push({ headers: h, body: decodeBody(h, s.slice(at).replace(/^\r?\n\r?\n/, '')) });
    }
  } else parts.push({ headers, body: decodeBody(headers, rest) });
  const of = (type: string) => parts.find((p) => (p.headers['content-type'] ?? '').startsWith(type))?.body ?? null;
  return { headers, text: of('text/plain'), html: of('text/html') };
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A local HTTP server answering each request with the next status of `statuses` (the last one repeats; 0: never answers). */
export interface TestReceiver {
  url: string;
  requests: ReceivedRequest[];
  respondWith(statuses: number[]): void;
  /** Called with each request before it is answered. */
  onRequest?: (r: ReceivedRequest) => void;
  /** Each answer waits this long (a slow receiver). */
  delayMs?: number;
  close(): Promise<void>;
}

export async function startReceiver(statuses: number[] = [200]): Promise<TestReceiver> {
  let script = [...statuses];
  const requests: ReceivedRequest[] = [];
  const receiver: TestReceiver = {
    url: '',
    requests,
    respondWith: (s) => (script = [...s]),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(r);
      receiver.onRequest?.(r);
      const status = script.length > 1 ? script.shift()! : (script[0] ?? 200);
      if (status === 0) return;
      const answer = () => res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
      if (receiver.delayMs) setTimeout(answer, receiver.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/** Verifies `Baret-Signature: t=…,v1=…` against the raw body, as docs/api.md tells integrators to. */
export function verifyBaretSignature(secret: string, header: string, rawBody: Buffer | string): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  if (!parts.t || !parts.v1) return false;
  const want = createHmac('sha256', secret).update(`${parts.t}.${rawBody.toString()}`).digest();
  const got = Buffer.from(parts.v1, 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}

/** A browser's push subscription keys: a P-256 key pair and a 16-byte auth secret. */
export function pushKeys(): { ecdh: ECDH; p256dh: string; auth: string } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { ecdh, p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}

/** Decrypts an aes128gcm Web Push body with the subscription's private key and auth secret. */
export function decryptPush(body: Buffer, keys: { ecdh: ECDH; auth: string }): string {
  return (ece.decrypt(body, { version: 'aes128gcm', privateKey: keys.ecdh, authSecret: keys.auth }) as Buffer).toString('utf8');
}

/**
 * Checks a VAPID Authorization header (`vapid t=<JWT>, k=<public key>`, RFC 8292): the key is the
 * server's, the JWT is ES256-signed by it, its audience is the push service's origin and it has not
 * expired. Returns the JWT's claims.
 */
export function verifyVapid(authorization: string, publicKeyB64url: string, endpointOrigin: string): { aud: string; exp: number; sub: string } {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization);
  if (!m) throw new Error(`not a VAPID header: ${authorization}`);
  const [, jwt, k] = m as unknown as [string, string, string];
  if (k !== publicKeyB64url) throw new Error('VAPID key is not the server key');
  const [h, p, s] = jwt.split('.') as [string, string, string];
  const raw = Buffer.from(publicKeyB64url, 'base64url');
  const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33, 65).toString('base64url') }, format: 'jwk' });
  const ok = verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
  if (!ok) throw new Error('VAPID JWT signature does not verify');
  const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg: string };
  if (header.alg !== 'ES256') throw new Error(`VAPID JWT alg ${header.alg}`);
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as { aud: string; exp: number; sub: string };
  if (claims.aud !== endpointOrigin) throw new Error(`VAPID aud ${claims.aud} is not ${endpointOrigin}`);
  if (claims.exp * 1000 <= Date.now()) throw new Error('VAPID JWT expired');
  return claims;
}
