import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';

/** Default answers: no demo video, an empty task list. Tests add what they need with server.use. */
export const server = setupServer(
  http.head('*/media/demo.mov', () => new HttpResponse(null, { status: 404 })),
  http.get('*/tasks', () => HttpResponse.json([])),
  http.get('*/jobs', () => HttpResponse.json([])),
  http.get('*/usage/upgrade-request', () => HttpResponse.json({ pending: false, requested_at: null })),
  http.get('*/admin/inbox', () => HttpResponse.json([])),
  http.get('*/admin/orgs/quotas', () => HttpResponse.json([])),
  // A user in no organisation (issue 28).
  http.get('*/orgs/current', () => new HttpResponse(null, { status: 204 })),
);

export { HttpResponse, http };
