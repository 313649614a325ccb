/**
 * The equipment catalogue, read at build time from the analysis service's
 * services/analysis/src/catalog/equipment.json (array of { code, category, title: {tr,en}, description: {tr,en} }).
 * A glob import so the build still works before that file exists (the gallery is then empty).
 */

export interface LocalisedText {
  tr: string;
  en: string;
}

export interface EquipmentEntry {
  code: string;
  category: string;
  title: LocalisedText;
  description?: Partial<LocalisedText> | null;
}

const modules = import.meta.glob<{ default: unknown }>('../../../../../services/analysis/src/catalog/equipment.json', { eager: true });

function isText(value: unknown): value is LocalisedText {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>).tr === 'string' && typeof (value as Record<string, unknown>).en === 'string';
}

export function isEquipmentEntry(value: unknown): value is EquipmentEntry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.code === 'string' && typeof v.category === 'string' && isText(v.title);
}

/** Keeps well-formed entries, ordered by their number (pic1, pic2, … pic42). */
export function parseCatalog(raw: unknown): EquipmentEntry[] {
  const list = Array.isArray(raw) ? raw : typeof raw === 'object' && raw !== null && Array.isArray((raw as { items?: unknown }).items) ? (raw as { items: unknown[] }).items : [];
  const number = (code: string) => Number.parseInt(code.replace(/\D+/g, ''), 10) || 0;
  return list.filter(isEquipmentEntry).sort((a, b) => number(a.code) - number(b.code));
}

export const equipmentCatalog: EquipmentEntry[] = parseCatalog(Object.values(modules)[0]?.default);
