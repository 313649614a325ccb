import type { Lang } from '../clients.js';

/**
 * The language to answer in, from an Accept-Language header: English only when the client
 * prefers it to Turkish; Turkish otherwise (the product's default).
 */
export function preferredLang(header: string | undefined): Lang {
  if (!header) return 'tr';
  let best: { lang: Lang; q: number; order: number } | null = null;
  header.split(',').forEach((part, order) => {
    const [tag = '', ...params] = part.trim().toLowerCase().split(';');
    const base = tag.split('-')[0];
    if (base !== 'en' && base !== 'tr') return;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    // RFC 9110 qvalue: 0 to 1 with up to three decimals; a malformed weight drops the range.
    if (qParam && !/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(qParam.slice(2))) return;
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (q <= 0) return;
    if (!best || q > best.q) best = { lang: base, q, order };
  });
  return (best as { lang: Lang } | null)?.lang ?? 'tr';
}
