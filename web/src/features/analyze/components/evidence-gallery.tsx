import { useTranslation } from 'react-i18next';

import { Spinner } from '@/components/ui/spinner';
import { useEvidenceImage } from '@/features/analyze/api/get-evidence-image';
import { clockTime } from '@/features/analyze/model/result';
import { useObjectUrl } from '@/hooks/use-object-url';
import type { Evidence } from '@/types/api';

function EvidenceThumb({ evidence }: { evidence: Evidence }) {
  const { t } = useTranslation();
  const image = useEvidenceImage(evidence.image_url);
  const url = useObjectUrl(image.data);
  const caption =
    evidence.frame_time_sec === null || evidence.frame_time_sec === undefined ? evidence.name : t('analyze.result.evidenceAt', { name: evidence.name, time: clockTime(evidence.frame_time_sec) });
  return (
    <figure className="evidence">
      <div className="evidence-frame">
        {url ? <img src={url} alt={caption} /> : image.isError ? <span className="muted small">{t('analyze.result.evidenceFailed')}</span> : <Spinner size="sm" />}
      </div>
      <figcaption>{caption}</figcaption>
    </figure>
  );
}

export function EvidenceGallery({ items }: { items: Evidence[] }) {
  const { t } = useTranslation();
  if (items.length === 0) return null;
  return (
    <section className="result-block" aria-labelledby="evidence-title">
      <h3 id="evidence-title" className="block-title">
        {t('analyze.result.evidence')}
      </h3>
      <div className="evidence-grid">
        {items.map((item) => (
          <EvidenceThumb key={`${item.code}-${item.composite_index}-${item.image_url}`} evidence={item} />
        ))}
      </div>
    </section>
  );
}
