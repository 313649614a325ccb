import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';

const defaultPreferences = () => ({
  report_ready: { email: true, push: true, in_app: true },
  analysis_failed: { email: true, push: true, in_app: true },
  quota: { email: false, push: true, in_app: true },
});

/** Default answers: no demo video, an empty task list. Tests add what they need with server.use. */
export const server = setupServer(
  http.head('*/media/demo.mov', () => new HttpResponse(null, { status: 404 })),
  http.get('*/tasks', () => HttpResponse.json([])),
  http.get('*/jobs', () => HttpResponse.json([])),
  http.get('*/usage/upgrade-request', () => HttpResponse.json({ pending: false, requested_at: null })),
  http.get('*/admin/inbox', () => HttpResponse.json([])),
  http.get('*/admin/settings', () => HttpResponse.json({ require_email_verification: false })),
  http.get('*/notifications', () => HttpResponse.json({ unread: 0, items: [] })),
  http.get('*/notifications/preferences', () => HttpResponse.json({ language: 'tr', preferences: defaultPreferences() })),
  http.put('*/notifications/preferences', async ({ request }) => {
    const body = (await request.json()) as { language?: string };
    return HttpResponse.json({ language: body.language ?? 'tr', preferences: defaultPreferences() });
  }),
  http.get('*/admin/orgs/quotas', () => HttpResponse.json([])),
  http.get('*/admin/audit', () => HttpResponse.json({ entries: [], next_cursor: null })),
  http.get('*/orgs/:id/audit', () => HttpResponse.json({ entries: [], next_cursor: null })),
  http.get('*/webhooks', () => HttpResponse.json([])),
  // A user in no organisation (issue 28).
  http.get('*/orgs/current', () => new HttpResponse(null, { status: 204 })),
  // No single sign-on configured (issue 30).
  http.get('*/auth/sso', () => HttpResponse.json({ enabled: false })),
  http.get('*/orgs/:id/sign-in', () => HttpResponse.json({ password_login: true, sso_enabled: false })),
  // A mail server is configured (issue 54 asks when there is none).
  http.get('*/mail/status', () => HttpResponse.json({ delivers: true })),
);

export { HttpResponse, http };
