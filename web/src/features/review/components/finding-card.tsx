import { useId, useState, type KeyboardEvent, type Ref } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Modal } from '@/components/ui/modal';
import { Spinner } from '@/components/ui/spinner';
import { useFindingImage } from '@/features/review/api/get-finding-image';
import { useReviewFindings } from '@/features/review/api/review-finding';
import { CHOICES, type Finding } from '@/features/review/model/findings';
import { useObjectUrl } from '@/hooks/use-object-url';
import { serverReason } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import type { ReviewVerdict } from '@/types/api';

const VERDICT_TONE = { worn: 'success', missing: 'danger', cannot_tell: 'neutral', not_a_worker: 'neutral' } as const;

/** The words of a choice for this kind of item ("No hard hat", "Vest worn", "Right"). */
export function useChoiceLabel() {
  const { t } = useTranslation();
  return (verdict: ReviewVerdict, finding: Pick<Finding, 'kind'>) => (verdict === 'worn' || verdict === 'missing' ? t(`review.choice.${verdict}.${finding.kind}`) : t(`review.choice.${verdict}`));
}

function FindingCrop({ finding, title }: { finding: Finding; title: string }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const image = useFindingImage(finding.imageUrl);
  const url = useObjectUrl(image.data);
  if (!finding.imageUrl) return <span className="muted small review-no-crop">{t('review.noCrop')}</span>;
  const alt = t('review.cropAlt', { title });
  return (
    <>
      <button type="button" className="review-crop-button" onClick={() => setOpen(true)} disabled={!url} aria-label={t('review.openCrop', { title })}>
        {url ? <img src={url} alt={alt} /> : image.isError ? <span className="muted small">{t('analyze.result.evidenceFailed')}</span> : <Spinner size="sm" />}
      </button>
      <Modal open={open} title={title} onClose={() => setOpen(false)} size="lg" closeLabel={t('analyze.result.close')}>
        {url ? <img className="violation-full" src={url} alt={alt} /> : null}
      </Modal>
    </>
  );
}

/** The whole frame with the worker boxed (faces covered), fetched when opened: the scene the crop was cut from. */
function WholeFrame({ finding, title, open, setOpen }: { finding: Finding; title: string; open: boolean; setOpen: (open: boolean) => void }) {
  const { t } = useTranslation();
  const url = finding.imageUrl ? `${finding.imageUrl}/frame` : null;
  const image = useFindingImage(open ? url : null);
  const objectUrl = useObjectUrl(image.data);
  if (!url) return null;
  const alt = t('review.frameAlt', { title });
  return (
    <>
      {/* Named by its visible words, the card's title after them for a screen reader (WCAG 2.5.3). */}
      <button type="button" className="text-link review-frame-link" onClick={() => setOpen(true)} aria-keyshortcuts="f">
        {t('review.wholeFrame')} <span className="visually-hidden">— {title}</span> <kbd aria-hidden="true">f</kbd>
      </button>
      <Modal open={open} title={t('review.frameTitle', { title })} onClose={() => setOpen(false)} size="lg" closeLabel={t('analyze.result.close')}>
        {objectUrl ? <img className="violation-full" src={objectUrl} alt={alt} /> : image.isError ? <p className="muted">{t('review.frameMissing')}</p> : <Spinner size="sm" />}
      </Modal>
    </>
  );
}

function ReviewState({ finding, id }: { finding: Finding; id: string }) {
  const { t, i18n } = useTranslation();
  const label = useChoiceLabel();
  const review = finding.review;
  if (!review) return <p id={id} className="review-state muted small">{t('review.notReviewed')}</p>;
  return (
    <p id={id} className="review-state small">
      {t('review.reviewedBy', { by: review.by_name ?? t('review.erasedReviewer'), at: formatDateTime(review.at, i18n.language), verdict: label(review.verdict, finding) })}
    </p>
  );
}

export interface FindingCardProps {
  jobId: string;
  finding: Finding;
  /** The groups of this worker's findings: "not a worker" reviews each of them. */
  groupsOfWorker: string[];
  actionable: boolean;
  index: number;
  cardRef: Ref<HTMLElement>;
  /** After a recorded review: the board moves on to the next card. */
  onReviewed: (index: number) => void;
}

/**
 * One worker and one item: the evidence crop, what Baret says and how sure it is, the review
 * standing, and — for whoever may review — the four choices, on keys 1–4 while the card (or one of
 * its buttons) has the focus; big buttons for touch.
 */
export function FindingCard({ jobId, finding, groupsOfWorker, actionable, index, cardRef, onReviewed }: FindingCardProps) {
  const { t } = useTranslation();
  const label = useChoiceLabel();
  const mutation = useReviewFindings(jobId);
  const titleId = useId();
  const stateId = useId();
  // A hard hat and a hi-vis vest by their short names (the group's full name is long: "… helmet / … helmet / …").
  const title = t('review.cardTitle', { worker: finding.worker, item: finding.kind === 'other' ? finding.groupName : t(`review.item.${finding.kind}`) });
  const current = finding.review?.verdict ?? null;
  const [frameOpen, setFrameOpen] = useState(false);

  const choose = (verdict: ReviewVerdict) => {
    if (mutation.isPending) return;
    const groups = verdict === 'not_a_worker' ? groupsOfWorker : [finding.group];
    mutation.mutate(
      groups.map((group) => ({ worker: finding.worker, group, verdict })),
      { onSuccess: () => onReviewed(index) },
    );
  };

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    // Keys pressed in a dialog the card opened (a portal: its events bubble here through React) are the dialog's.
    if (event.altKey || event.ctrlKey || event.metaKey || !event.currentTarget.contains(event.target as Node)) return;
    if (event.key === 'f' && finding.imageUrl) {
      event.preventDefault();
      setFrameOpen(true);
      return;
    }
    if (!actionable) return;
    const choice = CHOICES[Number(event.key) - 1];
    if (!/^[1-4]$/.test(event.key) || !choice) return;
    event.preventDefault();
    event.stopPropagation();
    choose(choice);
  };

  const sure = finding.verdict === 'cannot_tell' ? t('review.cannotTellSure') : finding.confidence === null ? t('review.sureUnknown') : t('review.sure', { percent: Math.round(finding.confidence * 100) });
  const changed = finding.review && finding.reviewedVerdict !== finding.verdict;

  return (
    <article
      ref={cardRef}
      tabIndex={0}
      className={finding.review ? 'review-card is-reviewed' : 'review-card'}
      aria-labelledby={titleId}
      aria-describedby={stateId}
      data-card-index={index}
      onKeyDown={onKeyDown}
    >
      <div className="review-evidence">
        <div className="review-crop">
          <FindingCrop finding={finding} title={title} />
        </div>
        <WholeFrame finding={finding} title={title} open={frameOpen} setOpen={setFrameOpen} />
      </div>
      <div className="review-body">
        <h3 id={titleId} className="review-title" title={finding.groupName}>
          {title}
        </h3>
        <p className="review-model small">
          {t('review.baretSays')} <Badge tone={VERDICT_TONE[finding.verdict]}>{t(`analyze.result.verdict.${finding.verdict}`)}</Badge> <span className="muted">{sure}</span>
        </p>
        {changed ? (
          <p className="small review-now">
            {t('review.nowCounts')} <Badge tone={VERDICT_TONE[finding.reviewedVerdict]}>{t(`review.counted.${finding.reviewedVerdict}`)}</Badge>
          </p>
        ) : null}
        <ReviewState finding={finding} id={stateId} />
        {actionable ? (
          <div className="review-choices" role="group" aria-label={t('review.choicesLabel', { title })}>
            {CHOICES.map((verdict, i) => (
              <Button
                key={verdict}
                variant={current === verdict ? 'primary' : 'secondary'}
                aria-pressed={current === verdict}
                aria-keyshortcuts={String(i + 1)}
                disabled={mutation.isPending}
                onClick={() => choose(verdict)}
                icon={<kbd aria-hidden="true">{i + 1}</kbd>}
              >
                {label(verdict, finding)}
              </Button>
            ))}
          </div>
        ) : null}
        {mutation.isPending ? <Spinner size="sm" label={t('review.saving')} /> : null}
        {mutation.isError ? <Alert tone="error">{serverReason(mutation.error) ?? t('review.failed')}</Alert> : null}
      </div>
    </article>
  );
}
