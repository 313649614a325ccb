/** Who a company account is in Baret: found by its link, linked to an account with its address, or created. */
import { randomUUID } from 'node:crypto';
import { aggregateStream, ConflictError } from '@baret/platform';
import MailChecker from 'mailchecker';
import { revokeApiKeys } from '../apiKey/commands.js';
import type { IdentityDeps } from '../deps.js';
import type { UserDoc } from '../readModels/users.js';
import { promoteIfConfigured } from '../user/admins.js';
import { userDecider } from '../user/businessLogic.js';
import { claimEmail, emailDecider, emailStream, normaliseEmail } from '../user/emailClaim.js';
import { requestEmailVerification } from '../user/emailVerification.js';
import { userStream } from '../user/user.js';
import { SSO_ERRORS, type SsoClaims } from './oidc.js';
import { linkSsoIdentity, ssoLinkDecider, ssoLinkStream } from './ssoLink.js';

/** Whether the user a link points to is gone for good: deleted, or never created by a sign-in that crashed a minute ago or more. */
async function abandonedOwner(deps: IdentityDeps, owner: string | null, linkedAt: Date | null): Promise<string | null> {
  if (!owner || (await deps.users.byId(owner))) return null;
  const events = await deps.eventStore.readStream(userStream(owner));
  if (events.some((e) => e.type === 'user_deleted')) return owner;
  return events.length === 0 && linkedAt && deps.clock().getTime() - linkedAt.getTime() > 60_000 ? owner : null;
}

/**
 * The Baret user of a company account: the one linked to issuer + subject; else, at the first
 * sign-in, the account registered with the same address (only when the issuer vouches for the
 * address), linked from now on; else a new user without a password, who joins the organisation
 * configured for the address's domain as a member.
 */
export async function userForSso(deps: IdentityDeps, claims: SsoClaims, language: 'tr' | 'en'): Promise<{ user: UserDoc; created: boolean; orgId: string | null }> {
  const { eventStore, users, run, clock, log, adminEmails } = deps;
  const stream = ssoLinkStream(claims.issuer, claims.subject);
  for (let attempt = 0; ; attempt++) {
    const linkEvents = await eventStore.readStream(stream);
    const owner = (await aggregateStream(eventStore, stream, ssoLinkDecider)).state.owner;
    const known = owner ? await users.byId(owner) : null;
    if (known) return { user: known, created: false, orgId: null };
    const abandoned = await abandonedOwner(deps, owner, linkEvents.at(-1)?.createdAt ?? null);
    if (owner && !abandoned) {
      // Another sign-in of the same account is creating the user right now: wait for it (up to 30 s).
      if (attempt >= 300) throw SSO_ERRORS.unavailable();
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    if (!claims.email || !MailChecker.isValid(claims.email)) throw SSO_ERRORS.email();
    const email = claims.email;
    const existing = await users.byEmail(email);
    const now = clock();
    if (existing) {
      if (!claims.emailVerified) throw SSO_ERRORS.taken();
      // Keys made by whoever registered an unconfirmed address end before the link (a retry after a
      // crash finds the link made and would not come back here) and once more after it (claimUnconfirmed).
      const revokedBefore = existing.email_verified ? 0 : await revokeApiKeys(deps, existing.id);
      try {
        await run(eventStore, stream, ssoLinkDecider, linkSsoIdentity(existing.id, claims, abandoned, now));
      } catch (e) {
        if (e instanceof ConflictError && attempt < 300) continue;
        throw e;
      }
      await run(eventStore, userStream(existing.id), userDecider, { type: 'link_sso', data: { issuer: claims.issuer, subject: claims.subject, now } });
      log.info({ user_id: existing.id }, 'single sign-on linked to an existing account');
      if (!existing.email_verified) await claimUnconfirmed(deps, existing, claims.issuer, revokedBefore);
      return { user: existing, created: false, orgId: await joinConfiguredOrg(deps, existing.id, email) };
    }
    const userId = randomUUID();
    try {
      await run(eventStore, stream, ssoLinkDecider, linkSsoIdentity(userId, claims, abandoned, now));
    } catch (e) {
      if (e instanceof ConflictError && attempt < 300) continue;
      throw e;
    }
    const claim = await aggregateStream(eventStore, emailStream(email), emailDecider);
    const emailOwner = claim.state.owner;
    const emailAbandoned = emailOwner !== null && (await eventStore.readStream(userStream(emailOwner))).length === 0 ? emailOwner : null;
    try {
      await run(eventStore, emailStream(email), emailDecider, claimEmail(userId, emailAbandoned));
    } catch (e) {
      // Someone registered the address a moment ago: the link is given back, and the person told.
      await run(eventStore, stream, ssoLinkDecider, { type: 'release', data: { user_id: userId } });
      if (e instanceof ConflictError) throw SSO_ERRORS.taken();
      throw e;
    }
    await run(eventStore, userStream(userId), userDecider, {
      type: 'register_user',
      data: {
        user_id: userId,
        email,
        full_name: claims.name,
        password_hash: '',
        // Only an address the identity provider vouches for; otherwise once the link is opened.
        is_admin: claims.emailVerified && adminEmails.has(normaliseEmail(email)),
        now,
        language,
        sso: { issuer: claims.issuer, subject: claims.subject },
        ...(claims.emailVerified ? { email_verified: true } : {}),
      },
    });
    if (!claims.emailVerified) await requestEmailVerification(deps, userId, language);
    const user = await users.byId(userId);
    if (!user) throw new Error('registered user missing from the read model');
    log.info({ user_id: userId }, 'user registered by single sign-on');
    return { user, created: true, orgId: await joinConfiguredOrg(deps, userId, email) };
  }
}

/**
 * A company sign-in proved the address of an account whose address was never confirmed (issue
 * 37): whoever registered it may not be its owner, so the password they set stopped working and
 * their sessions ended with the link (the user decider), and the API keys made with it end; the
 * address counts as confirmed (BARET_ADMIN_EMAILS may promote it). The audit log says what was removed.
 */
async function claimUnconfirmed(deps: IdentityDeps, user: UserDoc, issuer: string, revokedBefore: number): Promise<void> {
  const revoked = revokedBefore + (await revokeApiKeys(deps, user.id));
  await promoteIfConfigured(deps, user.id);
  deps.log.info({ user_id: user.id, api_keys_revoked: revoked }, 'an unconfirmed account claimed by single sign-on');
  await deps.recorder.record({
    action: 'auth.sso_linked',
    actorId: user.id,
    orgId: (await deps.orgs.queries.membershipOf(user.id))?.org_id ?? null,
    objectType: 'user',
    objectId: user.id,
    details: { issuer, address: 'unconfirmed', password: user.password_hash ? 'removed' : 'none', revoked: String(revoked) },
    key: `sso-claim-${user.id}`,
  });
}

/** The organisation configured for the address's domain (OIDC_ORG_DOMAINS), joined as a member; null when none or not joined. */
async function joinConfiguredOrg(deps: IdentityDeps, userId: string, email: string): Promise<string | null> {
  const domain = normaliseEmail(email).split('@').pop() ?? '';
  const orgId = deps.sso?.orgDomains.get(domain);
  if (!orgId) return null;
  return (await deps.orgs.joinBySso(userId, orgId)) ? orgId : null;
}
