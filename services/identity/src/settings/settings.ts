import { settingChanged, type AuditSource } from '@baret/platform';
import type { IdentityDeps } from '../deps.js';
import type { IdentitySettings } from './settingsDoc.js';

export { SETTINGS, type IdentitySettings } from './settingsDoc.js';

export async function settings(deps: IdentityDeps): Promise<IdentitySettings> {
  const doc = await deps.settingsDocs.get('identity');
  return { require_email_verification: doc?.require_email_verification ?? false };
}

export async function changeSettings(deps: IdentityDeps, changes: Partial<IdentitySettings>, by: string, from: AuditSource & { key?: string } = {}): Promise<IdentitySettings> {
  const before = await settings(deps);
  const next = { ...before, ...changes };
  await deps.settingsDocs.put('identity', { id: 'identity', ...next });
  deps.log.info({ by, settings: next }, 'identity settings changed');
  // One entry per setting whose value changed (setting the same value again changes nothing).
  for (const name of Object.keys(changes) as Array<keyof IdentitySettings>) {
    if (before[name] === next[name]) continue;
    await deps.recorder.record(settingChanged({ by, name, scope: 'admin', value: String(next[name]), previous: String(before[name]), from, key: from.key }));
  }
  return next;
}
