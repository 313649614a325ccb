import { useId, useRef, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { useTouchScreen } from '@/hooks/use-media-query';
import { useObjectUrl } from '@/hooks/use-object-url';
import { formatBytes } from '@/lib/format';

export function isVideoFile(file: File): boolean {
  return file.type.startsWith('video/');
}

export function VideoPicker({ file, onChange, onRemove, disabled }: { file: File | null; onChange: (file: File) => void; onRemove: () => void; disabled?: boolean }) {
  const { t, i18n } = useTranslation();
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const [errorKey, setErrorKey] = useState<string | null>(null);
  const preview = useObjectUrl(file);
  // A touch screen has nothing to drag from and no click: "tap to choose" (issues 40, 54).
  const touch = useTouchScreen();

  const accept = (candidate: File | undefined) => {
    if (!candidate) return;
    if (!isVideoFile(candidate)) {
      setErrorKey('analyze.video.notVideo');
      return;
    }
    setErrorKey(null);
    onChange(candidate);
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    if (!disabled) accept(event.dataTransfer.files?.[0]);
  };

  if (file) {
    return (
      <div className="video-chosen">
        {preview ? <video className="video-preview" src={preview} controls muted playsInline aria-label={t('analyze.video.preview')} /> : null}
        <div className="video-meta">
          <div className="video-name" title={file.name}>
            {file.name}
          </div>
          <div className="muted small">{formatBytes(file.size, i18n.language)}</div>
        </div>
        <Button variant="secondary" size="sm" onClick={onRemove} disabled={disabled} aria-label={t('analyze.video.removeNamed', { name: file.name })}>
          {t('analyze.video.remove')}
        </Button>
      </div>
    );
  }

  return (
    <div>
      <label
        htmlFor={inputId}
        className={dragging ? 'dropzone dragging' : 'dropzone'}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <svg viewBox="0 0 48 48" width="44" height="44" aria-hidden="true">
          <rect x="5" y="11" width="28" height="26" rx="4" fill="none" stroke="currentColor" strokeWidth="2.5" />
          <path d="M33 20l10-6v20l-10-6z" fill="none" stroke="currentColor" strokeWidth="2.5" strokeLinejoin="round" />
          <path d="M19 30v-11M14 23.5l5-5 5 5" fill="none" stroke="var(--accent)" strokeWidth="2.5" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
        <span className="dropzone-title">{t(touch ? 'analyze.video.tap' : 'analyze.video.drop')}</span>
        <span className="muted small">{t('analyze.video.accepts')}</span>
      </label>
      <input
        ref={input}
        id={inputId}
        className="visually-hidden"
        type="file"
        accept="video/*"
        disabled={disabled}
        aria-label={t('analyze.video.select')}
        onKeyDown={(event) => {
          // Browsers open the file dialog on Space only; Enter is what most people press.
          if (event.key === 'Enter' && !event.repeat) {
            event.preventDefault();
            event.currentTarget.click();
          }
        }}
        onChange={(event) => {
          accept(event.target.files?.[0]);
          event.target.value = '';
        }}
      />
      {errorKey ? (
        <p className="field-error" role="alert">
          {t(errorKey)}
        </p>
      ) : null}
    </div>
  );
}
