/** Who is calling, resolved on the server for every request that carries a credential. */
export interface Principal {
  userId: string;
  email: string;
  fullName: string | null;
  isAdmin: boolean;
  /** The organisation the user belongs to now (at most one), and their role in it. */
  orgId?: string | null;
  orgRole?: OrgRole | null;
  via: 'jwt' | 'api_key';
  /** For a login token: when it was issued (ms since the epoch), i.e. when the user last signed in. */
  authTime?: number;
  /** The user's session version: access tokens of an older one (before a password reset) are refused. */
  sessionVersion?: number;
  /** Whether the user confirmed their e-mail address. */
  emailVerified?: boolean;
  /** An admin requires a confirmed address before analyses, and this user has not confirmed theirs. */
  verificationRequired?: boolean;
}

export type OrgRole = 'manager' | 'member';
