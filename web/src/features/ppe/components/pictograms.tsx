/** One SVG pictogram per equipment category, drawn on a 64×64 grid. */

export type PictogramKind =
  | 'helmet'
  | 'helmetVisor'
  | 'weldingHelmet'
  | 'hood'
  | 'earMuffs'
  | 'earPlugs'
  | 'glasses'
  | 'goggles'
  | 'faceShield'
  | 'gloves'
  | 'glovesInsulating'
  | 'glovesLeather'
  | 'glovesWork'
  | 'glovesWelding'
  | 'sleeves'
  | 'arcShirt'
  | 'arcTrousers'
  | 'arcCoverall'
  | 'arcSuit'
  | 'vest'
  | 'boots'
  | 'harness'
  | 'lanyard'
  | 'tester'
  | 'mat'
  | 'grounding'
  | 'hotStick'
  | 'respirator'
  | 'tools'
  | 'signage'
  | 'firstAid';

const S = { fill: 'none', stroke: 'currentColor', strokeWidth: 3, strokeLinecap: 'round', strokeLinejoin: 'round' } as const;
const A = 'var(--accent)';

const GLOVE = 'M20 56V30l-5-9c-1-3 3-5 5-2l4 6V12c0-3 4-3 4 0v12-15c0-3 4-3 4 0v15-13c0-3 4-3 4 0v13-9c0-3 4-3 4 0v24c0 8-4 12-4 17v4z';
const HELMET_SHELL = 'M12 40c0-13 9-22 20-22s20 9 20 22z';
const BOLT = 'M35 24l-7 12h6l-4 11 9-14h-6l4-9z';

const DRAWINGS: Record<PictogramKind, () => React.JSX.Element> = {
  helmetVisor: () => (
    <>
      <path d={HELMET_SHELL} fill={A} />
      <rect x="6" y="37" width="52" height="6" rx="3" fill={A} />
      <path d="M12 43h40v10c0 3-3 5-6 5H18c-3 0-6-2-6-5z" fill="var(--pict-ink)" opacity="0.35" />
      <path d="M12 43h40v10c0 3-3 5-6 5H18c-3 0-6-2-6-5z" {...S} />
    </>
  ),
  weldingHelmet: () => (
    <>
      <path d="M14 14h36c3 0 5 2 5 5v28c0 7-6 11-12 11H21c-6 0-12-4-12-11V19c0-3 2-5 5-5z" fill={A} />
      <rect x="19" y="26" width="26" height="11" rx="2" fill="var(--pict-ink)" />
      <path d="M22 47h20" {...S} stroke="var(--pict-ink)" />
    </>
  ),
  hood: () => (
    <>
      <path d="M32 6c-14 0-22 11-22 24v28h44V30C54 17 46 6 32 6z" fill={A} />
      <rect x="19" y="20" width="26" height="14" rx="4" fill="var(--pict-ink)" opacity="0.75" />
      <path d="M10 48h44" {...S} stroke="var(--pict-ink)" />
    </>
  ),
  earPlugs: () => (
    <>
      <path d="M18 30c0 14 6 22 14 22s14-8 14-22" {...S} />
      <path d="M12 14c0-4 4-6 8-6s7 3 6 7l-2 13c-1 3-7 3-8 0z" fill={A} />
      <path d="M52 14c0-4-4-6-8-6s-7 3-6 7l2 13c1 3 7 3 8 0z" fill={A} />
    </>
  ),
  goggles: () => (
    <>
      <path d="M4 34h8M52 34h8" {...S} />
      <path d="M12 24h40c3 0 4 2 4 5v9c0 4-3 7-7 7H40l-4-5h-8l-4 5h-9c-4 0-7-3-7-7v-9c0-3 1-5 4-5z" fill={A} opacity="0.85" />
      <path d="M16 29h32" {...S} stroke="var(--pict-ink)" />
    </>
  ),
  glovesInsulating: () => (
    <>
      <path d={GLOVE} fill={A} />
      <path d={BOLT} fill="var(--pict-ink)" />
    </>
  ),
  glovesLeather: () => (
    <>
      <path d={GLOVE} fill={A} />
      <path d="M18 44h26M18 50h24" {...S} stroke="var(--pict-ink)" strokeDasharray="3 3" />
      <path d="M28 14v14M36 16v12" {...S} stroke="var(--pict-ink)" strokeWidth={2} strokeDasharray="2 3" />
    </>
  ),
  glovesWork: () => (
    <>
      <path d={GLOVE} fill={A} />
      {[
        [26, 30],
        [32, 30],
        [38, 30],
        [26, 37],
        [32, 37],
        [38, 37],
      ].map(([cx, cy]) => (
        <circle key={`${cx}-${cy}`} cx={cx} cy={cy} r="2" fill="var(--pict-ink)" />
      ))}
    </>
  ),
  glovesWelding: () => (
    <>
      <path d="M22 40V26l-5-8c-1-3 3-5 5-2l3 5V12c0-3 4-3 4 0v10-12c0-3 4-3 4 0v12-10c0-3 4-3 4 0v10-6c0-3 4-3 4 0v20z" fill={A} />
      <path d="M16 40h30l6 20H10z" fill={A} />
      <path d="M16 40h30" {...S} stroke="var(--pict-ink)" />
      <path d="M50 10l3-4M55 16l5-1M46 6l1-5" {...S} />
    </>
  ),
  helmet: () => (
    <>
      <path d="M12 40c0-13 9-22 20-22s20 9 20 22z" fill={A} />
      <path d="M28 18v-4h8v4" {...S} />
      <rect x="6" y="39" width="52" height="7" rx="3.5" fill={A} />
      <path d="M22 22c-3 4-4 10-4 17M42 22c3 4 4 10 4 17" {...S} stroke="var(--pict-ink)" />
    </>
  ),
  earMuffs: () => (
    <>
      <path d="M16 36V28c0-9 7-16 16-16s16 7 16 16v8" {...S} />
      <rect x="8" y="32" width="14" height="20" rx="7" fill={A} />
      <rect x="42" y="32" width="14" height="20" rx="7" fill={A} />
    </>
  ),
  glasses: () => (
    <>
      <path d="M6 28h52" {...S} />
      <path d="M9 28h19v8c0 5-4 8-9 8s-10-3-10-8z" fill={A} opacity="0.85" />
      <path d="M36 28h19v8c0 5-5 8-10 8s-9-3-9-8z" fill={A} opacity="0.85" />
      <path d="M28 32c2-2 6-2 8 0" {...S} />
    </>
  ),
  faceShield: () => (
    <>
      <rect x="12" y="10" width="40" height="8" rx="4" fill={A} />
      <path d="M14 18h36v22c0 9-8 14-18 14s-18-5-18-14z" fill={A} opacity="0.35" />
      <path d="M14 18h36v22c0 9-8 14-18 14s-18-5-18-14z" {...S} />
    </>
  ),
  gloves: () => (
    <>
      <path d="M20 56V30l-5-9c-1-3 3-5 5-2l4 6V12c0-3 4-3 4 0v12-15c0-3 4-3 4 0v15-13c0-3 4-3 4 0v13-9c0-3 4-3 4 0v24c0 8-4 12-4 17v4z" fill={A} />
      <path d="M20 50h20" {...S} stroke="var(--pict-ink)" />
    </>
  ),
  sleeves: () => (
    <>
      <path d="M14 14l14-6 22 40-14 8z" fill={A} />
      <path d="M21 22l14-6M28 34l14-6" {...S} stroke="var(--pict-ink)" />
    </>
  ),
  arcShirt: () => (
    <>
      <path d="M22 8h20l12 10-6 10-4-3v31H20V25l-4 3-6-10z" fill={A} />
      <path d="M34 22l-6 11h7l-5 11" {...S} stroke="var(--pict-ink)" />
    </>
  ),
  arcTrousers: () => (
    <>
      <path d="M17 6h30l4 52H37l-5-32-5 32H13z" fill={A} />
      <path d="M17 13h30" {...S} stroke="var(--pict-ink)" />
      <path d="M24 22l-4 8h5l-4 9" {...S} stroke="var(--pict-ink)" />
    </>
  ),
  arcCoverall: () => (
    <>
      <path d="M23 4h18l12 10-5 9-5-3v16l3 22H35l-3-18-3 18H20l3-22V20l-5 3-5-9z" fill={A} />
      <path d="M32 6v28M23 30h18" {...S} stroke="var(--pict-ink)" />
      <path d="M40 11l-3 6h4l-3 6" {...S} strokeWidth={2.5} stroke="var(--pict-ink)" />
    </>
  ),
  arcSuit: () => (
    <>
      <path d="M32 3c-8 0-13 6-13 13v10h26V16c0-7-5-13-13-13z" fill={A} />
      <rect x="23" y="10" width="18" height="9" rx="3" fill="var(--pict-ink)" opacity="0.8" />
      <path d="M19 27h26l9 8-5 7-4-3v22H19V39l-4 3-5-7z" fill={A} />
      <path d="M35 36l-6 10h6l-4 9" {...S} stroke="var(--pict-ink)" />
    </>
  ),
  vest: () => (
    <>
      <path d="M20 8l6 10h12l6-10 8 8v40H12V16z" fill="#f97316" />
      <path d="M12 36h40M12 45h40" stroke="#e5e7eb" strokeWidth="4" />
      <path d="M32 18v38" {...S} stroke="var(--pict-ink)" />
    </>
  ),
  boots: () => (
    <>
      <path d="M16 8h16v28l16 6c5 2 8 5 8 10v4H10V8z" fill={A} />
      <path d="M10 50h46" {...S} stroke="var(--pict-ink)" />
      <path d="M16 18h16" {...S} stroke="var(--pict-ink)" />
    </>
  ),
  harness: () => (
    <>
      <circle cx="32" cy="10" r="6" {...S} />
      <path d="M18 18l28 30M46 18L18 48M14 40h36" stroke={A} strokeWidth="5" strokeLinecap="round" />
      <circle cx="32" cy="33" r="4" fill="var(--pict-ink)" />
    </>
  ),
  lanyard: () => (
    <>
      <path d="M14 12c12 0 8 14 18 14s6 14 18 14" stroke={A} strokeWidth="5" fill="none" strokeLinecap="round" />
      <path d="M44 40h8v14c0 3-8 3-8 0z" {...S} />
      <path d="M8 8h10v8c0 3-10 3-10 0z" {...S} />
    </>
  ),
  tester: () => (
    <>
      <rect x="22" y="18" width="20" height="38" rx="5" fill={A} />
      <path d="M32 4v14" {...S} />
      <rect x="27" y="24" width="10" height="8" rx="2" fill="var(--pict-ink)" />
      <path d="M33 38l-4 7h5l-3 6" {...S} stroke="var(--pict-ink)" />
    </>
  ),
  mat: () => (
    <>
      <path d="M6 42l14-18h38L44 42z" fill={A} />
      <path d="M6 42v6h38l14-18v-6" {...S} />
      <path d="M18 36h26M24 30h24" {...S} stroke="var(--pict-ink)" strokeWidth="2" />
    </>
  ),
  grounding: () => (
    <>
      <path d="M32 6v26" {...S} />
      <path d="M16 32h32M21 40h22M26 48h12M30 56h4" stroke={A} strokeWidth="4" strokeLinecap="round" />
    </>
  ),
  hotStick: () => (
    <>
      <path d="M12 56L50 14" stroke={A} strokeWidth="6" strokeLinecap="round" />
      <path d="M46 10l8 8M20 44l6 6M26 38l6 6" {...S} />
    </>
  ),
  respirator: () => (
    <>
      <path d="M14 26c6-8 30-8 36 0l-4 18c-2 6-8 10-14 10s-12-4-14-10z" fill={A} />
      <circle cx="22" cy="40" r="5" fill="var(--pict-ink)" />
      <circle cx="42" cy="40" r="5" fill="var(--pict-ink)" />
      <path d="M10 24c-4-4-2-10 4-10M54 24c4-4 2-10-4-10" {...S} />
    </>
  ),
  tools: () => (
    <>
      <path d="M14 50l18-18" stroke={A} strokeWidth="6" strokeLinecap="round" />
      <path d="M32 32l6-6 10-2 6-6-4-4-6 6-2 10" {...S} />
      <path d="M46 50L30 34" stroke={A} strokeWidth="6" strokeLinecap="round" />
      <path d="M14 14l8 2 8 8-6 6-8-8z" {...S} />
    </>
  ),
  signage: () => (
    <>
      <path d="M32 6l26 46H6z" fill={A} />
      <path d="M32 6l26 46H6z" {...S} stroke="var(--pict-ink)" strokeWidth="2" />
      <path d="M35 20l-8 14h8l-6 12" fill="none" stroke="var(--pict-ink)" strokeWidth="3.5" strokeLinecap="round" strokeLinejoin="round" />
      <path d="M8 58h48" {...S} />
    </>
  ),
  firstAid: () => (
    <>
      <rect x="8" y="18" width="48" height="36" rx="6" fill={A} />
      <path d="M24 18v-6h16v6" {...S} />
      <path d="M32 26v20M22 36h20" stroke="var(--pict-ink)" strokeWidth="6" strokeLinecap="round" />
    </>
  ),
};

export const PICTOGRAM_KINDS = Object.keys(DRAWINGS) as PictogramKind[];

/** A pictogram and, for items of one kind that differ (glove classes, helmet types), a small mark in its corner. */
export interface PictogramSpec {
  kind: PictogramKind;
  mark?: string;
}

export function Pictogram({ kind, mark, label }: PictogramSpec & { label: string }) {
  const Draw = DRAWINGS[kind];
  return (
    <svg viewBox="0 0 64 64" className="pictogram" role="img" aria-label={label} data-kind={kind} data-mark={mark}>
      <Draw />
      {mark ? (
        <g className="pict-mark">
          <rect x={mark.length > 2 ? 38 : 44} y="1" width={mark.length > 2 ? 25 : 19} height="13" rx="6.5" fill="var(--pict-ink)" />
          <text x={mark.length > 2 ? 50.5 : 53.5} y="11" textAnchor="middle" fontSize="9" fontWeight="700" fill="var(--accent)">
            {mark}
          </text>
        </g>
      ) : null}
    </svg>
  );
}

/** Specific items recognised by their English title before their category decides. */
const TITLE_RULES: [PictogramKind | PictogramSpec, RegExp][] = [
  ['helmetVisor', /helmet with face shield/],
  ['weldingHelmet', /welding helmet/],
  [{ kind: 'helmet', mark: '⚡' }, /insulating helmet/],
  ['hood', /\bhood\b/],
  ['earPlugs', /ear ?plug/],
  ['goggles', /goggle/],
  [{ kind: 'glovesInsulating', mark: '00' }, /insulating .*gloves.*(00|lv)/],
  [{ kind: 'glovesInsulating', mark: '1–4' }, /insulating .*gloves.*(1.4|hv)/],
  ['glovesLeather', /leather .*gloves/],
  ['glovesWork', /mechanical .*gloves|work gloves/],
  ['glovesWelding', /welding gloves/],
  [{ kind: 'arcShirt', mark: 'W' }, /welding .*clothing/],
  ['arcShirt', /\barc\b.*\b(shirt|jacket)/],
  ['arcTrousers', /\barc\b.*\b(trousers|pants)/],
  ['arcCoverall', /\barc\b.*\bcoverall/],
  [{ kind: 'tester', mark: '~' }, /non-contact/],
  ['faceShield', /face shield|visor/],
  ['lanyard', /lanyard|fall arrester|rope/],
  ['hotStick', /hot stick|insulating stick/],
  ['tools', /hand tools|tool/],
  ['sleeves', /sleeve|blanket/],
  ['mat', /\bmat\b|\bmats\b/],
  ['earMuffs', /ear ?muff/],
];

/** The catalogue's categories (services/analysis/src/catalog/equipment.json). */
const CATEGORY: Record<string, PictogramKind> = {
  head: 'helmet',
  hearing: 'earMuffs',
  eye: 'glasses',
  face: 'faceShield',
  hands: 'gloves',
  arc_clothing: 'arcSuit',
  hi_vis: 'vest',
  feet: 'boots',
  fall_protection: 'harness',
  respiratory: 'respirator',
  testers: 'tester',
  insulation: 'mat',
  grounding: 'grounding',
  signage: 'signage',
  first_aid: 'firstAid',
};

/** Keywords (English and Turkish) for entries of an unknown category; order matters. */
const RULES: [PictogramKind, RegExp][] = [
  ['faceShield', /face|shield|visor|siper|yüz/],
  ['earMuffs', /\bear|hearing|kulak|işitme/],
  ['glasses', /glass|goggle|\beye|gözlük|\bgöz/],
  ['respirator', /respirat|mask|maske/],
  ['helmet', /helmet|hard.?hat|\bhead|baret|\bkask/],
  ['sleeves', /sleeve|kolluk|manşon/],
  ['gloves', /glove|\bhand|eldiven/],
  ['vest', /vest|hi.?vis|visibility|yelek|reflekt/],
  ['boots', /boot|\bfoot|\bfeet|shoe|ayakkab|\bbot|çizme/],
  ['lanyard', /lanyard|\brope|halat|bağlantı/],
  ['harness', /harness|\bfall|emniyet kemeri|kemer|height|yüksek/],
  ['tester', /tester|detector|voltage|dedektör|\btest/],
  ['mat', /\bmat\b|\bmats\b|halı|paspas|insulat/],
  ['grounding', /ground|earth|topraklama/],
  ['hotStick', /stick|pole|hot.?stick|ıstaka|sırık/],
  ['signage', /sign|barrier|lockout|levha|işaret/],
  ['firstAid', /first.?aid|ilk.?yardım/],
  ['arcSuit', /\barc|\bark\b|flame|clothing|suit|garment|elbise|giysi|kıyafet/],
];

/** The pictogram of an entry: a specific title first, then its category, then keywords anywhere. */
export function pictogramFor(entry: { category?: string; titleEn?: string; titleTr?: string }): PictogramSpec | null {
  const title = (entry.titleEn ?? '').toLowerCase();
  for (const [spec, pattern] of TITLE_RULES) if (title && pattern.test(title)) return typeof spec === 'string' ? { kind: spec } : spec;
  const category = (entry.category ?? '').trim().toLowerCase();
  const byCategory = CATEGORY[category];
  if (byCategory) return { kind: byCategory };
  const sources = [category, title, entry.titleTr].map((s) => (s ?? '').toLowerCase()).filter(Boolean);
  for (const source of sources) {
    for (const [kind, pattern] of RULES) if (pattern.test(source)) return { kind };
  }
  return null;
}

/** The pictogram kind alone (see pictogramFor). */
export const pictogramKindFor = (entry: { category?: string; titleEn?: string; titleTr?: string }): PictogramKind | null => pictogramFor(entry)?.kind ?? null;
