/**
 * The vision analyzer that talks to any OpenAI-compatible chat completions endpoint: OpenAI,
 * Azure OpenAI, vLLM, Ollama (and other servers that implement `POST /chat/completions` with image
 * inputs and `response_format: json_schema`).
 *
 * Endpoints:
 * - OpenAI: `{ model: 'gpt-4o-mini', apiKey }` (base URL defaults to https://api.openai.com/v1).
 * - Azure OpenAI, v1 API: `baseURL: 'https://<resource>.openai.azure.com/openai/v1'`, `apiKey: <key>`,
 *   `model: <deployment name>`.
 * - Azure OpenAI, deployment API: `baseURL: 'https://<resource>.openai.azure.com/openai/deployments/<deployment>'`,
 *   `defaultQuery: { 'api-version': '2024-10-21' }`, `defaultHeaders: { 'api-key': <key> }`
 *   (see `azureDeploymentOptions`). From the environment, `OPENAI_BASE_URL` may carry the query
 *   (`…/deployments/<d>?api-version=2024-10-21`): `openAiOptionsFromConfig` moves it into
 *   `defaultQuery` and adds the `api-key` header for `*.openai.azure.com` / `*.cognitiveservices.azure.com` hosts.
 * - vLLM: `baseURL: 'http://<host>:8000/v1'`, any `apiKey` unless the server was started with `--api-key`,
 *   `model` as served (e.g. `Qwen/Qwen2.5-VL-7B-Instruct`).
 * - Ollama: `baseURL: 'http://<host>:11434/v1'`, `apiKey: 'ollama'` (ignored), `model: 'qwen2.5vl:7b'`.
 *
 * Every call: structured output with a strict JSON schema, the answer validated against that
 * same schema on receipt (one retry for an unreadable answer), retries with exponential backoff
 * and jitter on 408/409/429/5xx and connection errors (honouring `retry-after-ms` / `retry-after`),
 * a timeout per HTTP attempt, and the caller's AbortSignal honoured at every step.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { TSchema } from '@sinclair/typebox';
import {
  classificationAnswerSchema,
  compositeAnswerSchema,
  schemaProblems,
  toJsonSchema,
  type ClassificationAnswer,
  type CompositeAnswer,
} from './openaiAnalyzer.schemas.js';
import type {
  Classification,
  Composite,
  CompositeAnalysis,
  EquipmentOption,
  EquipmentSighting,
  WearVerdict,
  WorkerSighting,
  TaskOption,
  TokenUsage,
  VisionAnalyzer,
} from './types.js';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ContentPart = OpenAI.Chat.Completions.ChatCompletionContentPart;
type ChatRequest = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type ChatResponse = OpenAI.Chat.Completions.ChatCompletion;

/** Settings of an `OpenAiAnalyzer`. Only `model` is required. */
export interface OpenAiAnalyzerOptions {
  /** Model (or Azure deployment) name; also the analyzer's `modelName`. */
  model: string;
  /** Endpoint base URL, up to and including `/v1` (default: OpenAI's). */
  baseURL?: string;
  /** API key; sent as `Authorization: Bearer`. Self-hosted servers accept any value (default `'not-needed'`). */
  apiKey?: string;
  /** Time limit of each HTTP attempt, in ms, including reading the body (default 60 000). */
  timeoutMs?: number;
  /** Retries after the first attempt on 408/409/429/5xx, connection errors and timeouts (default 3). */
  maxRetries?: number;
  /** First backoff delay in ms; doubles each retry, with jitter (default 500). */
  retryBaseDelayMs?: number;
  /** Cap of the computed backoff delay, in ms (default 20 000). */
  retryMaxDelayMs?: number;
  /** Cap of a server-requested `retry-after` wait, in ms (default 60 000). */
  maxRetryAfterMs?: number;
  /** Headers added to every request (Azure: `{ 'api-key': key }`). */
  defaultHeaders?: Record<string, string>;
  /** Query parameters added to every request (Azure: `{ 'api-version': '2024-10-21' }`). */
  defaultQuery?: Record<string, string>;
  /** `detail` of the attached images (default `'auto'`; `'high'` sees small equipment better and costs more). */
  imageDetail?: 'auto' | 'low' | 'high';
  /** How many composites `classifyJob` attaches (1 or 2, default 2). */
  classifyComposites?: 1 | 2;
  /**
   * How structured output is asked for: `json_schema` (default; OpenAI, Azure, vLLM, Ollama ≥ 0.5) sends
   * the strict schema; `json_object` (older servers) asks for any JSON object and puts the schema in the
   * prompt. Either way the answer is validated against the schema.
   */
  responseFormat?: 'json_schema' | 'json_object';
  /** Sent as `max_completion_tokens` when set (older servers may want it unset). */
  maxCompletionTokens?: number;
  /** Sent as `temperature` when set (GPT-5 and o-series accept only the default, so unset by default). */
  temperature?: number;
  /** Called before each retry wait: for logs and metrics. */
  onRetry?: (info: RetryInfo) => void;
}

/** Why and when a call is retried. */
export interface RetryInfo {
  /** The attempt that failed, 1-based. */
  attempt: number;
  delayMs: number;
  reason: 'rate_limited' | 'server_error' | 'timeout' | 'connection_failed' | 'malformed_answer';
  status?: number;
  message: string;
}

/** What went wrong with the vision model, for code; the message is for people. */
export type VisionModelErrorCode =
  | 'malformed_answer'
  | 'timeout'
  | 'rate_limited'
  | 'server_error'
  | 'connection_failed'
  | 'request_rejected'
  | 'cancelled'
  | 'invalid_request';

/** A vision model call that failed for good (after the retries that made sense). */
export class VisionModelError extends Error {
  /** What went wrong. */
  readonly code: VisionModelErrorCode;
  /** HTTP attempts made by the failing call (all of them, across answer retries). */
  readonly attempts: number;
  /** HTTP status of the last failed attempt, if any. */
  readonly status?: number;
  /** Tokens spent before failing (malformed answers are billed too). */
  readonly usage: TokenUsage;
  /** Details for logs: the validation problems, the endpoint's error message. */
  readonly details: string[];

  constructor(
    code: VisionModelErrorCode,
    message: string,
    extra: { attempts?: number; status?: number; usage?: TokenUsage; details?: string[]; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'VisionModelError';
    this.code = code;
    this.attempts = extra.attempts ?? 0;
    this.status = extra.status;
    this.usage = extra.usage ?? { promptTokens: 0, completionTokens: 0 };
    this.details = extra.details ?? [];
  }
}

/** Settings from the environment (`services/platform` config names) that the analyzer reads. */
export interface OpenAiEnvSettings {
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  OPENAI_MODEL: string;
  OPENAI_TIMEOUT_MS: number;
}

const AZURE_HOST = /\.(openai\.azure\.com|cognitiveservices\.azure\.com|services\.ai\.azure\.com)$/i;

/**
 * Analyzer options from the platform config. A query string in `OPENAI_BASE_URL` becomes
 * `defaultQuery` (Azure's `api-version`), and Azure hosts also get the key as an `api-key` header.
 */
export function openAiOptionsFromConfig(cfg: OpenAiEnvSettings, extra: Partial<OpenAiAnalyzerOptions> = {}): OpenAiAnalyzerOptions {
  const opts: OpenAiAnalyzerOptions = { model: cfg.OPENAI_MODEL, timeoutMs: cfg.OPENAI_TIMEOUT_MS, apiKey: cfg.OPENAI_API_KEY };
  if (cfg.OPENAI_BASE_URL) {
    const url = new URL(cfg.OPENAI_BASE_URL);
    const query = Object.fromEntries(url.searchParams);
    url.search = '';
    opts.baseURL = url.toString().replace(/\/$/, '');
    if (Object.keys(query).length > 0) opts.defaultQuery = query;
    if (AZURE_HOST.test(url.hostname) && cfg.OPENAI_API_KEY) opts.defaultHeaders = { 'api-key': cfg.OPENAI_API_KEY };
  }
  return { ...opts, ...extra };
}

/** Options for an Azure OpenAI deployment through the deployment-scoped API. */
export function azureDeploymentOptions(a: {
  /** `https://<resource>.openai.azure.com` */
  endpoint: string;
  deployment: string;
  apiKey: string;
  /** e.g. `2024-10-21` */
  apiVersion: string;
}): OpenAiAnalyzerOptions {
  return {
    model: a.deployment,
    baseURL: `${a.endpoint.replace(/\/+$/, '')}/openai/deployments/${encodeURIComponent(a.deployment)}`,
    apiKey: a.apiKey,
    defaultHeaders: { 'api-key': a.apiKey },
    defaultQuery: { 'api-version': a.apiVersion },
  };
}

const SYSTEM_PROMPT = [
  'You are a safety inspector for electrical field work (power distribution, substations, overhead lines).',
  'You look at frames from a work video and report personal protective equipment (PPE) precisely.',
  'Report only what the images show; never guess from the job type. Answer with JSON that matches the schema, nothing else.',
].join(' ');

const MALFORMED_MESSAGE = 'The vision model returned an answer we could not read twice in a row.';

const ZERO: TokenUsage = { promptTokens: 0, completionTokens: 0 };

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return { promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens };
}

function dataUrl(jpeg: Buffer): string {
  return `data:image/jpeg;base64,${jpeg.toString('base64')}`;
}

/** `mm:ss.s`, or `h:mm:ss.s` past an hour. */
export function formatTimecode(sec: number): string {
  const s = Math.max(0, sec);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = (s % 60).toFixed(1).padStart(4, '0');
  const mm = String(m).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${rest}` : `${mm}:${rest}`;
}

/** Describes where each cell of a composite sits (row/column from the pixel positions) and when. */
export function describeGrid(composite: Composite): string {
  const xs = [...new Set(composite.cells.map((c) => c.x))].sort((a, b) => a - b);
  const ys = [...new Set(composite.cells.map((c) => c.y))].sort((a, b) => a - b);
  const lines = composite.cells.map(
    (c, i) => `- frame ${i + 1}: row ${ys.indexOf(c.y) + 1}, column ${xs.indexOf(c.x) + 1}, at ${formatTimecode(c.timeSec)} in the video`,
  );
  return [
    `The image is a grid of ${composite.cells.length} frames from one video, ${ys.length} row(s) by ${xs.length} column(s), in time order, numbered left to right, top to bottom:`,
    ...lines,
  ].join('\n');
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Server-requested wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date), in ms. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const ra = headers.get('retry-after');
  if (ra === null || ra.trim() === '') return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs)) return secs >= 0 ? secs * 1000 : undefined;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The kind of a failed HTTP attempt, and whether another attempt may help. */
interface AttemptFailure {
  code: Exclude<VisionModelErrorCode, 'malformed_answer' | 'cancelled' | 'invalid_request'>;
  retryable: boolean;
  status?: number;
  message: string;
  retryAfterMs?: number;
  cause: unknown;
}

class CallCancelled extends Error {}

/** An answer that was received but could not be used. */
class UnreadableAnswer extends Error {
  constructor(
    readonly problems: string[],
    readonly content: string | null,
  ) {
    super(problems.join('; '));
  }
}

/** Sends PPE questions to an OpenAI-compatible vision model. */
export class OpenAiAnalyzer implements VisionAnalyzer {
  /** The configured model (shown to users as `model_used`). */
  readonly modelName: string;
  /** Its composites go to another party's endpoint (issue 30: faces blurred unless the organisation allows otherwise). */
  readonly thirdParty = true;
  private readonly client: OpenAI;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly host: string;

  constructor(private readonly options: OpenAiAnalyzerOptions) {
    if (!options.model) throw new TypeError('OpenAiAnalyzer: a model name is required');
    this.modelName = options.model;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxRetries = Math.max(0, Math.floor(options.maxRetries ?? 3));
    this.baseDelayMs = options.retryBaseDelayMs ?? 500;
    this.maxDelayMs = options.retryMaxDelayMs ?? 20_000;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
    this.client = new OpenAI({
      baseURL: options.baseURL ?? 'https://api.openai.com/v1',
      apiKey: options.apiKey ?? 'not-needed',
      timeout: this.timeoutMs,
      // Retries are ours (counted, configurable backoff, malformed-answer retry on top).
      maxRetries: 0,
      defaultHeaders: options.defaultHeaders,
      defaultQuery: options.defaultQuery,
    });
    this.host = new URL(options.baseURL ?? 'https://api.openai.com/v1').host;
  }

  /** Picks the job type among `tasks` from the first one or two composites. */
  async classifyJob(composites: Composite[], tasks: TaskOption[], signal?: AbortSignal): Promise<Classification> {
    if (tasks.length === 0) throw new VisionModelError('invalid_request', 'classifyJob needs at least one task to choose from.');
    if (tasks.length === 1) return { slug: tasks[0]!.slug, confidence: 1, usage: { ...ZERO } };
    const images = composites.slice(0, this.options.classifyComposites ?? 2);
    if (images.length === 0) throw new VisionModelError('invalid_request', 'classifyJob needs at least one composite.');
    const slugs = tasks.map((t) => t.slug);
    const schema = classificationAnswerSchema(slugs);
    const prompt = [
      `These ${images.length === 1 ? 'image is a grid' : 'images are grids'} of frames from one video of electrical field work.`,
      'Which job type below is being done? Choose exactly one slug from this list:',
      ...tasks.map((t) => `- ${t.slug}: ${t.name}`),
      'Give your confidence from 0 to 1.',
    ].join('\n');
    const content: ContentPart[] = [{ type: 'text', text: prompt }, ...images.map((c) => this.imagePart(c))];
    const { answer, usage } = await this.ask<ClassificationAnswer>('job_classification', schema, content, signal);
    return { slug: answer.slug, confidence: answer.confidence, usage };
  }

  /** Asks which of `ask.equipment` is seen worn or in use, or seen missing, in one composite. */
  async analyzeComposite(
    composite: Composite,
    ask: { equipment: EquipmentOption[] },
    signal?: AbortSignal,
  ): Promise<CompositeAnalysis> {
    if (ask.equipment.length === 0) return { seen: [], missing: [], notChecked: [], usage: { ...ZERO } };
    if (composite.cells.length === 0) throw new VisionModelError('invalid_request', `Composite ${composite.index} has no cells.`);
    const codes = [...new Set(ask.equipment.map((e) => e.code))];
    const schema = compositeAnswerSchema(codes, composite.cells.length);
    const prompt = [
      describeGrid(composite),
      '',
      'Look for this equipment on the workers (code: name — what it looks like):',
      ...ask.equipment.map((e) => `- ${e.code}: ${e.title}${e.description ? ` — ${e.description}` : ''}`),
      '',
      'In "seen", list each code you can see worn or in use, with the frame number where it is clearest and your confidence from 0 to 1.',
      'In "missing", list codes clearly absent on a visible worker (for example a bare head: no hard hat). A code you cannot judge goes in neither list.',
      'In "persons", give the largest number of workers visible in any one frame.',
      'In "workers", list every worker visible in every frame: the frame number, the worker\'s number in that frame (left to right, from 1), their box as fractions 0–1 of that frame (x, y of the top-left corner, w, h), and for each code above a verdict: "worn", "not_worn" (the body part is clearly visible without it) or "unknown" (cannot tell).',
    ].join('\n');
    const content: ContentPart[] = [{ type: 'text', text: prompt }, this.imagePart(composite)];
    const { answer, usage } = await this.ask<CompositeAnswer>('ppe_check', schema, content, signal);
    const seen: EquipmentSighting[] = answer.seen.map((s) => {
      const cell = composite.cells[s.frame - 1]!;
      return { code: s.code, frameIndex: cell.frameIndex, timeSec: cell.timeSec, confidence: s.confidence };
    });
    const workers: WorkerSighting[] = answer.workers.map((w) => {
      const cell = composite.cells[w.frame - 1]!;
      const verdicts: Record<string, WearVerdict> = {};
      for (const v of w.verdicts) verdicts[v.code] = v.verdict as WearVerdict;
      const box = { x: w.box.x, y: w.box.y, w: Math.min(w.box.w, 1 - w.box.x), h: Math.min(w.box.h, 1 - w.box.y) };
      return { frameIndex: cell.frameIndex, timeSec: cell.timeSec, worker: w.worker, box, verdicts };
    });
    return { seen, missing: [...new Set(answer.missing)], notChecked: [], persons: answer.persons, workers, usage };
  }

  private imagePart(c: Composite): ContentPart {
    return { type: 'image_url', image_url: { url: dataUrl(c.jpeg), detail: this.options.imageDetail ?? 'auto' } };
  }

  /**
   * One question: a structured-output request, its answer checked against `schema`; an unreadable
   * answer is asked again once (telling the model what was wrong), a second one fails.
   */
  private async ask<T>(
    name: string,
    schema: TSchema,
    userContent: ContentPart[],
    signal: AbortSignal | undefined,
  ): Promise<{ answer: T; usage: TokenUsage }> {
    const jsonSchema = toJsonSchema(schema);
    const jsonObjectMode = this.options.responseFormat === 'json_object';
    const system = jsonObjectMode
      ? `${SYSTEM_PROMPT}\nThe JSON must match this JSON Schema:\n${JSON.stringify(jsonSchema)}`
      : SYSTEM_PROMPT;
    const messages: ChatMessage[] = [
      { role: 'system', content: system },
      { role: 'user', content: userContent },
    ];
    const request: ChatRequest = {
      model: this.modelName,
      messages,
      response_format: jsonObjectMode
        ? { type: 'json_object' }
        : { type: 'json_schema', json_schema: { name, strict: true, schema: jsonSchema } },
      ...(this.options.maxCompletionTokens === undefined ? {} : { max_completion_tokens: this.options.maxCompletionTokens }),
      ...(this.options.temperature === undefined ? {} : { temperature: this.options.temperature }),
    };
    let usage: TokenUsage = { ...ZERO };
    let attempts = 0;
    let lastProblems: string[] = [];
    let lastContent: string | null = null;
    for (let round = 1; round <= 2; round += 1) {
      const body = round === 1 ? request : this.retryRequest(request, lastProblems, lastContent);
      const res = await this.send(body, signal, usage, attempts);
      attempts = res.attempts;
      usage = addUsage(usage, res.usage);
      try {
        return { answer: this.read<T>(res.response, schema), usage };
      } catch (err) {
        if (!(err instanceof UnreadableAnswer)) throw err;
        lastProblems = err.problems;
        lastContent = err.content;
        if (round === 1) this.options.onRetry?.({ attempt: attempts, delayMs: 0, reason: 'malformed_answer', message: err.message });
      }
    }
    throw new VisionModelError('malformed_answer', MALFORMED_MESSAGE, { attempts, usage, details: lastProblems });
  }

  /** The second round: the first answer and what was wrong with it, so the model can correct itself. */
  private retryRequest(request: ChatRequest, problems: string[], previousContent: string | null): ChatRequest {
    const previous = (previousContent ?? '').slice(0, 2000);
    return {
      ...request,
      messages: [
        ...request.messages,
        ...(previous ? [{ role: 'assistant' as const, content: previous }] : []),
        {
          role: 'user',
          content: `That answer could not be used (${problems.slice(0, 3).join('; ')}). Answer again with only JSON that matches the schema.`,
        },
      ],
    };
  }

  /** Parses and validates the first choice's content. */
  private read<T>(response: ChatResponse, schema: TSchema): T {
    const message = response.choices?.[0]?.message;
    if (!message) throw new UnreadableAnswer(['the answer has no choices'], null);
    if (message.refusal) throw new UnreadableAnswer([`the model refused: ${message.refusal}`], null);
    const content = message.content;
    if (typeof content !== 'string' || content.trim() === '') throw new UnreadableAnswer(['the answer is empty'], null);
    let text = content.trim();
    const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/i.exec(text);
    if (fenced) text = fenced[1]!;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new UnreadableAnswer([`the answer is not JSON: ${JSON.stringify(content.slice(0, 120))}`], content);
    }
    const problems = schemaProblems(schema, value);
    if (problems.length > 0) throw new UnreadableAnswer(problems, content);
    return value as T;
  }

  /** One HTTP request with retries on transient failures. */
  private async send(
    request: ChatRequest,
    signal: AbortSignal | undefined,
    usageSoFar: TokenUsage,
    attemptsSoFar: number,
  ): Promise<{ response: ChatResponse; usage: TokenUsage; attempts: number }> {
    let attempts = attemptsSoFar;
    for (let retry = 0; ; retry += 1) {
      if (signal?.aborted) throw this.cancelled(attempts, usageSoFar, signal.reason);
      attempts += 1;
      let failure: AttemptFailure;
      try {
        const response = await this.attempt(request, signal);
        const usage = {
          promptTokens: response.usage?.prompt_tokens ?? 0,
          completionTokens: response.usage?.completion_tokens ?? 0,
        };
        return { response, usage, attempts };
      } catch (err) {
        if (err instanceof CallCancelled) throw this.cancelled(attempts, usageSoFar, signal?.reason);
        failure = this.classify(err);
      }
      if (!failure.retryable || retry >= this.maxRetries) {
        throw new VisionModelError(failure.code, this.finalMessage(failure, attempts), {
          attempts,
          status: failure.status,
          usage: usageSoFar,
          details: [failure.message],
          cause: failure.cause,
        });
      }
      const delayMs = this.delayFor(retry + 1, failure.retryAfterMs);
      this.options.onRetry?.({
        attempt: attempts,
        delayMs,
        reason: failure.code as RetryInfo['reason'],
        status: failure.status,
        message: failure.message,
      });
      try {
        await sleep(delayMs, signal);
      } catch {
        throw this.cancelled(attempts, usageSoFar, signal?.reason);
      }
    }
  }

  /** One HTTP attempt, bounded by `timeoutMs` (headers and body) and the caller's signal. */
  private async attempt(request: ChatRequest, signal: AbortSignal | undefined): Promise<ChatResponse> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`timed out after ${this.timeoutMs} ms`));
    }, this.timeoutMs);
    const onAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.client.chat.completions.create(request, {
        signal: controller.signal,
        timeout: this.timeoutMs,
        maxRetries: 0,
      });
    } catch (err) {
      if (signal?.aborted) throw new CallCancelled();
      if (timedOut) throw new APIConnectionTimeoutError({ message: `Request timed out after ${this.timeoutMs} ms.` });
      throw err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private classify(err: unknown): AttemptFailure {
    if (err instanceof APIConnectionTimeoutError) return { code: 'timeout', retryable: true, message: err.message, cause: err };
    if (err instanceof APIUserAbortError) return { code: 'timeout', retryable: true, message: err.message, cause: err };
    if (err instanceof APIConnectionError) {
      const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
      return { code: 'connection_failed', retryable: true, message: `${err.message}${cause}`, cause: err };
    }
    if (err instanceof APIError && typeof err.status === 'number') {
      const status = err.status;
      const message = err.message;
      const retryAfter = retryAfterMs(err.headers);
      if (status === 429) {
        if (err.code === 'insufficient_quota') return { code: 'request_rejected', retryable: false, status, message, cause: err };
        return { code: 'rate_limited', retryable: true, status, message, retryAfterMs: retryAfter, cause: err };
      }
      if (status >= 500 || status === 408 || status === 409) {
        return { code: 'server_error', retryable: true, status, message, retryAfterMs: retryAfter, cause: err };
      }
      return { code: 'request_rejected', retryable: false, status, message, cause: err };
    }
    const message = err instanceof Error ? err.message : String(err);
    return { code: 'connection_failed', retryable: false, message, cause: err };
  }

  private finalMessage(f: AttemptFailure, attempts: number): string {
    const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
    switch (f.code) {
      case 'timeout':
        return `The vision model did not answer within ${this.timeoutMs / 1000} s (${tries}).`;
      case 'rate_limited':
        return `The vision model endpoint kept rate limiting us (HTTP 429) after ${tries}.`;
      case 'server_error':
        return `The vision model endpoint failed with HTTP ${f.status} after ${tries}.`;
      case 'connection_failed':
        return `Could not reach the vision model endpoint at ${this.host} after ${tries}: ${f.message}`;
      case 'request_rejected': {
        const hint =
          f.status === 401 || f.status === 403
            ? ' Check OPENAI_API_KEY.'
            : f.status === 404
              ? ` Check OPENAI_BASE_URL and that model "${this.modelName}" exists there.`
              : f.status === 429
                ? ' The account has no quota left.'
                : '';
        return `The vision model endpoint rejected the request with HTTP ${f.status}: ${f.message}.${hint}`;
      }
    }
  }

  /** Exponential backoff with jitter (half fixed, half random), or the server's `retry-after`. */
  private delayFor(retry: number, serverMs: number | undefined): number {
    if (serverMs !== undefined) return Math.min(serverMs, this.maxRetryAfterMs);
    const exp = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (retry - 1));
    return Math.round(exp / 2 + Math.random() * (exp / 2));
  }

  private cancelled(attempts: number, usage: TokenUsage, reason: unknown): VisionModelError {
    return new VisionModelError('cancelled', 'The vision model call was cancelled.', { attempts, usage, cause: reason });
  }
}
