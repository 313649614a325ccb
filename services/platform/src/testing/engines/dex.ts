import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enginesDir, freePort, spawnEngine, waitUntil, type EngineProcess } from './common.js';

/** The Dex binary that scripts/engines/install-dex.sh built, or null. */
export function dexBinary(): string | null {
  const dir = enginesDir();
  if (!existsSync(dir)) return null;
  return (
    readdirSync(dir)
      .filter((d) => d.startsWith('dex-'))
      .map((d) => join(dir, d, 'dex'))
      .find((p) => existsSync(p)) ?? null
  );
}

/** The password of every user of a test Dex ("password"; Dex keeps only bcrypt hashes, and this is the hash of its own example). */
export const DEX_PASSWORD = 'password';
const DEX_PASSWORD_BCRYPT = '$2a$10$2b2cU8CPhOTaGrs1HRQuAueS7JTT5ZHsHSzYiFPm1leZck7Mc8T4W';

export interface DexClient {
  id: string;
  secret: string;
  redirectURIs: string[];
}
export interface DexUser {
  email: string;
  username: string;
  /** The subject (`sub`) Dex derives the ID token's subject from. */
  userID: string;
  /** What the ID token's `email_verified` says (Dex's `emailVerified` of a static password); default true. */
  emailVerified?: boolean;
}

export interface DexOptions {
  clients: DexClient[];
  users: DexUser[];
  /** How long ID tokens live (Dex's `expiry.idTokens`, a Go duration); default 24h. */
  idTokenTtl?: string;
  /**
   * The issuer URL when it is not Dex's own address: a test that puts a proxy in front of Dex
   * (to alter what it answers) gives the proxy's address, Dex listens on `port`.
   */
  issuer?: (port: number) => string;
}

export interface RunningDex {
  /** The issuer as Dex names it in its tokens and discovery document. */
  issuer: string;
  /** Where Dex itself listens (http://127.0.0.1:port). */
  address: string;
  port: number;
  log(): string;
  stop(): Promise<void>;
}

const yamlString = (s: string) => JSON.stringify(s);

/**
 * A Dex OpenID Connect provider on a free loopback port: memory storage, static clients, static
 * users (all with DEX_PASSWORD) in its own login form, and no approval screen.
 */
export async function startDex(options: DexOptions): Promise<RunningDex> {
  const bin = dexBinary();
  if (!bin) throw new Error('Dex is not installed: run bash scripts/bootstrap.sh --test');
  const dir = mkdtempSync(join(tmpdir(), 'baret-dex-'));
  const port = await freePort();
  const address = `http://127.0.0.1:${port}`;
  const issuer = options.issuer?.(port) ?? `${address}/dex`;
  const config = [
    `issuer: ${yamlString(issuer)}`,
    'storage:',
    '  type: memory',
    'web:',
    `  http: ${yamlString(`127.0.0.1:${port}`)}`,
    'logger:',
    '  level: info',
    'oauth2:',
    '  skipApprovalScreen: true',
    'expiry:',
    `  idTokens: ${yamlString(options.idTokenTtl ?? '24h')}`,
    'enablePasswordDB: true',
    'staticClients:',
    ...options.clients.flatMap((c) => [
      `- id: ${yamlString(c.id)}`,
      `  secret: ${yamlString(c.secret)}`,
      `  name: ${yamlString(c.id)}`,
      `  redirectURIs: [${c.redirectURIs.map(yamlString).join(', ')}]`,
    ]),
    'staticPasswords:',
    ...options.users.flatMap((u) => [
      `- email: ${yamlString(u.email)}`,
      `  hash: ${yamlString(DEX_PASSWORD_BCRYPT)}`,
      `  username: ${yamlString(u.username)}`,
      `  userID: ${yamlString(u.userID)}`,
      ...(u.emailVerified === undefined ? [] : [`  emailVerified: ${u.emailVerified}`]),
    ]),
    '',
  ].join('\n');
  writeFileSync(join(dir, 'config.yaml'), config);
  const proc: EngineProcess = spawnEngine(bin, ['serve', join(dir, 'config.yaml')], { cwd: dir });
  const issuerPath = new URL(issuer).pathname.replace(/\/$/, '');
  try {
    await waitUntil(
      async () => proc.child.exitCode !== null || (await fetch(`${address}${issuerPath}/.well-known/openid-configuration`)).ok,
      60_000,
      () => `Dex did not start on port ${port}:\n${proc.log()}`,
    );
    if (proc.child.exitCode !== null) throw new Error(`Dex exited at start on port ${port}:\n${proc.log()}`);
  } catch (e) {
    await proc.stop();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    issuer,
    address,
    port,
    log: proc.log,
    stop: async () => {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Signs a user in at Dex's login form the way a browser would, without one: opens the
 * authorization URL, posts the e-mail and password to the form, and returns the URL Dex sends the
 * browser back to (the client's redirect URI with `code` and `state`, or `error`).
 */
export async function signInAtDex(authorizationUrl: string, email: string, password = DEX_PASSWORD): Promise<URL> {
  let url = new URL(authorizationUrl);
  const origin = url.origin;
  // Follow Dex's redirects to its password form.
  for (let hop = 0; hop < 5; hop++) {
    const res = await fetch(url, { redirect: 'manual' });
    const location = res.headers.get('location');
    await res.arrayBuffer();
    if (res.status >= 300 && res.status < 400 && location) {
      url = new URL(location, url);
      if (url.origin !== origin) return url;
      continue;
    }
    if (res.status !== 200) throw new Error(`Dex answered ${res.status} at ${url.pathname}`);
    break;
  }
  const res = await fetch(url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ login: email, password }) });
  await res.arrayBuffer();
  const location = res.headers.get('location');
  if (!location) throw new Error(`Dex did not sign ${email} in (${res.status} at ${url.pathname})`);
  let back = new URL(location, url);
  // An approval step, should Dex ask for one, is followed too.
  for (let hop = 0; back.origin === origin && hop < 5; hop++) {
    const next = await fetch(back, { redirect: 'manual' });
    await next.arrayBuffer();
    const to = next.headers.get('location');
    if (!to) throw new Error(`Dex stopped at ${back.pathname} (${next.status})`);
    back = new URL(to, back);
  }
  return back;
}
