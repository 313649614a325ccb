import { describe, expect, it } from 'vitest';

import { demoVideoFromPage, normaliseMediaPath, resolveApiBase } from '@/config/env';
import { safeRedirect } from '@/config/paths';
import { formatCost, formatDateTime, jobDurationSeconds, splitDuration, taskFallbackName } from '@/lib/format';

describe('API base address', () => {
  const page = (origin: string) => {
    const url = new URL(origin);
    return { protocol: url.protocol, hostname: url.hostname, port: url.port, origin: url.origin };
  };
  it('uses the override when given', () => {
    expect(resolveApiBase(page('http://localhost:5173'), 'https://api.example.com/', true)).toBe('https://api.example.com');
  });
  it('uses port 8080 on a local host under the Vite dev server', () => {
    expect(resolveApiBase(page('http://localhost:5173'), undefined, true)).toBe('http://localhost:8080');
    expect(resolveApiBase(page('http://127.0.0.1:5173'), '', true)).toBe('http://127.0.0.1:8080');
  });
  it('uses the page origin otherwise', () => {
    expect(resolveApiBase(page('https://baret.example.com'), undefined, false)).toBe('https://baret.example.com');
    expect(resolveApiBase(page('http://localhost:8080'), undefined, true)).toBe('http://localhost:8080');
    expect(resolveApiBase(page('http://localhost:4173'), undefined, false)).toBe('http://localhost:4173');
  });
  it('normalises the demo video path to start with one slash; blank means none', () => {
    expect(normaliseMediaPath('media/demo.mov')).toBe('/media/demo.mov');
    expect(normaliseMediaPath('//media/demo.mov')).toBe('/media/demo.mov');
    expect(normaliseMediaPath('  ')).toBeNull();
  });
});

describe('formatting', () => {
  it('formats dates in the one app format, 24-hour, with a dash when missing', () => {
    expect(formatDateTime('2025-06-30T11:59:00Z', 'tr')).toMatch(/^30 Haz 2025 \d\d:59$/);
    expect(formatDateTime('2025-06-30T11:59:00Z', 'en')).toMatch(/^30 Jun 2025, \d\d:59$/);
    expect(formatDateTime(null, 'tr')).toBe('—');
    expect(formatDateTime('not a date', 'en')).toBe('—');
  });
  it('formats cost with 4 decimals and a currency (default USD)', () => {
    expect(formatCost(0.0123, 'EUR', 'en')).toBe('0.0123 EUR');
    expect(formatCost(1.5, null, 'en')).toBe('1.5000 USD');
    expect(formatCost(0.0123, 'USD', 'tr')).toBe('0,0123 USD');
    expect(formatCost(null, 'USD', 'en')).toBe('—');
  });
  it('measures duration from job_started to job_completed', () => {
    expect(
      jobDurationSeconds([
        { event: 'job_queued', timestamp: '2025-01-01T00:00:00Z' },
        { event: 'job_started', timestamp: '2025-01-01T00:00:10Z' },
        { event: 'job_completed', timestamp: '2025-01-01T00:02:15Z' },
      ]),
    ).toBe(125);
    expect(jobDurationSeconds([{ event: 'job_started', timestamp: '2025-01-01T00:00:10Z' }])).toBeNull();
    expect(splitDuration(125)).toEqual({ minutes: 2, seconds: 5 });
  });
  it('names a task from its slug: ag_ → LV, yg_ → HV, capitalised', () => {
    expect(taskFallbackName('ag_pano_bakim')).toBe('LV Pano Bakim');
    expect(taskFallbackName('yg_hat')).toBe('HV Hat');
    expect(taskFallbackName('kaynak_isi')).toBe('Kaynak Isi');
  });
  it('accepts only same-site paths to return to after login', () => {
    expect(safeRedirect('/dashboard/history?x=1')).toBe('/dashboard/history?x=1');
    expect(safeRedirect('//evil.example.com')).toBeNull();
    expect(safeRedirect('https://evil.example.com')).toBeNull();
    expect(safeRedirect(null)).toBeNull();
  });
});

describe('the demo video the server announces in index.html', () => {
  const page = (html: string) => new DOMParser().parseFromString(html, 'text/html');
  it('is its path, none when the tag is empty, and unknown without the tag (dev server)', () => {
    expect(demoVideoFromPage(page('<meta name="baret-demo-video" content="/media/demo.mov">'))).toBe('/media/demo.mov');
    expect(demoVideoFromPage(page('<meta name="baret-demo-video" content="">'))).toBeNull();
    expect(demoVideoFromPage(page('<title>x</title>'))).toBeUndefined();
  });
});
