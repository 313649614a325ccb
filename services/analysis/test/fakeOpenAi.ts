/**
 * A small OpenAI-compatible HTTP server for tests, on 127.0.0.1 and a free port.
 *
 * It implements `POST …/chat/completions` (so `/v1/chat/completions` as well as Azure-style
 * `/openai/deployments/<name>/chat/completions`), records every request, and answers either from a
 * queue of scripted replies or, when the queue is empty, with a sensible default derived from the
 * request's JSON schema ("everything asked is seen in frame 1", "the first task").
 *
 * ```ts
 * const fake = await startFakeOpenAi();
 * const analyzer = new OpenAiAnalyzer({ baseURL: fake.url, apiKey: 'test-key', model: 'gpt-4o-mini' });
 * fake.script(fakeReplies.rateLimited('0'), fakeReplies.content({ slug: 'ag_pano', confidence: 0.9 }));
 * // … run the code under test …
 * expect(fake.requests).toHaveLength(2);
 * await fake.close();
 * ```
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A text or image part of a chat message, as the OpenAI chat API writes them. */
export type FakeContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } };

/** The parts of a chat completion request the fake looks at. Other fields are kept as sent. */
export interface FakeChatRequestBody {
  model: string;
  messages: { role: string; content: string | FakeContentPart[] | null }[];
  response_format?: {
    type: string;
    json_schema?: { name: string; strict?: boolean; schema: JsonSchemaLike; description?: string };
  };
  [key: string]: unknown;
}

/** The subset of JSON Schema the default responder reads. */
export interface JsonSchemaLike {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchemaLike>;
  items?: JsonSchemaLike;
  required?: string[];
  [key: string]: unknown;
}

/** One request as the fake received it. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** Parsed query string (e.g. Azure's `api-version`). */
  query: Record<string, string>;
  /** Lower-cased header names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; `undefined` if it was not JSON (then `rawBody` has it). */
  body: FakeChatRequestBody | undefined;
  rawBody: string;
  receivedAt: number;
  /** Set when the client went away before the fake had answered (timeouts, aborts). */
  closedByClient: boolean;
  /** Every image attached to the messages, as sent (data URLs for Baret). */
  imageUrls: string[];
  /** All text of all messages, joined by newlines: handy for prompt assertions. */
  text: string;
}

/** Token counts a reply reports, OpenAI field names. */
export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** What the fake does for one request. */
export type FakeReply =
  /** A normal completion whose `choices[0].message.content` is `content` (JSON-stringified unless a string). */
  | { kind: 'content'; content: unknown; usage?: FakeUsage; finishReason?: string }
  /** A completion whose message is a refusal (content null). */
  | { kind: 'refusal'; refusal: string; usage?: FakeUsage }
  /** An HTTP error with an OpenAI-style error body. */
  | { kind: 'error'; status: number; message?: string; code?: string; headers?: Record<string, string> }
  /** Any raw HTTP answer. */
  | { kind: 'raw'; status: number; body: string; headers?: Record<string, string> }
  /** Never answer; the connection stays open until the client gives up (or `close()`). */
  | { kind: 'hang' }
  /** Send `200` headers and the start of a body, then never finish it. */
  | { kind: 'hangAfterHeaders' }
  /** Compute the reply from the request. */
  | { kind: 'fn'; fn: (req: RecordedRequest) => FakeReply };

const DEFAULT_USAGE: FakeUsage = { prompt_tokens: 1200, completion_tokens: 80 };

/** Ready-made replies. */
export const fakeReplies = {
  /** A successful answer; `content` is JSON-stringified unless it is a string already. */
  content: (content: unknown, usage: FakeUsage = DEFAULT_USAGE): FakeReply => ({ kind: 'content', content, usage }),
  /** HTTP 429 with `retry-after` (seconds, as a string; default `'0'`), or without it when `retryAfter` is null. */
  rateLimited: (retryAfter: string | null = '0', extraHeaders: Record<string, string> = {}): FakeReply => ({
    kind: 'error',
    status: 429,
    message: 'Rate limit reached for requests',
    code: 'rate_limit_exceeded',
    headers: { ...(retryAfter === null ? {} : { 'retry-after': retryAfter }), ...extraHeaders },
  }),
  /** HTTP 429 `insufficient_quota`: the account has no credit (not worth retrying). */
  insufficientQuota: (): FakeReply => ({
    kind: 'error',
    status: 429,
    message: 'You exceeded your current quota, please check your plan and billing details.',
    code: 'insufficient_quota',
  }),
  /** HTTP 5xx (500 unless told). */
  serverError: (status = 500): FakeReply => ({ kind: 'error', status, message: 'The server had an error while processing your request.' }),
  /** Any HTTP error status with an OpenAI-style body. */
  httpError: (status: number, message = `HTTP ${status}`, code?: string): FakeReply => ({ kind: 'error', status, message, code }),
  /** A 200 completion whose content is not what was asked (default: not JSON at all). */
  malformed: (content: unknown = 'Sure! The worker wears a helmet {', usage: FakeUsage = DEFAULT_USAGE): FakeReply => ({
    kind: 'content',
    content,
    usage,
  }),
  /** A refusal message instead of content. */
  refusal: (refusal = "I'm sorry, I can't help with that."): FakeReply => ({ kind: 'refusal', refusal }),
  /** No answer at all until the client gives up. */
  hang: (): FakeReply => ({ kind: 'hang' }),
  /** Headers, then a body that never ends. */
  hangAfterHeaders: (): FakeReply => ({ kind: 'hangAfterHeaders' }),
  /** A reply computed from the request. */
  fn: (fn: (req: RecordedRequest) => FakeReply): FakeReply => ({ kind: 'fn', fn }),
  /** The default responder's answer for this request (see `defaultAnswer`). */
  default: (): FakeReply => ({ kind: 'fn', fn: (req) => fakeReplies.content(defaultAnswer(req)) }),
};

/** A running fake server. */
export interface FakeOpenAi {
  /** Base URL to give the OpenAI client: `http://127.0.0.1:<port>/v1`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>` without `/v1` (for Azure-style paths). */
  readonly origin: string;
  /** Every request received so far, in order. */
  readonly requests: RecordedRequest[];
  /** Chat completion requests only (excludes 404s for other paths). */
  readonly completions: RecordedRequest[];
  /** Scripted replies not used yet. */
  readonly pending: number;
  /** Queues replies; each request takes the next one; when empty, the default responder answers. */
  script(...replies: FakeReply[]): void;
  /** Replaces the default responder (used when no script is queued). */
  setDefault(responder: (req: RecordedRequest) => FakeReply): void;
  /** Forgets recorded requests and queued replies, and restores the default responder. */
  reset(): void;
  /** Stops the server, cutting any hanging connections. */
  close(): Promise<void>;
}

/** The equipment codes a PPE request asks about (the `seen[].code` enum of its schema). */
export function askedCodes(req: RecordedRequest): string[] {
  const codes = req.body?.response_format?.json_schema?.schema.properties?.seen?.items?.properties?.code?.enum ?? [];
  return codes.filter((c): c is string => typeof c === 'string');
}

/** The task slugs a classification request offers (the `slug` enum of its schema). */
export function askedSlugs(req: RecordedRequest): string[] {
  const slugs = req.body?.response_format?.json_schema?.schema.properties?.slug?.enum ?? [];
  return slugs.filter((c): c is string => typeof c === 'string');
}

/** Whether a request is a PPE check of one composite (else a job classification). */
export const isCompositeRequest = (req: RecordedRequest): boolean => req.body?.response_format?.json_schema?.name === 'ppe_check';

/**
 * The default answer to a request, read from its `response_format` JSON schema:
 * - a schema with `slug` (enum): the first slug, confidence 0.9;
 * - a schema with `seen` (items with a `code` enum): every code seen in frame 1, confidence 0.9,
 *   nothing missing, 1 person (worker 1 of frame 1, wearing every code);
 * - anything else: `{}`.
 */
export function defaultAnswer(req: RecordedRequest): unknown {
  const props = req.body?.response_format?.json_schema?.schema.properties ?? {};
  if (props.slug) return { slug: askedSlugs(req)[0] ?? 'unknown', confidence: 0.9 };
  if (props.seen) {
    const codes = askedCodes(req);
    return {
      seen: codes.map((code) => ({ code, frame: 1, confidence: 0.9 })),
      missing: [],
      persons: 1,
      workers: [{ frame: 1, worker: 1, box: { x: 0.3, y: 0.1, w: 0.3, h: 0.8 }, verdicts: codes.map((code) => ({ code, verdict: 'worn' })) }],
    };
  }
  return {};
}

function textAndImages(body: FakeChatRequestBody | undefined): { text: string; imageUrls: string[] } {
  const texts: string[] = [];
  const imageUrls: string[] = [];
  for (const m of body?.messages ?? []) {
    if (typeof m.content === 'string') texts.push(m.content);
    else if (Array.isArray(m.content)) {
      for (const part of m.content) {
        if (part.type === 'text') texts.push(part.text);
        else if (part.type === 'image_url') imageUrls.push(part.image_url.url);
      }
    }
  }
  return { text: texts.join('\n'), imageUrls };
}

let completionCounter = 0;

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text).toString(), ...headers });
  res.end(text);
}

function completion(model: string, message: Record<string, unknown>, usage: FakeUsage, finishReason: string): unknown {
  completionCounter += 1;
  return {
    id: `chatcmpl-fake${completionCounter}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, logprobs: null, finish_reason: finishReason }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    system_fingerprint: 'fp_fake',
  };
}

/** Starts the fake on 127.0.0.1 and a free port. */
export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const requests: RecordedRequest[] = [];
  let queue: FakeReply[] = [];
  const builtinDefault = (req: RecordedRequest): FakeReply => fakeReplies.content(defaultAnswer(req));
  let responder = builtinDefault;
  const sockets = new Set<Socket>();

  const respond = (reply: FakeReply, rec: RecordedRequest, res: ServerResponse): void => {
    const model = rec.body?.model ?? 'unknown';
    switch (reply.kind) {
      case 'fn':
        respond(reply.fn(rec), rec, res);
        return;
      case 'content': {
        const content = typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
        sendJson(res, 200, completion(model, { content }, reply.usage ?? DEFAULT_USAGE, reply.finishReason ?? 'stop'), {
          'x-request-id': `req_fake${requests.length}`,
        });
        return;
      }
      case 'refusal':
        sendJson(res, 200, completion(model, { content: null, refusal: reply.refusal }, reply.usage ?? DEFAULT_USAGE, 'stop'));
        return;
      case 'error':
        sendJson(
          res,
          reply.status,
          { error: { message: reply.message ?? `HTTP ${reply.status}`, type: reply.status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: reply.code ?? null } },
          reply.headers,
        );
        return;
      case 'raw':
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(reply.body);
        return;
      case 'hang':
        return;
      case 'hangAfterHeaders':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id":"chatcmpl-hang","object":"chat.completion",');
        return;
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: FakeChatRequestBody | undefined;
      try {
        body = rawBody ? (JSON.parse(rawBody) as FakeChatRequestBody) : undefined;
      } catch {
        body = undefined;
      }
      const { text, imageUrls } = textAndImages(body);
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body,
        rawBody,
        receivedAt: Date.now(),
        closedByClient: false,
        imageUrls,
        text,
      };
      requests.push(rec);
      res.on('close', () => {
        if (!res.writableFinished) rec.closedByClient = true;
      });
      if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
        sendJson(res, 404, { error: { message: `fake OpenAI: no route ${req.method} ${url.pathname}`, type: 'invalid_request_error', param: null, code: null } });
        return;
      }
      if (!body) {
        sendJson(res, 400, { error: { message: 'fake OpenAI: body is not JSON', type: 'invalid_request_error', param: null, code: null } });
        return;
      }
      const reply = queue.shift() ?? { kind: 'fn', fn: responder };
      respond(reply, rec, res);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: `${origin}/v1`,
    origin,
    requests,
    get completions() {
      return requests.filter((r) => r.path.endsWith('/chat/completions'));
    },
    get pending() {
      return queue.length;
    },
    script(...replies) {
      queue.push(...replies);
    },
    setDefault(fn) {
      responder = fn;
    },
    reset() {
      requests.length = 0;
      queue = [];
      responder = builtinDefault;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
