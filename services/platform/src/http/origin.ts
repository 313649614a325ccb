import type { FastifyRequest } from 'fastify';

/**
 * The address (scheme, host and port) a request came to — X-Forwarded-Proto/-Host only with
 * TRUST_PROXY, as Fastify reads them — or undefined when it is not a plain http(s) origin. Without
 * PUBLIC_URL, account mails link there when the notification service trusts it (docs/adr/0028).
 */
export function requestOrigin(request: Pick<FastifyRequest, 'protocol' | 'host'>): string | undefined {
  try {
    const url = new URL(`${request.protocol}://${request.host}`);
    return url.origin === 'null' ? undefined : url.origin;
  } catch {
    return undefined;
  }
}
