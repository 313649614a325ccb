import type { TFunction } from 'i18next';

import type { LogEntry } from '@/types/api';

const DASH = '—';

function locale(lang: string): string {
  return lang === 'tr' ? 'tr-TR' : 'en-GB';
}

/** A localised date and time in the viewer's zone (history, API keys). */
export function formatDateTime(iso: string | null | undefined, lang: string): string {
  if (!iso) return DASH;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return DASH;
  return new Intl.DateTimeFormat(locale(lang), { dateStyle: 'medium', timeStyle: 'short', hour12: false }).format(date);
}

export function formatTime(iso: string, lang: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return DASH;
  return new Intl.DateTimeFormat(locale(lang), { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false }).format(date);
}

/** Cost with 4 decimals and its currency (default USD). */
export function formatCost(cost: number | null | undefined, currency: string | null | undefined, lang: string): string {
  if (cost === null || cost === undefined || Number.isNaN(cost)) return DASH;
  const amount = new Intl.NumberFormat(locale(lang), { minimumFractionDigits: 4, maximumFractionDigits: 4 }).format(cost);
  return `${amount} ${currency || 'USD'}`;
}

export function formatNumber(value: number | null | undefined, lang: string): string {
  if (value === null || value === undefined) return DASH;
  return new Intl.NumberFormat(locale(lang)).format(value);
}

export function formatBytes(bytes: number, lang: string): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 ? 0 : 1;
  return `${new Intl.NumberFormat(locale(lang), { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(value)} ${units[unit]}`;
}

/** Seconds between the job_started and job_completed log entries, or null. */
export function jobDurationSeconds(logs: readonly LogEntry[] | undefined): number | null {
  if (!logs) return null;
  const started = logs.find((l) => l.event === 'job_started');
  const completed = [...logs].reverse().find((l) => l.event === 'job_completed');
  if (!started || !completed) return null;
  const ms = new Date(completed.timestamp).getTime() - new Date(started.timestamp).getTime();
  return Number.isFinite(ms) && ms >= 0 ? ms / 1000 : null;
}

/** Splits a duration into whole minutes and seconds for "42 s" / "3 m 5 s" texts. */
export function splitDuration(seconds: number): { minutes: number; seconds: number } {
  const total = Math.round(seconds);
  return { minutes: Math.floor(total / 60), seconds: total % 60 };
}

/** A duration as people read it: "45 sn", "1 dk 25 sn" (localised). */
export function durationText(t: TFunction, seconds: number): string {
  const parts = splitDuration(seconds);
  return parts.minutes > 0 ? t('duration.minutesSeconds', { minutes: parts.minutes, seconds: parts.seconds }) : t('duration.seconds', { seconds: parts.seconds });
}

/** The model a job used, as users read it: the built-in checker by what it does, not its internal description (issue 40). */
export function modelText(t: TFunction, model: string | null | undefined): string {
  if (!model) return DASH;
  return model.startsWith('baret-offline') ? t('analyze.result.modelOffline') : model;
}

/** Task name when the catalogue gives none: ag_ → LV, yg_ → HV, words capitalised. */
export function taskFallbackName(slug: string): string {
  const words = slug.split('_').filter(Boolean);
  return words
    .map((word, index) => {
      if (index === 0 && word.toLowerCase() === 'ag') return 'LV';
      if (index === 0 && word.toLowerCase() === 'yg') return 'HV';
      return word.charAt(0).toUpperCase() + word.slice(1);
    })
    .join(' ');
}
