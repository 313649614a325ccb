import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp } from './helpers/app.js';

describe('delivery to the team by SMTP', () => {
  const received: Array<{ from: string; to: string[]; body: string }> = [];
  let smtp: SMTPServer;
  let app: TestApp;

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        let body = '';
        stream.on('data', (c: Buffer) => (body += c.toString()));
        stream.on('end', () => {
          received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), body });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as AddressInfo;
    app = await startTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}`, BARET_TEAM_EMAIL: 'safety-team@baret.test', SMTP_FROM: 'Baret <noreply@baret.test>' });
  });
  afterAll(async () => {
    await app.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('mails a contact message to the team address once, with the sender as reply-to', async () => {
    const res = await app.request({ method: 'POST', url: '/contact', payload: { name: 'Mehmet', email: 'mehmet@example.com', subject: 'Demo', message: 'Bir demo isteriz, teşekkürler.' } });
    expect(res.statusCode).toBe(202);
    const mail = await eventually(async () => received[0]);
    expect(mail.to).toEqual(['safety-team@baret.test']);
    expect(mail.from).toBe('noreply@baret.test');
    expect(mail.body).toMatch(/Reply-To: mehmet@example.com/i);
    expect(mail.body).toContain('Subject: [Baret] Demo');
    const stored = await eventually(async () => (await app.notification.outbox.find())[0]);
    expect(stored).toMatchObject({ channel: 'smtp', kind: 'contact' });
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toHaveLength(1);
  });
});
