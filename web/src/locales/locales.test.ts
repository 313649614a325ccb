import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { WEBHOOK_EVENTS } from '@/features/webhooks/api/webhooks';
import en from '@/locales/en.json';
import tr from '@/locales/tr.json';

function keys(value: unknown, prefix = ''): string[] {
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
  }
  return [prefix];
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [full] : [];
  });
}

const SRC = join(__dirname, '..');
const enKeys = new Set(keys(en));

function has(key: string): boolean {
  // plural forms live under key_one / key_other
  return enKeys.has(key) || enKeys.has(`${key}_one`) || [...enKeys].some((k) => k.startsWith(`${key}.`));
}

describe('translations', () => {
  it('Turkish and English have exactly the same keys', () => {
    expect(keys(tr).sort()).toEqual(keys(en).sort());
  });

  it('every literal key used in the code exists', () => {
    const missing: string[] = [];
    for (const file of sources(SRC)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\bt\(\s*'([a-zA-Z][\w.]*)'/g)) if (!has(match[1]!)) missing.push(`${file}: ${match[1]}`);
      for (const match of text.matchAll(/'((?:errors|validation|apiKeys|contact|analyze|admin|pricing|auth|nav|quota|upgrade)\.[\w.]+)'/g)) {
        // A webhook event's name (quota.low) is the API's word, not a text key.
        if (!has(match[1]!) && !(WEBHOOK_EVENTS as readonly string[]).includes(match[1]!)) missing.push(`${file}: ${match[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("carries the spec's sentences verbatim", () => {
    expect(tr.common.loading).toBe('Yükleniyor…');
    expect(tr.errors.quotaExceeded).toBe('Kullanım limitiniz doldu. Lütfen admin ile iletişime geçin.');
    expect(en.errors.quotaExceeded).toBe('You have reached your usage limit. Please contact an admin.');
    expect(tr.errors.loginFailed).toBe('Giriş başarısız. Lütfen bilgilerinizi kontrol edin.');
    expect(tr.admin.noRights).toBe('Admin yetkiniz bulunmuyor.');
    expect(en.admin.quotas.invalidHint).toBe('Use whole numbers ≥ 0');
    expect(en.admin.quotas.invalidSave).toBe('Please enter whole numbers greater than or equal to 0.');
    expect(en.errors.registerFailed).toBe('Something went wrong while creating your account. Please try again.');
    expect(en.errors.startFailed).toBe("We couldn't start the analysis. Please try again.");
    expect(en.errors.pollFailed).toBe('Failed to refresh job status. Please try again.');
    expect(en.errors.historyLoad).toBe('Failed to load analysis history. Please try again.');
    expect(en.errors.actionFailed).toBe('The action could not be completed. Please try again.');
    expect(en.errors.apiKeyCreate).toBe('Failed to create a new API key.');
    expect(en.errors.apiKeyDelete).toBe('Failed to delete the API key.');
    expect(en.errors.usageLoad).toBe('Failed to load usage data.');
    expect(en.errors.quotaLoad).toBe('Failed to load quota data.');
    expect(en.errors.quotaUpdate).toBe("We couldn't update the quota. Please try again.");
    expect(en.errors.userDelete).toBe('Failed to delete the user.');
    expect(en.errors.tryLater).toBe('Please try again later.');
    expect(en.errors.passwordMismatch).toBe('Passwords do not match.');
    expect(en.analyze.insights.cancelled).toBe('This job was stopped by an administrator.');
    expect(en.analyze.insights.error).toMatch(/^The job finished with an error/);
    expect(en.brand.tagline).toBe('Analyze, Monitor, Protect');
  });
});
