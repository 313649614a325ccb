/**
 * The distributed stack of the organisation tests (audit, organisations): every service its own
 * process over PostgreSQL, Kafka, FerretDB and MinIO, behind the gateway, with an admin signed in
 * and a 2-second test video; and the steps they share: sign up (register, log in), create an
 * organisation, invite a member who accepts.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { videoFixtures } from '../../services/analysis/test/fixtures/videos.js';
import { startDistributedStack, type DistributedStack } from './distributed.js';
import { confirmEmail } from './confirmEmail.js';
import { api } from './process.js';

export type SignedUp = { token: string; id: string; email: string };
type Answer<T> = { status: number; body: T };

export interface OrgStack {
  stack: DistributedStack;
  gateway: string;
  video: Buffer;
  admin: SignedUp;
  /** A call through the gateway as `token`, in English. */
  call<T = unknown>(path: string, token: string, init?: RequestInit): Promise<Answer<T>>;
  /** `method` with a JSON body (when given). */
  send<T = unknown>(method: string, path: string, token: string, body?: unknown, headers?: Record<string, string>): Promise<Answer<T>>;
  /** Registers (201 expected) and logs in. */
  signUp(email: string): Promise<SignedUp>;
  /** Creates an organisation; `manager` becomes its manager. */
  createOrg(manager: SignedUp, name: string): Promise<Answer<{ id: string; role: string }>>;
  /** `manager` invites `member` with `role`, and the member accepts (the two answers, to assert on). */
  join(orgId: string, manager: SignedUp, member: SignedUp, role?: 'member' | 'manager'): Promise<{ invite: Answer<{ token: string; url: string }>; accepted: Answer<{ id: string; role: string }> }>;
  close(): Promise<void>;
}

const PASSWORD = 'correct horse battery';

/** `env`: more settings of every process (e.g. WEB_DIST_DIR). */
export async function startOrgStack(options: { env?: Record<string, string> } = {}): Promise<OrgStack> {
  const fx = await videoFixtures();
  let stack: DistributedStack | undefined;
  try {
    const video = readFileSync(await fx.testsrc('clip.mp4', { seconds: 2 }));
    stack = await startDistributedStack({
      env: { BARET_ADMIN_EMAILS: 'admin@baret.test', RATE_LIMIT_PER_MINUTE: '100000', ...options.env },
      onLine: (name, line) => {
        if (/"level":"(error|fatal)"/.test(line)) process.stderr.write(`[${name}] ${line.slice(0, 2000)}\n`);
      },
    });
    const gateway = stack.gateway;
    const call = <T>(path: string, token: string, init: RequestInit = {}) => api<T>(gateway, path, { ...init, token, headers: { 'accept-language': 'en', ...(init.headers as Record<string, string>) } });
    const send = <T>(method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) =>
      call<T>(path, token, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const signUp = async (email: string): Promise<SignedUp> => {
      const reg = await api<{ id: string }>(gateway, '/auth/register', { method: 'POST', body: JSON.stringify({ email, password: PASSWORD }) });
      expect(reg.status, JSON.stringify(reg.body)).toBe(201);
      const login = await api<{ access_token: string }>(gateway, '/auth/login', { method: 'POST', body: JSON.stringify({ email, password: PASSWORD }) });
      return { token: login.body.access_token, id: reg.body.id, email };
    };
    const admin = await signUp('admin@baret.test');
    await confirmEmail(gateway, { env: stack.env }, admin.id); // an admin once confirmed (issue 37)
    const started = stack;
    return {
      stack,
      gateway,
      video,
      admin,
      call,
      send,
      signUp,
      createOrg: (manager, name) => send('POST', '/orgs', manager.token, { name }),
      join: async (orgId, manager, member, role = 'member') => {
        const invite = await send<{ token: string; url: string }>('POST', `/orgs/${orgId}/invites`, manager.token, { email: member.email, role });
        const accepted = await send<{ id: string; role: string }>('POST', `/invites/${invite.body.token}/accept`, member.token);
        return { invite, accepted };
      },
      close: async () => {
        await started.close();
        await fx.dispose();
      },
    };
  } catch (e) {
    await stack?.close();
    await fx.dispose();
    throw e;
  }
}
