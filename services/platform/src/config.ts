import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Every setting Baret reads from its environment, in one schema. Types come from the schema;
 * `loadConfig` converts, applies defaults and lists everything that is wrong at once.
 */
export const ConfigSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], {
    default: 'development',
  }),
  BARET_MODE: Type.Union([Type.Literal('embedded'), Type.Literal('distributed')], {
    default: 'embedded',
    description: 'embedded: one process, SQLite and a folder; distributed: Kafka, EventStoreDB, MongoDB, MinIO',
  }),
  HOST: Type.String({ default: '0.0.0.0' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  BARET_DATA_DIR: Type.String({ minLength: 1, default: './data', description: 'embedded mode: database and objects' }),
  BARET_SCRATCH_DIR: Type.Optional(
    Type.String({ minLength: 1, description: 'temporary files (uploads being received, videos being analysed); default $BARET_DATA_DIR/tmp, emptied at start and exit' }),
  ),
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 0, default: 15000, description: 'on SIGTERM, how long requests in progress (uploads) may take to finish' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  JWT_SECRET: Type.Optional(Type.String({ minLength: 32, description: 'required in distributed mode' })),
  JWT_PREVIOUS_SECRET: Type.Optional(
    Type.String({ minLength: 32, description: 'while rotating JWT_SECRET: the secret before it; tokens it signed stay valid until they expire' }),
  ),
  JWT_EXPIRES_IN: Type.String({ default: '12h', pattern: '^[0-9]+[smhd]$' }),
  CORS_ORIGINS: Type.String({ default: '', description: 'comma-separated allowed origins; empty: same origin only' }),
  RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 1,
    default: 600,
    description: 'requests a minute per user (login token) or per API key; per address for requests without a credential',
  }),
  RATE_LIMIT_PER_ADDRESS_PER_MINUTE: Type.Optional(
    Type.Integer({ minimum: 1, description: 'every request of one client address: a coarse flood guard; default 10 × RATE_LIMIT_PER_MINUTE' }),
  ),
  HTTP_HEADERS_TIMEOUT_MS: Type.Integer({ minimum: 1000, default: 20_000, description: 'a client must send its request headers within this time' }),
  HTTP_IDLE_TIMEOUT_MS: Type.Integer({ minimum: 1000, default: 60_000, description: 'a connection on which nothing arrives for this long is closed (uploads included)' }),
  HTTP_BODY_TIMEOUT_MS: Type.Integer({ minimum: 1000, default: 30_000, description: 'a request other than an upload must arrive whole within this time' }),
  TRUST_PROXY: Type.Boolean({ default: false }),
  BARET_ADMIN_EMAILS: Type.String({ default: '', description: 'comma-separated addresses that become admins once verified' }),
  BARET_TEAM_EMAIL: Type.String({ default: 'team@baret.app' }),
  SMTP_URL: Type.Optional(Type.String({ minLength: 1 })),
  SMTP_FROM: Type.String({ default: 'Baret <no-reply@baret.app>' }),
  PUBLIC_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s]+$',
      description:
        'where people reach the web app: links in mails, pushes and webhook bodies; unset: the address the request came to (see docs/adr/0026), else http://localhost:$PORT',
    }),
  ),
  OIDC_ISSUER: Type.Optional(
    Type.String({ pattern: '^https?://[^\\s]+$', description: 'single sign-on (OpenID Connect): the issuer URL of the company directory (discovery at /.well-known/openid-configuration); with the client id and secret, the login page offers the company account' }),
  ),
  OIDC_CLIENT_ID: Type.Optional(Type.String({ minLength: 1, description: 'single sign-on: the client id Baret has at the issuer' })),
  OIDC_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1, description: 'single sign-on: the client secret (a secret: never logged)' })),
  OIDC_REDIRECT_URL: Type.Optional(
    Type.String({ pattern: '^https?://[^\\s]+$', description: 'single sign-on: where the issuer sends the browser back; default $PUBLIC_URL/login/sso (register it at the issuer)' }),
  ),
  OIDC_ORG_DOMAINS: Type.String({
    default: '',
    description: 'single sign-on: comma-separated domain=organisation-id pairs; a first sign-in with an address at the domain joins that organisation as a member',
  }),
  OIDC_SCOPES: Type.String({ default: 'openid email profile', description: 'single sign-on: the scopes asked for (openid and email are needed)' }),
  VAPID_PUBLIC_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{80,100}$', description: 'Web Push key pair (base64url) from a secret; unset: made at the first start and kept in the document store' })),
  VAPID_PRIVATE_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{40,50}$', description: 'the private half of VAPID_PUBLIC_KEY' })),
  NOTIFY_ALLOW_PRIVATE_HOSTS: Type.Boolean({ default: false, description: 'webhook and push targets may be private, loopback or link-local addresses (on-prem)' }),
  NOTIFY_CLAIM_LEASE_MS: Type.Integer({ minimum: 1000, default: 120_000, description: 'how long a notification process holds a claimed send (mail, push, webhook attempt) before another may take it over' }),
  NOTIFY_WEBHOOK_RETRY_BASE_MS: Type.Integer({ minimum: 10, default: 30_000, description: 'first retry of a failed webhook delivery (doubling, with jitter, for 24 h)' }),
  UPLOAD_MAX_BYTES: Type.Integer({ minimum: 1, default: 2 * 1024 ** 3 }),
  UPLOAD_EXPIRY_HOURS: Type.Number({
    exclusiveMinimum: 0,
    default: 24,
    description: 'hours after which an unfinished or unused resumable (tus) upload is deleted',
  }),
  RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 36500,
    default: 365,
    description: 'days a job (results, evidence, reports) is kept before it is erased, unless an admin or an organisation sets another period (issue 30)',
  }),
  RETENTION_SWEEP_MINUTES: Type.Integer({ minimum: 1, default: 60, description: 'how often the job service looks for jobs past their retention period (also at start)' }),
  READ_CACHE_ITEMS: Type.Integer({
    minimum: 0,
    default: 20_000,
    description: 'job list items the job service keeps in memory for GET /jobs, dropped as its projection applies their events (0: no cache; docs/adr/0019)',
  }),
  BARET_CLOCK_OFFSET: Type.Optional(
    Type.String({ pattern: '^-?[0-9]+(ms|s|m|h|d)$', description: 'tests and drills only: this process runs with its clock moved by this much (e.g. 2d), e.g. to see retention act' }),
  ),
  WEB_DIST_DIR: Type.Optional(Type.String()),
  OPENAI_BASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  OPENAI_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  OPENAI_MODEL: Type.String({ default: 'gpt-4o-mini' }),
  OPENAI_TIMEOUT_MS: Type.Integer({ minimum: 1000, default: 60000 }),
  MODEL_PRICING_JSON: Type.Optional(Type.String({ description: 'JSON: { model: { input_per_1m, output_per_1m } }' })),
  KAFKA_BROKERS: Type.Optional(Type.String({ minLength: 1 })),
  KAFKA_SESSION_TIMEOUT_MS: Type.Integer({
    minimum: 3000,
    maximum: 300_000,
    default: 10_000,
    description: 'distributed mode: how soon a dead consumer (an analysis worker killed mid-job) loses its partitions to another',
  }),
  EVENT_STORE: Type.Union([Type.Literal('postgres'), Type.Literal('kurrentdb')], {
    default: 'postgres',
    description: 'distributed mode: where events are stored (PostgreSQL, the engine tested everywhere; or KurrentDB)',
  }),
  EVENTSTORE_URL: Type.Optional(Type.String({ minLength: 1, description: 'KurrentDB connection string (EVENT_STORE=kurrentdb)' })),
  POSTGRES_URL: Type.Optional(Type.String({ minLength: 1, description: 'PostgreSQL connection URL (EVENT_STORE=postgres)' })),
  MONGODB_URL: Type.Optional(Type.String({ minLength: 1 })),
  MONGODB_DATABASE: Type.String({ default: 'baret' }),
  S3_ENDPOINT: Type.Optional(Type.String({ minLength: 1 })),
  S3_ACCESS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  S3_SECRET_KEY: Type.Optional(Type.String({ minLength: 1 })),
  S3_BUCKET: Type.String({ default: 'baret' }),
  S3_REGION: Type.String({ default: 'us-east-1' }),
  SERVICE_SECRET: Type.Optional(
    Type.String({ minLength: 32, description: 'distributed mode: signs the credential services send each other (x-baret-service)' }),
  ),
  IDENTITY_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', description: 'distributed mode: base URL of the identity service' })),
  QUOTA_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', description: 'distributed mode: base URL of the quota service' })),
  JOB_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', description: 'distributed mode: base URL of the job service' })),
  ANALYSIS_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', description: 'distributed mode: base URL of the analysis service' })),
  NOTIFICATION_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', description: 'distributed mode: base URL of the notification service' })),
});

export type RawConfig = Static<typeof ConfigSchema>;
export type Config = RawConfig & { JWT_SECRET: string; BARET_DATA_DIR: string };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** The services of the distributed run (docs/adr/0011), each its own process. */
export const SERVICES = ['gateway', 'identity', 'quota', 'job', 'analysis', 'notification'] as const;
export type ServiceName = (typeof SERVICES)[number];

type Key = keyof RawConfig;
const STORES: Key[] = ['KAFKA_BROKERS', 'MONGODB_URL'];
/**
 * What each service needs in distributed mode, besides SERVICE_SECRET. Only identity (signs access
 * tokens) holds JWT_SECRET; the gateway checks tokens with identity's public keys (docs/adr/0019).
 */
const NEEDS: Record<ServiceName, Key[]> = {
  gateway: ['IDENTITY_URL', 'QUOTA_URL', 'JOB_URL', 'ANALYSIS_URL', 'NOTIFICATION_URL'],
  identity: ['JWT_SECRET', ...STORES, 'QUOTA_URL'],
  quota: [...STORES, 'IDENTITY_URL'],
  job: [...STORES, 'S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'QUOTA_URL', 'ANALYSIS_URL'],
  analysis: ['KAFKA_BROKERS', 'MONGODB_URL', 'S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY'],
  notification: STORES,
};
/** Services that keep an event store. */
export const HAS_EVENT_STORE: Record<ServiceName, boolean> = {
  gateway: false,
  identity: true,
  quota: true,
  job: true,
  analysis: false,
  notification: true,
};

/** The settings a service cannot run without in distributed mode. */
export function requiredSettings(cfg: Pick<RawConfig, 'EVENT_STORE'>, service?: ServiceName): Key[] {
  const eventStoreUrl: Key = cfg.EVENT_STORE === 'postgres' ? 'POSTGRES_URL' : 'EVENTSTORE_URL';
  if (!service) return ['JWT_SECRET', 'KAFKA_BROKERS', 'MONGODB_URL', 'S3_ENDPOINT', eventStoreUrl];
  return ['SERVICE_SECRET', ...NEEDS[service], ...(HAS_EVENT_STORE[service] ? [eventStoreUrl] : [])];
}

/** Parses the environment. Unknown variables are ignored; empty strings count as unset. */
export function parseConfig(env: Record<string, string | undefined>, service?: ServiceName): RawConfig {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const v = env[key];
    if (v !== undefined && v !== '') input[key] = v;
  }
  const value = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, input));
  const problems = [...Value.Errors(ConfigSchema, value)].map(
    (e) => `${e.path.replace(/^\//, '') || '(root)'}: ${e.message}${e.value === undefined ? '' : ` (got ${JSON.stringify(e.value)})`}`,
  );
  const cfg = value as RawConfig;
  if (problems.length === 0 && (cfg.BARET_MODE === 'distributed' || service)) {
    for (const key of requiredSettings(cfg, service)) {
      if (!cfg[key]) problems.push(service ? `${key}: required by the ${service} service` : `${key}: required in distributed mode`);
    }
  }
  const oidc = (['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const).filter((k) => cfg[k]);
  if (oidc.length > 0 && oidc.length < 3) {
    for (const key of ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const) if (!cfg[key]) problems.push(`${key}: required with ${oidc.join(' and ')} (single sign-on)`);
  }
  for (const pair of csv(cfg.OIDC_ORG_DOMAINS ?? '')) {
    if (!/^[a-z0-9.-]+\.[a-z]{2,}=[0-9a-f-]{36}$/i.test(pair)) problems.push(`OIDC_ORG_DOMAINS: "${pair}" is not domain=organisation-id`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return cfg;
}

/**
 * Parses the environment and completes it: in embedded mode a JWT secret is generated once and
 * kept in the data dir (mode 0600), so tokens survive restarts without any setup.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, service?: ServiceName): Config {
  const cfg = parseConfig(env, service);
  const dataDir = resolve(cfg.BARET_DATA_DIR);
  let secret = cfg.JWT_SECRET;
  // A service process that neither signs nor checks access tokens has none to keep (and may run on
  // a read-only file system).
  if (!secret && service) secret = randomBytes(48).toString('base64url');
  if (!secret) {
    mkdirSync(dataDir, { recursive: true });
    const file = join(dataDir, 'jwt-secret');
    try {
      secret = readFileSync(file, 'utf8').trim();
    } catch {
      secret = randomBytes(48).toString('base64url');
      writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    }
  }
  return { ...cfg, BARET_DATA_DIR: dataDir, BARET_SCRATCH_DIR: scratchDirOf({ ...cfg, BARET_DATA_DIR: dataDir }), JWT_SECRET: secret };
}

/** `loadConfig` for a process's start: a wrong setting prints every problem and exits with 2. */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env, service?: ServiceName): Config {
  try {
    return loadConfig(env, service);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`${e.message}\n`);
    process.exit(2);
  }
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 };

/** The process's clock: the system's, moved by BARET_CLOCK_OFFSET when a test or drill sets it. */
export function clockOf(config: Pick<RawConfig, 'BARET_CLOCK_OFFSET'>): () => Date {
  const m = /^(-?[0-9]+)(ms|s|m|h|d)$/.exec(config.BARET_CLOCK_OFFSET ?? '');
  if (!m) return () => new Date();
  const offset = Number(m[1]) * UNIT_MS[m[2]!]!;
  return () => new Date(Date.now() + offset);
}

/** The scratch folder: `BARET_SCRATCH_DIR`, or `tmp` in the data dir. */
/** Where people reach the web app: PUBLIC_URL, or this server on its own port (issue 40), without a trailing slash. */
export const publicUrlOf = (config: Pick<RawConfig, 'PUBLIC_URL' | 'PORT'>): string => (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '');

export const scratchDirOf = (config: Pick<RawConfig, 'BARET_DATA_DIR' | 'BARET_SCRATCH_DIR'>): string =>
  resolve(config.BARET_SCRATCH_DIR ?? join(config.BARET_DATA_DIR, 'tmp'));

export const csv = (s: string): string[] =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
