/** Identity's settings an admin changes (issue 29). */
export interface IdentitySettings {
  /** Unverified accounts may log in, but may not start an analysis. */
  require_email_verification: boolean;
}
export interface SettingsDoc extends IdentitySettings, Record<string, unknown> {
  id: string;
}
export const SETTINGS = 'identity_settings';
