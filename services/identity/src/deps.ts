/**
 * What identity's use cases are handed once, at composition: the stores and read models, the audit
 * log, the organisations, and `run`, which decides a command and updates the read models at once.
 */
import {
  createAuditRecorder,
  csv,
  handleCommand,
  PrincipalChanges,
  projectInline,
  type AuditRecorder,
  type Collection,
  type DocumentStore,
  type EventStore,
  type Projection,
  type QuotaClient,
} from '@baret/platform';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { createAuditLog, type AuditLog } from './audit/auditLog.js';
import { DEFAULT_THROTTLE, LoginThrottle } from './loginThrottle.js';
import type { IdentityOptions } from './options.js';
import { orgProjections } from './org/deps.js';
import { createOrgs, type Orgs } from './org/orgs.js';
import { DEFAULT_SCRYPT, hashPassword, type ScryptParams } from './passwords.js';
import { announcing } from './readModels/announcing.js';
import { apiKeyQueries, apiKeysProjection } from './readModels/apiKeys.js';
import { userQueries, usersProjection, type UserQueries } from './readModels/users.js';
import { SETTINGS, type SettingsDoc } from './settings/settingsDoc.js';
import { createOidc } from './sso/oidc.js';
import { normaliseEmail } from './user/emailClaim.js';

/** Decides a command on its stream, then applies what it recorded to the read models. */
export type Run = (...args: Parameters<typeof handleCommand>) => ReturnType<typeof handleCommand>;

export interface IdentityDeps {
  eventStore: EventStore;
  documents: DocumentStore;
  log: Logger;
  clock: () => Date;
  quota: QuotaClient;
  run: Run;
  users: UserQueries;
  keys: ReturnType<typeof apiKeyQueries>;
  orgs: Orgs;
  /** This service's own audit entries (issue 30, docs/adr/0023). */
  recorder: AuditRecorder;
  /** Everyone's audit entries, kept here. */
  audit: AuditLog;
  /** Admins by configuration (BARET_ADMIN_EMAILS), normalised. */
  adminEmails: ReadonlySet<string>;
  scryptParams: ScryptParams;
  throttle: LoginThrottle;
  /** A real hash to verify against when the email is unknown, so both failures take as long. */
  dummyHash: Promise<string>;
  settingsDocs: Collection<SettingsDoc>;
  /** Single sign-on; null when it is not set up. */
  oidc: ReturnType<typeof createOidc> | null;
  sso: IdentityOptions['sso'];
  onSignIn: IdentityOptions['onSignIn'];
  /** Which users' principals changed, for the gateways that cache them. */
  changes: PrincipalChanges;
  /** The read models this service keeps, each announcing the users its events concern. */
  projections: Projection[];
}

export function createIdentityDeps(opts: IdentityOptions): IdentityDeps {
  const { eventStore, documents, log } = opts;
  const clock = opts.clock ?? (() => new Date());
  const scryptParams = opts.scrypt ?? DEFAULT_SCRYPT;
  const users = userQueries(documents);
  // Each applied event is announced (after the read model has it) to the gateways that cache principals;
  // membership events too, since a principal carries its organisation and role.
  const changes = new PrincipalChanges();
  const projections = [usersProjection, apiKeysProjection, ...orgProjections].map((projection) => announcing(projection, changes));
  const orgAnnouncing = projections.slice(2);
  // The audit log (issue 30, docs/adr/0023): this service records its own entries like any other,
  // and keeps everyone's, arriving on the bus.
  const recorder = createAuditRecorder({ eventStore, source: 'identity', clock, log });
  const audit = createAuditLog({ documents, users, recorder, bus: opts.bus, log });
  const orgs = createOrgs({ eventStore, documents, users, quota: opts.quota, log, clock, audit: recorder, projections: orgAnnouncing });
  const run: Run = async (...args) => {
    const result = await handleCommand(...args);
    await projectInline(projections, result.recorded, documents, eventStore);
    return result;
  };
  return {
    eventStore,
    documents,
    log,
    clock,
    quota: opts.quota,
    run,
    users,
    keys: apiKeyQueries(documents),
    orgs,
    recorder,
    audit,
    adminEmails: new Set(csv(opts.adminEmails).map(normaliseEmail)),
    scryptParams,
    throttle: new LoginThrottle(documents, opts.deviceSecret, clock, { ...DEFAULT_THROTTLE, ...opts.loginThrottle }),
    dummyHash: hashPassword(randomBytes(16).toString('hex'), scryptParams),
    settingsDocs: documents.collection<SettingsDoc>(SETTINGS),
    oidc: opts.sso ? createOidc(opts.sso, opts.deviceSecret, clock) : null,
    sso: opts.sso,
    onSignIn: opts.onSignIn,
    changes,
    projections,
  };
}
