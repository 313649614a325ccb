/**
 * Composites: grids of sampled frames, each labelled with its time code, built with sharp. One
 * composite is one vision call, so fewer, denser images keep cost and latency down.
 */
import sharp, { type OverlayOptions } from 'sharp';
import { ValidationError } from '@baret/platform';
import { scalePerson } from './frames.js';
import type { Composite, CompositeCell, SampledFrame } from './types.js';

/** Widest composite we produce, in pixels. */
export const MAX_COMPOSITE_WIDTH = 2048;
/** Tallest composite we produce, in pixels (portrait frames). */
export const MAX_COMPOSITE_HEIGHT = 2048;
/** Space between cells, in pixels. */
export const CELL_GAP = 4;

/** How many composites and how many frames in each. */
export interface CompositeOptions {
  /** 1–20. */
  targetComposites: number;
  /** 2–8. */
  framesPerComposite: number;
  /** JPEG quality of the composite, default 85. */
  quality?: number;
}

/** Grid for a number of frames: 1 → 1×1, 2 → 2×1, 3–4 → 2×2, 5–6 → 3×2, 7–8 → 4×2. */
export function gridFor(frames: number): { cols: number; rows: number } {
  if (frames <= 1) return { cols: 1, rows: 1 };
  if (frames === 2) return { cols: 2, rows: 1 };
  if (frames <= 4) return { cols: 2, rows: 2 };
  if (frames <= 6) return { cols: 3, rows: 2 };
  return { cols: 4, rows: 2 };
}

/** `83.44` → `00:01:23.4` (tenths, truncated so a label never shows a later time than the frame). */
export function formatTimecode(sec: number): string {
  const tenths = Math.floor(Math.max(0, sec) * 10 + 1e-6);
  const h = Math.floor(tenths / 36000);
  const m = Math.floor((tenths % 36000) / 600);
  const s = Math.floor((tenths % 600) / 10);
  const pad = (v: number) => String(v).padStart(2, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}.${tenths % 10}`;
}

/**
 * Splits frames, in order, into groups: at most `target` groups of at most `perComposite`. With
 * more frames than fit, an evenly spread subset is kept; with fewer, fewer groups are made and the
 * frames are spread evenly over them (10 frames by 4 → 4, 3, 3), never leaving empty cells.
 */
export function groupFrames<T>(frames: T[], target: number, perComposite: number): T[][] {
  const capacity = target * perComposite;
  let kept = frames;
  if (frames.length > capacity) {
    kept = Array.from({ length: capacity }, (_, i) => frames[Math.floor(((i + 0.5) * frames.length) / capacity)] as T);
  }
  const groups = Math.min(target, Math.ceil(kept.length / perComposite));
  const out: T[][] = [];
  let at = 0;
  for (let g = 0; g < groups; g++) {
    const size = Math.floor(kept.length / groups) + (g < kept.length % groups ? 1 : 0);
    out.push(kept.slice(at, at + size));
    at += size;
  }
  return out;
}

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** SVG of a time-code label: white DejaVu Sans text on a dark translucent box. */
function labelSvg(text: string, cellWidth: number, cellHeight: number): { svg: Buffer; width: number; height: number } {
  const fontSize = Math.max(8, Math.round(Math.min(Math.max(12, cellHeight * 0.07), cellWidth / 8)));
  const padX = Math.round(fontSize * 0.4);
  const padY = Math.round(fontSize * 0.25);
  // DejaVu Sans digits are 0.64 em wide, the colon and dot 0.34 em.
  const textWidth = Math.ceil([...text].reduce((w, c) => w + (/[0-9]/.test(c) ? 0.64 : 0.34), 0) * fontSize);
  const width = textWidth + 2 * padX;
  const height = Math.round(fontSize * 1.2) + 2 * padY;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect x="0" y="0" width="${width}" height="${height}" rx="${padY}" fill="#000000" fill-opacity="0.72"/>` +
    `<text x="${padX}" y="${padY + Math.round(fontSize * 0.95)}" font-family="DejaVu Sans" font-size="${fontSize}" ` +
    `fill="#ffffff">${escapeXml(text)}</text></svg>`;
  return { svg: Buffer.from(svg), width, height };
}

function validate(opts: CompositeOptions): void {
  const { targetComposites: t, framesPerComposite: p } = opts;
  if (!Number.isInteger(t) || t < 1 || t > 20) throw new ValidationError('target_composites must be an integer from 1 to 20.');
  if (!Number.isInteger(p) || p < 2 || p > 8) throw new ValidationError('frames_per_composite must be an integer from 2 to 8.');
}

/**
 * Builds up to `targetComposites` JPEG grids of up to `framesPerComposite` frames, in frame order.
 * Each cell is letterboxed (aspect kept) and labelled with the frame's time code; `cells` record
 * where each frame's picture sits. Composites are at most 2048 px wide and tall, and never upscale
 * the frames beyond their own size.
 */
export async function buildComposites(frames: SampledFrame[], opts: CompositeOptions): Promise<Composite[]> {
  validate(opts);
  const groups = groupFrames(frames, opts.targetComposites, opts.framesPerComposite);
  return Promise.all(groups.map((group, index) => buildOne(group, index, opts.quality ?? 85)));
}

async function buildOne(group: SampledFrame[], index: number, quality: number): Promise<Composite> {
  const { cols, rows } = gridFor(group.length);
  // Cell aspect: the median aspect of the group's frames (they usually share one).
  const aspects = group.map((f) => f.width / f.height).sort((a, b) => a - b);
  const aspect = aspects[Math.floor(aspects.length / 2)] ?? 16 / 9;
  const maxFrameWidth = Math.max(...group.map((f) => Math.min(f.width, f.height * aspect)));
  let cellW = Math.min(Math.floor((MAX_COMPOSITE_WIDTH - (cols - 1) * CELL_GAP) / cols), Math.round(maxFrameWidth));
  let cellH = Math.round(cellW / aspect);
  const maxCellH = Math.floor((MAX_COMPOSITE_HEIGHT - (rows - 1) * CELL_GAP) / rows);
  if (cellH > maxCellH) {
    cellH = maxCellH;
    cellW = Math.round(cellH * aspect);
  }
  const width = cols * cellW + (cols - 1) * CELL_GAP;
  const height = rows * cellH + (rows - 1) * CELL_GAP;

  const pictures: OverlayOptions[] = [];
  const layers: OverlayOptions[] = [];
  const cells: CompositeCell[] = [];
  await Promise.all(
    group.map(async (frame, i) => {
      const cellX = (i % cols) * (cellW + CELL_GAP);
      const cellY = Math.floor(i / cols) * (cellH + CELL_GAP);
      const scale = Math.min(cellW / frame.width, cellH / frame.height);
      const w = Math.max(1, Math.round(frame.width * scale));
      const h = Math.max(1, Math.round(frame.height * scale));
      const x = cellX + Math.floor((cellW - w) / 2);
      const y = cellY + Math.floor((cellH - h) / 2);
      const picture = await sharp(frame.jpeg).resize(w, h, { fit: 'fill' }).removeAlpha().toColourspace('srgb').raw().toBuffer();
      const label = labelSvg(formatTimecode(frame.timeSec), cellW, cellH);
      pictures[i] = { input: picture, raw: { width: w, height: h, channels: 3 }, left: x, top: y };
      if (label.width <= w && label.height <= h) layers.push({
        input: label.svg,
        left: x + Math.min(6, Math.max(0, w - label.width)),
        top: y + Math.max(0, h - label.height - 6),
      });
      cells[i] = { frameIndex: frame.index, timeSec: frame.timeSec, x, y, width: w, height: h };
      if (frame.region) cells[i].region = { ...frame.region };
      if (frame.persons) cells[i].persons = frame.persons.map((p) => scalePerson(p, w / frame.width, h / frame.height));
    }),
  );
  const jpeg = await sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .composite([...pictures, ...layers])
    .jpeg({ quality, mozjpeg: false })
    .toBuffer();
  return { index, jpeg, width, height, cells };
}
