/** Signing in with the company account (issue 30, docs/adr/0022): the start, and THE place a sign-in is decided. */
import type { IdentityDeps } from '../deps.js';
import type { UserDoc } from '../readModels/users.js';
import { userDecider } from '../user/businessLogic.js';
import { userStream } from '../user/user.js';
import type { SignInFact } from './config.js';
import { SSO_ERRORS, SsoError } from './oidc.js';
import { userForSso } from './userForSso.js';

/** The fact of a sign-in, decided: logged, and told to the hook (an audit log). */
async function signInDecided(deps: IdentityDeps, fact: SignInFact): Promise<void> {
  const { log, audit } = deps;
  if (fact.outcome === 'signed_in') log.info({ user_id: fact.user_id, method: fact.method, created: fact.created }, 'signed in');
  // The reason is the library's words (never a token or a secret), for the operator: a 503 is often a wrong client secret.
  else log[fact.code === 'sso_unavailable' ? 'warn' : 'info']({ method: fact.method, code: fact.code, reason: fact.reason }, 'sign-in failed');
  // The audit log keeps the sign-in once, as it keeps a password login's (ADR 0023); a failure names no address.
  await audit
    .recordSignIn(
      fact.outcome === 'signed_in'
        ? { ip: fact.ip, userId: fact.user_id, orgId: fact.org_id, outcome: 'success', method: 'oidc' }
        : { ip: fact.ip, userId: null, outcome: 'failure', method: 'oidc', reason: fact.code },
    )
    .catch((err: unknown) => log.error({ err }, 'the sign-in could not be audited'));
  try {
    await deps.onSignIn?.(fact);
  } catch (err) {
    log.error({ err }, 'the sign-in hook failed');
  }
}

/** Where to send the browser to sign in with the company account, and the flow's cookie. */
export async function ssoStart(deps: IdentityDeps, redirectTo: string | null): Promise<{ url: string; cookie: string }> {
  if (!deps.oidc) throw SSO_ERRORS.not_configured();
  return deps.oidc.start(redirectTo);
}

/**
 * THE place a single sign-on is decided (the hook for an audit log: `signInDecided`): the flow
 * of the cookie is finished with what the issuer sent back, the ID token checked, the user found
 * or created, the login recorded. Any failure is one SsoError, and nothing is created before the
 * token passed every check.
 */
export async function signInWithSso(
  deps: IdentityDeps,
  cookie: string | undefined,
  params: Record<string, string>,
  source: { ip: string; language: 'tr' | 'en' },
): Promise<{ user: UserDoc; created: boolean; redirectTo: string | null }> {
  const { oidc, run, eventStore, users, orgs, clock } = deps;
  if (!oidc) throw SSO_ERRORS.not_configured();
  let email: string | null = null;
  try {
    if (params.error) throw SSO_ERRORS.denied();
    const { claims, redirectTo } = await oidc.finish(cookie, params);
    email = claims.email;
    const { user, created, orgId } = await userForSso(deps, claims, source.language);
    await run(eventStore, userStream(user.id), userDecider, { type: 'record_login', data: { now: clock() } });
    const membership = orgId ?? (await orgs.queries.membershipOf(user.id))?.org_id ?? null;
    await signInDecided(deps, { outcome: 'signed_in', method: 'sso', user_id: user.id, email: user.email, issuer: claims.issuer, created, org_id: membership, ip: source.ip, at: clock().toISOString() });
    return { user: (await users.byId(user.id)) ?? user, created, redirectTo };
  } catch (e) {
    const known = e instanceof SsoError ? e : null;
    await signInDecided(deps, { outcome: 'failed', method: 'sso', code: known?.code ?? 'sso_error', reason: e instanceof Error ? e.message : String(e), email, ip: source.ip, at: clock().toISOString() });
    throw e;
  }
}
