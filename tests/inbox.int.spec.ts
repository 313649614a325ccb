import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp } from './helpers/app.js';

interface Item {
  id: string;
  kind: string;
  name: string | null;
  email: string;
  subject: string | null;
  message: string | null;
  origin: string | null;
  created_at: string;
  handled: boolean;
}

describe('the team inbox: contact messages and upgrade requests for admins', () => {
  let app: TestApp;
  let admin: { token: string; id: string };
  let user: { token: string; id: string };

  beforeAll(async () => {
    app = await startTestApp({ BARET_ADMIN_EMAILS: 'boss@baret.test' }, { realClock: true });
    admin = await app.signUp('boss@baret.test');
    user = await app.signUp('crew@example.com');
  });
  afterAll(async () => app.close());

  const inbox = async (kind: string, token = admin.token) => app.request({ method: 'GET', url: `/admin/inbox?kind=${kind}`, token });

  it('lists contact messages newest first with the sender, and only to admins', async () => {
    for (const message of ['The first message, older.', 'The second message, newer.']) {
      const res = await app.request({ method: 'POST', url: '/contact', payload: { name: 'Mehmet', email: 'mehmet@example.com', subject: 'Demo', message } });
      expect(res.statusCode).toBe(202);
      await new Promise((r) => setTimeout(r, 5));
    }
    const items = await eventually(async () => {
      const list = (await inbox('contact')).json() as Item[];
      return list.length === 2 ? list : undefined;
    });
    expect(items.map((i) => i.message)).toEqual(['The second message, newer.', 'The first message, older.']);
    expect(items[0]).toMatchObject({ kind: 'contact', name: 'Mehmet', email: 'mehmet@example.com', subject: 'Demo', handled: false });
    // dated when sent
    expect(Math.abs(Date.parse(items[0]!.created_at) - Date.now())).toBeLessThan(60_000);
    expect((await inbox('contact', user.token)).statusCode).toBe(403);
    expect((await app.request({ method: 'GET', url: '/admin/inbox' })).statusCode).toBe(401);
  });

  it('shows a user their upgrade request as pending until an admin marks it handled', async () => {
    const pending = async () => (await app.request({ method: 'GET', url: '/usage/upgrade-request', token: user.token })).json() as { pending: boolean; requested_at: string | null };
    expect(await pending()).toEqual({ pending: false, requested_at: null });
    const res = await app.request({ method: 'POST', url: '/usage/request-upgrade', token: user.token, payload: { origin: 'pricing', message: 'Five crews.' } });
    expect(res.statusCode).toBe(202);
    const [request] = await eventually(async () => {
      const list = (await inbox('upgrade_request')).json() as Item[];
      return list.length === 1 ? list : undefined;
    });
    expect(request).toMatchObject({ kind: 'upgrade_request', email: 'crew@example.com', origin: 'pricing', message: 'Five crews.', handled: false });
    expect((await pending()).pending).toBe(true);

    const mark = await app.request({ method: 'POST', url: `/admin/inbox/${request!.id}/handled`, token: admin.token, payload: { handled: true } });
    expect(mark.statusCode).toBe(200);
    expect(mark.json()).toMatchObject({ id: request!.id, handled: true });
    expect((await pending()).pending).toBe(false);
    expect(((await inbox('upgrade_request')).json() as Item[])[0]!.handled).toBe(true);
    // the mark is an event of its own stream
    const events = await app.infra.eventStore.readStream(`inbox-${request!.id}`);
    expect(events.map((e) => e.type)).toEqual(['inbox_item_marked']);
  });

  it('answers 404 in the reader’s language for an unknown item, and 403 to a user', async () => {
    const res = await app.request({ method: 'POST', url: '/admin/inbox/nope/handled', token: admin.token, headers: { 'accept-language': 'tr' }, payload: { handled: true } });
    expect(res.statusCode).toBe(404);
    expect(res.json().detail).toBe('Böyle bir mesaj yok.');
    expect((await app.request({ method: 'POST', url: '/admin/inbox/nope/handled', token: user.token, payload: { handled: true } })).statusCode).toBe(403);
  });
});
