/**
 * A real OpenID Connect provider for the single sign-on tests (issue 30): Dex, behind a small
 * proxy that is the issuer's address. The proxy passes everything through, and can alter what
 * Dex's token endpoint answers — the one thing a provider will not do for a test: hand out a
 * token whose signature was tampered with, or a token Dex signed for another application.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { freePort, startDex, type DexClient, type DexUser, type RunningDex } from '@baret/platform/testing';

/** What the proxy does to the next answers of the token endpoint. */
export type TokenMode = { kind: 'pass' } | { kind: 'tamper-signature' } | { kind: 'replace-id-token'; idToken: string };

export interface OidcProvider {
  issuer: string;
  dex: RunningDex;
  /** Sets what the token endpoint's answers go through from now on. */
  setTokenMode(mode: TokenMode): void;
  /** How many token responses the proxy altered. */
  altered(): number;
  stop(): Promise<void>;
}

/** The ID token with one byte of its signature changed (its header and claims untouched). */
export function tamperSignature(idToken: string): string {
  const [header, payload, signature = ''] = idToken.split('.');
  const bytes = Buffer.from(signature, 'base64url');
  bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
  return `${header}.${payload}.${bytes.toString('base64url')}`;
}

export const claimsOf = (idToken: string): Record<string, unknown> => JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;

export async function startOidcProvider(options: { clients: DexClient[]; users: DexUser[]; idTokenTtl?: string }): Promise<OidcProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}/dex`;
  const dex = await startDex({ ...options, issuer: () => issuer });
  let mode: TokenMode = { kind: 'pass' };
  let altered = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const upstream = httpRequest(
        { host: '127.0.0.1', port: dex.port, method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${port}` } },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            let body = Buffer.concat(parts);
            const isToken = req.method === 'POST' && (req.url ?? '').split('?')[0] === '/dex/token' && answer.statusCode === 200;
            if (isToken && mode.kind !== 'pass') {
              const json = JSON.parse(body.toString('utf8')) as { id_token?: string };
              if (json.id_token) {
                json.id_token = mode.kind === 'tamper-signature' ? tamperSignature(json.id_token) : mode.idToken;
                altered++;
              }
              body = Buffer.from(JSON.stringify(json));
            }
            const headers = { ...answer.headers, 'content-length': String(body.length) };
            delete headers['transfer-encoding'];
            res.writeHead(answer.statusCode ?? 502, headers);
            res.end(body);
          });
        },
      );
      upstream.on('error', (e) => {
        res.writeHead(502);
        res.end(String(e));
      });
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    issuer,
    dex,
    setTokenMode: (next) => {
      mode = next;
    },
    altered: () => altered,
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dex.stop();
    },
  };
}

/**
 * An ID token Dex signs for `client` (another application than Baret), through the whole code
 * flow at Dex with the given nonce: a real token, valid in every way but its audience.
 */
export async function idTokenFor(provider: OidcProvider, client: DexClient, email: string, nonce: string): Promise<string> {
  const { signInAtDex } = await import('@baret/platform/testing');
  const auth = new URL(`${provider.issuer}/auth`);
  auth.search = new URLSearchParams({ client_id: client.id, redirect_uri: client.redirectURIs[0]!, response_type: 'code', scope: 'openid email profile', state: 'other-app-state', nonce }).toString();
  const back = await signInAtDex(auth.href, email);
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code for ${client.id}: ${back.href}`);
  const res = await fetch(`${provider.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: client.redirectURIs[0]!, client_id: client.id, client_secret: client.secret }),
  });
  const json = (await res.json()) as { id_token?: string };
  if (!json.id_token) throw new Error(`no id_token for ${client.id}: ${JSON.stringify(json)}`);
  return json.id_token;
}
