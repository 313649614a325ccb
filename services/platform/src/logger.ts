import pino, { type Logger, type LoggerOptions } from 'pino';
import { activeTraceIds } from './telemetry.js';

/** Paths whose values never reach a log line. */
export const REDACT_PATHS = [
  'password',
  '*.password',
  'token',
  '*.token',
  'access_token',
  '*.access_token',
  'secret',
  '*.secret',
  'apiKey',
  '*.apiKey',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-baret-service"]',
  'SERVICE_SECRET',
  '*.SERVICE_SECRET',
  'headers.authorization',
  'res.headers["set-cookie"]',
  'JWT_SECRET',
  '*.JWT_SECRET',
  'JWT_PREVIOUS_SECRET',
  '*.JWT_PREVIOUS_SECRET',
  'OPENAI_API_KEY',
  '*.OPENAI_API_KEY',
  'S3_SECRET_KEY',
  '*.S3_SECRET_KEY',
  'SMTP_URL',
  '*.SMTP_URL',
  'OIDC_CLIENT_SECRET',
  '*.OIDC_CLIENT_SECRET',
  'client_secret',
  '*.client_secret',
];

export function loggerOptions(level: string, name = 'baret'): LoggerOptions {
  return {
    name,
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    // A line written inside a span names it (trace_id, span_id): logs and traces meet (docs/adr/0014).
    mixin: activeTraceIds,
  };
}

/**
 * A logger writing JSON lines to `destination`, by default to standard output without blocking:
 * lines written while a write is under way go out together in the next one (one system call for
 * many lines under load, docs/adr/0019), and whatever is left is flushed when the process exits.
 */
export function createLogger(level: string, name = 'baret', destination?: pino.DestinationStream): Logger {
  return pino(loggerOptions(level, name), destination ?? pino.destination({ dest: 1, sync: false }));
}

export type { Logger };
