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

export function createLogger(level: string, name = 'baret', destination?: pino.DestinationStream): Logger {
  return destination ? pino(loggerOptions(level, name), destination) : pino(loggerOptions(level, name));
}

export type { Logger };
