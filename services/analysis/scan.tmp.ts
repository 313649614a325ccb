import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { analyzePpe } from './src/engine/ppe.js';
const dir = '/work/shared/data/ppe-photos/safety-gear-test';
for (const f of readdirSync(join(dir, 'images')).sort()) {
  const lab = join(dir, 'labels', f.replace(/\.jpg$/, '.txt'));
  const cls = existsSync(lab) ? readFileSync(lab, 'utf8').trim().split('\n').filter(Boolean).map((l) => Number(l.split(' ')[0])) : [];
  const count = (c: number) => cls.filter((x) => x === c).length;
  const r = await analyzePpe(readFileSync(join(dir, 'images', f)));
  console.log(JSON.stringify({ f, helmet: count(0), vest: count(1), nohelmet: count(2), novest: count(3), persons: r.persons.map((p) => `${p.hardHat}/${p.hiVis}`) }));
}
