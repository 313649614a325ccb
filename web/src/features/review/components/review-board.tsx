import { useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router-dom';

import { FindingCard } from '@/features/review/components/finding-card';
import { reviewFindings, workerGroups } from '@/features/review/model/findings';
import { useTouchScreen } from '@/hooks/use-media-query';
import type { JobDetail } from '@/types/api';

const NEXT = new Set(['j', 'ArrowDown']);
const PREVIOUS = new Set(['k', 'ArrowUp']);

/**
 * Every worker on one screen (issue 53): one card per worker and item, the least sure first,
 * "cannot tell" included. Whoever may review (the server says so: `may_review`) marks each one —
 * j/k or ↓/↑ move from card to card, 1–4 choose, and the focus moves on after each review. Others
 * see the reviews standing, without controls; a job without reviews shows them nothing here.
 */
export function ReviewBoard({ job }: { job: JobDetail }) {
  const { t } = useTranslation();
  const findings = useMemo(() => (job.status === 'done' && job.result ? reviewFindings(job.result) : []), [job.status, job.result]);
  const cards = useRef<(HTMLElement | null)[]>([]);
  const actionable = job.may_review === true;
  // The keys are a keyboard's: a phone shows the buttons alone (issue 54's one question, useTouchScreen).
  const touch = useTouchScreen();
  const { hash } = useLocation();
  const arrived = useRef(false);
  // Opened from a notice (`#review`): the first finding not yet reviewed has the focus, ready for the keys.
  useEffect(() => {
    if (arrived.current || hash !== '#review' || !actionable || findings.length === 0) return;
    arrived.current = true;
    const first = findings.findIndex((f) => !f.review);
    cards.current[Math.max(0, first)]?.focus();
  }, [hash, actionable, findings]);
  if (findings.length === 0 || (!actionable && !findings.some((f) => f.review))) return null;
  const reviewed = findings.filter((f) => f.review).length;

  const focusCard = (index: number) => cards.current[Math.max(0, Math.min(findings.length - 1, index))]?.focus();
  const onKeyDown = (event: KeyboardEvent<HTMLOListElement>) => {
    if (event.altKey || event.ctrlKey || event.metaKey || !event.currentTarget.contains(event.target as Node)) return;
    const forward = NEXT.has(event.key);
    if (!forward && !PREVIOUS.has(event.key)) return;
    const at = (event.target as HTMLElement).closest<HTMLElement>('[data-card-index]');
    const index = at ? Number(at.dataset.cardIndex) : -1;
    event.preventDefault();
    focusCard(forward ? index + 1 : index - 1);
  };

  return (
    <section id="review" className="result-block review-board" aria-labelledby="review-title">
      <h2 id="review-title" className="block-title">
        {t(actionable ? 'review.title' : 'review.titleReadOnly')}
      </h2>
      <p className="muted small">{t(actionable ? 'review.hint' : 'review.hintReadOnly')}</p>
      {actionable && !touch ? (
        <p className="small review-keys" id="review-keys">
          {t('review.keys')}
        </p>
      ) : null}
      <p className="small review-progress" role="status">
        {t('review.progress', { reviewed, count: findings.length })}
      </p>
      <ol className="review-list" aria-label={t('review.listLabel')} onKeyDown={onKeyDown}>
        {findings.map((finding, index) => (
          <li key={finding.key}>
            <FindingCard
              jobId={job.job_id}
              finding={finding}
              groupsOfWorker={workerGroups(findings, finding.worker)}
              actionable={actionable}
              index={index}
              cardRef={(el) => {
                cards.current[index] = el;
              }}
              onReviewed={(i) => focusCard(i + 1)}
            />
          </li>
        ))}
      </ol>
    </section>
  );
}
