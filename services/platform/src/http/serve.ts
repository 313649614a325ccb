import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/**
 * Listens, and shuts down gracefully on SIGTERM/SIGINT: stop accepting, finish in-flight
 * requests, then run `onShutdown` (stop consumers, close stores). A second signal exits at once.
 */
export async function serve(
  app: FastifyInstance,
  options: { host: string; port: number; log: Logger; onShutdown?: () => Promise<void>; graceMs?: number },
): Promise<string> {
  const address = await app.listen({ host: options.host, port: options.port });
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      options.log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    options.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      options.log.error('shutdown took too long: exiting');
      process.exit(1);
    }, options.graceMs ?? 15_000);
    force.unref();
    void (async () => {
      try {
        await app.close();
        await options.onShutdown?.();
        options.log.info('stopped');
        process.exit(0);
      } catch (err) {
        options.log.error({ err }, 'shutdown failed');
        process.exit(1);
      }
    })();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return address;
}
