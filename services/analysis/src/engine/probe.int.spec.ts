import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnsupportedMediaTypeError } from '@baret/platform';
import { videoFixtures } from '../../test/fixtures/videos.js';
import { NOT_A_VIDEO_MESSAGE, NotAVideoError, parseRate, probeVideo } from './probe.js';

const run = promisify(execFile);

let fx: Awaited<ReturnType<typeof videoFixtures>>;
let mp4: string;

beforeAll(async () => {
  fx = await videoFixtures();
  mp4 = await fx.testsrc('ten.mp4', { seconds: 4, size: '320x240', gop: 25 });
});
afterAll(() => fx.dispose());

describe('probeVideo', () => {
  it('reads duration, size, fps, codec and container of an MP4', async () => {
    const info = await probeVideo(mp4);
    expect(info.durationSec).toBeCloseTo(4, 1);
    expect(info.width).toBe(320);
    expect(info.height).toBe(240);
    expect(info.fps).toBe(25);
    expect(info.codec).toBe('h264');
    expect(info.format).toContain('mp4');
    expect(info.rotation).toBe(0);
  });

  it('reads the duration of a WebM that states none (a browser recording, MediaRecorder) from its packets', async () => {
    const webm = join(fx.dir, 'recorded.webm');
    // A live WebM, as MediaRecorder writes it: no Duration element, no cues.
    await run('ffmpeg', ['-hide_banner', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25', '-t', '2', '-c:v', 'libvpx', '-b:v', '300k', '-live', '1', '-f', 'webm', webm]);
    const info = await probeVideo(webm);
    expect(info.durationSec).toBeGreaterThan(1.8);
    expect(info.durationSec).toBeLessThan(2.2);
    expect(info.format).toContain('webm');
  });

  it('reports the displayed size of a rotated phone video', async () => {
    const info = await probeVideo(await fx.rotated(mp4, 'rot.mp4'));
    expect(info.rotation % 180).toBe(90);
    expect([info.width, info.height]).toEqual([240, 320]);
    expect([info.codedWidth, info.codedHeight]).toEqual([320, 240]);
  });

  it('takes the duration from the container when the stream has none (MKV)', async () => {
    const info = await probeVideo(await fx.remux(mp4, 'ten.mkv'));
    expect(info.format).toContain('matroska');
    expect(info.durationSec).toBeCloseTo(4, 1);
  });

  const notVideos: [string, () => Promise<string>][] = [
    ['a text file', () => fx.bytes('notes.txt', 'hello, this is not a video\n'.repeat(20))],
    ['an empty file', () => fx.bytes('empty.mp4', Buffer.alloc(0))],
    ['garbage bytes', () => fx.bytes('garbage.mp4', randomBytes(64 * 1024))],
    ['a PNG image', async () => fx.bytes('photo.png', await sharp({ create: { width: 64, height: 48, channels: 3, background: '#f80' } }).png().toBuffer())],
    ['a JPEG image', async () => fx.bytes('photo.jpg', await sharp({ create: { width: 64, height: 48, channels: 3, background: '#08f' } }).jpeg().toBuffer())],
    ['an audio-only file', () => fx.audioOnly('tone.m4a')],
  ];
  it.each(notVideos)('rejects %s with NotAVideoError (415, user-facing message)', async (_label, make) => {
    const path = await make();
    const err = await probeVideo(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(NotAVideoError);
    expect(err).toBeInstanceOf(UnsupportedMediaTypeError);
    const e = err as NotAVideoError;
    expect(e.status).toBe(415);
    expect(e.message).toBe(NOT_A_VIDEO_MESSAGE);
    expect(e.message).toMatch(/MP4, MOV, MKV or WebM/);
  });

  it('rejects a missing file', async () => {
    await expect(probeVideo(`${fx.dir}/nope.mp4`)).rejects.toBeInstanceOf(NotAVideoError);
  });
});

describe('parseRate', () => {
  it('parses ffprobe rationals', () => {
    expect(parseRate('30000/1001')).toBeCloseTo(29.97, 2);
    expect(parseRate('25/1')).toBe(25);
    expect(parseRate('0/0')).toBeUndefined();
    expect(parseRate(undefined)).toBeUndefined();
  });
});
