import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Modal } from '@/components/ui/modal';
import { Spinner } from '@/components/ui/spinner';
import { useEvidenceImage } from '@/features/analyze/api/get-evidence-image';
import { clockTime } from '@/features/analyze/model/result';
import { useTouchScreen } from '@/hooks/use-media-query';
import { useObjectUrl } from '@/hooks/use-object-url';
import { formatDateTime } from '@/lib/format';
import type { Violation } from '@/types/api';

/** Who reviewed a violation and when (issue 53), or that a reviewer added it; nothing before any review. */
function ReviewLine({ violation }: { violation: Violation }) {
  const { t, i18n } = useTranslation();
  if (violation.review === undefined) return null;
  if (violation.review === null) return <span className="muted small review-line">{t('analyze.result.notReviewed')}</span>;
  const by = violation.review.by_name ?? t('analyze.result.erasedReviewer');
  const at = formatDateTime(violation.review.at, i18n.language);
  return (
    <span className="small review-line">
      {t(violation.added_by_review ? 'analyze.result.addedByReview' : violation.dismissed ? 'analyze.result.dismissedBy' : 'analyze.result.reviewedBy', { by, at })}
      {violation.review.note ? ` — “${violation.review.note}”` : ''}
    </span>
  );
}

/**
 * One violation: the worker's crop, large, opening full size on click. Captioned from the worker's
 * whole track (issue 51): "group — worker n, seen 0:03–0:09, without it in 4 frames; evidence at
 * 0:05"; results stored before evidence_sec keep their captions ("group — worker n at 0:10", or
 * "0:09–0:12 (4 frames)" for a run).
 */
function ViolationCard({ violation }: { violation: Violation }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const image = useEvidenceImage(violation.image_url);
  const url = useObjectUrl(image.data);
  const time = clockTime(violation.time_sec);
  const end = violation.end_sec === undefined ? time : clockTime(violation.end_sec);
  const names = { group: violation.group_name, worker: violation.worker, time, end };
  const base =
    violation.evidence_sec !== undefined && violation.frames !== undefined
      ? end === time
        ? t('analyze.result.violationTrackMoment', { ...names, count: violation.frames })
        : t('analyze.result.violationTrackCaption', { ...names, count: violation.frames, evidence: clockTime(violation.evidence_sec) })
      : end === time
        ? t('analyze.result.violationCaption', names)
        : t('analyze.result.violationSpanCaption', { ...names, frames: violation.frames ?? 2 });
  // What the worker had instead ("cap or hat, not a hard hat" / "bare head"), in the page's language.
  const reason = violation.reason ? t(`analyze.result.reason.${violation.reason}`) : null;
  const caption = reason ? t('analyze.result.violationWithReason', { caption: base, reason }) : base;
  return (
    <figure className="violation">
      {violation.image_url === null ? (
        <div className="violation-frame no-crop">
          <span className="muted small">{t('analyze.result.noCrop')}</span>
        </div>
      ) : (
        <button type="button" className="violation-frame" onClick={() => setOpen(true)} disabled={!url} aria-label={t('analyze.result.violationOpen', { caption })}>
          {url ? <img src={url} alt={caption} /> : image.isError ? <span className="muted small">{t('analyze.result.evidenceFailed')}</span> : <Spinner size="sm" />}
        </button>
      )}
      <figcaption>
        {caption} <ReviewLine violation={violation} />
      </figcaption>
      <Modal open={open} title={caption} onClose={() => setOpen(false)} size="lg" closeLabel={t('analyze.result.close')}>
        {url ? <img className="violation-full" src={url} alt={caption} /> : null}
      </Modal>
    </figure>
  );
}

const violationKey = (v: Violation) => v.image_url ?? `added-${v.worker}-${v.group.join(',')}`;

/** The violations that count; those a reviewer dismissed apart, under their own heading (what was cleared, by whom). */
export function ViolationGallery({ items }: { items: Violation[] }) {
  const { t } = useTranslation();
  const touch = useTouchScreen();
  const counted = items.filter((v) => !v.dismissed);
  const dismissed = items.filter((v) => v.dismissed);
  if (items.length === 0) return null;
  return (
    <>
      {counted.length > 0 ? (
        <section className="result-block violations" aria-labelledby="violations-title">
          <h3 id="violations-title" className="block-title">
            {t('analyze.result.violations')}
          </h3>
          <p className="muted small">{t(touch ? 'analyze.result.violationsHintTouch' : 'analyze.result.violationsHint')}</p>
          <div className="violation-grid">
            {counted.map((item) => (
              <ViolationCard key={violationKey(item)} violation={item} />
            ))}
          </div>
        </section>
      ) : null}
      {dismissed.length > 0 ? (
        <section className="result-block violations dismissed" aria-labelledby="dismissed-title">
          <h3 id="dismissed-title" className="block-title">
            {t('analyze.result.dismissedTitle')}
          </h3>
          <p className="muted small">{t('analyze.result.dismissedHint')}</p>
          <div className="violation-grid">
            {dismissed.map((item) => (
              <ViolationCard key={violationKey(item)} violation={item} />
            ))}
          </div>
        </section>
      ) : null}
    </>
  );
}
