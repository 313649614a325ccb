import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasTurkish, localizeMessage } from '@baret/platform';

const root = join(__dirname, '../..');
const USER_FACING = /new (Validation|Unauthorized|Forbidden|NotFound|IllegalState|Conflict|PayloadTooLarge|UnsupportedMediaType|TooManyRequests|ServiceUnavailable|UserFacing)Error\(\s*'((?:[^'\\]|\\.)+)'/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (f === 'node_modules' || f === 'test') return [];
    if (statSync(p).isDirectory()) return sources(p);
    return f.endsWith('.ts') && !f.endsWith('.spec.ts') ? [p] : [];
  });
}

describe('every sentence the API says to a person exists in Turkish', () => {
  it('has a Turkish version of each literal message thrown by a service', () => {
    const messages = new Set<string>();
    for (const service of readdirSync(root)) {
      const src = join(root, service, 'src');
      try {
        statSync(src);
      } catch {
        continue;
      }
      for (const file of sources(src)) for (const m of readFileSync(file, 'utf8').matchAll(USER_FACING)) messages.add(m[2]!.replace(/\\'/g, "'"));
    }
    expect(messages.size).toBeGreaterThan(30);
    expect([...messages].filter((m) => !hasTurkish(m))).toEqual([]);
  });

  it('translates sentences with values, and lists of sentences one by one', () => {
    expect(localizeMessage('The video is larger than the limit of 2 GiB.', 'tr')).toBe('Video 2 GiB sınırından büyük.');
    expect(localizeMessage('Too many failed login attempts. Please wait 15 minutes and try again.', 'tr')).toBe(
      'Çok fazla başarısız giriş denemesi. Lütfen 15 dakika bekleyip yeniden deneyin.',
    );
    expect(localizeMessage('email must be a valid email address. password must be at least 8 characters long.', 'tr')).toBe(
      'email geçerli bir e-posta adresi olmalı. password en az 8 karakter olmalı.',
    );
    expect(localizeMessage('Login failed. Please check your details.', 'en')).toBe('Login failed. Please check your details.');
    expect(localizeMessage('Some message we never wrote down.', 'tr')).toBe('Some message we never wrote down.');
  });
});
