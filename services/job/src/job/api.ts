import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { JobRoutesDeps } from './routes/deps.js';
import { adminRoutes } from './routes/admin.js';
import { evidenceRoutes } from './routes/evidence.js';
import { listRoutes } from './routes/list.js';
import { reportRoutes } from './routes/report.js';
import { reviewExportRoutes } from './routes/reviewExport.js';
import { reviewRoutes } from './routes/reviews.js';
import { uploadRoutes } from './routes/upload.js';
import { viewRoutes } from './routes/view.js';

export type { JobRoutesDeps, UnitNames } from './routes/deps.js';

/**
 * The job's routes (one plugin per resource, in routes/): upload, your jobs, a job, its evidence,
 * its PDF report, its reviews, the organisation's reviewed set, and the admin's jobs and usage. Multipart bodies are read for all of them.
 */
export const jobRoutes =
  (deps: JobRoutesDeps): FastifyPluginAsync =>
  async (instance: FastifyInstance) => {
    await instance.register(multipart, { limits: { fileSize: deps.maxUploadBytes } });
    await instance.register(uploadRoutes(deps));
    await instance.register(listRoutes(deps));
    await instance.register(viewRoutes(deps));
    await instance.register(evidenceRoutes(deps));
    await instance.register(reportRoutes(deps));
    await instance.register(reviewRoutes(deps));
    await instance.register(reviewExportRoutes(deps));
    await instance.register(adminRoutes(deps));
  };
