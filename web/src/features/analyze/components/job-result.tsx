import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { Badge } from '@/components/ui/badge';
import { EvidenceGallery } from '@/features/analyze/components/evidence-gallery';
import { ViolationGallery } from '@/features/analyze/components/violation-gallery';
import { WorkerVerdicts } from '@/features/analyze/components/worker-verdicts';
import { clockTime, missingNames, requiredRows, type GroupStatus } from '@/features/analyze/model/result';
import { durationText, formatCost, jobDurationSeconds, modelText } from '@/lib/format';
import type { JobDetail } from '@/types/api';

/** The offline analyzer names itself "baret-offline…" in model_used. */
export const isOfflineModel = (model: string | null | undefined) => (model ?? '').startsWith('baret-offline');

const STATUS_TONE = { present: 'success', missing: 'danger', notChecked: 'neutral', notJudged: 'neutral' } as const;

function StatusCell({ status }: { status: GroupStatus }) {
  const { t } = useTranslation();
  return (
    <Badge tone={STATUS_TONE[status]}>
      {status === 'present' ? '✓ ' : status === 'missing' ? '✗ ' : '? '}
      {t(`analyze.result.${status}`)}
    </Badge>
  );
}

/** A titled block of equipment groups shown as chips (not judged, not checked), with its explanation. */
function GroupList({ id, title, names, children }: { id: string; title: string; names: string[]; children: ReactNode }) {
  return (
    <section className="result-block" aria-labelledby={id}>
      <h3 id={id} className="block-title">
        {title}
      </h3>
      {children}
      <ul className="chip-list">
        {names.map((name) => (
          <li key={name} className="chip">
            {name}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function useDurationText(seconds: number | null): string {
  const { t } = useTranslation();
  return seconds === null ? '—' : durationText(t, seconds);
}

export function JobResultView({ job }: { job: JobDetail }) {
  const { t, i18n } = useTranslation();
  const result = job.result;
  const durationSeconds = job.processing_sec ?? jobDurationSeconds(job.logs) ?? result?.duration_seconds ?? null;
  const durationText = useDurationText(durationSeconds);
  if (!result) return null;
  const rows = requiredRows(result);
  const missing = missingNames(result);
  const violations = result.violations ?? [];
  /** The proof of a missing group by its name: the violation that shows it (at its evidence frame), or that no frame showed the item. */
  const proofOf = (name: string): string | null => {
    const index = (result.missing_groups_name ?? []).indexOf(name);
    const proof = index >= 0 ? result.missing_evidence?.[index] : undefined;
    const violation = proof?.violation != null ? violations[proof.violation] : violations.find((v) => v.group_name === name && !v.dismissed);
    if (violation) return t('analyze.result.missingProof', { time: clockTime(violation.evidence_sec ?? violation.time_sec), worker: violation.worker });
    return proof ? t('analyze.result.missingNotSeen') : null;
  };
  const notJudged = result.not_judged_name?.length ? result.not_judged_name : (result.not_judged ?? []).map((group) => group.join(' / '));
  // Not checked: beyond what the analyzer checks (not judged groups are listed apart).
  const notChecked = (result.not_checked_name?.length ? result.not_checked_name : (result.not_checked ?? []).map((group) => group.join(' / '))).filter((name) => !notJudged.includes(name));
  const cost = result.token_usage?.estimated_cost ?? job.estimated_cost;
  const currency = result.token_usage?.currency || job.currency || 'USD';

  const jobTypeNote =
    result.job_type_source === 'fallback'
      ? t('analyze.result.jobTypeFallback')
      : result.job_type_source === 'model' && typeof result.job_type_confidence === 'number'
        ? t('analyze.result.jobTypeModel', { percent: Math.round(result.job_type_confidence * 100) })
        : null;

  return (
    <div className="result">
      {result.no_worker_seen ? (
        <p className="no-worker-note warn" role="status">
          <strong>{t('analyze.result.noWorkerSeen')}</strong> {t('analyze.result.noWorkerSeenHint')}
        </p>
      ) : null}
      {!result.no_worker_seen && result.note ? (
        <p className="not-asked-note warn" role="note">
          {result.note}
        </p>
      ) : null}
      {jobTypeNote ? (
        <p className={result.job_type_source === 'fallback' ? 'job-type-note warn' : 'job-type-note muted small'} role={result.job_type_source === 'fallback' ? 'note' : undefined}>
          {jobTypeNote}
        </p>
      ) : null}
      <dl className="stats">
        <div className="stat">
          <dt>{t('analyze.result.duration')}</dt>
          <dd>{durationText}</dd>
        </div>
        <div className="stat">
          <dt>{t('analyze.result.composites')}</dt>
          <dd>{result.composites_processed}</dd>
        </div>
        <div className="stat">
          <dt>{t('analyze.result.cost')}</dt>
          <dd>{formatCost(cost, currency, i18n.language)}</dd>
        </div>
      </dl>

      <div className="result-grid">
        <section className="result-block" aria-labelledby="required-title">
          <h3 id="required-title" className="block-title">
            {t('analyze.result.required')}
          </h3>
          {rows.length === 0 ? (
            <p className="muted small">{t('analyze.result.noneRequired')}</p>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">{t('analyze.result.equipment')}</th>
                    <th scope="col">{t('analyze.result.status')}</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((row) => (
                    <tr key={`${row.name}-${row.codes.join('-')}`} className={`row-${row.status}`}>
                      <th scope="row">{row.name}</th>
                      <td>
                        <StatusCell status={row.status} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
        <section className={missing.length ? 'result-block missing-col has-missing' : 'result-block missing-col'} aria-labelledby="missing-title">
          <h3 id="missing-title" className="block-title">
            {t('analyze.result.missing')} <Badge tone={missing.length ? 'danger' : 'success'}>{missing.length}</Badge>
          </h3>
          {missing.length === 0 ? (
            result.no_worker_seen ? (
              <p className="muted">{t('analyze.result.noWorkerNothingMissing')}</p>
            ) : (
              <p className="ok-text">{t(notChecked.length + notJudged.length > 0 ? 'analyze.result.allCheckedPresent' : 'analyze.result.allPresent')}</p>
            )
          ) : (
            <ul className="missing-list">
              {missing.map((name) => {
                const proof = proofOf(name);
                return (
                  <li key={name}>
                    {name}
                    {proof ? <span className="muted small missing-proof"> — {proof}</span> : null}
                  </li>
                );
              })}
            </ul>
          )}
        </section>
      </div>

      {notJudged.length > 0 ? (
        <GroupList id="notjudged-title" title={t('analyze.result.notJudged')} names={notJudged}>
          <p className="muted small">{t('analyze.result.notJudgedHint')}</p>
        </GroupList>
      ) : null}

      {notChecked.length > 0 ? (
        <GroupList id="notchecked-title" title={t('analyze.result.notChecked')} names={notChecked}>
          {isOfflineModel(result.model_used) ? (
            <div className="muted small offline-why">
              <p>{t('analyze.result.offlineWhy')}</p>
              <p>{t('analyze.result.offlineHow')}</p>
            </div>
          ) : (
            <p className="muted small">{t('analyze.result.notCheckedHint')}</p>
          )}
        </GroupList>
      ) : null}

      <ViolationGallery items={violations} />
      <WorkerVerdicts result={result} />
      <EvidenceGallery items={result.evidence ?? []} />
      {result.model_used ? <p className="muted small">{t('analyze.result.model', { model: modelText(t, result.model_used) })}</p> : null}
    </div>
  );
}
