import { DomainError, UnauthorizedError, type AuditSource } from '@baret/platform';
import type { IdentityDeps } from '../deps.js';
import type { LoginSource } from '../loginThrottle.js';
import { verifyPassword } from '../passwords.js';
import type { UserDoc } from '../readModels/users.js';
import { userDecider } from './businessLogic.js';
import { normaliseEmail } from './emailClaim.js';
import { userStream } from './user.js';

/** Password login is off for the user's organisation (issue 30): they sign in with the company account. */
export class PasswordLoginDisabledError extends DomainError {
  readonly status = 403;
  readonly code = 'password_login_disabled';
  constructor() {
    super('Your organisation signs in with company accounts only. Please use “Sign in with your company account”.');
  }
}

/**
 * Checks a password, throttled per source (loginThrottle.ts): the attempt is counted before the
 * (deliberately slow) check, so concurrent guesses cannot all be checked. Returns the user and a
 * device token for the client to keep.
 */
export async function login(
  deps: IdentityDeps,
  emailInput: string,
  password: string,
  source: LoginSource = { ip: 'unknown' },
  from: AuditSource & { key?: string } = { ip: source.ip },
): Promise<{ user: UserDoc; device: string }> {
  const { users, orgs, audit, throttle, log, run, eventStore, clock } = deps;
  const email = normaliseEmail(emailInput);
  const signIn = async (user: UserDoc | null, outcome: 'success' | 'failure', reason?: string) =>
    audit.recordSignIn({ ...from, userId: user?.id ?? null, orgId: user ? (await orgs.queries.membershipOf(user.id))?.org_id : null, outcome, method: 'password', reason });
  let reservation: Awaited<ReturnType<typeof throttle.reserve>>;
  try {
    reservation = await throttle.reserve(email, source);
  } catch (e) {
    await signIn(await users.byEmail(email), 'failure', 'throttled');
    throw e;
  }
  const user = await users.byEmail(email);
  // A user from single sign-on has no password: checked against the dummy, so it takes as long.
  const ok = user?.password_hash ? await verifyPassword(password, user.password_hash) : (await verifyPassword(password, await deps.dummyHash), false);
  if (!user || !ok) {
    log.info({ reason: user ? 'wrong_password' : 'unknown_email' }, 'login failed');
    await signIn(user, 'failure', user ? 'wrong_password' : 'unknown_account');
    throw new UnauthorizedError('Login failed. Please check your details.');
  }
  await throttle.succeeded(email, source, reservation);
  // Said only to someone who knows the password, so it tells a stranger nothing about the account.
  // Admins keep password login: the way in when the company directory is down.
  if (!user.is_admin && !(await orgs.passwordLoginAllowed(user.id))) {
    log.info({ user_id: user.id, reason: 'password_login_disabled' }, 'login failed');
    await signIn(user, 'failure', 'password_login_disabled');
    throw new PasswordLoginDisabledError();
  }
  await run(eventStore, userStream(user.id), userDecider, { type: 'record_login', data: { now: clock() } });
  await signIn(user, 'success');
  return { user: (await users.byId(user.id)) ?? user, device: throttle.deviceToken(email) };
}
