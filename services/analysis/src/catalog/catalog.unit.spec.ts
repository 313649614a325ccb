import { describe, expect, it } from 'vitest';
import {
  CatalogError,
  EQUIPMENT_CATEGORIES,
  TASK_GROUP_PREFIXES,
  equipmentCatalog,
  equipmentOptions,
  equipmentTitle,
  fallbackTaskName,
  findEquipment,
  findTask,
  groupName,
  loadCatalog,
  offlineCheckableCodes,
  resolveLang,
  taskCatalog,
  taskName,
  taskOptions,
  type Localized,
} from './index.js';
import equipmentData from './equipment.json' with { type: 'json' };
import tasksData from './tasks.json' with { type: 'json' };

const equipment = equipmentCatalog();
const tasks = taskCatalog();
const HARD_HATS = offlineCheckableCodes('hard_hat');
const HI_VIS = offlineCheckableCodes('hi_vis');

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Turkish-only letters: a Turkish text that has none of them is suspicious but allowed (e.g. "Trafo"). */
const TURKISH_LETTERS = /[çğıİöşüÇĞÖŞÜ]/;

describe('equipment catalogue', () => {
  it('uses unique codes pic1..pic42 with some numbers missing', () => {
    const numbers = equipment.map((e) => Number(/^pic(\d+)$/.exec(e.code)?.[1]));
    expect(numbers.every((n) => Number.isInteger(n) && n >= 1 && n <= 42)).toBe(true);
    expect(new Set(numbers).size).toBe(numbers.length);
    const missing = Array.from({ length: 42 }, (_, i) => i + 1).filter((n) => !numbers.includes(n));
    expect(missing.length).toBeGreaterThanOrEqual(4);
    expect(missing.length).toBeLessThanOrEqual(6);
  });

  it('is listed in code order', () => {
    const numbers = equipment.map((e) => Number(e.code.slice(3)));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  });

  it('covers every category', () => {
    const used = new Set(equipment.map((e) => e.category));
    for (const category of EQUIPMENT_CATEGORIES) expect(used, category).toContain(category);
  });

  it('marks hard hats and hi-vis items for the offline analyzer, and nothing else', () => {
    expect(HARD_HATS.length).toBeGreaterThanOrEqual(1);
    expect(HI_VIS.length).toBeGreaterThanOrEqual(1);
    for (const code of HARD_HATS) expect(findEquipment(code)?.category).toBe('head');
    for (const code of HI_VIS) expect(findEquipment(code)?.category).toBe('hi_vis');
  });

  it('names the standard of every item except where none applies', () => {
    const without = equipment.filter((e) => e.standards.length === 0).map((e) => e.code);
    expect(without).toEqual([]);
  });
});

describe('task catalogue', () => {
  it('has 55 to 65 tasks with unique slugs', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(55);
    expect(tasks.length).toBeLessThanOrEqual(65);
    expect(new Set(tasks.map((t) => t.slug)).size).toBe(tasks.length);
  });

  it('has tasks for every prefix group, each slug matching its group', () => {
    for (const [group, prefix] of Object.entries(TASK_GROUP_PREFIXES)) {
      const inGroup = tasks.filter((t) => t.group === group);
      expect(inGroup.length, group).toBeGreaterThanOrEqual(group === 'low_voltage' || group === 'high_voltage' ? 10 : 3);
      for (const t of inGroup) expect(t.slug.startsWith(prefix), t.slug).toBe(true);
    }
  });

  it('references only equipment codes that exist', () => {
    for (const t of tasks) {
      for (const code of t.required_groups.flat()) expect(findEquipment(code), `${t.slug} → ${code}`).toBeDefined();
    }
  });

  it('uses every equipment item in at least one task', () => {
    const used = new Set(tasks.flatMap((t) => t.required_groups.flat()));
    expect(equipment.filter((e) => !used.has(e.code)).map((e) => e.code)).toEqual([]);
  });

  it('has no empty or repeated groups, nor a code twice in one group', () => {
    // A code may sit in two groups of one task: a helmet with face shield (pic3) is both head and face protection.
    for (const t of tasks) {
      for (const g of t.required_groups) {
        expect(g.length, t.slug).toBeGreaterThan(0);
        expect(new Set(g).size, t.slug).toBe(g.length);
      }
      const keys = t.required_groups.map((g) => [...g].sort().join(','));
      expect(new Set(keys).size, t.slug).toBe(keys.length);
    }
  });

  it('requires a hard hat in every task and hi-vis in most, so the offline analyzer has work', () => {
    const hasAny = (slugCodes: string[][], codes: string[]) => slugCodes.some((g) => g.some((c) => codes.includes(c)));
    for (const t of tasks) expect(hasAny(t.required_groups, HARD_HATS), t.slug).toBe(true);
    const withHiVis = tasks.filter((t) => hasAny(t.required_groups, HI_VIS)).length;
    expect(withHiVis / tasks.length).toBeGreaterThan(0.5);
  });

  it('cites at least one source per task, without duplicates', () => {
    for (const t of tasks) {
      expect(t.sources.length, t.slug).toBeGreaterThanOrEqual(1);
      expect(new Set(t.sources).size, t.slug).toBe(t.sources.length);
    }
  });

  it('cites OSHA paragraphs in the form "OSHA 29 CFR 1910.nnn(x)(n)"', () => {
    const osha = tasks.flatMap((t) => t.sources).filter((s) => s.startsWith('OSHA'));
    expect(osha.length).toBeGreaterThan(0);
    for (const s of osha) expect(s).toMatch(/^OSHA 29 CFR 1910\.\d+(\([a-z0-9]+\))*$/);
  });
});

describe('texts', () => {
  const texts: [string, Localized][] = [
    ...equipment.flatMap((e): [string, Localized][] => [
      [`${e.code}.title`, e.title],
      [`${e.code}.description`, e.description],
    ]),
    ...tasks.flatMap((t): [string, Localized][] => [
      [`${t.slug}.name`, t.name],
      [`${t.slug}.description`, t.description],
    ]),
  ];

  it('has non-empty Turkish and English that differ', () => {
    for (const [where, text] of texts) {
      expect(text.tr.trim(), where).not.toBe('');
      expect(text.en.trim(), where).not.toBe('');
      expect(text.tr, where).not.toBe(text.en);
      expect(text.tr, where).toBe(text.tr.trim());
      expect(text.en, where).toBe(text.en.trim());
    }
  });

  it('writes Turkish with Turkish letters and English without them', () => {
    const descriptions = texts.filter(([where]) => where.endsWith('.description'));
    for (const [where, text] of descriptions) expect(text.tr, where).toMatch(TURKISH_LETTERS);
    for (const [where, text] of texts) expect(text.en, where).not.toMatch(TURKISH_LETTERS);
  });

  it('keeps task descriptions to one sentence', () => {
    for (const t of tasks) {
      for (const lang of ['tr', 'en'] as const) {
        const sentences = t.description[lang].split(/[.!?](\s|$)/).filter((s) => s.trim().length > 1);
        expect(sentences.length, `${t.slug}.${lang}`).toBe(1);
      }
    }
  });
});

describe('names', () => {
  it('uses the catalogue name of a known task', () => {
    expect(taskName('yg_ayirici_manevra', 'en')).toBe('HV pole-mounted disconnector operation');
    expect(taskName('yg_ayirici_manevra', 'tr')).toBe('YG direk tipi ayırıcı manevrası');
  });

  it('falls back to LV/HV and capitalised words for an unknown slug', () => {
    expect(taskName('ag_foo_bar', 'en')).toBe('LV Foo Bar');
    expect(taskName('yg_line_check', 'en')).toBe('HV Line Check');
    expect(taskName('genel_new_rule', 'en')).toBe('Genel New Rule');
    expect(fallbackTaskName('ag_foo_bar')).toBe('LV Foo Bar');
    expect(fallbackTaskName('ag')).toBe('LV');
    expect(fallbackTaskName('')).toBe('');
  });

  it('uses the spec’s LV/HV rule in Turkish too, capitalising words with Turkish casing', () => {
    expect(taskName('ag_foo_bar', 'tr')).toBe('LV Foo Bar');
    expect(taskName('yg_hat_isi', 'tr')).toBe('HV Hat İsi');
    expect(taskName('yg_hat_isi', 'en')).toBe('HV Hat Isi');
  });

  it('titles equipment, and an unknown code is its own title', () => {
    expect(equipmentTitle('pic1', 'tr')).toBe('Endüstriyel baret');
    expect(equipmentTitle('pic1', 'en')).toBe('Industrial safety helmet');
    expect(equipmentTitle('PIC1', 'en')).toBe('Industrial safety helmet');
    expect(equipmentTitle('pic99', 'en')).toBe('pic99');
  });

  it('joins group titles with " / " in both languages', () => {
    expect(groupName(['pic1', 'pic2'], 'en')).toBe('Industrial safety helmet / Electrically insulating helmet');
    expect(groupName(['pic1', 'pic2'], 'tr')).toBe('Endüstriyel baret / Elektrik yalıtımlı baret');
    expect(groupName(['pic23', 'pic99'], 'en')).toBe('High-visibility vest / pic99');
    expect(groupName([], 'en')).toBe('');
  });

  it('builds analyzer options', () => {
    expect(taskOptions('en')).toHaveLength(tasks.length);
    expect(taskOptions('tr')[0]).toEqual({ slug: tasks[0]?.slug, name: tasks[0]?.name.tr });
    expect(equipmentOptions(['pic23', 'pic99'], 'en')).toEqual([
      { code: 'pic23', title: 'High-visibility vest', description: findEquipment('pic23')?.description.en },
      { code: 'pic99', title: 'pic99' },
    ]);
  });

  it('finds tasks by slug and misses unknown ones', () => {
    expect(findTask('genel_saha_girisi')?.group).toBe('general');
    expect(findTask('nope_nope')).toBeUndefined();
  });
});

describe('resolveLang', () => {
  it.each([
    [undefined, 'tr'],
    ['', 'tr'],
    ['en-US,en;q=0.9', 'en'],
    ['tr-TR,tr;q=0.9,en;q=0.8', 'tr'],
    ['en;q=0.5,tr;q=0.9', 'tr'],
    ['de', 'tr'],
    ['de-DE,en;q=0.7', 'en'],
    ['EN-gb', 'en'],
    ['en, tr', 'en'],
    ['tr, en', 'tr'],
    ['en;q=0,tr;q=0.1', 'tr'],
    ['en;q=0', 'tr'],
    ['*', 'tr'],
    ['en;q=abc', 'tr'],
    ['en;q=1.5', 'tr'],
    ['en-US;q=0.8;level=1, tr;q=0.7', 'en'],
    ['fr;q=0.9, en;q=0.8, tr;q=0.85', 'tr'],
  ] as const)('%s → %s', (header, expected) => {
    expect(resolveLang(header)).toBe(expected);
  });
});

describe('loadCatalog validation', () => {
  it('accepts the shipped files', () => {
    const loaded = loadCatalog(clone(equipmentData), clone(tasksData));
    expect(loaded.tasks).toHaveLength(tasks.length);
  });

  it('names the bad equipment entry', () => {
    const bad = clone(equipmentData) as { category: string }[];
    bad[2]!.category = 'hats';
    expect(() => loadCatalog(bad, tasksData)).toThrow(CatalogError);
    expect(() => loadCatalog(bad, tasksData)).toThrow(/equipment\.json: entry #2 \(code "pic3"\).*\/category/);
  });

  it('rejects codes outside pic1..pic42', () => {
    const bad = clone(equipmentData) as { code: string }[];
    bad[0]!.code = 'pic43';
    expect(() => loadCatalog(bad, tasksData)).toThrow(/code "pic43"/);
  });

  it('rejects duplicate codes and slugs', () => {
    const eq = clone(equipmentData) as { code: string }[];
    eq[1]!.code = 'pic1';
    expect(() => loadCatalog(eq, tasksData)).toThrow(/duplicate code "pic1"/);
    const ts = clone(tasksData) as { slug: string }[];
    ts[1]!.slug = ts[0]!.slug;
    expect(() => loadCatalog(equipmentData, ts)).toThrow(/duplicate slug/);
  });

  it('names a task that requires an unknown code', () => {
    const ts = clone(tasksData) as { slug: string; required_groups: string[][] }[];
    ts[0]!.required_groups.push(['pic9']);
    expect(() => loadCatalog(equipmentData, ts)).toThrow(`task "${ts[0]!.slug}" requires unknown equipment code "pic9"`);
  });

  it('rejects a task without sources, and a slug that does not match its group', () => {
    const noSources = clone(tasksData) as { sources: string[] }[];
    noSources[0]!.sources = [];
    expect(() => loadCatalog(equipmentData, noSources)).toThrow(/tasks\.json: entry #0 .*\/sources/);
    const wrongGroup = clone(tasksData) as { group: string }[];
    wrongGroup[0]!.group = 'welding';
    expect(() => loadCatalog(equipmentData, wrongGroup)).toThrow(/must start with "kaynak_"/);
  });

  it('rejects a file that is not an array', () => {
    expect(() => loadCatalog({}, tasksData)).toThrow('equipment.json: expected a JSON array');
  });
});
