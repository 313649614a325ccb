import type {} from '@fastify/multipart';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { PayloadTooLargeError, ValidationError } from '@baret/platform';

export interface ReceivedUpload {
  /** A temporary file holding the video; the caller removes it with `discard`. */
  path: string;
  filename: string;
  mimetype: string;
  size: number;
  fields: Record<string, string>;
  discard(): Promise<void>;
}

export interface ReceivedForm {
  /** The video of the `file` part, or null when the request sent none (a resumable upload's id instead). */
  file: ReceivedUpload | null;
  fields: Record<string, string>;
}

/**
 * Streams the multipart `file` part to a temporary file (never whole in memory) and collects
 * the text fields. Anything over `maxBytes` is a 413, and leaves nothing behind.
 */
export async function receiveUpload(request: FastifyRequest, maxBytes: number, scratchDir: string = tmpdir()): Promise<ReceivedUpload> {
  const { file } = await receiveForm(request, maxBytes, scratchDir);
  if (!file) throw new ValidationError('Please choose a video to upload (the "file" field is missing).');
  return file;
}

/** As `receiveUpload`, but the `file` part may be missing. Files go to `scratchDir` (the scratch folder of the data dir). */
export async function receiveForm(request: FastifyRequest, maxBytes: number, scratchDir: string = tmpdir()): Promise<ReceivedForm> {
  if (!request.isMultipart()) throw new ValidationError('Send the video as multipart/form-data with a "file" field.');
  const fields: Record<string, string> = {};
  let file: { path: string; filename: string; mimetype: string; size: number } | null = null;
  const tmpFiles: string[] = [];
  const discard = async () => {
    await Promise.all(tmpFiles.map((f) => rm(f, { force: true })));
  };
  try {
    const parts = request.parts({ limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 64 * 1024 } });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || file) {
          part.file.resume();
          throw new ValidationError('Send exactly one video in the "file" field.');
        }
        const path = join(scratchDir, `baret-upload-${randomUUID()}`);
        tmpFiles.push(path);
        let size = 0;
        part.file.on('data', (chunk: Buffer) => {
          size += chunk.length;
        });
        await pipeline(part.file, createWriteStream(path));
        file = { path, filename: part.filename || 'video', mimetype: part.mimetype, size };
      } else {
        fields[part.fieldname] = typeof part.value === 'string' ? part.value : String(part.value);
      }
    }
  } catch (e) {
    await discard();
    const err = e as { code?: string; statusCode?: number };
    if (err.code === 'FST_REQ_FILE_TOO_LARGE' || err.statusCode === 413) {
      throw new PayloadTooLargeError(`The video is larger than the limit of ${formatBytes(maxBytes)}.`);
    }
    throw e;
  }
  if (!file) return { file: null, fields };
  if (file.size === 0) {
    await discard();
    throw new ValidationError('The uploaded file is empty.');
  }
  return { file: { ...file, fields, discard }, fields };
}

export function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(n % 1024 ** 3 === 0 ? 0 : 1)} GiB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(n % 1024 ** 2 === 0 ? 0 : 1)} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} bytes`;
}
