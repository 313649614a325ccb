import { useTranslation } from 'react-i18next';

import { Badge } from '@/components/ui/badge';
import { clockTime, workerTable } from '@/features/analyze/model/result';
import type { ItemVerdict, JobResult } from '@/types/api';

const VERDICT_TONE = { worn: 'success', missing: 'danger', cannot_tell: 'neutral' } as const;
const VERDICT_MARK = { worn: '✓', missing: '✗', cannot_tell: '?' } as const;

function VerdictChip({ verdict }: { verdict: ItemVerdict | null }) {
  const { t } = useTranslation();
  if (verdict === null) {
    // The analyzer did not judge this group for this worker.
    return (
      <>
        <span className="muted" aria-hidden="true">
          —
        </span>
        <span className="visually-hidden">{t('analyze.result.notChecked')}</span>
      </>
    );
  }
  return (
    <Badge tone={VERDICT_TONE[verdict]}>
      <span aria-hidden="true">{VERDICT_MARK[verdict]}</span>
      {t(`analyze.result.verdict.${verdict}`)}
    </Badge>
  );
}

/**
 * Every worker followed through the video (issue 51): when they were seen and, per judged item, one
 * verdict from the whole track — worn, missing, or cannot tell (seen too briefly, too small or too
 * unclear: shown as such, never as a violation nor as worn). Nothing for results without workers.
 * On a phone each row stacks (table-stack), every cell labelled with its column.
 */
export function WorkerVerdicts({ result }: { result: JobResult }) {
  const { t } = useTranslation();
  const { columns, rows } = workerTable(result);
  if (rows.length === 0) return null;
  const cannotTell = rows.some((row) => row.verdicts.includes('cannot_tell'));
  const seenLabel = t('analyze.result.workerSeen');
  return (
    <section className="result-block workers" aria-labelledby="workers-title">
      <h3 id="workers-title" className="block-title">
        {t('analyze.result.workers')} <Badge tone="neutral">{rows.length}</Badge>
      </h3>
      <p className="muted small">{t('analyze.result.workersHint')}</p>
      {cannotTell ? <p className="muted small workers-cannot-tell">{t('analyze.result.workersCannotTellHint')}</p> : null}
      <div className="table-wrap">
        <table className="table table-stack worker-table" aria-labelledby="workers-title">
          <thead>
            <tr>
              <th scope="col">{t('analyze.result.worker')}</th>
              <th scope="col">{seenLabel}</th>
              {columns.map((column) => (
                <th scope="col" key={column.key}>
                  {column.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const from = clockTime(row.firstSec);
              const to = clockTime(row.lastSec);
              const seen = from === to ? t('analyze.result.workerSeenAt', { from, count: row.frames }) : t('analyze.result.workerSeenSpan', { from, to, count: row.frames });
              return (
                <tr key={row.worker}>
                  <th scope="row">{t('analyze.result.workerNumber', { worker: row.worker })}</th>
                  <td data-label={seenLabel} className="worker-seen">
                    {seen}
                  </td>
                  {columns.map((column, index) => (
                    <td key={column.key} data-label={column.name}>
                      <VerdictChip verdict={row.verdicts[index] ?? null} />
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
