import { Blob as NodeBlob } from 'node:buffer';

import { describe, expect, it } from 'vitest';

import { base64Utf8, tusUpload, uploadIdOf, UploadHttpError } from '@/features/analyze/offline/tus-fetch';
import { HttpResponse, http, server } from '@/testing/server';

const BASE = 'http://api.test';
const noSleep = () => Promise.resolve();

/** A tus server in memory: what it received, request by request. */
function tusServer(options: { failPatchAt?: number; unauthorized?: boolean } = {}) {
  const log: string[] = [];
  const uploads = new Map<string, { length: number; bytes: number[]; metadata: string | null }>();
  let failed = false;
  let count = 0;
  server.use(
    http.post(`${BASE}/uploads`, ({ request }) => {
      log.push(`POST ${request.headers.get('upload-length')} ${request.headers.get('authorization')} ${request.headers.get('tus-resumable')}`);
      if (options.unauthorized) return HttpResponse.json({ detail: 'Please log in to continue.' }, { status: 401 });
      const id = `up${++count}`;
      uploads.set(id, { length: Number(request.headers.get('upload-length')), bytes: [], metadata: request.headers.get('upload-metadata') });
      return new HttpResponse(null, { status: 201, headers: { Location: `/uploads/${id}`, 'Tus-Resumable': '1.0.0' } });
    }),
    http.head(`${BASE}/uploads/:id`, ({ params, request }) => {
      log.push(`HEAD ${request.headers.get('authorization')}`);
      if (options.unauthorized) return new HttpResponse(null, { status: 401 });
      const upload = uploads.get(String(params.id));
      if (!upload) return new HttpResponse(null, { status: 404 });
      return new HttpResponse(null, { status: 200, headers: { 'Upload-Offset': String(upload.bytes.length), 'Upload-Length': String(upload.length) } });
    }),
    http.patch(`${BASE}/uploads/:id`, async ({ params, request }) => {
      const upload = uploads.get(String(params.id));
      const offset = Number(request.headers.get('upload-offset'));
      log.push(`PATCH ${offset} ${request.headers.get('content-type')}`);
      if (!upload) return new HttpResponse(null, { status: 404 });
      if (offset !== upload.bytes.length) return new HttpResponse(null, { status: 409 });
      const body = new Uint8Array(await request.arrayBuffer());
      if (options.failPatchAt !== undefined && offset === options.failPatchAt && !failed) {
        failed = true;
        // The connection drops after the server stored half of the chunk.
        upload.bytes.push(...body.slice(0, Math.floor(body.length / 2)));
        return HttpResponse.error();
      }
      upload.bytes.push(...body);
      return new HttpResponse(null, { status: 204, headers: { 'Upload-Offset': String(upload.bytes.length) } });
    }),
  );
  return { log, uploads };
}

const file = (size: number) => new NodeBlob([Uint8Array.from({ length: size }, (_, i) => i % 251)]) as unknown as Blob;
const headers = () => ({ Authorization: 'Bearer t0k' });

describe('tusUpload (fetch, for the service worker)', () => {
  it('creates the upload with its length and metadata, then sends the file in chunks', async () => {
    const tus = tusServer();
    const urls: string[] = [];
    const progress: number[] = [];
    const url = await tusUpload(file(1000), {
      endpoint: `${BASE}/uploads`,
      uploadUrl: null,
      headers,
      metadata: { filename: 'şantiye-ı.mp4', filetype: 'video/mp4' },
      chunkSize: 400,
      onUrl: (u) => void urls.push(u),
      onProgress: (sent) => void progress.push(sent),
      sleep: noSleep,
    });
    expect(url).toBe(`${BASE}/uploads/up1`);
    expect(urls).toEqual([url]);
    expect(uploadIdOf(url)).toBe('up1');
    expect(tus.log).toEqual([
      'POST 1000 Bearer t0k 1.0.0',
      'PATCH 0 application/offset+octet-stream',
      'PATCH 400 application/offset+octet-stream',
      'PATCH 800 application/offset+octet-stream',
    ]);
    expect(progress).toEqual([0, 400, 800, 1000]);
    const stored = tus.uploads.get('up1')!;
    expect(stored.bytes).toEqual(Array.from({ length: 1000 }, (_, i) => i % 251));
    expect(stored.metadata).toBe(`filename ${base64Utf8('şantiye-ı.mp4')},filetype ${base64Utf8('video/mp4')}`);
    expect(atob(base64Utf8('ı')).length).toBe(2);
  });

  it('after a failed PATCH asks the server its offset (HEAD) and resumes from there, no byte twice', async () => {
    const tus = tusServer({ failPatchAt: 400 });
    const url = await tusUpload(file(1000), { endpoint: `${BASE}/uploads`, uploadUrl: null, headers, chunkSize: 400, sleep: noSleep });
    expect(tus.log).toEqual([
      'POST 1000 Bearer t0k 1.0.0',
      'PATCH 0 application/offset+octet-stream',
      'PATCH 400 application/offset+octet-stream',
      'HEAD Bearer t0k',
      // The server kept 200 bytes of the failed chunk: the client goes on from 600, to the end.
      'PATCH 600 application/offset+octet-stream',
    ]);
    expect(tus.uploads.get(uploadIdOf(url))!.bytes).toEqual(Array.from({ length: 1000 }, (_, i) => i % 251));
  });

  it('continues a known upload from the server offset (HEAD first, no new upload)', async () => {
    const tus = tusServer({ failPatchAt: 0 });
    // The first attempt gives up at once (no retries): the upload stays, half of its first chunk stored.
    const first = tusUpload(file(800), { endpoint: `${BASE}/uploads`, uploadUrl: null, headers, chunkSize: 800, retryDelays: [], sleep: noSleep });
    await expect(first).rejects.toMatchObject({ status: 0 });
    const progress: number[] = [];
    const url = await tusUpload(file(800), {
      endpoint: `${BASE}/uploads`,
      uploadUrl: `${BASE}/uploads/up1`,
      headers,
      chunkSize: 800,
      onProgress: (sent) => void progress.push(sent),
      sleep: noSleep,
    });
    expect(url).toBe(`${BASE}/uploads/up1`);
    expect(tus.log.slice(2)).toEqual(['HEAD Bearer t0k', 'PATCH 400 application/offset+octet-stream']);
    expect(progress).toEqual([400, 800]);
    expect(tus.log.filter((l) => l.startsWith('POST'))).toHaveLength(1);
  });

  it('does not retry a 401: it rejects with the status and the server detail', async () => {
    const tus = tusServer({ unauthorized: true });
    const error = await tusUpload(file(10), { endpoint: `${BASE}/uploads`, uploadUrl: null, headers, chunkSize: 400, sleep: noSleep }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UploadHttpError);
    expect(error).toMatchObject({ status: 401, detail: 'Please log in to continue.' });
    expect(tus.log).toHaveLength(1);

    const resumed = await tusUpload(file(10), { endpoint: `${BASE}/uploads`, uploadUrl: `${BASE}/uploads/x`, headers, chunkSize: 400, sleep: noSleep }).catch((e: unknown) => e);
    expect(resumed).toMatchObject({ status: 401 });
    expect(tus.log).toHaveLength(2);
  });

  it('rejects with 404 when the server no longer has the upload (expired), and gives up after its retries on a dead network', async () => {
    tusServer();
    await expect(tusUpload(file(10), { endpoint: `${BASE}/uploads`, uploadUrl: `${BASE}/uploads/gone`, headers, chunkSize: 400, sleep: noSleep })).rejects.toMatchObject({ status: 404 });
    let calls = 0;
    server.use(
      http.post(`${BASE}/uploads`, () => {
        calls++;
        return HttpResponse.error();
      }),
    );
    await expect(tusUpload(file(10), { endpoint: `${BASE}/uploads`, uploadUrl: null, headers, chunkSize: 400, retryDelays: [0, 0], sleep: noSleep })).rejects.toMatchObject({ status: 0 });
    expect(calls).toBe(3);
  });
});
