import { AsyncLocalStorage } from 'node:async_hooks';
import { Server, type DataStore, type Upload } from '@tus/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isUnavailable, localizeMessage, NotFoundError, preferredLang, principalOf, ProblemSchema, RETRY_AFTER_SECONDS, ValidationError } from '@baret/platform';
import type { ServerResponse } from 'node:http';

/** Where resumable uploads live; an API prefix, so the web app never answers under it. */
export const TUS_PATH = '/uploads';

/**
 * The resumable upload store: a tus DataStore (kept through the
 * object store port) that records who created each upload.
 */
export interface ResumableUploads {
  datastore: DataStore;
  /** The metadata of a new upload of `userId`; the store keeps the owner aside. */
  withOwner(metadata: Record<string, string | null> | undefined, userId: string): Record<string, string | null>;
  /** Who created an upload; null when there is none with this id. */
  ownerOf(id: string): Promise<string | null>;
}

export interface TusPluginOptions {
  uploads: ResumableUploads;
  /** UPLOAD_MAX_BYTES: a larger Upload-Length is a 413. */
  maxBytes: number;
}

const header = (description: string) => ({ type: 'string', description });
const TUS_RESUMABLE = header('The tus protocol version: 1.0.0');
const said = (description: string) => ({ description, type: 'null' });
/** Refusals by Baret before tus sees the request: problem+json. */
const problem = (description: string) => ({ ...ProblemSchema, description });
const errors = {
  400: problem('The address names another upload than its path (a query string ending in /{id}); a missing or invalid tus header is a plain-text 400 from tus'),
  401: problem('Not logged in'),
  404: problem('No such upload of yours (or it has expired)'),
  413: said('Upload-Length is over UPLOAD_MAX_BYTES'),
};
const idParams = { type: 'object', properties: { id: { type: 'string', description: 'The upload id (last segment of Location)' } }, required: ['id'] };
const security = [{ bearer: [] }];

/**
 * The upload a request's address names as @tus/server 2 reads it by default: the last segment of
 * the whole URL, query string included (`/uploads/a?x=/b` names `b`). Only used to refuse an
 * address that names another upload than its path does; tus itself is given the checked id.
 */
function idAsTusReadsIt(url: string): string | undefined {
  const last = /([^/]+)\/?$/.exec(url)?.[1];
  try {
    return last === undefined ? undefined : decodeURIComponent(last);
  } catch {
    return undefined;
  }
}

/** OpenAPI descriptions of the tus routes (the replies come from @tus/server, not from these schemas). */
const TUS_SCHEMAS = {
  POST: {
    tags: ['jobs'],
    summary: 'Create a resumable upload (tus 1.0 creation); then send the video with PATCH and pass its id as payload.upload_id to POST /analyze',
    security,
    headers: {
      type: 'object',
      properties: {
        'tus-resumable': TUS_RESUMABLE,
        'upload-length': header('The size of the video in bytes'),
        'upload-metadata': header('Comma-separated "key base64(value)" pairs: filename, filetype'),
      },
    },
    response: { 201: said('Created: Location names the upload, Upload-Expires when it is deleted if unfinished'), ...errors },
  },
  HEAD: {
    tags: ['jobs'],
    summary: 'Where to continue a resumable upload: Upload-Offset and Upload-Length',
    security,
    params: idParams,
    headers: { type: 'object', properties: { 'tus-resumable': TUS_RESUMABLE } },
    response: { 200: said('Upload-Offset: bytes stored so far; Upload-Length: the total'), 400: errors[400], 401: errors[401], 404: errors[404] },
  },
  PATCH: {
    tags: ['jobs'],
    summary: 'Send the next bytes of a resumable upload (Content-Type: application/offset+octet-stream); HEAD /uploads/{id} answers Upload-Offset, where to continue after a cut',
    security,
    params: idParams,
    headers: {
      type: 'object',
      properties: { 'tus-resumable': TUS_RESUMABLE, 'upload-offset': header('Must equal the stored offset (HEAD)') },
    },
    response: { 204: said('Stored: Upload-Offset is the new offset'), 409: said('Upload-Offset does not match the stored offset'), ...errors },
  },
  DELETE: {
    tags: ['jobs'],
    summary: 'Abandon a resumable upload (tus termination)',
    security,
    params: idParams,
    headers: { type: 'object', properties: { 'tus-resumable': TUS_RESUMABLE } },
    response: { 204: said('Deleted'), 400: errors[400], 401: errors[401], 404: errors[404] },
  },
};

/**
 * The tus 1.0 protocol (creation, creation-with-upload, termination, expiration) at /uploads,
 * served by @tus/server. Every request carries the same bearer token or API key as the API;
 * an upload is visible only to the user who created it (anyone else gets 404).
 */
export const tusPlugin = fp<TusPluginOptions>(
  async (app: FastifyInstance, opts) => {
    // The request's user, and the upload id whose owner was checked (see handle below).
    const owner = new AsyncLocalStorage<{ userId: string; uploadId?: string; res: ServerResponse }>();
    const tus = new Server({
      path: TUS_PATH,
      datastore: opts.uploads.datastore,
      maxSize: opts.maxBytes,
      relativeLocation: true,
      // tus acts on the upload whose owner was checked, never on an id it reads from the URL itself.
      getFileIdFromRequest: () => owner.getStore()?.uploadId,
      // The user resolved by the gateway's auth for this request (see handle below).
      onUploadCreate: async (_req: Request, upload: Upload) => {
        const userId = owner.getStore()?.userId;
        if (!userId) throw { status_code: 401, body: 'Please log in to continue.\n' };
        return { metadata: opts.uploads.withOwner(upload.metadata, userId) };
      },
      onResponseError: (req: Request, err: Error | { status_code: number; body: string }) => {
        // The object store down (or restarting): an honest 503 the client retries, never a 500.
        if (isUnavailable(err)) {
          app.log.warn({ err: { type: (err as Error).name, message: (err as Error).message } }, 'resumable upload: the object store is unavailable');
          owner.getStore()?.res.setHeader('retry-after', String(RETRY_AFTER_SECONDS));
          const detail = localizeMessage('A part of Baret is not reachable right now. Please try again in a moment.', preferredLang(req.headers.get('accept-language') ?? undefined));
          return { status_code: 503, body: `${detail}\n` };
        }
        if (err instanceof Error) app.log.error({ err }, 'resumable upload failed');
        return undefined;
      },
    });

    const handle = async (request: FastifyRequest<{ Params: { id?: string } }>, reply: FastifyReply) => {
      const principal = principalOf(request);
      const id = request.params.id;
      if (id !== undefined && idAsTusReadsIt(request.raw.url ?? '') !== id) {
        throw new ValidationError('The address names more than one upload. Use /uploads/{id} as given in Location.');
      }
      if (id !== undefined && (await opts.uploads.ownerOf(id)) !== principal.userId) {
        throw new NotFoundError('This upload does not exist.');
      }
      // Headers set so far by the gateway's hooks (security headers, request id) go out too.
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
      reply.hijack();
      await owner.run({ userId: principal.userId, ...(id !== undefined ? { uploadId: id } : {}), res: reply.raw }, () => tus.handle(request.raw, reply.raw));
    };

    await app.register(async (scope) => {
      // PATCH bodies stream straight to the store: no body parsing here.
      scope.addContentTypeParser('application/offset+octet-stream', (_request, _payload, done) => done(null));
      scope.route({ method: 'POST', url: TUS_PATH, schema: TUS_SCHEMAS.POST, preHandler: scope.requireUser, handler: handle });
      for (const method of ['HEAD', 'PATCH', 'DELETE'] as const) {
        scope.route<{ Params: { id: string } }>({ method, url: `${TUS_PATH}/:id`, schema: TUS_SCHEMAS[method], preHandler: scope.requireUser, handler: handle });
      }
    });
  },
  { name: 'baret-tus' },
);
