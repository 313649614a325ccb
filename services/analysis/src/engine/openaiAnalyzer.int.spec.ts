import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  askedCodes,
  askedSlugs,
  fakeReplies,
  isCompositeRequest,
  startFakeOpenAi,
  type FakeOpenAi,
  type JsonSchemaLike,
} from '../../test/fakeOpenAi.js';
import {
  OpenAiAnalyzer,
  VisionModelError,
  azureDeploymentOptions,
  describeGrid,
  openAiOptionsFromConfig,
  retryAfterMs,
  type OpenAiAnalyzerOptions,
  type RetryInfo,
} from './openaiAnalyzer.js';
import type { Composite, EquipmentOption, TaskOption } from './types.js';

let fake: FakeOpenAi;

beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterEach(() => fake.reset());
afterAll(async () => {
  await fake.close();
});

/** A 2×2 composite; cell i shows sampled frame `10 * index + i` at `5 * index + i * 1.5` s. */
function composite(index: number): Composite {
  return {
    index,
    jpeg: Buffer.from(`jpeg-bytes-of-composite-${index}`),
    width: 1280,
    height: 720,
    cells: [0, 1, 2, 3].map((i) => ({
      frameIndex: 10 * index + i,
      timeSec: 5 * index + i * 1.5,
      x: (i % 2) * 640,
      y: Math.floor(i / 2) * 360,
      width: 640,
      height: 360,
    })),
  };
}

const TASKS: TaskOption[] = [
  { slug: 'ag_pano_bakim', name: 'Low voltage panel maintenance' },
  { slug: 'yg_hat_calismasi', name: 'High voltage line work' },
  { slug: 'kaynak', name: 'Welding' },
];

const EQUIPMENT: EquipmentOption[] = [
  { code: 'pic1', title: 'Hard hat', description: 'Helmet with chin strap' },
  { code: 'pic2', title: 'High visibility vest' },
  { code: 'pic7', title: 'Insulating gloves', description: 'Class 0 rubber gloves' },
];

function analyzer(extra: Partial<OpenAiAnalyzerOptions> = {}): OpenAiAnalyzer {
  return new OpenAiAnalyzer({
    baseURL: fake.url,
    apiKey: 'sk-test-123',
    model: 'gpt-4o-mini',
    timeoutMs: 2000,
    maxRetries: 3,
    retryBaseDelayMs: 10,
    ...extra,
  });
}

async function caught(p: Promise<unknown>): Promise<VisionModelError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(VisionModelError);
    return err as VisionModelError;
  }
  throw new Error('expected the call to fail');
}

const dataUrlOf = (c: Composite): string => `data:image/jpeg;base64,${c.jpeg.toString('base64')}`;

describe('OpenAiAnalyzer request shape', () => {
  it('classifyJob attaches the first two composites, the task list and a strict schema, with model and key', async () => {
    fake.script(fakeReplies.content({ slug: 'yg_hat_calismasi', confidence: 0.82 }, { prompt_tokens: 2100, completion_tokens: 15 }));
    const a = analyzer();
    const result = await a.classifyJob([composite(0), composite(1), composite(2)], TASKS);

    expect(result).toEqual({ slug: 'yg_hat_calismasi', confidence: 0.82, usage: { promptTokens: 2100, completionTokens: 15 } });
    expect(a.modelName).toBe('gpt-4o-mini');
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer sk-test-123');
    expect(req.body?.model).toBe('gpt-4o-mini');
    expect(req.imageUrls).toEqual([dataUrlOf(composite(0)), dataUrlOf(composite(1))]);
    for (const t of TASKS) expect(req.text).toContain(`${t.slug}: ${t.name}`);

    const rf = req.body?.response_format;
    expect(rf?.type).toBe('json_schema');
    expect(rf?.json_schema?.strict).toBe(true);
    expect(rf?.json_schema?.name).toBe('job_classification');
    const schema = rf?.json_schema?.schema as JsonSchemaLike;
    expect(schema).toMatchObject({ type: 'object', additionalProperties: false, required: ['slug', 'confidence'] });
    expect(schema.properties?.slug).toMatchObject({ type: 'string', enum: TASKS.map((t) => t.slug) });
    expect(req.body?.stream).toBeUndefined();
  });

  it('classifyJob can be limited to one composite', async () => {
    await analyzer({ classifyComposites: 1 }).classifyJob([composite(0), composite(1)], TASKS);
    expect(fake.requests[0]!.imageUrls).toEqual([dataUrlOf(composite(0))]);
  });

  it('analyzeComposite attaches the composite, explains the grid and lists the equipment, with a strict schema', async () => {
    await analyzer({ imageDetail: 'high' }).analyzeComposite(composite(3), { equipment: EQUIPMENT });
    const req = fake.requests[0]!;
    expect(req.imageUrls).toEqual([dataUrlOf(composite(3))]);
    const parts = req.body?.messages[1]?.content;
    expect(Array.isArray(parts) && parts[1]).toMatchObject({ type: 'image_url', image_url: { detail: 'high' } });
    expect(req.text).toContain('grid of 4 frames');
    expect(req.text).toContain('2 row(s) by 2 column(s)');
    expect(req.text).toContain('frame 1: row 1, column 1, at 00:15.0');
    expect(req.text).toContain('frame 4: row 2, column 2, at 00:19.5');
    expect(req.text).toContain('pic1: Hard hat — Helmet with chin strap');
    expect(req.text).toContain('pic2: High visibility vest');
    expect(req.text).toContain('pic7: Insulating gloves — Class 0 rubber gloves');

    const json = req.body?.response_format?.json_schema;
    expect(json?.strict).toBe(true);
    const schema = json?.schema as JsonSchemaLike;
    expect(schema.required).toEqual(['seen', 'missing', 'persons', 'workers']);
    expect(schema.additionalProperties).toBe(false);
    const item = schema.properties?.seen?.items;
    expect(item?.properties?.code).toMatchObject({ type: 'string', enum: ['pic1', 'pic2', 'pic7'] });
    expect(item?.properties?.frame).toMatchObject({ type: 'integer', minimum: 1, maximum: 4 });
    expect(item?.additionalProperties).toBe(false);
    expect(schema.properties?.missing?.items).toMatchObject({ type: 'string', enum: ['pic1', 'pic2', 'pic7'] });
    expect(schema.properties?.persons).toMatchObject({ type: 'integer' });
  });

  it('can ask for a plain JSON object with the schema in the prompt, for older servers', async () => {
    fake.script(fakeReplies.content({ slug: 'kaynak', confidence: 0.7 }));
    const result = await analyzer({ responseFormat: 'json_object' }).classifyJob([composite(0)], TASKS);
    expect(result.slug).toBe('kaynak');
    const req = fake.requests[0]!;
    expect(req.body?.response_format).toEqual({ type: 'json_object' });
    expect(req.text).toContain('"enum":["ag_pano_bakim","yg_hat_calismasi","kaynak"]');
  });

  it('describes the grid cells in order', () => {
    expect(describeGrid({ ...composite(0), cells: composite(0).cells.slice(0, 2) })).toBe(
      [
        'The image is a grid of 2 frames from one video, 1 row(s) by 2 column(s), in time order, numbered left to right, top to bottom:',
        '- frame 1: row 1, column 1, at 00:00.0 in the video',
        '- frame 2: row 1, column 2, at 00:01.5 in the video',
      ].join('\n'),
    );
  });
});

describe('OpenAiAnalyzer answers', () => {
  it('maps frames to sampled frame indexes and times, and reports missing, persons and usage', async () => {
    fake.script(
      fakeReplies.content(
        {
          seen: [
            { code: 'pic1', frame: 2, confidence: 0.95 },
            { code: 'pic2', frame: 4, confidence: 0.7 },
          ],
          missing: ['pic7'],
          persons: 2,
          workers: [
            { frame: 2, worker: 1, box: { x: 0.1, y: 0.2, w: 0.3, h: 0.7 }, verdicts: [{ code: 'pic1', verdict: 'worn' }, { code: 'pic7', verdict: 'not_worn' }] },
            { frame: 2, worker: 2, box: { x: 0.8, y: 0.1, w: 0.5, h: 0.95 }, verdicts: [{ code: 'pic1', verdict: 'unknown' }] },
          ],
        },
        { prompt_tokens: 1500, completion_tokens: 60 },
      ),
    );
    const result = await analyzer().analyzeComposite(composite(1), { equipment: EQUIPMENT });
    expect(result).toEqual({
      seen: [
        { code: 'pic1', frameIndex: 11, timeSec: 6.5, confidence: 0.95 },
        { code: 'pic2', frameIndex: 13, timeSec: 9.5, confidence: 0.7 },
      ],
      missing: ['pic7'],
      notChecked: [],
      persons: 2,
      // Per worker, per code; a box running past the frame is clipped to it.
      workers: [
        { frameIndex: 11, timeSec: 6.5, worker: 1, box: { x: 0.1, y: 0.2, w: 0.3, h: 0.7 }, verdicts: { pic1: 'worn', pic7: 'not_worn' } },
        { frameIndex: 11, timeSec: 6.5, worker: 2, box: { x: 0.8, y: 0.1, w: expect.closeTo(0.2, 6), h: expect.closeTo(0.9, 6) }, verdicts: { pic1: 'unknown' } },
      ],
      usage: { promptTokens: 1500, completionTokens: 60 },
    });
  });

  it('lets a fake responder answer from what was asked', async () => {
    fake.setDefault((req) =>
      isCompositeRequest(req)
        ? fakeReplies.content({ seen: [], missing: askedCodes(req), persons: 1, workers: [] })
        : fakeReplies.content({ slug: askedSlugs(req).at(-1), confidence: 0.5 }),
    );
    expect((await analyzer().analyzeComposite(composite(0), { equipment: EQUIPMENT })).missing).toEqual(['pic1', 'pic2', 'pic7']);
    expect((await analyzer().classifyJob([composite(0)], TASKS)).slug).toBe('kaynak');
  });

  it('works with the fake default responder (everything seen in frame 1)', async () => {
    const result = await analyzer().analyzeComposite(composite(0), { equipment: EQUIPMENT });
    expect(result.seen.map((s) => [s.code, s.frameIndex])).toEqual([
      ['pic1', 0],
      ['pic2', 0],
      ['pic7', 0],
    ]);
    expect(await analyzer().classifyJob([composite(0)], TASKS)).toMatchObject({ slug: 'ag_pano_bakim' });
  });

  it('accepts JSON wrapped in a code fence (some local models do it)', async () => {
    fake.script(fakeReplies.content('```json\n{"slug":"kaynak","confidence":0.6}\n```'));
    expect((await analyzer().classifyJob([composite(0)], TASKS)).slug).toBe('kaynak');
  });

  it('asks nothing when no equipment is asked about, or only one task is possible', async () => {
    expect(await analyzer().analyzeComposite(composite(0), { equipment: [] })).toEqual({
      seen: [],
      missing: [],
      notChecked: [],
      usage: { promptTokens: 0, completionTokens: 0 },
    });
    expect(await analyzer().classifyJob([composite(0)], [TASKS[0]!])).toMatchObject({ slug: 'ag_pano_bakim', confidence: 1 });
    expect(fake.requests).toHaveLength(0);
    expect((await caught(analyzer().classifyJob([composite(0)], []))).code).toBe('invalid_request');
    expect((await caught(analyzer().classifyJob([], TASKS))).code).toBe('invalid_request');
  });
});

describe('OpenAiAnalyzer retries', () => {
  it('retries after a 429, honouring retry-after, and succeeds on the second attempt', async () => {
    const retries: RetryInfo[] = [];
    fake.script(fakeReplies.rateLimited('0.3'), fakeReplies.content({ slug: 'kaynak', confidence: 0.9 }));
    const started = Date.now();
    const result = await analyzer({ onRetry: (r) => retries.push(r) }).classifyJob([composite(0)], TASKS);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(result.slug).toBe('kaynak');
    expect(fake.completions).toHaveLength(2);
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, delayMs: 300, reason: 'rate_limited', status: 429 })]);
  });

  it('honours retry-after-ms before retry-after', async () => {
    const retries: RetryInfo[] = [];
    fake.script(fakeReplies.rateLimited('30', { 'retry-after-ms': '25' }), fakeReplies.default());
    await analyzer({ onRetry: (r) => retries.push(r) }).classifyJob([composite(0)], TASKS);
    expect(retries[0]?.delayMs).toBe(25);
  });

  it('backs off exponentially with jitter when the server gives no retry-after', async () => {
    const retries: RetryInfo[] = [];
    fake.script(fakeReplies.serverError(502), fakeReplies.serverError(503), fakeReplies.rateLimited(null), fakeReplies.default());
    await analyzer({ retryBaseDelayMs: 20, onRetry: (r) => retries.push(r) }).classifyJob([composite(0)], TASKS);
    expect(fake.completions).toHaveLength(4);
    expect(retries.map((r) => r.reason)).toEqual(['server_error', 'server_error', 'rate_limited']);
    const [d1, d2, d3] = retries.map((r) => r.delayMs);
    expect(d1).toBeGreaterThanOrEqual(10);
    expect(d1).toBeLessThanOrEqual(20);
    expect(d2).toBeGreaterThanOrEqual(20);
    expect(d2).toBeLessThanOrEqual(40);
    expect(d3).toBeGreaterThanOrEqual(40);
    expect(d3).toBeLessThanOrEqual(80);
  });

  it('gives up on 500s after maxRetries with a typed error', async () => {
    fake.setDefault(() => fakeReplies.serverError(500));
    const err = await caught(analyzer({ maxRetries: 2 }).analyzeComposite(composite(0), { equipment: EQUIPMENT }));
    expect(err.code).toBe('server_error');
    expect(err.status).toBe(500);
    expect(err.attempts).toBe(3);
    expect(err.message).toBe('The vision model endpoint failed with HTTP 500 after 3 attempts.');
    expect(fake.completions).toHaveLength(3);
  });

  it('gives up on 429s after maxRetries as rate_limited', async () => {
    fake.setDefault(() => fakeReplies.rateLimited('0'));
    const err = await caught(analyzer({ maxRetries: 1 }).classifyJob([composite(0)], TASKS));
    expect(err.code).toBe('rate_limited');
    expect(err.attempts).toBe(2);
    expect(fake.completions).toHaveLength(2);
  });

  it('does not retry a request the endpoint rejects (4xx), nor an exhausted quota', async () => {
    fake.script(fakeReplies.httpError(401, 'Incorrect API key provided'));
    const e401 = await caught(analyzer().classifyJob([composite(0)], TASKS));
    expect(e401).toMatchObject({ code: 'request_rejected', status: 401, attempts: 1 });
    expect(e401.message).toMatch(/HTTP 401.*Incorrect API key provided.*Check OPENAI_API_KEY/);

    fake.script(fakeReplies.httpError(404, 'The model `gpt-9` does not exist'));
    const e404 = await caught(analyzer({ model: 'gpt-9' }).classifyJob([composite(0)], TASKS));
    expect(e404.message).toMatch(/Check OPENAI_BASE_URL and that model "gpt-9" exists/);

    fake.script(fakeReplies.insufficientQuota());
    const quota = await caught(analyzer().classifyJob([composite(0)], TASKS));
    expect(quota).toMatchObject({ code: 'request_rejected', status: 429, attempts: 1 });
    expect(fake.completions).toHaveLength(3);
  });

  it('retries connection failures, then reports where it could not connect', async () => {
    const closed = await startFakeOpenAi();
    const url = closed.url;
    await closed.close();
    const err = await caught(analyzer({ baseURL: url, maxRetries: 1 }).classifyJob([composite(0)], TASKS));
    expect(err.code).toBe('connection_failed');
    expect(err.attempts).toBe(2);
    expect(err.message).toContain(new URL(url).host);
  });
});

describe('OpenAiAnalyzer unreadable answers', () => {
  it('asks again once after a malformed answer, telling the model what was wrong, and sums the usage', async () => {
    const retries: RetryInfo[] = [];
    fake.script(fakeReplies.malformed(), fakeReplies.content({ seen: [], missing: ['pic1'], persons: 1, workers: [] }));
    const result = await analyzer({ onRetry: (r) => retries.push(r) }).analyzeComposite(composite(0), { equipment: EQUIPMENT });
    expect(result.missing).toEqual(['pic1']);
    expect(result.usage).toEqual({ promptTokens: 2400, completionTokens: 160 });
    expect(fake.completions).toHaveLength(2);
    expect(retries.map((r) => r.reason)).toEqual(['malformed_answer']);
    const second = fake.completions[1]!.body!;
    expect(second.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(second.messages[2]?.content).toBe('Sure! The worker wears a helmet {');
    expect(second.messages[3]?.content).toMatch(/could not be used \(the answer is not JSON/);
    expect(fake.completions[1]!.imageUrls).toEqual([dataUrlOf(composite(0))]);
  });

  it('fails with a typed error after two malformed answers in a row', async () => {
    fake.script(fakeReplies.malformed(), fakeReplies.malformed('{"seen": "everything"}'));
    const err = await caught(analyzer().analyzeComposite(composite(0), { equipment: EQUIPMENT }));
    expect(err.code).toBe('malformed_answer');
    expect(err.message).toBe('The vision model returned an answer we could not read twice in a row.');
    expect(err.attempts).toBe(2);
    expect(err.usage).toEqual({ promptTokens: 2400, completionTokens: 160 });
    expect(err.details.join('\n')).toMatch(/\/seen/);
    expect(fake.completions).toHaveLength(2);
  });

  it('treats an unknown equipment code, a frame outside the grid or an extra field as malformed', async () => {
    fake.script(
      fakeReplies.content({ seen: [{ code: 'pic99', frame: 1, confidence: 0.9 }], missing: [], persons: 1, workers: [] }),
      fakeReplies.content({ seen: [{ code: 'pic1', frame: 5, confidence: 0.9 }], missing: [], persons: 1, workers: [] }),
    );
    const err = await caught(analyzer().analyzeComposite(composite(0), { equipment: EQUIPMENT }));
    expect(err.code).toBe('malformed_answer');
    expect(err.details.join('\n')).toMatch(/\/seen\/0\/frame/);
    expect(fake.completions[1]!.text).toMatch(/\/seen\/0\/code: must be one of \["pic1","pic2","pic7"\] \(got "pic99"\)/);

    fake.reset();
    fake.script(fakeReplies.content({ seen: [], missing: [], persons: 0, workers: [], notes: 'x' }), fakeReplies.default());
    await analyzer().analyzeComposite(composite(0), { equipment: EQUIPMENT });
    expect(fake.completions).toHaveLength(2);
  });

  it('retries an unknown slug, and fails when the model insists', async () => {
    fake.script(fakeReplies.content({ slug: 'not_a_task', confidence: 0.9 }), fakeReplies.content({ slug: 'kaynak', confidence: 0.8 }));
    expect((await analyzer().classifyJob([composite(0)], TASKS)).slug).toBe('kaynak');
    expect(fake.completions).toHaveLength(2);

    fake.reset();
    fake.script(fakeReplies.content({ slug: 'not_a_task', confidence: 0.9 }), fakeReplies.content({ slug: 'also_not', confidence: 0.9 }));
    const err = await caught(analyzer().classifyJob([composite(0)], TASKS));
    expect(err.code).toBe('malformed_answer');
    expect(err.details.join('\n')).toContain('"also_not"');
  });

  it('treats a refusal as an unreadable answer', async () => {
    fake.script(fakeReplies.refusal(), fakeReplies.default());
    expect((await analyzer().classifyJob([composite(0)], TASKS)).slug).toBe('ag_pano_bakim');
    expect(fake.completions[1]!.text).toContain("the model refused: I'm sorry");
  });

  it('counts transport retries and answer retries together', async () => {
    fake.script(fakeReplies.serverError(), fakeReplies.malformed(), fakeReplies.rateLimited('0'), fakeReplies.malformed());
    const err = await caught(analyzer().classifyJob([composite(0)], TASKS));
    expect(err.code).toBe('malformed_answer');
    expect(err.attempts).toBe(4);
  });
});

describe('OpenAiAnalyzer timeouts and cancellation', () => {
  it('ends a hanging call with a timeout error within the configured time', async () => {
    fake.setDefault(() => fakeReplies.hang());
    const started = Date.now();
    const err = await caught(analyzer({ timeoutMs: 250, maxRetries: 1 }).classifyJob([composite(0)], TASKS));
    const elapsed = Date.now() - started;
    expect(err.code).toBe('timeout');
    expect(err.attempts).toBe(2);
    expect(err.message).toBe('The vision model did not answer within 0.25 s (2 attempts).');
    expect(elapsed).toBeGreaterThanOrEqual(480);
    // Timed out, not hung (generous: the machine may be busy).
    expect(elapsed).toBeLessThan(10_000);
    await expect.poll(() => fake.completions.map((r) => r.closedByClient)).toEqual([true, true]);
  });

  it('times out a body that never ends, then succeeds on retry', async () => {
    fake.script(fakeReplies.hangAfterHeaders(), fakeReplies.content({ slug: 'kaynak', confidence: 0.5 }));
    const started = Date.now();
    const result = await analyzer({ timeoutMs: 250 }).classifyJob([composite(0)], TASKS);
    expect(result.slug).toBe('kaynak');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(fake.completions).toHaveLength(2);
  });

  it('cancels an in-flight call when the caller aborts', async () => {
    fake.setDefault(() => fakeReplies.hang());
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('job cancelled')), 100);
    const err = await caught(analyzer({ timeoutMs: 5000 }).analyzeComposite(composite(0), { equipment: EQUIPMENT }, controller.signal));
    expect(err.code).toBe('cancelled');
    expect(err.message).toBe('The vision model call was cancelled.');
    // Well before the 5 s timeout: the abort ended it.
    expect(Date.now() - started).toBeLessThan(4000);
    expect(fake.completions).toHaveLength(1);
    await expect.poll(() => fake.completions[0]!.closedByClient).toBe(true);
  });

  it('cancels during a retry wait', async () => {
    fake.script(fakeReplies.rateLimited('5'));
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    const err = await caught(analyzer().classifyJob([composite(0)], TASKS, controller.signal));
    expect(err.code).toBe('cancelled');
    // Well before the 5 s Retry-After: the abort ended the wait.
    expect(Date.now() - started).toBeLessThan(4000);
    expect(fake.completions).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const err = await caught(analyzer().classifyJob([composite(0)], TASKS, AbortSignal.abort()));
    expect(err.code).toBe('cancelled');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('endpoint configuration', () => {
  it('reaches an Azure OpenAI deployment with api-version and api-key', async () => {
    const opts = azureDeploymentOptions({ endpoint: fake.origin + '/', deployment: 'ppe-4o', apiKey: 'azure-key', apiVersion: '2024-10-21' });
    const a = new OpenAiAnalyzer({ ...opts, retryBaseDelayMs: 10 });
    expect(a.modelName).toBe('ppe-4o');
    await a.classifyJob([composite(0)], TASKS);
    const req = fake.requests[0]!;
    expect(req.path).toBe('/openai/deployments/ppe-4o/chat/completions');
    expect(req.query).toEqual({ 'api-version': '2024-10-21' });
    expect(req.headers['api-key']).toBe('azure-key');
  });

  it('maps the platform config, moving a query string of OPENAI_BASE_URL into defaultQuery', async () => {
    expect(
      openAiOptionsFromConfig({
        OPENAI_BASE_URL: 'https://acme.openai.azure.com/openai/deployments/ppe?api-version=2024-10-21',
        OPENAI_API_KEY: 'k',
        OPENAI_MODEL: 'ppe',
        OPENAI_TIMEOUT_MS: 30000,
      }),
    ).toEqual({
      model: 'ppe',
      timeoutMs: 30000,
      apiKey: 'k',
      baseURL: 'https://acme.openai.azure.com/openai/deployments/ppe',
      defaultQuery: { 'api-version': '2024-10-21' },
      defaultHeaders: { 'api-key': 'k' },
    });
    const local = openAiOptionsFromConfig(
      { OPENAI_BASE_URL: `${fake.url}/`, OPENAI_MODEL: 'qwen2.5vl:7b', OPENAI_TIMEOUT_MS: 60000 },
      { maxRetries: 0 },
    );
    expect(local).toEqual({ model: 'qwen2.5vl:7b', timeoutMs: 60000, apiKey: undefined, baseURL: fake.url, maxRetries: 0 });
    await new OpenAiAnalyzer(local).classifyJob([composite(0)], TASKS);
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer not-needed');
    expect(fake.requests[0]!.body?.model).toBe('qwen2.5vl:7b');
  });

  it('reads retry-after in milliseconds, seconds and as an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '120' }))).toBe(120);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });
});
