import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isDomainError } from '../errors.js';
import { briefError, isUnavailable, RETRY_AFTER_SECONDS } from '../unavailable.js';
import { localizeMessage } from '../i18n/messages.js';
import { preferredLang } from './lang.js';

/** RFC 7807 problem details, as every error of the API is answered. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  request_id?: string;
  code?: string;
  errors?: Array<{ field: string; message: string }>;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/**
 * Answers a problem. `detail` and the field messages are written in English by the services and
 * answered in the language of the request's Accept-Language (Turkish by default).
 */
export function sendProblem(reply: FastifyReply, problem: Omit<Problem, 'type' | 'title'> & Partial<Problem>): FastifyReply {
  const lang = preferredLang(reply.request.headers['accept-language']);
  const body: Problem = {
    type: problem.type ?? 'about:blank',
    title: problem.title ?? TITLES[problem.status] ?? 'Error',
    ...problem,
    detail: localizeMessage(problem.detail, lang),
    ...(problem.errors ? { errors: problem.errors.map((e) => ({ ...e, message: localizeMessage(e.message, lang) })) } : {}),
    request_id: String(reply.request.id),
    instance: reply.request.url.split('?')[0],
  };
  return reply.code(problem.status).type('application/problem+json').send(body);
}

function fieldOf(instancePath: string | undefined, missing: unknown): string {
  const path = (instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const m = typeof missing === 'string' ? missing : '';
  return [path, m].filter(Boolean).join('.') || '(body)';
}

/** The 404 answer for a path no route serves. */
export const notFoundProblem = (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
  sendProblem(reply, { status: 404, code: 'not_found', detail: `No route for ${request.method} ${request.url.split('?')[0]}` });

interface ValidationItem {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Ajv's messages, rewritten as sentences a user can act on. */
function sentence(field: string, v: ValidationItem): string {
  const p = v.params ?? {};
  switch (v.keyword) {
    case 'required':
      return `${field} is required.`;
    case 'minLength':
      return Number(p.limit) === 1 ? `${field} must not be empty.` : `${field} must be at least ${String(p.limit)} characters long.`;
    case 'maxLength':
      return `${field} must be at most ${String(p.limit)} characters long.`;
    case 'format':
      return p.format === 'email' ? `${field} must be a valid email address.` : `${field} must be a valid ${String(p.format)}.`;
    case 'minimum':
      return `${field} must be ${String(p.limit)} or more.`;
    case 'maximum':
      return `${field} must be ${String(p.limit)} or less.`;
    case 'type':
      return `${field} must be ${String(p.type).replace(',', ' or ')}.`;
    case 'enum':
      return `${field} must be one of: ${(p.allowedValues as unknown[] | undefined)?.map(String).join(', ') ?? ''}.`;
    case 'additionalProperties':
      return `${String(p.additionalProperty)} is not a field we accept here.`;
    case 'anyOf':
      return `${field} is not valid.`;
    case 'x-finite':
      return `${field} must be a finite number.`;
    default:
      return `${field} ${v.message ?? 'is not valid'}.`;
  }
}

/**
 * One error handler for the whole API: domain errors and Fastify's own errors become
 * problem+json with a message fit for a user; anything unexpected is logged in full and
 * answered as a bare 500 that leaks nothing.
 */
export const problemPlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      if (isDomainError(error)) {
        if (error.status >= 500) request.log.error({ err: error }, 'request failed');
        const retryAfter = error.details?.retryAfterSeconds;
        if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
        else if (error.status === 503) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
        return sendProblem(reply, {
          status: error.status,
          code: error.code,
          detail: error.status >= 500 ? 'The service is temporarily unavailable. Please try again.' : error.message,
        });
      }
      if (error.validation) {
        const items = error.validation as ValidationItem[];
        // anyOf/const noise from nullable unions says nothing a person can use.
        const useful = items.filter((v) => v.keyword !== 'anyOf' && v.keyword !== 'const');
        const errors = (useful.length ? useful : items).map((v) => {
          const field = fieldOf(v.instancePath, v.params?.missingProperty);
          return { field, message: sentence(field, v) };
        });
        const unique = [...new Map(errors.map((e) => [e.message, e])).values()];
        return sendProblem(reply, {
          status: 400,
          code: 'validation_error',
          detail: unique.map((e) => e.message).join(' '),
          errors: unique,
        });
      }
      // An engine or another service down or restarting: an honest 503 the client may retry.
      if (isUnavailable(error)) {
        request.log.warn({ error: briefError(error) }, 'a dependency is unavailable');
        reply.header('retry-after', String(RETRY_AFTER_SECONDS));
        return sendProblem(reply, { status: 503, code: 'service_unavailable', detail: 'A part of Baret is not reachable right now. Please try again in a moment.' });
      }
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        return sendProblem(reply, { status, code: error.code?.toLowerCase(), detail: error.message });
      }
      request.log.error({ err: error }, 'unhandled error');
      return sendProblem(reply, {
        status: 500,
        code: 'internal_error',
        detail: 'Something went wrong on our side. Please try again later.',
      });
    });
  },
  { name: 'baret-problem' },
);
