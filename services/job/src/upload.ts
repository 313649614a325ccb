import type {} from '@fastify/multipart';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { PayloadTooLargeError, uploadBytes, ValidationError } from '@baret/platform';

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
          uploadBytes.inc({ kind: 'multipart' }, chunk.length);
        });
        await pipeline(part.file, createWriteStream(path));
        file = { path, filename: cleanFilename(part.filename), mimetype: part.mimetype, size };
      } else {
        fields[part.fieldname] = typeof part.value === 'string' ? part.value : String(part.value);
      }
    }
  } catch (e) {
    await discard();
    throw uploadError(e, maxBytes);
  }
  if (!file) return { file: null, fields };
  if (file.size === 0) {
    await discard();
    throw new ValidationError('The uploaded file is empty.');
  }
  return { file: { ...file, fields, discard }, fields };
}

/** What went wrong with a multipart body, said as a client can act on it (never a 500). */
function uploadError(e: unknown, maxBytes: number): unknown {
  const err = e as { code?: string; statusCode?: number; message?: string };
  switch (err.code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new PayloadTooLargeError(`The video is larger than the limit of ${formatBytes(maxBytes)}.`);
    case 'FST_FILES_LIMIT':
      return new ValidationError('Send exactly one video in the "file" field.');
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
    case 'FST_PROTO_VIOLATION':
      return new ValidationError('The form has too many fields: send only "file" and "payload".');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new ValidationError('Send the video as multipart/form-data with a "file" field.');
  }
  if (err.statusCode === 413) return new ValidationError('A form field is too long.');
  // busboy's own errors ("Multipart: Boundary not found", "Unexpected end of form", …) are plain Errors.
  if (e instanceof Error && !('status' in e) && /multipart|boundary|unexpected end|malformed/i.test(e.message)) {
    return new ValidationError('The multipart form could not be read (its boundary is missing or the body is malformed).');
  }
  return e;
}

/**
 * A file name as it is stored and shown: no control characters (C0, DEL, C1), no bidi overrides or
 * isolates (which can make "gnp.exe" look like "exe.png"), trimmed, at most 255 characters.
 */
export function cleanFilename(name: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = (name ?? '').replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim().slice(0, 255);
  return cleaned || 'video';
}

export function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(n % 1024 ** 3 === 0 ? 0 : 1)} GiB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(n % 1024 ** 2 === 0 ? 0 : 1)} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} bytes`;
}
