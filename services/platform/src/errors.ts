/**
 * Typed domain errors. Services throw these; the HTTP layer maps them once, centrally,
 * to RFC 7807 problem+json (see http/problem.ts). Messages of 4xx errors are shown to users,
 * so they must be written for a person; 5xx details never leave the server.
 */
export abstract class DomainError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends DomainError {
  readonly status = 400;
  readonly code = 'validation_error';
}
export class UnauthorizedError extends DomainError {
  readonly status = 401;
  readonly code = 'unauthorized';
}
export class ForbiddenError extends DomainError {
  readonly status = 403;
  readonly code = 'forbidden';
}
export class NotFoundError extends DomainError {
  readonly status = 404;
  readonly code = 'not_found';
}
/** The command is not allowed in the aggregate's current state. */
export class IllegalStateError extends DomainError {
  readonly status = 409;
  readonly code = 'illegal_state';
}
/** The request conflicts with existing data (e.g. a duplicate). */
export class ConflictError extends DomainError {
  readonly status = 409;
  readonly code = 'conflict';
}
/** Optimistic concurrency: the stream moved on since it was read. */
export class ConcurrencyError extends DomainError {
  readonly status = 409;
  readonly code = 'concurrency_conflict';
}
export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
  readonly code = 'payload_too_large';
}
export class UnsupportedMediaTypeError extends DomainError {
  readonly status = 415;
  readonly code = 'unsupported_media_type';
}
export class TooManyRequestsError extends DomainError {
  readonly status = 429;
  readonly code = 'too_many_requests';
}
export class ServiceUnavailableError extends DomainError {
  readonly status = 503;
  readonly code = 'service_unavailable';
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;
