import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/alert';
import { Button, ButtonLink } from '@/components/ui/button';
import { UnitSelect } from '@/components/ui/field';
import { Modal } from '@/components/ui/modal';
import { Card } from '@/components/ui/card';
import type { AnalysisParams } from '@/features/analyze/api/start-analysis';
import { requestBackgroundSync } from '@/features/analyze/offline/background-sync';
import { enqueueUpload } from '@/features/analyze/offline/enqueue';
import { onQueuedJobCreated, replayQueue } from '@/features/analyze/offline/replay';
import { paths } from '@/config/paths';
import { contextPayload, rememberRecordingContext, useCurrentOrg, useOrgUnits, type RecordingContext } from '@/lib/org';

/**
 * Where and by whom a video is recorded: the organisation's sites and crews, and a work order, as a
 * card of its own above Record and Upload, since both take them (issue 40). Nothing outside an organisation.
 */
export function RecordingContextCard({ value, onChange }: { value: RecordingContext; onChange: (next: RecordingContext) => void }) {
  const { t } = useTranslation();
  const org = useCurrentOrg();
  const orgId = org.data?.id;
  const sites = useOrgUnits(orgId, 'site');
  const crews = useOrgUnits(orgId, 'crew');
  const ids = useId();
  if (!orgId) return null;
  const set = (patch: Partial<RecordingContext>) => {
    const next = { ...value, ...patch };
    rememberRecordingContext(next);
    onChange(next);
  };
  // The empty choice: "choose one", "none yet", or while the list loads "Loading…" (not "none yet").
  const emptyLabel = (list: unknown[] | undefined, choose: string, none: string) => t(!list ? 'common.loading' : list.length ? choose : none);
  return (
    <Card className="context-card" title={t('record.contextTitle')} titleId="context-title" lead={t('record.contextHint')}>
      <div className="record-context">
        <UnitSelect label={t('record.site')} emptyLabel={emptyLabel(sites.data, 'record.noSite', 'record.noSites')} value={value.site_id} options={sites.data ?? []} onChange={(v) => set({ site_id: v })} />
        <UnitSelect label={t('record.crew')} emptyLabel={emptyLabel(crews.data, 'record.noCrew', 'record.noCrews')} value={value.crew_id} options={crews.data ?? []} onChange={(v) => set({ crew_id: v })} />
        <div className="field">
          <label className="field-label" htmlFor={`${ids}-3`}>
            {t('record.workOrder')}
          </label>
          <input id={`${ids}-3`} className="input" value={value.work_order} maxLength={64} onChange={(e) => set({ work_order: e.target.value })} />
        </div>
      </div>
    </Card>
  );
}

/** mm:ss of a recording. */
export function elapsedText(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** Which way this browser records: the camera inside the page, or the phone's camera app through a capture input. */
export function recordingMode(): 'media-recorder' | 'capture-input' {
  return typeof MediaRecorder !== 'undefined' && typeof navigator !== 'undefined' && !!navigator.mediaDevices?.getUserMedia ? 'media-recorder' : 'capture-input';
}

function recordingType(): string {
  for (const type of ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm', 'video/mp4']) if (MediaRecorder.isTypeSupported(type)) return type;
  return '';
}

const stamp = () => new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');

/**
 * "Record": the rear camera, and the clip goes straight into the upload queue with the site, crew
 * and work order; the queue uploads it when there is a connection.
 */
export function RecordPanel({ params, context, userId }: { params: AnalysisParams; context: RecordingContext; userId: string | undefined }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [recording, setRecording] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The last clip put into the queue, and its job once the queue uploaded it (issue 40: not "in the queue" forever).
  const [queued, setQueued] = useState<{ id: string; name: string; jobId?: string } | null>(null);
  const [startedAt, setStartedAt] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const preview = useRef<HTMLVideoElement>(null);
  const recorder = useRef<MediaRecorder | null>(null);
  const stream = useRef<MediaStream | null>(null);
  const chunks = useRef<Blob[]>([]);
  const input = useRef<HTMLInputElement>(null);

  const stopStream = () => {
    stream.current?.getTracks().forEach((track) => track.stop());
    stream.current = null;
  };
  useEffect(() => stopStream, []);
  useEffect(() => onQueuedJobCreated((job, item) => setQueued((q) => (q && q.id === item.id ? { ...q, jobId: job.job_id } : q))), []);
  // The elapsed time in the recording dialog, once a second.
  useEffect(() => {
    if (startedAt === null) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [startedAt]);

  const queue = async (file: File) => {
    if (!userId) return;
    setError(null);
    try {
      const item = await enqueueUpload(file, { ...params, ...contextPayload(context) }, userId);
      setQueued({ id: item.id, name: item.name });
      void requestBackgroundSync();
      if (navigator.onLine !== false) void replayQueue(userId).catch(() => undefined);
    } catch {
      setError(t('record.queueFailed'));
    }
  };

  const start = async () => {
    setQueued(null);
    setError(null);
    if (recordingMode() === 'capture-input') {
      input.current?.click();
      return;
    }
    try {
      const media = await navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: 'environment' } }, audio: false });
      stream.current = media;
      setOpen(true);
      const type = recordingType();
      const rec = new MediaRecorder(media, type ? { mimeType: type } : undefined);
      chunks.current = [];
      rec.ondataavailable = (e) => {
        if (e.data.size > 0) chunks.current.push(e.data);
      };
      rec.onstop = () => {
        const mime = rec.mimeType || type || 'video/webm';
        const ext = mime.includes('mp4') ? 'mp4' : 'webm';
        stopStream();
        void queue(new File(chunks.current, `baret-${stamp()}.${ext}`, { type: mime.split(';')[0] }));
      };
      recorder.current = rec;
      rec.start(1000);
      setRecording(true);
      setStartedAt(Date.now());
      setNow(Date.now());
      requestAnimationFrame(() => {
        if (preview.current) preview.current.srcObject = media;
      });
    } catch {
      stopStream();
      setOpen(false);
      // No camera permission or none at all: the phone's own camera app through the capture input.
      input.current?.click();
    }
  };

  const stop = () => {
    setRecording(false);
    setStartedAt(null);
    setOpen(false);
    if (recorder.current && recorder.current.state !== 'inactive') recorder.current.stop();
    else stopStream();
  };

  return (
    <div className="record-panel">
      <Button onClick={() => void start()} disabled={!userId || recording}>
        {t('record.button')}
      </Button>
      <input
        ref={input}
        type="file"
        accept="video/*"
        capture="environment"
        className="visually-hidden"
        tabIndex={-1}
        aria-hidden="true"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (file) void queue(file);
        }}
      />
      {queued && !queued.jobId ? <Alert tone="success">{t('record.queued', { name: queued.name })}</Alert> : null}
      {queued?.jobId ? (
        <Alert tone="success">
          <span>{t('record.started', { name: queued.name })}</span>{' '}
          <ButtonLink size="sm" variant="secondary" to={paths.app.job.getHref(queued.jobId)}>
            {t('record.openJob')}
          </ButtonLink>
        </Alert>
      ) : null}
      {error ? <Alert tone="error">{error}</Alert> : null}
      <Modal
        open={open}
        title={t('record.recording')}
        onClose={stop}
        closeLabel={t('common.close')}
        footer={
          <Button variant="danger" onClick={stop}>
            {t('record.stop')}
          </Button>
        }
      >
        <p className="record-elapsed">
          <span className="record-dot" aria-hidden="true" />
          {t('record.elapsed')} <span className="record-time">{elapsedText(startedAt === null ? 0 : (now - startedAt) / 1000)}</span>
        </p>
        <video ref={preview} className="record-preview" autoPlay muted playsInline aria-label={t('record.preview')} />
      </Modal>
    </div>
  );
}
