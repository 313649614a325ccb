import { startDistributedStack } from './distributed.ts';
const s = await startDistributedStack({ workers: 2, gatewayPort: 18080, env: { WEB_DIST_DIR: '/tmp/fakeweb', KAFKA_SESSION_TIMEOUT_MS: '6000', BARET_ADMIN_EMAILS: 'admin@baret.test' }, onLine: (n, l) => { if (n !== 'gateway' && !/incoming request|request completed/.test(l)) console.log(n, l.slice(0, 400)); } });
console.log('UP', s.gateway);
for (const [n, p] of s.procs) p.exited.then((c) => console.log('EXITED', n, c, p.child.signalCode));
await new Promise((r) => setTimeout(r, 20000));
const r = await fetch(s.gateway + '/readyz'); console.log('readyz', r.status, await r.text());
await s.close();
