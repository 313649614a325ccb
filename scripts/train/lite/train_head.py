"""The head classifier on the frozen EfficientNet-Lite2 embedding (ADR 0028): a multinomial
logistic regression (hard hat / bare head / other headgear), class-balanced, on the standardised
embedding of every training head crop (lite/crops.ts). Written in ppeModel.ts's MlpModel shape
(one dense layer, softmax) with its probabilities on every un-augmented hold-out crop, from which
train.ts picks the thresholds and checks onnxruntime-node's parity.

Usage: python train_head.py --dir tmp/ppe-train/lite --onnx MODEL.onnx [--exclude-cv-fold K] --write OUT.json
Embeddings are computed once per ONNX file and crop dump (cached as embeddings-<sha>.f32 in --dir).
"""
import argparse
import hashlib
import json
import os
import sys

import numpy as np
import onnxruntime as ort
from sklearn.linear_model import LogisticRegression

SIZE_FEATURES = 1280
IMAGENET = [808, 515, 518, 715, 560, 452, 793, 667, 433, 652, 610, 643]
CLASSES = ['hat', 'bare', 'other']
# Fixed before measuring (never chosen on the validation photos or the cross-validated folds).
C = 0.05
SEED = 11
BACKGROUND = 3
# Each synthetic picture's crop (lite/patterns.ts) counts as this many background crops in the head
# check's fit: they are a few hundred against thousands of photo crops.
PATTERN_WEIGHT = 2.0


def embeddings(args, meta, flip, name='head'):
    """The embedding of every crop of crops-<name>.u8 (mirrored when `flip`), cached per ONNX file
    and crop dump."""
    with open(args.onnx, 'rb') as f:
        sha = hashlib.sha256(f.read()).hexdigest()[:16]
    size = meta['size']
    n = len(meta['head'] if name == 'head' else meta['rows'])
    prefix = 'embeddings' if name == 'head' else f'embeddings-{name}'
    cache = os.path.join(args.dir, f'{prefix}-{sha}-{n}{"-mirrored" if flip else ""}.f32')
    dim = SIZE_FEATURES + len(IMAGENET)
    if os.path.exists(cache) and os.path.getsize(cache) == n * dim * 4:
        return np.fromfile(cache, dtype=np.float32).reshape(n, dim)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = int(os.environ.get('BARET_TRAIN_THREADS', '2'))
    sess = ort.InferenceSession(args.onnx, opts, providers=['CPUExecutionProvider'])
    crops = np.memmap(os.path.join(args.dir, f'crops-{name}.u8'), dtype=np.uint8, mode='r').reshape(n, size, size, 3)
    out = np.zeros((n, dim), dtype=np.float32)
    for s in range(0, n, 32):
        x = crops[s:s + 32].astype(np.float32)
        if flip:
            x = np.ascontiguousarray(x[:, :, ::-1, :])
        f, logits = sess.run(None, {'pixels': x})
        out[s:s + 32, :SIZE_FEATURES] = f
        out[s:s + 32, SIZE_FEATURES:] = logits[:, IMAGENET]
        print(f'\rembedding{" mirrored" if flip else ""} {min(n, s + 32)}/{n}', end='', file=sys.stderr)
    print(file=sys.stderr)
    out.tofile(cache)
    return out


def fit(x, xm, labels, train, holdout, classes, seed, extra=None):
    """Logistic regression on the standardised embedding of the training crops (and their mirror
    images, `xm`, when given; and `extra`, (embeddings, label, weight), when given); returns the MlpModel
    and the hold-out crops' probabilities."""
    xt = x[train] if xm is None else np.concatenate([x[train], xm[train]])
    yt = labels[train] if xm is None else np.concatenate([labels[train], labels[train]])
    weight = np.ones(len(yt))
    if extra is not None:
        xt = np.concatenate([xt, extra[0]])
        yt = np.concatenate([yt, np.full(len(extra[0]), extra[1], dtype=yt.dtype)])
        weight = np.concatenate([weight, np.full(len(extra[0]), extra[2])])
    mean = xt.mean(0)
    std = xt.std(0) + 1e-6
    clf = LogisticRegression(C=C, class_weight='balanced', max_iter=3000, random_state=seed)
    clf.fit((xt - mean) / std, yt, sample_weight=weight)
    coef, bias = clf.coef_, clf.intercept_
    if len(classes) == 2:
        # scikit-learn's binary model is one logit for the second class: as two softmax outputs.
        coef = np.concatenate([-coef / 2, coef / 2])
        bias = np.concatenate([-bias / 2, bias / 2])
    model = {'classes': classes, 'featureMean': mean.astype(np.float64).tolist(), 'featureStd': std.astype(np.float64).tolist(), 'layers': [{'weights': coef.tolist(), 'bias': bias.tolist()}]}
    return model, clf.predict_proba((x[holdout] - mean) / std), clf, mean, std


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dir', required=True)
    ap.add_argument('--onnx', required=True)
    ap.add_argument('--exclude-cv-fold', type=int, default=None)
    ap.add_argument('--write', required=True)
    ap.add_argument('--mirror', action='store_true')
    args = ap.parse_args()
    with open(os.path.join(args.dir, 'crops-meta.json')) as f:
        meta = json.load(f)
    rows = meta['head']
    x = embeddings(args, meta, False)
    # Mirror images of the training crops join them with --mirror (twice the backbone's work).
    xm = embeddings(args, meta, True) if args.mirror else None
    labels = np.array([r['label'] for r in rows])
    usable = np.array([r['fold'] == 'train' and (args.exclude_cv_fold is None or r.get('cvFold') != args.exclude_cv_fold) for r in rows])
    is_head = labels < BACKGROUND
    held = np.array([r['fold'] == 'holdout' for r in rows])
    model, p, clf, mean, std = fit(x, xm, labels, usable & is_head, held & is_head, CLASSES, SEED)
    # The head check also learns the synthetic pictures' crops (lite/patterns.ts) as background.
    patterns = None
    patterns_meta = os.path.join(args.dir, 'patterns-meta.json')
    if os.path.exists(patterns_meta):
        with open(patterns_meta) as f:
            patterns = embeddings(args, json.load(f), False, 'patterns')
    check, pc, _, _, _ = fit(x, xm, (~is_head).astype(int), usable, held, ['head', 'background'], SEED, None if patterns is None else (patterns, 1, PATTERN_WEIGHT))
    report = {'trainCrops': int((usable & is_head).sum()), 'holdoutCrops': int((held & is_head).sum()), 'backgroundTrain': int((usable & ~is_head).sum()), 'patternCrops': 0 if patterns is None else len(patterns), 'C': C}
    if args.exclude_cv_fold is not None:
        left = np.array([r.get('cvFold') == args.exclude_cv_fold for r in rows]) & is_head
        pl = clf.predict_proba((x[left] - mean) / std)
        y = labels[left]
        no_hat = 1 - pl[:, 0]
        report['leftOut'] = {'crops': int(left.sum()), 'noHatAtHalf': {'tp': int(((no_hat >= 0.5) & (y != 0)).sum()), 'fp': int(((no_hat >= 0.5) & (y == 0)).sum()), 'fn': int(((no_hat < 0.5) & (y != 0)).sum())}, 'capsAsHat': int(((pl[:, 0] >= 0.5) & (y == 2)).sum()), 'others': int((y == 2).sum())}
        print(json.dumps(report['leftOut']), file=sys.stderr)
    with open(args.write, 'w') as f:
        json.dump({
            'model': model,
            'holdout': {'index': np.nonzero(held & is_head)[0].tolist(), 'p': p.tolist()},
            'headCheck': {'model': check, 'holdout': {'index': np.nonzero(held)[0].tolist(), 'p': pc.tolist()}},
            'report': report,
        }, f)


if __name__ == '__main__':
    main()
