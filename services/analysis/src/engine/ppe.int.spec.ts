import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { sharedDataDir } from '@baret/platform';
import { beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { decodeImage, detectFacesRaw, detectPersons, detectPersonsRaw, detectPersonsShrunk, iou, type DetectedFace, type RawImage, warmUpDetector } from './detector.js';
import { detectHeads, loadHeadDetector, type DetectedHead } from './headDetector.js';
import {
  analyzePersons,
  analyzePpe,
  analyzePpeRaw,
  FACE_HEAD,
  faceHeadBox,
  faceHeads,
  withMeshScores,
  fluorescentFraction,
  headGeometry,
  matchDetectedHeads,
  passesFluorescentGate,
  PPE_THRESHOLDS,
  torsoRect,
  VEST_SHADE,
  vestShade,
  type PpePerson,
} from './ppe.js';
import { rgbToHsv } from './ppeFeatures.js';
import { backboneWeightsPath, verifyBackboneWeights } from './ppeEmbedding.js';
import { liteSession } from './liteBackbone.js';
import { liteBackboneFile, loadPpeModel } from './ppeModel.js';
import type { Keypoint, PersonDetection } from './types.js';

/** Chromium's fake camera as a browser test records it (`--use-fake-device-for-media-stream`, MediaRecorder, VP8). */
const FAKE_CAMERA = path.join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'chromium-fake-camera.webm');

const FLUO_YELLOW = '#d7ff1e';
const GREY = '#808080';

/** A drawn worker: skin face, a dome (hat colour or dark hair) above the eyes, a torso. */
async function drawWorker(opts: { crown: string; torso: string; over?: string }): Promise<RawImage> {
  const svg = `<svg width="200" height="320" xmlns="http://www.w3.org/2000/svg">
    <rect width="200" height="320" fill="#5a7a96"/>
    <rect x="50" y="110" width="100" height="150" fill="${opts.torso}"/>
    <ellipse cx="100" cy="70" rx="26" ry="34" fill="#d9a07c"/>
    <path d="M 66 62 A 34 34 0 0 1 134 62 Z" fill="${opts.crown}"/>
    <circle cx="90" cy="66" r="3" fill="#222"/><circle cx="110" cy="66" r="3" fill="#222"/>
    ${opts.over ?? ''}
  </svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

const k = (part: string, x: number, y: number): Keypoint => ({ part, x, y, score: 0.9 });
/** Keypoints of the drawn worker (what MoveNet would report). */
const DRAWN_PERSON: PersonDetection = {
  box: [45, 28, 110, 290],
  score: 0.9,
  keypoints: [
    k('nose', 100, 78),
    k('leftEye', 110, 66),
    k('rightEye', 90, 66),
    k('leftEar', 126, 70),
    k('rightEar', 74, 70),
    k('leftShoulder', 145, 115),
    k('rightShoulder', 55, 115),
    k('leftHip', 135, 255),
    k('rightHip', 65, 255),
  ],
};

/** A person too small to judge (head and torso below the minimum sizes). */
const TINY_PERSON: PersonDetection = {
  box: [10, 10, 6, 16],
  score: 0.5,
  keypoints: [k('leftEye', 13, 12), k('rightEye', 12, 12), k('nose', 12.5, 13), k('leftShoulder', 14, 16), k('rightShoulder', 11, 16), k('leftHip', 14, 22), k('rightHip', 11, 22)],
};

describe('colour helpers and head placement', () => {
  it('converts RGB to HSV', () => {
    expect(rgbToHsv(255, 0, 0)).toEqual({ h: 0, s: 1, v: 1 });
    expect(rgbToHsv(0, 0, 255).h).toBe(240);
  });

  it('places the head from the face keypoints and falls back to the box', () => {
    const g = headGeometry(DRAWN_PERSON);
    expect(g.from).toBe('face');
    expect(g.cx).toBeCloseTo(100, 0);
    expect(g.eyeY).toBeCloseTo(66, 0);
    expect(g.width).toBeGreaterThan(40);
    const boxOnly = headGeometry({ ...DRAWN_PERSON, keypoints: [] });
    expect(boxOnly.from).toBe('box');
  });
});

describe('the fluorescent gate of hi-vis (drawn workers, synthetic SVG)', () => {
  /** The drawn worker's torso, from its shoulder and hip keypoints. */
  const torso = torsoRect(DRAWN_PERSON, headGeometry(DRAWN_PERSON));

  it('finds a fluorescent yellow and a fluorescent orange torso, and nothing fluorescent on a grey one', async () => {
    const yellow = await drawWorker({ crown: '#f5c400', torso: FLUO_YELLOW });
    const orange = await drawWorker({ crown: '#f4f4f0', torso: '#ff6a00' });
    const grey = await drawWorker({ crown: '#2a1d14', torso: GREY });
    expect(fluorescentFraction(yellow, torso)).toBeGreaterThan(0.8);
    expect(fluorescentFraction(orange, torso)).toBeGreaterThan(0.8);
    expect(fluorescentFraction(grey, torso)).toBe(0);
    expect(passesFluorescentGate(fluorescentFraction(yellow, torso))).toBe(true);
    expect(passesFluorescentGate(0)).toBe(false);
  });

  // Issue 51: an orange vest in the worker's own shadow (the straps of an open vest on 08: hue 11–16°,
  // saturation 0.9–1.0, value 0.25–0.45) fails the gate's value floor, and the classifier may not
  // see an open vest at all; its colour at any light keeps the worker from "hi-vis missing".
  it('sees a vest colour at any light on an orange vest in shadow and a backlit lime one, not on skin, tan leather or khaki; such a torso is never "no vest"', async () => {
    const shaded = { 'orange vest in shadow': '#5a1c04', 'backlit lime vest': '#4c5c10' };
    for (const [name, colour] of Object.entries(shaded)) {
      const img = await drawWorker({ crown: '#f4f4f0', torso: colour });
      expect(fluorescentFraction(img, torso), name).toBe(0);
      expect(vestShade(img, torso), name).toBeGreaterThan(0.8);
      const [p] = await analyzePersons(img, [DRAWN_PERSON], []);
      expect(p!.hiVis, name).not.toBe('absent');
      // (The classifier alone does not see the drawn orange vest in shadow: its "no vest" is the colour rule's to stop.)
      if (name === 'orange vest in shadow') expect(p!.scores.hiVisProbability).toBeLessThan(0.1);
    }
    for (const [name, colour] of Object.entries({ skin: '#c8906a', 'tan leather': '#a0661f', khaki: '#8a7a4a', grey: GREY })) {
      expect(vestShade(await drawWorker({ crown: '#f4f4f0', torso: colour }), torso), name).toBeLessThan(VEST_SHADE.min);
    }
    // The grey torso is still "no vest": the rule takes nothing else from the verdict.
    const [grey] = await analyzePersons(await drawWorker({ crown: '#2a1d14', torso: GREY }), [DRAWN_PERSON], []);
    expect(grey!.hiVis).toBe('absent');
  });

  // Issue 51: a royal-blue vest with pale reflective tape (clip 01 of ppe-videos) is a safety garment
  // the classifier was not trained on; "no vest" would be a false alarm, "vest worn" a guess.
  it('never judges a royal-blue vest with reflective tape "no vest", and says why; the same blue without tape stays "no vest"', async () => {
    const tape = '<rect x="68" y="110" width="9" height="150" fill="#a0afe6"/><rect x="123" y="110" width="9" height="150" fill="#a0afe6"/><rect x="50" y="215" width="100" height="9" fill="#a0afe6"/>';
    const [taped] = await analyzePersons(await drawWorker({ crown: '#f4f4f0', torso: '#1e3cdc', over: tape }), [DRAWN_PERSON], []);
    expect(taped!.hiVis).toBe('unknown');
    expect(taped!.scores.tape).toBeGreaterThan(0.6);
    const [plain] = await analyzePersons(await drawWorker({ crown: '#f4f4f0', torso: '#1e3cdc' }), [DRAWN_PERSON], []);
    expect(plain!.hiVis).toBe('absent');
    expect(plain!.scores.tape).toBe(0);
  });

  // Issue 26, the hi-vis rule: a fluorescent garment is hi-vis, ordinary clothing in a bright colour
  // is not: a yellow T-shirt's hue is golden (not the yellow-green of a fluorescent dye), tan
  // overalls and a pale-yellow jacket are not saturated enough.
  const ORDINARY = { 'yellow T-shirt': '#ffd500', 'tan overalls': '#c8965a', 'pale-yellow jacket': '#e8e08a' };
  const FLUORESCENT = { 'fluorescent yellow-green vest': FLUO_YELLOW, 'yellow vest washed out by the sun': '#f0ff50', 'fluorescent orange vest': '#ff6a00', 'orange vest in light shade': '#f27818' };

  it.each(Object.entries(ORDINARY))('does not take a %s (%s) for a fluorescent garment', async (_name, colour) => {
    const img = await drawWorker({ crown: '#f5c400', torso: colour });
    expect(fluorescentFraction(img, torso)).toBeLessThan(0.01);
    expect(passesFluorescentGate(fluorescentFraction(img, torso))).toBe(false);
    // Whatever the torso classifier thinks of it, the worker is not reported wearing hi-vis.
    const [p] = await analyzePersons(img, [DRAWN_PERSON], []);
    expect(p!.hiVis).not.toBe('seen');
  });

  it.each(Object.entries(FLUORESCENT))('passes a %s (%s)', async (_name, colour) => {
    const img = await drawWorker({ crown: '#f5c400', torso: colour });
    expect(fluorescentFraction(img, torso)).toBeGreaterThan(0.8);
    expect(passesFluorescentGate(fluorescentFraction(img, torso))).toBe(true);
  });
});

describe('analyzePersons (the learned classifier)', () => {
  it('reports probabilities and a -1..1 hard-hat score', async () => {
    const img = await drawWorker({ crown: '#f5c400', torso: FLUO_YELLOW });
    const [p] = await analyzePersons(img, [DRAWN_PERSON]);
    const s = p!.scores;
    const noHat = s.bareProbability! + s.otherHeadgearProbability!;
    expect(s.hatProbability! + noHat).toBeCloseTo(1, 6);
    expect(s.hardHat).toBeCloseTo(s.hatProbability! - noHat, 6);
    expect(s.hiVis).toBe(s.hiVisProbability);
    const T = loadPpeModel().thresholds;
    const kind = s.otherHeadgearProbability! > s.bareProbability! ? 'headgear' : 'bare';
    expect(p!.hardHat).toBe(s.hatProbability! >= T.hatSeen ? 'seen' : noHat >= T.noHatSeen ? kind : 'unknown');
  });

  it('answers unknown, without probabilities, for a person too small or placed by a small box alone (no head detected there)', async () => {
    const img = await drawWorker({ crown: '#f5c400', torso: FLUO_YELLOW });
    const smallBox: PersonDetection = { box: [45, 28, 60, 150], score: 0.9, keypoints: [] };
    expect(headGeometry(smallBox).width).toBeLessThan(PPE_THRESHOLDS.minBoxHeadWidthPx);
    const [small, boxOnly] = await analyzePersons(img, [TINY_PERSON, smallBox], []);
    expect(small!.hardHat).toBe('unknown');
    expect(small!.hiVis).toBe('unknown');
    expect(small!.scores.hatProbability).toBeUndefined();
    expect(boxOnly!.hardHat).toBe('unknown');
    expect(boxOnly!.scores.hatProbability).toBeUndefined();
    // No head judged, no head reported.
    expect(small!.head).toBeUndefined();
    expect(boxOnly!.head).toBeUndefined();
  });

  it('judges the head at the top of a close-up placed by its box alone (a worker seen from behind: no face, no shoulders)', async () => {
    const img = await drawWorker({ crown: '#f5c400', torso: FLUO_YELLOW });
    const closeUp: PersonDetection = { ...DRAWN_PERSON, keypoints: [] };
    const g = headGeometry(closeUp);
    expect(g.from).toBe('box');
    expect(g.width).toBeGreaterThanOrEqual(PPE_THRESHOLDS.minBoxHeadWidthPx);
    const [w] = await analyzePersons(img, [closeUp], []);
    expect(w!.scores.headFrom).toBe('box');
    expect(w!.scores.hatProbability).toBeDefined();
    // The head judged is reported: the top of the box, where the drawn hard hat is.
    const [hx, hy, hw, hh] = w!.head!;
    expect(hy).toBeLessThanOrEqual(closeUp.box[1] + 0.3 * g.width);
    expect(hx).toBeLessThan(100);
    expect(hx + hw).toBeGreaterThan(100);
    expect(hy + hh).toBeGreaterThan(62);
  });
});

describe('analyzePersons with the head detector', () => {
  /** The drawn worker's head as the head detector would box it. */
  const DRAWN_HEAD: DetectedHead = { box: [72, 34, 56, 72], score: 0.9 };

  it('judges the head of a person placed by the box alone from the detected head', async () => {
    const img = await drawWorker({ crown: '#f5c400', torso: FLUO_YELLOW });
    const [p] = await analyzePersons(img, [{ ...DRAWN_PERSON, keypoints: [] }], [DRAWN_HEAD]);
    expect(p!.scores.headDetected).toBe(true);
    expect(p!.scores.hatProbability).toBeDefined();
    expect(p!.hardHat).not.toBe('unknown');
  });

  it('judges both crops of a head the keypoints and the head detector place, as one worker', async () => {
    const img = await drawWorker({ crown: '#f5c400', torso: FLUO_YELLOW });
    const [keypointsOnly] = await analyzePersons(img, [DRAWN_PERSON], []);
    const [detectedOnly] = await analyzePersons(img, [{ ...DRAWN_PERSON, keypoints: [] }], [DRAWN_HEAD]);
    const both = await analyzePersons(img, [DRAWN_PERSON], [DRAWN_HEAD]);
    expect(both).toHaveLength(1);
    expect(both[0]!.scores.headDetected).toBe(true);
    // The head judged: the detector's box where it found the head, else where the keypoints put it
    // (on the drawn head: its centre within a quarter of the head's width of the detector's).
    expect(both[0]!.head).toEqual(DRAWN_HEAD.box);
    const [hx, hy, hw, hh] = keypointsOnly!.head!;
    expect(Math.abs(hx + hw / 2 - 100)).toBeLessThan(14);
    expect(Math.abs(hy + hh / 2 - 70)).toBeLessThan(24);
    expect(keypointsOnly!.scores.headDetected).toBeUndefined();
    // The mean of the two crops' probabilities.
    const mean = (keypointsOnly!.scores.bareProbability! + detectedOnly!.scores.bareProbability!) / 2;
    expect(Math.abs(both[0]!.scores.bareProbability! - mean) / mean).toBeLessThan(1e-4);
    expect(keypointsOnly!.scores.bareProbability).not.toBe(detectedOnly!.scores.bareProbability);
  });

  it('reports a head on no detected person as a worker of its own: a body box below the head; no vest below it is unknown, not absent', async () => {
    const img = await drawWorker({ crown: '#f5c400', torso: GREY });
    const workers = await analyzePersons(img, [], [DRAWN_HEAD]);
    expect(workers).toHaveLength(1);
    const [w] = workers;
    expect(w!.scores.headFrom).toBe('detector');
    expect(w!.head).toEqual(DRAWN_HEAD.box);
    // The torso below the head was judged "no vest", but with no body detected that region is a
    // guess: the verdict stays unknown (a person found by the detector would get `absent`).
    expect(w!.scores.hiVisProbability).toBeLessThan(0.5);
    expect(w!.scores.torsoHeightPx).toBeGreaterThan(20);
    expect(w!.hiVis).toBe('unknown');
    const [asPerson] = await analyzePersons(img, [DRAWN_PERSON], []);
    expect(asPerson!.hiVis).toBe('absent');
    expect(w!.hardHat).not.toBe('unknown');
    const [x, y, bw, bh] = w!.box;
    expect(x).toBeLessThan(72);
    expect(y).toBeLessThanOrEqual(34);
    expect(x + bw).toBeGreaterThan(128);
    expect(y + bh).toBeGreaterThan(106);
    expect(x + bw).toBeLessThanOrEqual(img.width);
    // Too small a head is not a worker.
    expect(await analyzePersons(img, [], [{ box: [10, 10, 6, 6], score: 0.9 }])).toEqual([]);
  });

  it('finds that head itself when not given the heads', async () => {
    const img = await drawWorker({ crown: '#f5c400', torso: FLUO_YELLOW });
    const [p] = await analyzePersons(img, [{ ...DRAWN_PERSON, keypoints: [] }]);
    expect(p!.scores.headDetected).toBe(true);
  });
});

describe('matchDetectedHeads', () => {
  const person = (x: number): PersonDetection => ({ box: [x, 100, 60, 200], score: 0.9, keypoints: [] });
  const head = (cx: number, cy: number, score = 0.8): DetectedHead => ({ box: [cx - 10, cy - 10, 20, 20], score });

  it('gives each person the head at the top of its box, the nearest centre line first', () => {
    const persons = [person(0), person(100)];
    const a = head(30, 95);
    const b = head(130, 120);
    expect(matchDetectedHeads(persons, [a, b])).toEqual([a, b]);
    // A head at a person's feet, or beside the box, belongs to nobody.
    expect(matchDetectedHeads(persons, [head(30, 280), head(80, 100)])).toEqual([undefined, undefined]);
    // Two heads on one person: the more confident one is taken.
    const weak = head(28, 110, 0.6);
    const strong = head(32, 105, 0.9);
    expect(matchDetectedHeads([person(0)], [weak, strong])).toEqual([strong]);
  });

  it('matches a close-up\'s head by where the keypoints put it, even low in the person box', () => {
    // The drawn worker's keypoints put the head at x 100, eyes at y 66; with a box from y 28, 120
    // tall, a head centred at y 70 is too low for the box rule (below y 64) but near the keypoint head.
    const low = { ...DRAWN_PERSON, box: [45, 28, 110, 120] as PersonDetection['box'] };
    const near: DetectedHead = { box: [80, 50, 40, 40], score: 0.8 };
    expect(matchDetectedHeads([{ ...low, keypoints: [] }], [near])).toEqual([undefined]);
    expect(matchDetectedHeads([low], [near])).toEqual([near]);
    const far: DetectedHead = { box: [80, 100, 40, 40], score: 0.8 };
    expect(matchDetectedHeads([low], [far])).toEqual([undefined]);
  });
});

describe('the backbones', () => {
  it('are the committed files the model file was trained with; a changed file is refused with what to do', async () => {
    const file = backboneWeightsPath('torso');
    const weights = await readFile(file);
    expect(() => verifyBackboneWeights('torso', weights, file)).not.toThrow();
    const changed = Buffer.from(weights);
    changed[1000] = changed[1000]! ^ 1;
    expect(() => verifyBackboneWeights('torso', changed, file)).toThrow(/not the torso backbone the PPE model was trained with.*run npm run train/);
    // The head's EfficientNet-Lite2 (ONNX): the committed file opens; a copy with one bit changed is refused.
    const head = liteBackboneFile(loadPpeModel());
    await expect(liteSession(head)).resolves.toBeDefined();
    const dir = await mkdtemp(path.join(tmpdir(), 'baret-lite-'));
    try {
      const bytes = Buffer.from(await readFile(head.file));
      bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 1;
      const copy = path.join(dir, 'efficientnet-lite2.onnx');
      await writeFile(copy, bytes);
      await expect(liteSession({ file: copy, sha256: head.sha256 })).rejects.toThrow(/not the backbone the PPE model was trained with.*run npm run train/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('analyzePpe: workers found by the head alone on photographs', () => {
  const photo = async (prefix: string): Promise<Buffer> => {
    const dir = sharedDataDir('ppe-photos', 'safety-vest-v4', 'images');
    const name = (await readdir(dir)).find((f) => f.startsWith(prefix));
    if (!name) throw new Error(`missing photo ${prefix}`);
    return readFile(path.join(dir, name));
  };

  it('sees the hi-vis vest below a head the person detector missed', async () => {
    // Workers in hard hats and vests; the person detector misses some of them, the head detector finds their heads.
    const { persons } = await analyzePpe(await photo('valid__00602_jpg'));
    const alone = persons.filter((p) => p.scores.headFrom === 'detector');
    expect(alone.length).toBeGreaterThan(0);
    expect(alone.some((p) => p.hiVis === 'seen' && p.scores.hiVisProbability! >= 0.5)).toBe(true);
  }, 60_000);

  it('never reports a missing vest for a worker found by the head alone', async () => {
    // Workers in hard hats and work jackets (no vests); one is found by the head alone.
    const { persons } = await analyzePpe(await photo('valid__00993_jpg'));
    const alone = persons.filter((p) => p.scores.headFrom === 'detector');
    expect(alone.length).toBeGreaterThan(0);
    expect(alone.some((p) => p.scores.hiVisProbability !== undefined && p.scores.hiVisProbability < 0.5)).toBe(true);
    expect(alone.every((p) => p.hiVis !== 'absent')).toBe(true);
    expect(persons.some((p) => p.scores.headFrom !== 'detector' && p.hiVis === 'absent')).toBe(true);
  }, 60_000);
});

describe('analyzePpe on a photograph with a painted torso', () => {
  let photo: Buffer;
  let torso: { x: number; y: number; w: number; h: number };

  beforeAll(async () => {
    await warmUpDetector();
    const dir = sharedDataDir('ppe-photos', 'safety-vest-v4', 'images');
    const name = (await readdir(dir)).find((f) => f.startsWith('valid__00409_jpg'));
    if (!name) throw new Error('missing photo');
    photo = await readFile(path.join(dir, name));
    const { persons } = await detectPersons(photo);
    const kp = (part: string): Keypoint => {
      const found = persons[0]?.keypoints.find((p) => p.part === part && p.score >= 0.3);
      if (!found) throw new Error(`no ${part}`);
      return found;
    };
    const [ls, rs, lh, rh] = [kp('leftShoulder'), kp('rightShoulder'), kp('leftHip'), kp('rightHip')];
    const x0 = Math.min(ls.x, rs.x, lh.x, rh.x);
    const x1 = Math.max(ls.x, rs.x, lh.x, rh.x);
    const y0 = Math.min(ls.y, rs.y);
    const y1 = Math.max(lh.y, rh.y);
    torso = { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
  }, 60_000);

  async function painted(colour: string): Promise<Buffer> {
    const meta = await sharp(photo).metadata();
    const svg = `<svg width="${meta.width}" height="${meta.height}" xmlns="http://www.w3.org/2000/svg"><rect x="${torso.x}" y="${torso.y}" width="${torso.w}" height="${torso.h}" fill="${colour}"/></svg>`;
    return sharp(photo).composite([{ input: Buffer.from(svg) }]).jpeg({ quality: 92 }).toBuffer();
  }

  it('learned classifier: a grey torso is not hi-vis, and the untouched yellow hard hat is seen in both', async () => {
    // A flat painted rectangle has no vest texture: the learned torso model answers `unknown` for
    // the yellow one (measured), which is why only the grey one is asserted here.
    const yellow = await analyzePpe(await painted(FLUO_YELLOW));
    const grey = await analyzePpe(await painted(GREY));
    expect(worker(grey)?.hiVis).not.toBe('seen');
    expect(worker(yellow)?.hardHat).toBe('seen');
    expect(worker(grey)?.hardHat).toBe('seen');
  });

  function worker(r: Awaited<ReturnType<typeof analyzePpe>>): PpePerson | undefined {
    return r.persons.find((p) => p.box[0] <= torso.x + torso.w / 2 && p.box[0] + p.box[2] >= torso.x + torso.w / 2);
  }
});

describe('the face head source (close-ups, issue 26)', () => {
  /** A face BlazeFace found, which the face mesh scored `meshScore` (null: not scored). */
  const face = (x: number, y: number, w: number, score = 0.9, meshScore: number | null = 0.99): DetectedFace => ({
    box: [x, y, w, w],
    score,
    landmarks: [],
    ...(meshScore === null ? {} : { meshScore }),
  });

  it('turns a face into a head box reaching above the brows for the headwear, clipped to the image', () => {
    const [x, y, w, h] = faceHeadBox(face(100, 200, 100), 1000, 1000);
    expect(x).toBeCloseTo(100 - FACE_HEAD.left * 100, 6);
    expect(y).toBeCloseTo(200 - FACE_HEAD.above * 100, 6);
    expect(w).toBeCloseTo(100 * (1 + FACE_HEAD.left + FACE_HEAD.right), 6);
    expect(h).toBeCloseTo(100 * (1 + FACE_HEAD.above + FACE_HEAD.below), 6);
    // Most of the head box lies above the face (the hat), little below (the chin).
    expect(FACE_HEAD.above).toBeGreaterThan(2 * FACE_HEAD.below);
    const clipped = faceHeadBox(face(0, 10, 100), 120, 120);
    expect(clipped[0]).toBe(0);
    expect(clipped[1]).toBe(0);
    expect(clipped[0] + clipped[2]).toBeLessThanOrEqual(120);
    expect(clipped[1] + clipped[3]).toBeLessThanOrEqual(120);
  });

  it('takes only confident, large enough faces where no worker\'s head is, one head per face', () => {
    const big = face(100, 200, 100);
    expect(faceHeads([big], [], 1000, 1000)).toHaveLength(1);
    expect(faceHeads([face(100, 200, 100, FACE_HEAD.minScore - 0.01)], [], 1000, 1000)).toEqual([]);
    expect(faceHeads([face(100, 200, FACE_HEAD.minWidthPx - 1)], [], 1000, 1000)).toEqual([]);
    // The face mesh must confirm the face: a face it scores low, or never scored, is not taken.
    expect(faceHeads([face(100, 200, 100, 0.9, FACE_HEAD.minMeshScore - 0.01)], [], 1000, 1000)).toEqual([]);
    expect(faceHeads([face(100, 200, 100, 0.9, null)], [], 1000, 1000)).toEqual([]);
    // A head already judged there (detected, or placed by a person's keypoints): not a new worker.
    expect(faceHeads([big], [[90, 80, 140, 230]], 1000, 1000)).toEqual([]);
    // A head elsewhere does not hide it.
    expect(faceHeads([big], [[600, 80, 140, 230]], 1000, 1000)).toHaveLength(1);
    // The same face found twice (nearly the same box): one head, the larger face's.
    const heads = faceHeads([face(105, 205, 90), big], [], 1000, 1000);
    expect(heads).toHaveLength(1);
    expect(heads[0]!.box).toEqual(faceHeadBox(big, 1000, 1000));
  });

  const photo = async (subset: string, prefix: string): Promise<RawImage> => {
    const dir = sharedDataDir(...subset.split('/'), 'images');
    const name = (await readdir(dir)).find((f) => f.startsWith(prefix));
    if (!name) throw new Error(`missing photo ${prefix}`);
    return (await decodeImage(await readFile(path.join(dir, name)))).work;
  };

  it('gives a close-up with a face and no person box a worker whose head was judged', async () => {
    // A validation photo (never trained on) of a worker in a hard hat whose face BlazeFace finds.
    const img = await photo('ppe-photos/safety-vest-v4', 'valid__02569_jpg');
    const faces = (await detectFacesRaw(img, { minScore: FACE_HEAD.minScore })).filter((f) => f.box[2] >= FACE_HEAD.minWidthPx);
    expect(faces.length).toBeGreaterThan(0);
    // No person and no head detected: the face alone makes the worker.
    const workers = await analyzePersons(img, [], []);
    expect(workers).toHaveLength(faces.length);
    const [w] = workers;
    expect(w!.scores.headFrom).toBe('faceDetector');
    expect(w!.scores.headFromFace).toBe(true);
    expect(w!.scores.headDetected).toBeUndefined();
    expect(w!.scores.hatProbability).toBeDefined();
    expect(w!.hardHat).toBe('seen');
    // The head reported (what the eval matches to the labelled head) holds the face, and the hat above it.
    const [hx, hy, hw, hh] = w!.head!;
    const [fx, fy, fw, fh] = faces[0]!.box;
    expect(hx).toBeLessThanOrEqual(fx);
    expect(hy).toBeLessThan(fy - 0.5 * fh);
    expect(hx + hw).toBeGreaterThanOrEqual(fx + fw - 1);
    expect(hy + hh).toBeGreaterThanOrEqual(fy + fh - 1);
    // Its body box is below the head; no body was detected, so no missing vest is claimed.
    expect(w!.box[1] + w!.box[3]).toBeGreaterThan(hy + hh);
    expect(w!.hiVis).not.toBe('absent');
  }, 60_000);

  it('does not add a worker for a face on a person whose head the keypoints already placed', async () => {
    const img = await photo('ppe-photos/safety-vest-v4', 'valid__02569_jpg');
    const [face0] = await detectFacesRaw(img, { minScore: FACE_HEAD.minScore });
    const [fx, fy, fw, fh] = face0!.box;
    const kp = (part: string, x: number, y: number) => ({ part, x, y, score: 0.9 });
    const person: PersonDetection = {
      box: [fx - fw, fy - 1.5 * fh, 3 * fw, 6 * fh],
      score: 0.9,
      keypoints: [kp('leftEye', fx + 0.7 * fw, fy + 0.3 * fh), kp('rightEye', fx + 0.3 * fw, fy + 0.3 * fh), kp('nose', fx + 0.5 * fw, fy + 0.6 * fh)],
    };
    const workers = await analyzePersons(img, [person], []);
    expect(workers).toHaveLength(1);
    expect(workers[0]!.scores.headFromFace).toBeUndefined();
    // A person placed by its box alone (no keypoints) takes the face head instead of staying unjudged.
    const boxOnly = await analyzePersons(img, [{ ...person, keypoints: [] }], []);
    expect(boxOnly).toHaveLength(1);
    expect(boxOnly[0]!.scores.headFromFace).toBe(true);
    expect(boxOnly[0]!.hardHat).not.toBe('unknown');
  }, 60_000);

  it('finds the worker in a cap filling the frame, whose head the person and head detectors miss, and says: other headgear', async () => {
    // A cap close-up of the hard-hat-or-headwear subset (training photo: this checks the path, the
    // cross-validation in MODEL_CARD.md measures the source on photos the classifier never saw). The
    // person detector boxes the whole frame but places no head; the face BlazeFace finds (and the
    // mesh confirms) is that person's head: one worker, not two.
    const img = await photo('ppe-training/hard-hat-or-headwear', 'ivanbe-pratama-wR7HTegVW4k');
    const workers = await analyzePpeRaw(img);
    expect(workers).toHaveLength(1);
    expect(workers[0]!.scores.headFromFace).toBe(true);
    expect(workers[0]!.hardHat).toBe('headgear');
  }, 60_000);

  it('judges the head of a close-up seen from behind (no face, no shoulders: placed by the person box) and says: other headgear', async () => {
    // A training photo of the subset (path check, as above): before issue 26's box heads, "cannot tell".
    const img = await photo('ppe-training/hard-hat-or-headwear', 'lt-ngema-NR6EfQ_mvTQ');
    const workers = await analyzePpeRaw(img);
    expect(workers).toHaveLength(1);
    expect(workers[0]!.scores.headFrom).toBe('box');
    expect(workers[0]!.scores.headFromFace).toBeUndefined();
    expect(workers[0]!.scores.headDetected).toBeUndefined();
    expect(workers[0]!.scores.headWidthPx).toBeGreaterThanOrEqual(PPE_THRESHOLDS.minBoxHeadWidthPx);
    expect(workers[0]!.hardHat).toBe('headgear');
  }, 60_000);

  it('finds the worker of a close-up cut by the frame\'s edges, whom no detector finds at full size, on the frame shrunk: other headgear', async () => {
    // A wide hat seen from behind filling the frame (a training photo of the subset: this checks the
    // path; the cross-validation in MODEL_CARD.md measures it). At full size CenterNet finds no
    // person, and no head or face is found either: before the close-up pass, no worker at all.
    const img = await photo('ppe-training/hard-hat-or-headwear', 'cash-macanaya-Oe7HQQWm9Z4');
    expect(await detectPersonsRaw(img)).toEqual([]);
    expect(await analyzePersons(img, [])).toEqual([]);
    const workers = await analyzePpeRaw(img);
    expect(workers).toHaveLength(1);
    const [x, y, w, h] = workers[0]!.box;
    expect(x >= 0 && y >= 0 && x + w <= img.width && y + h <= img.height).toBe(true);
    // The person fills most of the frame: the box is mapped back from the shrunk copy, not left at its size there.
    expect(w * h).toBeGreaterThan(0.3 * img.width * img.height);
    expect(workers[0]!.hardHat).toBe('headgear');
  }, 60_000);

  it('the close-up pass maps the persons it finds on the shrunk frame back onto the frame', async () => {
    const img = await photo('ppe-photos/safety-vest-v4', 'valid__02569_jpg');
    const [full] = await detectPersonsRaw(img);
    const shrunk = await detectPersonsShrunk(img);
    expect(full).toBeDefined();
    expect(Math.max(...shrunk.map((p) => iou(p.box, full!.box)))).toBeGreaterThan(0.6);
    for (const p of shrunk) for (const kp of p.keypoints) expect(kp.x >= 0 && kp.y >= 0 && kp.x < img.width && kp.y < img.height).toBe(true);
  }, 60_000);

  /** Frames of an ffmpeg test source (`lavfi`), decoded as a job's frames are. */
  const patternFrames = async (source: string, size: string, seconds: number, dir: string): Promise<RawImage[]> => {
    const sub = path.join(dir, `${source}-${size}`);
    await promisify(execFile)('mkdir', ['-p', sub]);
    await promisify(execFile)('ffmpeg', ['-hide_banner', '-v', 'error', '-y', '-f', 'lavfi', '-i', `${source}=size=${size}:rate=1`, '-t', String(seconds), path.join(sub, 'f-%02d.png')]);
    const out: RawImage[] = [];
    for (const f of (await readdir(sub)).sort()) out.push((await decodeImage(await readFile(path.join(sub, f)))).work);
    return out;
  };

  it('finds no worker on test patterns (testsrc, testsrc2, smptebars; BlazeFace\'s false faces there score below the floor or the face mesh rejects them, and the close-up pass on the shrunk frame finds no person)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'baret-faces-'));
    try {
      for (const [source, size] of [['testsrc2', '640x360'], ['testsrc2', '320x240'], ['testsrc', '640x360'], ['smptebars', '640x360']] as const) {
        for (const img of await patternFrames(source, size, 3, dir)) expect(await analyzePpeRaw(img), `${source} ${size}`).toEqual([]);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it('finds no worker on Chromium\'s fake camera, whose pie chart the head detector takes for a head: the head check drops it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'baret-faces-'));
    try {
      // What a browser test records with --use-fake-device-for-media-stream (640 × 480, 7 s): the
      // head detector takes the rotating pie for a head on about one frame in three.
      const fake = path.join(dir, 'fake');
      await promisify(execFile)('mkdir', ['-p', fake]);
      await promisify(execFile)('ffmpeg', ['-hide_banner', '-v', 'error', '-y', '-i', FAKE_CAMERA, '-vf', 'fps=2', path.join(fake, 'f-%02d.png')]);
      const frames = (await readdir(fake)).sort();
      expect(frames.length).toBeGreaterThanOrEqual(12);
      for (const f of frames) expect(await analyzePpeRaw((await decodeImage(await readFile(path.join(fake, f)))).work), `fake camera ${f}`).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 600_000);

  it('finds no worker on ffmpeg\'s mandelbrot, whose bulbs the head detector takes for heads: the head check (which learned other synthetic pictures, never this one) drops them', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'baret-faces-'));
    try {
      const detector = await loadHeadDetector();
      let falseHeads = 0;
      // mandelbrot as ffmpeg draws it by default, at 1280 × 720: the frames where its bulb at the top
      // made a worker judged "hard hat" and "hi-vis" (the head detector's score 0.51–0.62); and at
      // 25 fps (it zooms frame by frame) 5.6–6.1 s (issue 51), where a bulb cut by the top edge passed
      // the head check (p(background) 0.0006–0.04) and an 8 s clip was reported as a worker in a hard hat.
      const frames = [...[0, 9, 10.5, 12, 15, 24].map((t) => ({ t, rate: 2 })), ...[5.6, 5.84, 6.08].map((t) => ({ t, rate: 25 }))];
      for (const { t, rate } of frames) {
        const file = path.join(dir, `m-${rate}-${t}.png`);
        await promisify(execFile)('ffmpeg', ['-hide_banner', '-v', 'error', '-y', '-f', 'lavfi', '-i', `mandelbrot=size=1280x720:rate=${rate}`, '-ss', String(t), '-frames:v', '1', file]);
        const img = (await decodeImage(await readFile(file))).work;
        falseHeads += (await detectHeads(img, detector)).length;
        expect(await analyzePpeRaw(img), `mandelbrot at ${t} s (${rate} fps)`).toEqual([]);
      }
      expect(falseHeads).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it('the face mesh confirms a real face and rejects the false faces BlazeFace finds on a test pattern', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'baret-faces-'));
    try {
      // mandelbrot at 10.5 s: BlazeFace alone scores a false face there above the source's floor (0.63,
      // 52 px wide in the working copy); the mesh says no face. So do the smaller ones on testsrc2.
      await promisify(execFile)('ffmpeg', ['-hide_banner', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'mandelbrot=size=1280x720:rate=2', '-ss', '10.5', '-frames:v', '1', path.join(dir, 'm.png')]);
      const mandelbrot = (await decodeImage(await readFile(path.join(dir, 'm.png')))).work;
      let falseFaces = 0;
      for (const img of [mandelbrot, ...(await patternFrames('testsrc2', '640x360', 3, dir))]) {
        const faces = await detectFacesRaw(img, { minScore: FACE_HEAD.minScore, mesh: true });
        for (const f of faces.filter((x) => x.box[2] >= FACE_HEAD.minWidthPx)) {
          falseFaces++;
          expect(f.meshScore).toBeLessThan(FACE_HEAD.minMeshScore);
        }
      }
      expect(falseFaces).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const img = await photo('ppe-photos/safety-vest-v4', 'valid__02569_jpg');
    const [real] = await withMeshScores(img, (await detectFacesRaw(img, { minScore: FACE_HEAD.minScore })).filter((f) => f.box[2] >= FACE_HEAD.minWidthPx));
    expect(real!.meshScore).toBeGreaterThanOrEqual(FACE_HEAD.minMeshScore);
  }, 120_000);
});
