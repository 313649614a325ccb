import type { FastifyPluginAsync } from 'fastify';

/** Background work of a service: bus consumers, projections, workers. Runs until `signal` aborts. */
export interface BackgroundTask {
  name: string;
  run(signal: AbortSignal): Promise<void>;
}

/**
 * What a service hands its composition root: HTTP routes as one Fastify plugin (mounted by the
 * gateway in embedded mode, or by the service's own server in distributed mode), OpenAPI tags,
 * and its background tasks.
 */
export interface ServiceModule {
  name: string;
  routes?: FastifyPluginAsync;
  tags?: Array<{ name: string; description: string }>;
  tasks?: BackgroundTask[];
  /**
   * Routes other services call at once in the distributed run (docs/adr/0011), mounted under
   * /internal by the service's own server, only for callers with a service credential.
   */
  internal?: FastifyPluginAsync;
  /** The indexes its read models' queries need, by collection (created at start on MongoDB). */
  indexes?: Record<string, ReadonlyArray<Record<string, 1 | -1>>>;
}
