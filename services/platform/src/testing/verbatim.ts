import { request } from 'node:http';

export interface VerbatimAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One HTTP request over a real socket whose path is sent byte for byte: fetch and Fastify's inject
 * resolve `..` and `%2e%2e` segments before sending (as browsers do), so a test of what a server
 * does with a path that climbs out of a folder must send it this way.
 */
export function requestVerbatim(
  base: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<VerbatimAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: options.method ?? 'GET', path: options.path, headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
