import { readFileSync } from 'node:fs';
import { startDistributedStack } from './distributed.ts';
import { multipart } from './jobs.ts';
import { videoFixtures } from '../../services/analysis/test/fixtures/videos.ts';
const fx = await videoFixtures();
const video = readFileSync((await fx.photos('site.mp4', 6)).path);
const s = await startDistributedStack({ workers: 2, gatewayPort: 18080, env: { WEB_DIST_DIR: '/tmp/fakeweb', KAFKA_SESSION_TIMEOUT_MS: '6000', BARET_ADMIN_EMAILS: 'admin@baret.test', RATE_LIMIT_PER_MINUTE: '100000' }, onLine: (n, l) => { if (n.startsWith('analysis') && /job received|warn|error|fatal/.test(l) || /relay|fatal|"level":"(warn|error)"/.test(l)) console.log(n, l.slice(0, 300)); } });
const g = s.gateway;
const post = (p: string, b: unknown, t?: string) => fetch(g + p, { method: 'POST', headers: { 'content-type': 'application/json', ...(t ? { authorization: 'Bearer ' + t } : {}) }, body: JSON.stringify(b) }).then((r) => r.json() as Promise<any>);
await post('/auth/register', { email: 'admin@baret.test', password: 'correct horse battery' });
const admin = (await post('/auth/login', { email: 'admin@baret.test', password: 'correct horse battery' })).access_token;
await post('/auth/register', { email: 'u@example.com', password: 'correct horse battery' });
const tok = (await post('/auth/login', { email: 'u@example.com', password: 'correct horse battery' })).access_token;
const me = await fetch(g + '/auth/me', { headers: { authorization: 'Bearer ' + tok } }).then((r) => r.json() as Promise<any>);
console.log('patch', (await fetch(g + `/admin/users/${me.id}/quota`, { method: 'PATCH', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + admin }, body: JSON.stringify({ plan_name: 'enterprise', daily_limit: null, monthly_limit: null, lifetime_limit: null }) })).status);
const ids: string[] = [];
for (let i = 0; i < 6; i++) {
  const body = await multipart({ payload: JSON.stringify({ job_type: 'genel_saha_girisi', sampling: 'uniform', target_composites: 3, frames_per_composite: 2 }) }, { name: 'p.mp4', type: 'video/mp4', data: video });
  const r = await fetch(g + '/analyze', { method: 'POST', headers: { ...body.headers, authorization: 'Bearer ' + tok }, body: body.payload });
  const j = await r.json() as any; console.log('submitted', r.status, j.job_id); ids.push(j.job_id);
}
for (let t = 0; t < 60; t++) {
  const st = await Promise.all(ids.map((id) => fetch(g + '/jobs/' + id, { headers: { authorization: 'Bearer ' + tok } }).then((r) => r.json() as Promise<any>).then((j) => j.status)));
  console.log(t, st.join(','));
  if (st.every((x) => x === 'done' || x === 'error')) break;
  await new Promise((r) => setTimeout(r, 2000));
}
await s.close(); await fx.dispose();
