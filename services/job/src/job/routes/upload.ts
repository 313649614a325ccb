import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { principalOf, problems, ValidationError } from '@baret/platform';
import { uploadIdOf } from '../../params.js';
import { receiveForm } from '../../upload.js';
import type { JobRoutesDeps } from './deps.js';
import { bearer, Str } from './schemas.js';

/** Upload a video (or name a finished resumable upload) and queue its analysis. */
export const uploadRoutes =
  (deps: JobRoutesDeps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/analyze',
      {
        preHandler: app.requireUser,
        config: { principalLimit: { max: 30, timeWindow: '1 hour' } },
        schema: {
          tags: ['jobs'],
          summary: 'Upload a video (multipart: file, payload) and queue its analysis; uses one unit of quota',
          description:
            '`payload` is a JSON string: { job_type: "auto" | task slug, sampling: "person" | "uniform", target_composites: 1–20, frames_per_composite: 2–8, dedupe_by_equipment: boolean }, or the same inside `params`. ' +
            'Instead of a `file` part, `payload.upload_id` may name a finished resumable upload (tus, `POST /uploads`) of the same user; it is removed once it becomes a job or is rejected.',
          consumes: ['multipart/form-data'],
          security: bearer,
          response: { 202: Type.Object({ job_id: Str, status: Type.Literal('queued') }), ...problems(400, 401, 403, 413, 415, 429) },
        },
      },
      async (request, reply) => {
        const { file, fields } = await receiveForm(request, deps.maxUploadBytes, deps.scratchDir);
        try {
          const uploadId = uploadIdOf(fields.payload);
          if (file && uploadId) throw new ValidationError('Send either a video in "file" or the upload_id of a resumable upload, not both.');
          if (uploadId) return reply.code(202).send(await deps.submitResumable(principalOf(request), uploadId, fields));
          if (!file) throw new ValidationError('Please choose a video to upload (the "file" field is missing).');
          return reply.code(202).send(await deps.submit(principalOf(request), file));
        } finally {
          await file?.discard();
        }
      },
    );
  };
