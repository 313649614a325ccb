/**
 * Video probing with ffprobe: is this a video we can read, and what does it look like once
 * displayed (rotation applied, non-square pixels made square)?
 */
import { spawn } from 'node:child_process';
import { basename } from 'node:path';
import { UnsupportedMediaTypeError } from '../errors.js';
import type { ProbedVideo as VideoInfo } from '../clients.js';
import { withSpan } from '../telemetry.js';

/** Binary paths; overridable for machines where ffmpeg lives elsewhere. */
export const FFPROBE_PATH = process.env.FFPROBE_PATH ?? 'ffprobe';
export const FFMPEG_PATH = process.env.FFMPEG_PATH ?? 'ffmpeg';

/** Shown to users (415) when an upload is not a video the pipeline can decode. */
export const NOT_A_VIDEO_MESSAGE =
  'This file is not a video we can read. Please upload an MP4, MOV, MKV or WebM video.';

/** The file is not a readable video: no video stream, garbage bytes, zero duration, a still image. */
export class NotAVideoError extends UnsupportedMediaTypeError {
  constructor(reason: string) {
    super(NOT_A_VIDEO_MESSAGE, { reason });
  }
}

/** `VideoInfo` plus what the frame sampler needs to map timestamps and orientation. */
export interface ProbedVideo extends VideoInfo {
  /** Where the container's clock starts; ffmpeg subtracts it, ffprobe packet times do not. */
  startTimeSec: number;
  /** Clockwise display rotation in degrees (0, 90, 180, 270). */
  rotation: number;
  /** Coded size of the stream, before rotation and aspect correction. */
  codedWidth: number;
  codedHeight: number;
}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  sample_aspect_ratio?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  duration?: string;
  start_time?: string;
  nb_frames?: string;
  tags?: Record<string, string>;
  side_data_list?: { side_data_type?: string; rotation?: number }[];
  disposition?: { attached_pic?: number; still_image?: number };
}

interface FfprobeOutput {
  streams?: FfprobeStream[];
  format?: { format_name?: string; duration?: string; start_time?: string };
}

/**
 * Containers we accept. ffprobe opens far more (ANSI art from any text file, still images,
 * playlists that reference other files), so anything else is not a video upload.
 */
const VIDEO_CONTAINERS = new Set(['mov', 'mp4', 'm4a', '3gp', '3g2', 'mj2', 'matroska', 'webm', 'avi', 'mpegts', 'mpeg', 'flv', 'asf', 'ogg', 'mxf']);
const IMAGE_CODECS = new Set(['png', 'mjpeg', 'jpegls', 'bmp', 'gif', 'webp', 'tiff', 'apng', 'jpeg2000', 'pam', 'ppm', 'pgm']);

/** What `runProcess` may do besides collecting the output. */
export interface RunProcessOptions {
  signal?: AbortSignal;
  /** Receives stdout instead of collecting it. */
  onStdout?: (chunk: Buffer) => void;
  /** Sees stderr as it arrives (it is still collected), e.g. to follow ffmpeg's progress. */
  onStderr?: (chunk: Buffer) => void;
}

/** Runs a process, collecting stdout and stderr. Rejects only if the process cannot start. */
export function runProcess(
  cmd: string,
  args: string[],
  opts: RunProcessOptions = {},
): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  // One span per ffmpeg/ffprobe run (docs/adr/0014): frame sampling and probing show in the job's trace.
  const name = basename(cmd);
  return withSpan(name, { attributes: { 'process.executable.name': name, 'process.command_args': args.join(' ').slice(0, 1000) } }, async (span) => {
    const result = await spawnCollect(cmd, args, opts);
    span.setAttribute('process.exit.code', result.code ?? -1);
    return result;
  });
}

function spawnCollect(
  cmd: string,
  args: string[],
  opts: RunProcessOptions,
): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], signal: opts.signal });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => (opts.onStdout ? opts.onStdout(d) : out.push(d)));
    child.stderr.on('data', (d: Buffer) => {
      err.push(d);
      opts.onStderr?.(d);
    });
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

const num = (s: string | undefined): number | undefined => {
  if (s === undefined || s === 'N/A') return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
};

/** "30000/1001" → 29.97; "0/0" → undefined. */
export function parseRate(s: string | undefined): number | undefined {
  if (!s) return undefined;
  const [a, b] = s.split('/').map(Number);
  if (a === undefined || !Number.isFinite(a)) return undefined;
  if (b === undefined) return a > 0 ? a : undefined;
  return b > 0 && a > 0 ? a / b : undefined;
}

function rotationOf(stream: FfprobeStream): number {
  const fromSide = stream.side_data_list?.find((s) => typeof s.rotation === 'number')?.rotation;
  const raw = fromSide ?? num(stream.tags?.rotate) ?? 0;
  const r = Math.round(raw / 90) * 90;
  return ((r % 360) + 360) % 360;
}

/**
 * Probes a file with ffprobe. Throws `NotAVideoError` when it has no decodable video stream, is a
 * still image, or has no positive duration.
 */
export function probeVideo(path: string, signal?: AbortSignal): Promise<ProbedVideo> {
  return withSpan('video.probe', {}, async (span) => {
    const video = await probe(path, signal);
    span.setAttributes({ 'baret.video.duration_s': video.durationSec, 'baret.video.width': video.width, 'baret.video.height': video.height });
    return video;
  });
}

/** The end time of a file's video packets (the last packet's time plus its duration), 0 when unknown. */
async function lastPacketTime(path: string, signal?: AbortSignal): Promise<number> {
  const { code, stdout } = await runProcess(
    FFPROBE_PATH,
    ['-v', 'error', '-protocol_whitelist', 'file', '-select_streams', 'v:0', '-show_entries', 'packet=pts_time,duration_time', '-of', 'csv=p=0', path],
    { signal },
  );
  if (code !== 0) return 0;
  let end = 0;
  for (const line of stdout.toString('utf8').split('\n')) {
    const [pts, duration] = line.split(',').map(Number);
    if (pts !== undefined && Number.isFinite(pts)) end = Math.max(end, pts + (duration !== undefined && Number.isFinite(duration) ? duration : 0));
  }
  return end;
}

async function probe(path: string, signal?: AbortSignal): Promise<ProbedVideo> {
  const { code, stdout, stderr } = await runProcess(
    FFPROBE_PATH,
    ['-v', 'error', '-protocol_whitelist', 'file', '-print_format', 'json', '-show_format', '-show_streams', path],
    { signal },
  );
  if (code !== 0) throw new NotAVideoError(stderr.trim().split('\n').pop() || `ffprobe exited with ${code}`);
  let parsed: FfprobeOutput;
  try {
    parsed = JSON.parse(stdout.toString('utf8')) as FfprobeOutput;
  } catch {
    throw new NotAVideoError('ffprobe output is not JSON');
  }
  const formatName = parsed.format?.format_name ?? '';
  const video = (parsed.streams ?? []).find(
    (s) => s.codec_type === 'video' && !s.disposition?.attached_pic && (s.width ?? 0) > 0 && (s.height ?? 0) > 0,
  );
  if (!video) throw new NotAVideoError('no video stream');
  const codec = video.codec_name ?? 'unknown';
  if (!formatName.split(',').some((f) => VIDEO_CONTAINERS.has(f))) {
    throw new NotAVideoError(`unsupported container ${formatName}`);
  }
  if (IMAGE_CODECS.has(codec) && num(video.nb_frames) === 1) {
    throw new NotAVideoError(`still image (${formatName}/${codec})`);
  }
  const streamDuration = num(video.duration);
  const formatDuration = num(parsed.format?.duration);
  let durationSec = streamDuration && streamDuration > 0 ? streamDuration : (formatDuration ?? 0);
  // A recording made in the browser (MediaRecorder's WebM) states no duration: read it from the
  // last packet's time (issue 28, "Record" in the app).
  if (!(durationSec > 0)) durationSec = await lastPacketTime(path, signal);
  if (!(durationSec > 0)) throw new NotAVideoError('zero duration');

  const fps = parseRate(video.avg_frame_rate) ?? parseRate(video.r_frame_rate) ?? 0;
  const codedWidth = video.width ?? 0;
  const codedHeight = video.height ?? 0;
  // Non-square pixels: the displayed width is the coded width times the sample aspect ratio.
  const sar = parseRate(video.sample_aspect_ratio?.replace(':', '/')) ?? 1;
  const squareWidth = Math.max(2, Math.round((codedWidth * sar) / 2) * 2);
  const rotation = rotationOf(video);
  const quarter = rotation === 90 || rotation === 270;
  return {
    durationSec,
    width: quarter ? codedHeight : squareWidth,
    height: quarter ? squareWidth : codedHeight,
    fps,
    codec,
    format: formatName,
    startTimeSec: num(parsed.format?.start_time) ?? num(video.start_time) ?? 0,
    rotation,
    codedWidth,
    codedHeight,
  };
}
