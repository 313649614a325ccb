import type { UserDoc } from '../readModels/users.js';

export interface PublicUser {
  id: string;
  email: string;
  full_name: string | null;
  is_admin: boolean;
  last_login_at: string | null;
  created_at: string;
  email_verified: boolean;
}

export const publicUser = (u: UserDoc): PublicUser => ({
  email_verified: u.email_verified ?? false,
  id: u.id,
  email: u.email,
  full_name: u.full_name,
  is_admin: u.is_admin,
  last_login_at: u.last_login_at,
  created_at: u.created_at,
});
