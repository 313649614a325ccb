import { ForbiddenError } from '@baret/platform';

/**
 * 403: the user's quota is used up. The message is the spec's; the HTTP layer answers it in the
 * language of Accept-Language (Turkish by default: 'Kullanım limitiniz doldu. …').
 */
export class QuotaExceededError extends ForbiddenError {
  constructor(readonly limit: string) {
    super('You have reached your usage limit. Please contact an admin.', { limit });
  }
}
