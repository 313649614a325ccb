import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDING_ID, HEAD_EMBEDDING_ID, loadPpeModel, MODEL_VERSION, predictMlp, type PpeModelFile } from './ppeModel.js';

const tiny = (classes: string[]) => ({ classes, featureMean: [0, 0], featureStd: [1, 1], layers: [{ weights: [[1, 0], [0, 1]], bias: [0, 0] }] });

function modelFile(embedding: string, version: number = MODEL_VERSION): PpeModelFile {
  return {
    version: version as typeof MODEL_VERSION,
    embedding: embedding as typeof EMBEDDING_ID,
    headEmbedding: HEAD_EMBEDDING_ID,
    backbones: { head: { sha256: '0'.repeat(64) }, torso: { sha256: '1'.repeat(64) }, lite: { file: 'efficientnet-lite2.onnx', sha256: '2'.repeat(64) } },
    head: { classes: ['hat', 'bare', 'other'], featureMean: [0, 0], featureStd: [1, 1], layers: [{ weights: [[1, 0], [0, 1], [0, 0]], bias: [0, 0, 0] }] } as PpeModelFile['head'],
    torso: tiny(['vest', 'none']) as PpeModelFile['torso'],
    headCheck: tiny(['head', 'background']) as PpeModelFile['headCheck'],
    thresholds: { hatSeen: 0.5, noHatSeen: 0.5, vestSeen: 0.5, vestAbsent: 0.5, notHead: 0.5 },
  };
}

describe('loadPpeModel', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'baret-ppe-model-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const write = async (name: string, model: PpeModelFile): Promise<string> => {
    const file = path.join(dir, name);
    await writeFile(file, JSON.stringify(model));
    return file;
  };

  it('reads the committed model, trained on the embedding this build computes, with both tuned backbones named', () => {
    const model = loadPpeModel();
    expect(model.embedding).toBe(EMBEDDING_ID);
    expect(model.backbones.lite.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(model.backbones.torso.sha256).not.toBe(model.backbones.lite.sha256);
  });

  it('reads a model of this build\'s embedding and version', async () => {
    expect(loadPpeModel(await write('same.json', modelFile(EMBEDDING_ID))).head.classes).toEqual(['hat', 'bare', 'other']);
  });

  it('refuses a model file of an earlier format (the two-class head of v3.3, format 2) and says what to do', async () => {
    const file = await write('v2.json', modelFile(EMBEDDING_ID, 2));
    expect(() => loadPpeModel(file)).toThrow(/has version 2, this build reads version 4: run npm run train/);
  });

  it('refuses a model trained on another embedding (its weights would read the wrong inputs) and says what to do', async () => {
    const file = await write('old.json', modelFile('centernet-mobilenetv3-se-5-10-12-14-head128'));
    expect(() => loadPpeModel(file)).toThrow(/trained on the embedding "centernet-mobilenetv3-se-5-10-12-14-head128".*run npm run train/);
  });

  it('predicts a softmax over the classes', () => {
    const p = predictMlp(modelFile(EMBEDDING_ID).head, [2, 0]);
    expect(p).toHaveLength(3);
    expect(p[0]! + p[1]! + p[2]!).toBeCloseTo(1, 6);
    expect(p[0]).toBeCloseTo(Math.exp(2) / (Math.exp(2) + 2), 6);
  });
});
