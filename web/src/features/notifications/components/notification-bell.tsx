import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';

import { useMarkAllRead, useMarkRead, useNotifications } from '@/features/notifications/api/notifications';
import { formatDateTime } from '@/lib/format';

/** The bell in the dashboard header: unread count, and a panel with the latest notifications. */
export function NotificationBell() {
  const { t, i18n } = useTranslation();
  const { data } = useNotifications();
  const markRead = useMarkRead();
  const markAll = useMarkAllRead();
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const unread = data?.unread ?? 0;

  useEffect(() => {
    if (!open) return;
    const close = (event: MouseEvent | KeyboardEvent) => {
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('mousedown', close);
      document.removeEventListener('keydown', close);
    };
  }, [open]);

  // The name says the count as the badge shows it ("99+"): a name without the visible text fails WCAG 2.5.3.
  const shown = unread > 99 ? '99+' : String(unread);
  const label = unread > 0 ? t('notifications.bellUnread', { count: unread, shown }) : t('notifications.bell');
  return (
    <div className="bell" ref={root}>
      <button type="button" className="bell-button" aria-label={label} aria-expanded={open} aria-controls="notification-panel" onClick={() => setOpen((o) => !o)}>
        <svg aria-hidden="true" width="20" height="20" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
          <path d="M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9" />
          <path d="M13.73 21a2 2 0 0 1-3.46 0" />
        </svg>
        {unread > 0 ? (
          <span className="bell-count" aria-hidden="true">
            {shown}
          </span>
        ) : null}
      </button>
      {open ? (
        <div id="notification-panel" className="bell-panel" role="region" aria-label={t('notifications.title')}>
          <div className="bell-head">
            <strong>{t('notifications.title')}</strong>
            {unread > 0 ? (
              <button type="button" className="text-link" onClick={() => markAll.mutate()}>
                {t('notifications.readAll')}
              </button>
            ) : null}
          </div>
          {data && data.items.length > 0 ? (
            <ul className="bell-list">
              {data.items.map((n) => (
                <li key={n.id} className={n.read ? 'bell-item' : 'bell-item unread'}>
                  <Link
                    to={n.url}
                    onClick={() => {
                      if (!n.read) markRead.mutate(n.id);
                      setOpen(false);
                    }}
                  >
                    <span className="bell-title">{n.title}</span>
                    <span className="bell-body">{n.body}</span>
                    <span className="bell-time muted">{formatDateTime(n.created_at, i18n.language)}</span>
                  </Link>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted bell-empty">{t('notifications.empty')}</p>
          )}
        </div>
      ) : null}
    </div>
  );
}
