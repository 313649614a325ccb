import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Modal } from '@/components/ui/modal';
import { Spinner } from '@/components/ui/spinner';
import { useEvidenceImage } from '@/features/analyze/api/get-evidence-image';
import { clockTime } from '@/features/analyze/model/result';
import { useTouchScreen } from '@/hooks/use-media-query';
import { useObjectUrl } from '@/hooks/use-object-url';
import type { Violation } from '@/types/api';

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
      <button type="button" className="violation-frame" onClick={() => setOpen(true)} disabled={!url} aria-label={t('analyze.result.violationOpen', { caption })}>
        {url ? <img src={url} alt={caption} /> : image.isError ? <span className="muted small">{t('analyze.result.evidenceFailed')}</span> : <Spinner size="sm" />}
      </button>
      <figcaption>{caption}</figcaption>
      <Modal open={open} title={caption} onClose={() => setOpen(false)} size="lg" closeLabel={t('analyze.result.close')}>
        {url ? <img className="violation-full" src={url} alt={caption} /> : null}
      </Modal>
    </figure>
  );
}

export function ViolationGallery({ items }: { items: Violation[] }) {
  const { t } = useTranslation();
  const touch = useTouchScreen();
  if (items.length === 0) return null;
  return (
    <section className="result-block violations" aria-labelledby="violations-title">
      <h3 id="violations-title" className="block-title">
        {t('analyze.result.violations')}
      </h3>
      <p className="muted small">{t(touch ? 'analyze.result.violationsHintTouch' : 'analyze.result.violationsHint')}</p>
      <div className="violation-grid">
        {items.map((item) => (
          <ViolationCard key={item.image_url} violation={item} />
        ))}
      </div>
    </section>
  );
}
