/**
 * The task and equipment catalogues: reviewed data files (`tasks.json`, `equipment.json`, sources in
 * `SOURCES.md`) loaded once, validated with TypeBox, and read through small pure helpers.
 */
import { preferredLang } from '@baret/platform';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { EquipmentOption, TaskOption } from '../engine/types.js';
import equipmentData from './equipment.json' with { type: 'json' };
import tasksData from './tasks.json' with { type: 'json' };

/** Interface languages. Turkish is the default. */
export type Lang = 'tr' | 'en';

/** The default interface language. */
export const DEFAULT_LANG: Lang = 'tr';

/** Equipment categories, in the order the PPE gallery shows them. */
export const EQUIPMENT_CATEGORIES = [
  'head',
  'hearing',
  'eye',
  'face',
  'hands',
  'arc_clothing',
  'hi_vis',
  'feet',
  'fall_protection',
  'respiratory',
  'testers',
  'insulation',
  'grounding',
  'signage',
  'first_aid',
] as const;

/** Task groups, with the slug prefix each group's tasks carry. */
export const TASK_GROUP_PREFIXES = {
  low_voltage: 'ag_',
  high_voltage: 'yg_',
  work_at_height: 'yuksekte_',
  welding: 'kaynak_',
  pruning: 'budama_',
  tools: 'alet_',
  general: 'genel_',
} as const;

/** What the offline image analyzer can verify by itself. */
export type OfflineCheck = 'hard_hat' | 'hi_vis';

/** Equipment codes: `pic1` … `pic42`. */
const CODE_PATTERN = '^pic([1-9]|[1-3][0-9]|4[0-2])$';

const LocalizedSchema = Type.Object(
  { tr: Type.String({ minLength: 1 }), en: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);

const EquipmentSchema = Type.Object(
  {
    code: Type.String({ pattern: CODE_PATTERN }),
    category: Type.Union(EQUIPMENT_CATEGORIES.map((c) => Type.Literal(c))),
    offline_check: Type.Optional(Type.Union([Type.Literal('hard_hat'), Type.Literal('hi_vis')])),
    title: LocalizedSchema,
    description: LocalizedSchema,
    standards: Type.Array(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

const TASK_GROUPS = Object.keys(TASK_GROUP_PREFIXES) as (keyof typeof TASK_GROUP_PREFIXES)[];

const TaskSchema = Type.Object(
  {
    slug: Type.String({ pattern: '^[a-z][a-z0-9]*(_[a-z0-9]+)+$' }),
    group: Type.Union(TASK_GROUPS.map((g) => Type.Literal(g))),
    name: LocalizedSchema,
    description: LocalizedSchema,
    required_groups: Type.Array(Type.Array(Type.String({ pattern: CODE_PATTERN }), { minItems: 1 }), {
      minItems: 1,
    }),
    sources: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  },
  { additionalProperties: false },
);

/** A text in both interface languages. */
export type Localized = Static<typeof LocalizedSchema>;
/** One item of the equipment catalogue. */
export type Equipment = Static<typeof EquipmentSchema>;
/** One item of the task catalogue; each required group is satisfied by any one of its codes. */
export type Task = Static<typeof TaskSchema>;
/** An equipment category. */
export type EquipmentCategory = Equipment['category'];
/** A task group. */
export type TaskGroup = Task['group'];

/** Thrown when a catalogue file does not hold what it must; the message names the bad entry. */
export class CatalogError extends Error {
  override readonly name = 'CatalogError';
}

/** Both catalogues, validated and indexed. */
export interface Catalog {
  readonly equipment: readonly Equipment[];
  readonly tasks: readonly Task[];
  readonly equipmentByCode: ReadonlyMap<string, Equipment>;
  readonly taskBySlug: ReadonlyMap<string, Task>;
}

function describeEntry(entry: unknown, key: string, index: number): string {
  const id =
    typeof entry === 'object' && entry !== null && key in entry ? String((entry as Record<string, unknown>)[key]) : '?';
  return `#${index} (${key} "${id}")`;
}

function validateList<T extends TSchema>(schema: T, data: unknown, file: string, key: string): Static<T>[] {
  if (!Array.isArray(data)) throw new CatalogError(`${file}: expected a JSON array`);
  return data.map((entry: unknown, index) => {
    if (Value.Check(schema, entry)) return entry;
    const first = Value.Errors(schema, entry).First();
    const where = first ? `${first.path || '/'}: ${first.message}` : 'does not match the schema';
    throw new CatalogError(`${file}: entry ${describeEntry(entry, key, index)} is invalid at ${where}`);
  });
}

function indexUnique<T>(items: readonly T[], keyOf: (item: T) => string, file: string, what: string): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) {
    const key = keyOf(item);
    if (map.has(key)) throw new CatalogError(`${file}: duplicate ${what} "${key}"`);
    map.set(key, item);
  }
  return map;
}

function checkTaskReferences(tasks: readonly Task[], equipmentByCode: ReadonlyMap<string, Equipment>): void {
  for (const task of tasks) {
    const prefix = TASK_GROUP_PREFIXES[task.group];
    if (!task.slug.startsWith(prefix)) {
      throw new CatalogError(`tasks.json: task "${task.slug}" is in group ${task.group}, so its slug must start with "${prefix}"`);
    }
    for (const code of task.required_groups.flat()) {
      if (!equipmentByCode.has(code)) {
        throw new CatalogError(`tasks.json: task "${task.slug}" requires unknown equipment code "${code}"`);
      }
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Validates raw catalogue data (as parsed from the JSON files) and indexes it.
 * @throws CatalogError naming the first bad entry: schema mismatch, duplicate code or slug, a slug
 *   whose prefix does not match its group, or a task that requires an unknown equipment code.
 */
export function loadCatalog(equipment: unknown, tasks: unknown): Catalog {
  const equipmentList = validateList(EquipmentSchema, equipment, 'equipment.json', 'code');
  const taskList = validateList(TaskSchema, tasks, 'tasks.json', 'slug');
  const equipmentByCode = indexUnique(equipmentList, (e) => e.code, 'equipment.json', 'code');
  const taskBySlug = indexUnique(taskList, (t) => t.slug, 'tasks.json', 'slug');
  checkTaskReferences(taskList, equipmentByCode);
  return deepFreeze({ equipment: equipmentList, tasks: taskList, equipmentByCode, taskBySlug });
}

let cached: Catalog | undefined;

/** The shipped catalogues, validated on first use. */
export function catalog(): Catalog {
  cached ??= loadCatalog(equipmentData as unknown, tasksData as unknown);
  return cached;
}

/** All equipment, in catalogue order (pic1 … pic42, some numbers missing). */
export function equipmentCatalog(): Equipment[] {
  return [...catalog().equipment];
}

/** All tasks, in catalogue order. */
export function taskCatalog(): Task[] {
  return [...catalog().tasks];
}

/** The task with this slug, if the catalogue has it. */
export function findTask(slug: string): Task | undefined {
  return catalog().taskBySlug.get(slug.trim());
}

/** The equipment with this code (case-insensitive, e.g. `PIC1`), if the catalogue has it. */
export function findEquipment(code: string): Equipment | undefined {
  return catalog().equipmentByCode.get(code.trim().toLowerCase());
}

/** The product spec's rule, the same in both languages: `ag_` → LV, `yg_` → HV. */
const VOLTAGE_PREFIX: Record<string, string> = { ag: 'LV', yg: 'HV' };

function capitalise(word: string, lang: Lang): string {
  return word.charAt(0).toLocaleUpperCase(lang) + word.slice(1);
}

/**
 * The display name of a slug the catalogue does not know (the product spec's rule): `ag_` becomes
 * LV, `yg_` HV, the rest is split on underscores and each word capitalised, e.g. `ag_foo_bar` →
 * `LV Foo Bar`.
 */
export function fallbackTaskName(slug: string, lang: Lang = 'en'): string {
  const [first = '', ...rest] = slug.trim().split('_').filter((w) => w.length > 0);
  const head = VOLTAGE_PREFIX[first.toLowerCase()] ?? capitalise(first, lang);
  return [head, ...rest.map((w) => capitalise(w, lang))].filter((w) => w.length > 0).join(' ');
}

/** The task's catalogue name in `lang`, or the fallback name for an unknown slug. */
export function taskName(slug: string, lang: Lang): string {
  return findTask(slug)?.name[lang] ?? fallbackTaskName(slug, lang);
}

/** The equipment's title in `lang`, or the code itself when the catalogue does not know it. */
export function equipmentTitle(code: string, lang: Lang): string {
  return findEquipment(code)?.title[lang] ?? code;
}

/** Separator between the alternatives of one required group, in both languages. */
export const GROUP_SEPARATOR = ' / ';

/** The name of a required group (any one of its codes satisfies it): titles joined with " / ". */
export function groupName(group: readonly string[], lang: Lang): string {
  return group.map((code) => equipmentTitle(code, lang)).join(GROUP_SEPARATOR);
}

/** The codes the offline image analyzer can check for this kind of equipment. */
export function offlineCheckableCodes(kind: OfflineCheck): string[] {
  return catalog()
    .equipment.filter((e) => e.offline_check === kind)
    .map((e) => e.code);
}

/** The task list as the vision analyzer and `GET /tasks` take it. */
export function taskOptions(lang: Lang): TaskOption[] {
  return catalog().tasks.map((t) => ({ slug: t.slug, name: t.name[lang] }));
}

/** Equipment options for the given codes, in the given order; unknown codes get their code as title. */
export function equipmentOptions(codes: readonly string[], lang: Lang): EquipmentOption[] {
  return codes.map((code) => {
    const item = findEquipment(code);
    return item
      ? { code: item.code, title: item.title[lang], description: item.description[lang] }
      : { code, title: code };
  });
}

/**
 * The interface language for an `Accept-Language` header: English only when the header prefers
 * English over Turkish, Turkish otherwise and by default (shared with every service).
 */
export const resolveLang: (acceptLanguage: string | undefined) => Lang = preferredLang;
