import { ForbiddenError, type Lang } from '@baret/platform';

/** The quota message of the spec, in the language the client asked for (Turkish by default). */
export const QUOTA_DETAIL: Record<Lang, string> = {
  tr: 'Kullanım limitiniz doldu. Lütfen admin ile iletişime geçin.',
  en: 'You have reached your usage limit. Please contact an admin.',
};

/** 403: the user's quota is used up. The HTTP layer answers in the language of Accept-Language. */
export class QuotaExceededError extends ForbiddenError {
  constructor(
    readonly limit: string,
    lang: Lang = 'tr',
  ) {
    super(QUOTA_DETAIL[lang], { limit });
  }
}
