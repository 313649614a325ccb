import type { AuthResolvers, Config, Infrastructure } from '@baret/platform';
import { createEmbeddedInfrastructure, runRelay, type BackgroundTask, type Checkpoint } from '@baret/platform';
import { buildGateway, type RouteModule } from '@baret/gateway';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

export interface Standalone {
  app: FastifyInstance;
  infra: Infrastructure;
  /** Stops background work and closes the stores. The app is closed separately. */
  stop(): Promise<void>;
}

export interface StandaloneOptions {
  config: Config;
  logger: Logger;
  webDir?: string;
  version?: string;
  clock?: () => Date;
}

/**
 * The composition root of the embedded run: every service on embedded adapters in one process,
 * behind one gateway.
 */
export async function createStandalone(opts: StandaloneOptions): Promise<Standalone> {
  const { config, logger } = opts;
  const infra = await createEmbeddedInfrastructure(config, logger, opts.clock);
  const controller = new AbortController();

  const auth: AuthResolvers = {
    userById: async () => null,
    userByApiKey: async () => null,
    isApiKey: (token) => token.startsWith('baret_'),
  };
  const modules: RouteModule[] = [];
  const tasks: BackgroundTask[] = [
    {
      name: 'relay',
      run: (signal) =>
        runRelay({
          name: 'relay:embedded',
          eventStore: infra.eventStore,
          bus: infra.bus,
          checkpoints: infra.documents.collection<Checkpoint>('checkpoints'),
          log: logger,
          signal,
        }),
    },
  ];

  const running = tasks.map((task) =>
    task.run(controller.signal).catch((err: unknown) => {
      if (!controller.signal.aborted) logger.error({ err, task: task.name }, 'background task failed');
    }),
  );

  const app = await buildGateway({ config, logger, infra, auth, modules, webDir: opts.webDir, version: opts.version });
  return {
    app,
    infra,
    stop: async () => {
      controller.abort();
      await Promise.all(running);
      await infra.close();
    },
  };
}
