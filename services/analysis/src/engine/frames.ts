/**
 * Frame sampling that decodes as little as possible.
 *
 * Default (`keyframes`): one demux-only ffprobe pass lists the keyframe timestamps (no decoding),
 * the evenly spaced targets are matched to the nearest keyframe in their own time bin, and a single
 * ffmpeg process decodes keyframes only (`-skip_frame nokey`) and encodes just the chosen ones as
 * JPEG into one mjpeg pipe. Targets with no keyframe nearby (e.g. a video with one keyframe) are
 * filled with accurate decoding, by whichever is cheaper for those targets: one input-seeking
 * process per timestamp, or one decode pass over the span they cover.
 *
 * The alternatives (`select`: decode every frame in one pass; `seek`: one process per timestamp)
 * stay selectable for measurement (`npm run bench`).
 */
import { availableParallelism } from 'node:os';
import pLimit from 'p-limit';
import sharp from 'sharp';
import { FFMPEG_PATH, FFPROBE_PATH, runProcess } from './probe.js';
import type { PersonDetection, SampledFrame, VideoInfo } from './types.js';
import { jpegSize } from '@baret/platform';

/** Frames are scaled so their long side is at most this many pixels. */
export const MAX_FRAME_SIDE = 1280;

/** How frames are pulled out of the video. */
export type SamplingStrategy = 'keyframes' | 'select' | 'seek';

/** Options of the samplers. */
export interface SampleOptions {
  /** Default `keyframes` (measured fastest; see bench/frames.ts). */
  strategy?: SamplingStrategy;
  /** Long-side cap in pixels, default `MAX_FRAME_SIDE`. */
  maxSide?: number;
  signal?: AbortSignal;
  /**
   * Progress while sampling: `done` of the `total` frames the sampler will return (the count asked,
   * capped by the frames the video has). Called with 0 at the start, then as work completes
   * (uniform: each frame decoded; person focus: candidates decoded and scored, each half the work,
   * scaled to the frames asked); never with `done === total` (sampling ends with the frames).
   * Called often: throttle before reporting it anywhere.
   */
  onProgress?: (done: number, total: number) => void;
  /**
   * Hears of each image as soon as ffmpeg has piped it whole, before sampling ends (the person
   * focus scores candidates while the next are decoded). The same Buffer comes back in the result;
   * an image may come that the result leaves out (a repeated time).
   */
  onJpeg?: (jpeg: Buffer) => void;
}

/**
 * Person detector signature (implemented in `detector.ts`, run off the event loop by
 * `detectorPool.ts`, injected here). The sampler asks `mode: 'score'` (a cheap pass that may
 * report only the most prominent worker, then `partial`); `poses: false` asks for boxes only;
 * `maxSide` caps the working copy's long side.
 */
export type DetectFn = (
  jpeg: Buffer,
  opts?: { poses?: boolean; maxSide?: number; mode?: 'full' | 'score' },
) => Promise<{ width: number; height: number; persons: PersonDetection[]; partial?: boolean }>;

/** Thrown when ffmpeg fails on a file that probed as a video. */
export class FrameExtractionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrameExtractionError';
  }
}

interface Decoded {
  timeSec: number;
  jpeg: Buffer;
  width: number;
  height: number;
}

// ---------------------------------------------------------------------------------------------
// JPEG stream helpers

/** Width and height from a JPEG's SOF marker (platform's, shared with the job service's review export). */
export { jpegSize };

/**
 * Where the JPEG starting at `start` of `buf` ends (the index after its end-of-image marker), or -1
 * when `buf` holds only part of it. Walks the marker segments, so bytes inside headers can never be
 * mistaken for an end-of-image marker.
 */
function jpegEnd(buf: Buffer, start: number): number {
  if (buf[start] !== 0xff || buf[start + 1] !== 0xd8) throw new FrameExtractionError('mjpeg stream out of sync');
  let i = start + 2;
  while (i + 2 <= buf.length) {
    if (buf[i] !== 0xff) throw new FrameExtractionError('bad JPEG marker');
    const marker = buf[i + 1] ?? 0;
    if (marker === 0xff) {
      i++;
    } else if (marker === 0xd9) {
      return i + 2;
    } else if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
    } else {
      if (i + 4 > buf.length) return -1;
      const segEnd = i + 2 + buf.readUInt16BE(i + 2);
      if (marker !== 0xda) {
        i = segEnd;
        continue;
      }
      // Entropy-coded data: 0xFF is stuffed (FF00) or a restart marker (FFD0–FFD7).
      let j = segEnd;
      while (j + 1 < buf.length) {
        if (buf[j] === 0xff) {
          const n = buf[j + 1] ?? 0;
          if (n !== 0x00 && !(n >= 0xd0 && n <= 0xd7) && n !== 0xff) break;
        }
        j++;
      }
      i = j;
    }
  }
  return -1;
}

/** Splits a concatenation of JPEGs (ffmpeg's mjpeg image2pipe) into its images. */
export function splitJpegs(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  while (start + 4 <= buf.length) {
    const end = jpegEnd(buf, start);
    if (end < 0) throw new FrameExtractionError('truncated JPEG in mjpeg stream');
    out.push(buf.subarray(start, end));
    start = end;
  }
  return out;
}

/**
 * An mjpeg pipe read as it arrives: `push` each chunk, and `onJpeg` hears of each image as soon as
 * its last byte is in; `end` checks that nothing is left over and returns every image, in order.
 */
export function jpegStream(onJpeg: (jpeg: Buffer) => void): { push(chunk: Buffer): void; end(): Buffer[] } {
  const out: Buffer[] = [];
  let pending: Buffer = Buffer.alloc(0);
  // A broken stream is told by `end`, not thrown out of the pipe's event handler.
  let failed: unknown;
  return {
    push(chunk) {
      if (failed) return;
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      try {
        for (;;) {
          if (pending.length < 4) return;
          const end = jpegEnd(pending, 0);
          if (end < 0) return;
          // Its own copy: the pending buffer is dropped, not held by every image cut from it.
          const jpeg = Buffer.from(pending.subarray(0, end));
          pending = pending.subarray(end);
          out.push(jpeg);
          onJpeg(jpeg);
        }
      } catch (err) {
        failed = err;
      }
    },
    end() {
      if (failed) throw failed;
      if (pending.length > 0) throw new FrameExtractionError('truncated JPEG in mjpeg stream');
      return out;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Planning

/** Output size: the displayed size, long side capped, even dimensions. */
export function outputSize(info: VideoInfo, maxSide = MAX_FRAME_SIDE): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(info.width, info.height));
  const even = (v: number) => Math.max(2, Math.round(v / 2) * 2);
  return { width: even(info.width * scale), height: even(info.height * scale) };
}

/** Evenly spread target times: the centres of `count` equal bins over the duration. */
export function targetTimes(durationSec: number, count: number): number[] {
  const step = durationSec / count;
  return Array.from({ length: count }, (_, i) => (i + 0.5) * step);
}

/** How many distinct frames the video can give (all of them if the frame rate is unknown). */
function cappedCount(info: VideoInfo, count: number): number {
  const n = Math.max(0, Math.floor(count));
  if (!(info.fps > 0)) return n;
  return Math.max(1, Math.min(n, Math.floor(info.durationSec * info.fps)));
}

/** Keyframe timestamps (seconds from the start of the video), from a demux-only ffprobe pass. */
export async function listKeyframes(path: string, signal?: AbortSignal): Promise<number[]> {
  const { code, stdout, stderr } = await runProcess(
    FFPROBE_PATH,
    [
      '-v', 'error', '-select_streams', 'v:0',
      '-show_entries', 'packet=pts_time,dts_time,flags:format=start_time',
      '-of', 'csv', path,
    ],
    { signal },
  );
  if (code !== 0) throw new FrameExtractionError(`ffprobe could not list packets: ${stderr.trim()}`);
  let start = 0;
  const keys: number[] = [];
  for (const line of stdout.toString('utf8').split('\n')) {
    const parts = line.trim().split(',');
    if (parts[0] === 'format') {
      const s = Number(parts[1]);
      if (Number.isFinite(s)) start = s;
    } else if (parts[0] === 'packet' && parts[3]?.startsWith('K')) {
      const pts = Number(parts[1]);
      const dts = Number(parts[2]);
      const t = parts[1] !== 'N/A' && Number.isFinite(pts) ? pts : dts;
      if (Number.isFinite(t)) keys.push(t);
    }
  }
  return keys.map((t) => t - start).sort((a, b) => a - b);
}

/** A sampling plan: which keyframes to decode, which times need accurate decoding. */
export interface SamplePlan {
  keyframes: number[];
  exact: number[];
}

/**
 * Matches each evenly spaced target to the nearest keyframe inside its own bin (within 40% of the
 * bin width of the target, so neighbours stay apart); targets without one go to `exact`.
 */
export function planFromKeyframes(durationSec: number, count: number, keyframes: number[]): SamplePlan {
  const step = durationSec / count;
  const tolerance = step * 0.4;
  const plan: SamplePlan = { keyframes: [], exact: [] };
  for (const target of targetTimes(durationSec, count)) {
    let best: number | undefined;
    for (const k of keyframes) {
      if (k < target - tolerance) continue;
      if (k > target + tolerance) break;
      if (best === undefined || Math.abs(k - target) < Math.abs(best - target)) best = k;
    }
    if (best === undefined) plan.exact.push(target);
    else plan.keyframes.push(best);
  }
  return plan;
}

// ---------------------------------------------------------------------------------------------
// ffmpeg runners

/**
 * The sum of `terms` as an ffmpeg expression, nested as a balanced tree: `(a+b)+(c+d)`.
 * ffmpeg's expression parser gives up on a flat sum of about 100 terms (its recursion guard
 * counts every `+`), which a long video with sparse keyframes reaches at 20 × 8 frames; a
 * balanced tree is only log2(n) deep, so any number of targets parses.
 */
export function sumExpression(terms: string[]): string {
  if (terms.length === 0) return '0';
  if (terms.length === 1) return terms[0] as string;
  const mid = Math.ceil(terms.length / 2);
  return `(${sumExpression(terms.slice(0, mid))})+(${sumExpression(terms.slice(mid))})`;
}

const SHOWINFO_PTS = /Parsed_showinfo.*?\bpts_time:\s*(-?[\d.]+(?:e-?\d+)?)/;

/** Calls `onFrame` for each frame ffmpeg's showinfo filter reports, as stderr arrives. */
function showinfoFrames(onFrame: () => void): (chunk: Buffer) => void {
  let partial = '';
  return (chunk) => {
    const lines = (partial + chunk.toString('latin1')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (SHOWINFO_PTS.test(line)) onFrame();
  };
}

/** `onProgress` fed one frame at a time (at most `total`); undefined without `onProgress`. */
function frameCounter(total: number, onProgress: SampleOptions['onProgress']): (() => void) | undefined {
  if (!onProgress) return undefined;
  let done = 0;
  return () => {
    if (done >= total - 1) return; // the last frame is the sampler's result, not progress
    onProgress(++done, total);
  };
}

function showinfoTimes(stderr: string): number[] {
  const times: number[] = [];
  for (const line of stderr.split('\n')) {
    const m = SHOWINFO_PTS.exec(line);
    if (m?.[1]) times.push(Number(m[1]));
  }
  return times;
}

function outputArgs(): string[] {
  return ['-fps_mode', 'passthrough', '-f', 'image2pipe', '-c:v', 'mjpeg', '-q:v', '3', 'pipe:1'];
}

function scaleFilter(size: { width: number; height: number }): string {
  return `scale=${size.width}:${size.height}:flags=bilinear,setsar=1`;
}

/** What the ffmpeg runners tell as they go: `onFrame` each frame ffmpeg reports, `onJpeg` each image as soon as it is piped whole. */
interface Progress {
  onFrame?: () => void;
  onJpeg?: (jpeg: Buffer) => void;
}

/**
 * Runs ffmpeg whose filter chain contains `showinfo`; pairs each piped JPEG with its time.
 * `progress` hears of each frame before the process ends.
 */
async function runMjpeg(args: string[], signal: AbortSignal | undefined, offsetSec = 0, progress: Progress = {}): Promise<Decoded[]> {
  const { onFrame, onJpeg } = progress;
  const stream = onJpeg && jpegStream(onJpeg);
  const { code, stdout, stderr } = await runProcess(FFMPEG_PATH, args, { signal, onStderr: onFrame && showinfoFrames(onFrame), onStdout: stream && ((chunk) => stream.push(chunk)) });
  if (code !== 0) throw new FrameExtractionError(`ffmpeg failed: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const jpegs = stream ? stream.end() : splitJpegs(stdout);
  const times = showinfoTimes(stderr);
  return jpegs.map((jpeg, i) => {
    const size = jpegSize(jpeg);
    return {
      timeSec: (times[i] ?? Number.NaN) + offsetSec,
      jpeg,
      width: size?.width ?? 0,
      height: size?.height ?? 0,
    };
  });
}

function baseArgs(): string[] {
  return ['-hide_banner', '-nostats', '-nostdin', '-loglevel', 'info'];
}

/** Decodes keyframes only and encodes those at the given times (all keyframes if omitted). */
export async function decodeKeyframes(
  path: string,
  size: { width: number; height: number },
  fps: number,
  times: number[] | undefined,
  signal?: AbortSignal,
  progress: Progress = {},
): Promise<Decoded[]> {
  const eps = fps > 0 ? 0.45 / fps : 0.01;
  const select =
    times === undefined ? '' : `select=${sumExpression(times.map((t) => `between(t\\,${(t - eps).toFixed(6)}\\,${(t + eps).toFixed(6)})`))},`;
  return runMjpeg(
    [
      ...baseArgs(), '-skip_frame', 'nokey', '-i', path, '-map', '0:v:0', '-an', '-sn', '-dn',
      '-vf', `${select}showinfo,${scaleFilter(size)}`, ...outputArgs(),
    ],
    signal,
    0,
    progress,
  );
}

/** One decode pass over [from, to] (input-seeked to `from`), keeping the first frame at or after each target. */
export async function decodeSelect(
  path: string,
  size: { width: number; height: number },
  targets: number[],
  signal?: AbortSignal,
  span?: { from: number; to: number },
  progress: Progress = {},
): Promise<Decoded[]> {
  if (targets.length === 0) return [];
  const from = span?.from ?? 0;
  const rel = targets.map((t) => Math.max(0, t - from));
  const select = sumExpression(rel.map((t) => `gte(t\\,${t.toFixed(6)})*not(gte(prev_t\\,${t.toFixed(6)}))`));
  const seek = from > 0 ? ['-ss', from.toFixed(6)] : [];
  const limit = span ? ['-t', (span.to - from + 0.5).toFixed(6)] : [];
  return runMjpeg(
    [
      ...baseArgs(), ...seek, '-i', path, ...limit, '-map', '0:v:0', '-an', '-sn', '-dn',
      '-vf', `select=${select},showinfo,${scaleFilter(size)}`, ...outputArgs(),
    ],
    signal,
    from,
    progress,
  );
}

/** One ffmpeg per timestamp, input seeking (`-ss` before `-i`, accurate), `parallel` at a time. */
export async function decodeSeeks(
  path: string,
  size: { width: number; height: number },
  targets: number[],
  signal?: AbortSignal,
  parallel = Math.max(1, availableParallelism()),
  progress: Progress = {},
): Promise<Decoded[]> {
  const results: Decoded[] = [];
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const t = targets[next++] as number;
      const frames = await runMjpeg(
        [
          ...baseArgs(), '-ss', t.toFixed(6), '-i', path, '-map', '0:v:0', '-an', '-sn', '-dn',
          '-frames:v', '1', '-vf', `showinfo,${scaleFilter(size)}`, ...outputArgs(),
        ],
        signal,
        t,
        progress,
      );
      if (frames[0]) results.push(frames[0]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, targets.length) }, worker));
  return results;
}

// ---------------------------------------------------------------------------------------------
// Public samplers

function finish(decoded: Decoded[], durationSec: number, fps: number): SampledFrame[] {
  const minGap = fps > 0 ? 0.5 / fps : 1e-4;
  const sorted = decoded
    .filter((d) => Number.isFinite(d.timeSec) && d.jpeg.length > 0)
    .map((d) => ({ ...d, timeSec: Math.min(Math.max(0, d.timeSec), durationSec) }))
    .sort((a, b) => a.timeSec - b.timeSec);
  const out: SampledFrame[] = [];
  for (const d of sorted) {
    const prev = out[out.length - 1];
    if (prev && d.timeSec - prev.timeSec < minGap) continue;
    out.push({ index: out.length, timeSec: Math.round(d.timeSec * 1e3) / 1e3, jpeg: d.jpeg, width: d.width, height: d.height });
  }
  return out;
}

/**
 * Decoders keep the first frame at or after a time; starting half a frame early keeps
 * the frame nearest the target instead (and the frame showing at a bin centre of a short video).
 */
function nearestFrameStarts(targets: number[], fps: number): number[] {
  const lead = fps > 0 ? 0.501 / fps : 0;
  return targets.map((t) => Math.max(0, t - lead));
}

/** Fills exact targets by the cheaper of per-timestamp seeks and one decode pass over their span. */
async function decodeExact(
  path: string,
  size: { width: number; height: number },
  wanted: number[],
  keyframes: number[],
  fps: number,
  signal?: AbortSignal,
  progress: Progress = {},
): Promise<Decoded[]> {
  if (wanted.length === 0) return [];
  const targets = nearestFrameStarts(wanted, fps);
  const prevKey = (t: number) => keyframes.filter((k) => k <= t + 1e-6).pop() ?? 0;
  const parallel = Math.max(1, availableParallelism());
  // Cost in seconds of video decoded; each extra process costs about as much as 0.3 s of decoding.
  const seekCost = targets.reduce((s, t) => s + t - prevKey(t) + 0.3, 0) / parallel;
  const first = Math.min(...targets);
  const last = Math.max(...targets);
  const from = prevKey(first);
  const passCost = last - from + 0.3;
  return seekCost <= passCost
    ? decodeSeeks(path, size, targets, signal, parallel, progress)
    : decodeSelect(path, size, targets, signal, { from, to: last }, progress);
}

/**
 * `count` evenly spread frames (fewer only if the video has fewer frames), chronological,
 * distinct, scaled to at most `maxSide` pixels on the long side.
 */
export async function sampleUniform(
  path: string,
  info: VideoInfo,
  count: number,
  opts: SampleOptions = {},
): Promise<SampledFrame[]> {
  const n = cappedCount(info, count);
  if (n === 0) return [];
  opts.onProgress?.(0, n);
  const progress: Progress = { onFrame: frameCounter(n, opts.onProgress), onJpeg: opts.onJpeg };
  const size = outputSize(info, opts.maxSide);
  const strategy = opts.strategy ?? 'keyframes';
  const targets = nearestFrameStarts(targetTimes(info.durationSec, n), info.fps);
  if (strategy === 'select') return finish(await decodeSelect(path, size, targets, opts.signal, undefined, progress), info.durationSec, info.fps);
  if (strategy === 'seek') return finish(await decodeSeeks(path, size, targets, opts.signal, undefined, progress), info.durationSec, info.fps);
  return finish(await sampleByKeyframes(path, info, n, size, opts.signal, progress), info.durationSec, info.fps);
}

async function sampleByKeyframes(
  path: string,
  info: VideoInfo,
  n: number,
  size: { width: number; height: number },
  signal?: AbortSignal,
  progress: Progress = {},
): Promise<Decoded[]> {
  const keyframes = await listKeyframes(path, signal);
  const plan = planFromKeyframes(info.durationSec, n, keyframes);
  const selectAll = plan.keyframes.length === keyframes.length;
  const [fromKeys, fromExact] = await Promise.all([
    plan.keyframes.length > 0
      ? decodeKeyframes(path, size, info.fps, selectAll ? undefined : plan.keyframes, signal, progress)
      : Promise.resolve([]),
    decodeExact(path, size, plan.exact, keyframes, info.fps, signal, progress),
  ]);
  // A planned keyframe the decoder did not deliver (damaged stream): decode that time accurately.
  const eps = info.fps > 0 ? 0.5 / info.fps : 0.01;
  const missing = plan.keyframes.filter((k) => !fromKeys.some((d) => Math.abs(d.timeSec - k) <= eps));
  const repaired = missing.length > 0 ? await decodeSeeks(path, size, missing, signal, undefined, progress) : [];
  return [...fromKeys, ...fromExact, ...repaired];
}

// ---------------------------------------------------------------------------------------------
// Person focus

/** Options of `samplePersonFocus`. */
export interface PersonFocusOptions extends SampleOptions {
  /** Candidates scored per chosen frame, default 2. */
  candidatesPerFrame?: number;
  /** Crop around the workers when the persons' union box covers less than this share of the frame (default 0.2). */
  cropBelowArea?: number;
  /** Candidates scored at the same time (default 2: the detector pool's threads). */
  parallel?: number;
}

/**
 * Variance of the Laplacian of a small grey version (long side 320 px): higher is sharper.
 * sharp does the decode, greyscale and resize; the 3×3 Laplacian is computed here in floating
 * point, because sharp's 8-bit convolve output would clip the strong edges that matter most.
 */
export async function sharpness(jpeg: Buffer): Promise<number> {
  const { data, info } = await sharp(jpeg)
    .resize({ width: 320, height: 320, fit: 'inside' })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const w = info.width;
  const h = info.height;
  const ch = info.channels;
  const px = (x: number, y: number) => data[(y * w + x) * ch] ?? 0;
  let sum = 0;
  let sumSq = 0;
  let n = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const lap = px(x - 1, y) + px(x + 1, y) + px(x, y - 1) + px(x, y + 1) - 4 * px(x, y);
      sum += lap;
      sumSq += lap * lap;
      n++;
    }
  }
  if (n === 0) return 0;
  const mean = sum / n;
  return sumSq / n - mean * mean;
}

type Box = [number, number, number, number];

function unionBox(persons: PersonDetection[]): Box {
  const x0 = Math.min(...persons.map((p) => p.box[0]));
  const y0 = Math.min(...persons.map((p) => p.box[1]));
  const x1 = Math.max(...persons.map((p) => p.box[0] + p.box[2]));
  const y1 = Math.max(...persons.map((p) => p.box[1] + p.box[3]));
  return [x0, y0, x1 - x0, y1 - y0];
}

/**
 * The crop rectangle around `union` with a margin, at the frame's aspect ratio, at least a third
 * of the frame on each side (so a tiny box is not blown up into mush), clamped inside the frame.
 */
export function cropAround(union: Box, width: number, height: number): Box {
  const aspect = width / height;
  const [ux, uy, uw, uh] = union;
  let cw = Math.max(uw * 1.5, uw + 0.05 * width, width / 3);
  let ch = Math.max(uh * 1.3, uh + 0.05 * height, height / 3);
  if (cw / ch > aspect) ch = cw / aspect;
  else cw = ch * aspect;
  cw = Math.min(width, Math.round(cw));
  ch = Math.min(height, Math.round(ch));
  const cx = ux + uw / 2;
  const cy = uy + uh / 2;
  const x = Math.round(Math.min(Math.max(0, cx - cw / 2), width - cw));
  const y = Math.round(Math.min(Math.max(0, cy - ch / 2), height - ch));
  return [x, y, cw, ch];
}

interface Candidate {
  frame: SampledFrame;
  persons: PersonDetection[];
  /** The detector reported every person (not only the most prominent one). */
  complete: boolean;
  personScore: number;
  sharp: number;
  score: number;
}

/**
 * Picks `count` frames where workers are large and sharp, covering the whole video: the video is
 * cut into `count` equal bins and each bin gives its best candidate (so no stretch longer than
 * its share goes unseen). Candidates are `candidatesPerFrame` keyframes per bin, scored by the
 * injected detector in its cheap `score` mode and a sharpness measure. Frames whose workers are
 * small are cropped to a box around them, but only when the detector reported every person (a
 * `partial` answer names only the most prominent worker; a crop could cut the others out). Person
 * boxes of complete answers are returned in the pixels of the returned JPEG, for reuse.
 */
export async function samplePersonFocus(
  path: string,
  info: VideoInfo,
  count: number,
  detect: DetectFn,
  opts: PersonFocusOptions = {},
): Promise<SampledFrame[]> {
  const n = cappedCount(info, count);
  if (n === 0) return [];
  const perFrame = opts.candidatesPerFrame ?? 2;
  const { onProgress } = opts;
  onProgress?.(0, n);
  // Decoding the candidates is the first half of the work, scoring them the second.
  const progress = (share: number) => {
    if (onProgress && share < 1) onProgress(Math.floor(n * share), n);
  };
  // Each candidate is scored as soon as ffmpeg has piped it (the decoder and the detector pool's
  // threads work at once), `parallel` at a time.
  let decoded = 0;
  let scored = 0;
  const total = n * perFrame;
  const report = () => progress((0.5 * Math.min(decoded, total)) / total + (0.5 * Math.min(scored, total)) / total);
  const limit = pLimit(Math.max(1, opts.parallel ?? 2));
  const scores = new Map<Buffer, Promise<Omit<Candidate, 'frame' | 'score'>>>();
  const scoreOf = (jpeg: Buffer) => {
    let score = scores.get(jpeg);
    if (!score) {
      score = limit(async () => {
        opts.signal?.throwIfAborted();
        const size = jpegSize(jpeg) ?? { width: 0, height: 0 };
        const [detection, sharpVar] = await Promise.all([detect(jpeg, { mode: 'score' }), sharpness(jpeg)]);
        const sx = size.width / (detection.width || size.width);
        const sy = size.height / (detection.height || size.height);
        const persons = detection.persons.map((p) => scalePerson(p, sx, sy));
        const area = size.width * size.height;
        // Largest worker dominates; extra workers add a little. sqrt keeps mid-size workers competitive.
        const shares = persons.map((p) => (p.box[2] * p.box[3] * Math.min(1, Math.max(0, p.score))) / area).sort((a, b) => b - a);
        const personScore = shares.length === 0 ? 0 : Math.sqrt(Math.min(1, (shares[0] ?? 0) + 0.25 * shares.slice(1).reduce((s, v) => s + v, 0)));
        scored++;
        report();
        return { persons, complete: !detection.partial, personScore, sharp: sharpVar };
      });
      // Awaited below with its frame; a failure while decoding goes on is not unhandled.
      score.catch(() => undefined);
      scores.set(jpeg, score);
    }
    return score;
  };
  let candidates: Candidate[];
  try {
    const candidatesFrames = await sampleUniform(path, info, total, {
      ...opts,
      onProgress: onProgress && ((done) => ((decoded = done), report())),
      onJpeg: (jpeg) => void scoreOf(jpeg),
    });
    decoded = total;
    candidates = await Promise.all(candidatesFrames.map(async (frame) => ({ frame, ...(await scoreOf(frame.jpeg)), score: 0 })));
  } finally {
    // Nothing more is scored once sampling failed, nor the images the result left out (a repeated time).
    limit.clearQueue();
  }
  const maxSharp = Math.max(1e-9, ...candidates.map((c) => c.sharp));
  for (const c of candidates) {
    const sharpRel = c.sharp / maxSharp;
    c.score = (0.05 + c.personScore) * (0.4 + 0.6 * sharpRel);
  }

  const chosen = pickPerBin(candidates, n, info.durationSec);
  const cropBelow = opts.cropBelowArea ?? 0.2;
  const out: SampledFrame[] = [];
  for (const [i, c] of chosen.entries()) {
    const base: SampledFrame = { ...c.frame, index: i, score: Math.round(c.score * 1e4) / 1e4, ...(c.complete ? { persons: c.persons } : {}) };
    if (c.persons.length === 0 || !c.complete) {
      out.push(base);
      continue;
    }
    const union = unionBox(c.persons);
    if ((union[2] * union[3]) / (c.frame.width * c.frame.height) >= cropBelow) {
      out.push(base);
      continue;
    }
    const [x, y, w, h] = cropAround(union, c.frame.width, c.frame.height);
    const jpeg = await sharp(c.frame.jpeg).extract({ left: x, top: y, width: w, height: h }).jpeg({ quality: 90 }).toBuffer();
    const region = { x: x / c.frame.width, y: y / c.frame.height, w: w / c.frame.width, h: h / c.frame.height };
    out.push({ ...base, jpeg, width: w, height: h, region, persons: c.persons.map((p) => shiftPerson(p, -x, -y)) });
  }
  return out;
}

/**
 * The best candidate of each of `n` equal bins of the video, chronological. A bin without any
 * candidate (a video shorter than its frame count suggests) is filled with the best candidate
 * not chosen yet, so `n` frames come back whenever there are `n` candidates.
 */
export function pickPerBin<C extends { frame: { timeSec: number }; score: number }>(candidates: C[], n: number, durationSec: number): C[] {
  const step = durationSec / n;
  const binOf = (t: number) => Math.min(n - 1, Math.max(0, Math.floor(t / step)));
  const best = new Map<number, C>();
  for (const c of candidates) {
    const b = binOf(c.frame.timeSec);
    const held = best.get(b);
    if (!held || c.score > held.score || (c.score === held.score && c.frame.timeSec < held.frame.timeSec)) best.set(b, c);
  }
  const chosen = [...best.values()];
  const rest = candidates.filter((c) => !chosen.includes(c)).sort((a, b) => b.score - a.score || a.frame.timeSec - b.frame.timeSec);
  while (chosen.length < n && rest.length > 0) chosen.push(rest.shift()!);
  return chosen.sort((a, b) => a.frame.timeSec - b.frame.timeSec);
}

/** A detection in the pixels of the same image scaled by `sx` × `sy`. */
export function scalePerson(p: PersonDetection, sx: number, sy: number): PersonDetection {
  if (sx === 1 && sy === 1) return p;
  return {
    ...p,
    box: [p.box[0] * sx, p.box[1] * sy, p.box[2] * sx, p.box[3] * sy],
    keypoints: p.keypoints.map((k) => ({ ...k, x: k.x * sx, y: k.y * sy })),
  };
}

function shiftPerson(p: PersonDetection, dx: number, dy: number): PersonDetection {
  return {
    ...p,
    box: [p.box[0] + dx, p.box[1] + dy, p.box[2], p.box[3]],
    keypoints: p.keypoints.map((k) => ({ ...k, x: k.x + dx, y: k.y + dy })),
  };
}

/** A sampled frame without its pixels: what a job's journal keeps of it (issue 39). */
export type FrameMeta = Omit<SampledFrame, 'jpeg'>;

/**
 * The pixels of frames sampled before (a job resumed after its sampling step): each frame decoded
 * again at its time, at the size the sampler decoded it (or `maxSide`: a violation's crop is cut
 * from the video at its own size, issue 53), and cut to its region when the sampler cropped it
 * around the workers — the same picture, without scoring candidates again.
 */
export async function readFramesAt(path: string, info: VideoInfo, frames: readonly FrameMeta[], opts: { maxSide?: number; signal?: AbortSignal } = {}): Promise<SampledFrame[]> {
  if (frames.length === 0) return [];
  const size = outputSize(info, opts.maxSide);
  const decoded = await decodeSeeks(path, size, nearestFrameStarts(frames.map((f) => f.timeSec), info.fps), opts.signal);
  return Promise.all(
    frames.map(async (f) => {
      const nearest = [...decoded].sort((a, b) => Math.abs(a.timeSec - f.timeSec) - Math.abs(b.timeSec - f.timeSec))[0];
      if (!nearest) throw new FrameExtractionError(`the frame at ${f.timeSec} s could not be read again`);
      if (!f.region) return { ...f, jpeg: nearest.jpeg, width: nearest.width, height: nearest.height };
      const left = Math.round(f.region.x * nearest.width);
      const top = Math.round(f.region.y * nearest.height);
      // (The region's share of the frame: at the sampler's size, the frame's own width and height; larger at the video's own size.)
      const width = Math.max(1, Math.min(Math.round(f.region.w * nearest.width), nearest.width - left));
      const height = Math.max(1, Math.min(Math.round(f.region.h * nearest.height), nearest.height - top));
      const jpeg = await sharp(nearest.jpeg).extract({ left, top, width, height }).jpeg({ quality: 90 }).toBuffer();
      return { ...f, jpeg, width, height };
    }),
  );
}
