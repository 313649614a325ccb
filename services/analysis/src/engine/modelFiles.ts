import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';

/**
 * A committed file of `services/analysis/models/`, found by walking up from this module: it runs from
 * its source (services/analysis/src/engine) and from the compiled bundles (services/<name>/dist,
 * the detector's thread included), which sit at other depths.
 */
export function committedModelFile(name: string): string {
  const relative = ['models', name];
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    for (const candidate of [path.join(dir, ...relative), path.join(dir, 'services', 'analysis', ...relative)]) if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`${name} not found above ${fileURLToPath(import.meta.url)}`);
  }
}

const sessions = new Map<string, Promise<ort.InferenceSession>>();

/**
 * The onnxruntime session of an ONNX file, made once per file and thread (one intra-op thread: the
 * detector pool runs one detector per core); `check` may refuse the file's bytes first. A session
 * that failed is made again on the next call.
 */
export function onnxSession(file: string, check?: (bytes: Buffer) => void): Promise<ort.InferenceSession> {
  let session = sessions.get(file);
  if (!session) {
    session = (async () => {
      const bytes = await readFile(file);
      check?.(bytes);
      return ort.InferenceSession.create(bytes, { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
    })().catch((err: unknown) => {
      sessions.delete(file);
      throw err;
    });
    sessions.set(file, session);
  }
  return session;
}
