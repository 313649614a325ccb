import { DomainError, ForbiddenError } from '@baret/platform';

/**
 * 403: the user's quota is used up. The message is the spec's; the HTTP layer answers it in the
 * language of Accept-Language (Turkish by default: 'Kullanım limitiniz doldu. …').
 */
export class QuotaExceededError extends ForbiddenError {
  /** `orgMember`: the analyses are the organisation's, so its managers are the people to ask (issue 40). */
  constructor(
    readonly limit: string,
    orgMember = false,
  ) {
    super(orgMember ? ORG_QUOTA_EXCEEDED : 'You have reached your usage limit. Please contact an admin.', { limit, ...(orgMember ? { ask: 'org_managers' } : {}) });
  }
}

export const ORG_QUOTA_EXCEEDED = 'Your organisation has used up the analyses of its plan. Please ask your organisation’s managers.';

/** 403: an admin requires a confirmed e-mail address before analyses, and this user has not confirmed theirs. */
export class EmailNotVerifiedError extends DomainError {
  readonly status = 403;
  readonly code = 'email_not_verified';
  constructor() {
    super('Please confirm your e-mail address first: open the link we sent you.');
  }
}
