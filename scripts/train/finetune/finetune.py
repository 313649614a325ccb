"""Step of `npm run train` (scripts/train/train.ts, README.md here): fine-tunes the whole PPE
backbone with a classifier of the run time's shape on the training crops of one kind, prints
hold-out figures after each epoch, and writes the tuned backbone, the classifier and TensorFlow's
probabilities on every hold-out crop (train.ts checks tfjs against them and picks the thresholds).

With --average-from K (npm run train passes 2) the written weights are the mean of the weights
after each epoch from the K-th on (stochastic weight averaging); the report then also holds the
hold-out figures of that mean.

Head crops have three classes (hard hat, bare head, other headgear), torso crops two (hi-vis, none).
With --exclude FILE (one photo key a line) those photos' crops are left out of training and of the
hold-out figures: a cross-validation fold (train.ts --cv).

Usage: python scripts/train/finetune/finetune.py --kind head|torso --epochs N [--average-from K] [--out DIR] [--exclude FILE --write DIR]
Reads the crops `dump-crops.ts` wrote (DIR, default tmp/ppe-train/finetune/); writes there, or to
--write. Never reads ppe-photos.
"""
import argparse
import json
import time
from pathlib import Path

import numpy as np
import tensorflow as tf

from backbone import MODEL_DIR, REPO, Backbone
from classifier import class_weights, classifier_head, mlp_model

CROPS = REPO / 'tmp' / 'ppe-train' / 'finetune'
SEED = 11


def auc(scores, positive):
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    p = positive.sum()
    return (ranks[positive].sum() - p * (p + 1) / 2) / (p * (len(scores) - p))


def recall_at_precision(scores, positive, target):
    order = np.argsort(-scores)
    hit = positive[order]
    tp = np.cumsum(hit)
    precision = tp / np.arange(1, len(hit) + 1)
    ok = precision >= target
    return float((tp / hit.sum())[ok].max()) if ok.any() else 0.0


def figures(p, labels, cls, subset):
    """AUC and recall at precision 0.9 / 0.95 of class `cls` (heads: "no hard hat", every class but
    the hard hat), on all hold-out crops and on the Safety vest subset."""
    out = {}
    for name, mask in (('all', np.ones_like(subset)), ('safety_vest', subset)):
        if cls == 'no_hat':
            s, pos = 1 - p[mask, 0], labels[mask] != 0
        else:
            s, pos = p[mask, cls], labels[mask] == cls
        out[name] = {'auc': round(auc(s, pos), 4), 'r_at_p90': round(recall_at_precision(s, pos, 0.9), 3), 'r_at_p95': round(recall_at_precision(s, pos, 0.95), 3), 'n': int(pos.sum())}
    return out


def augment(x, rand):
    """What video frames do to a crop, drawn per crop: another exposure and contrast (gain 0.7-1.3,
    offset +-25, contrast 0.75-1.25 around the crop's mean), and, for half the crops, less
    resolution (down to 35, 50, 65 or 80 % of the side with an area filter, then back up bilinearly:
    small or distant workers, compressed frames)."""
    n, h, w, _ = x.shape
    gain = rand.uniform(0.7, 1.3, (n, 1, 1, 1))
    offset = rand.uniform(-25, 25, (n, 1, 1, 1))
    contrast = rand.uniform(0.75, 1.25, (n, 1, 1, 1))
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    x = np.clip(((x - mean) * contrast + mean) * gain + offset, 0, 255).astype(np.float32)
    scale = np.where(rand.random(n) < 0.5, rand.choice(len(LOW_RES), n), -1)
    for k, f in enumerate(LOW_RES):
        i = np.where(scale == k)[0]
        if len(i):
            x[i] = _lower_resolution(f, h, w)(tf.constant(x[i])).numpy()
    return x


# Fractions of the side a crop is brought down to by `augment` (a few fixed sizes, one traced graph each).
LOW_RES = (0.35, 0.5, 0.65, 0.8)
_resizers = {}


def _lower_resolution(f, h, w):
    if (f, h, w) not in _resizers:
        size = (max(8, round(h * f)), max(8, round(w * f)))
        _resizers[(f, h, w)] = tf.function(lambda x: tf.image.resize(tf.image.resize(x, size, method='area'), (h, w), method='bilinear'), input_signature=[tf.TensorSpec([None, h, w, 3], tf.float32)])
    return _resizers[(f, h, w)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--kind', choices=['head', 'torso'], default='head')
    ap.add_argument('--epochs', type=int, default=4)
    ap.add_argument('--warmup', type=int, default=4, help='epochs of the classifier alone on the frozen backbone first')
    ap.add_argument('--lr', type=float, default=3e-5, help='learning rate of the backbone (the classifier: 1e-3)')
    ap.add_argument('--out', type=Path, default=CROPS, help='folder of the crops, and of what this writes')
    ap.add_argument('--augment', action='store_true', help='photometric and resolution augmentation of the training crops while fine-tuning')
    ap.add_argument('--average-from', type=int, default=0, help='if > 0: the written weights are the mean of the weights after each epoch from this one on (stochastic weight averaging)')
    ap.add_argument('--exclude', type=Path, help='a file of photo keys (one a line) whose crops are left out (a cross-validation fold)')
    ap.add_argument('--write', type=Path, help='folder to write the tuned backbone and classifier to (default: --out)')
    ap.add_argument('--sqrt-weights', action='store_true', help='class weights: the square root of the balanced ones, scaled to the same mean weight per crop (an experiment of issue 26; npm run train does not pass it)')
    args = ap.parse_args()
    if not 0 <= args.average_from <= args.epochs:
        ap.error(f'--average-from must be between 1 and --epochs ({args.epochs}), or 0 for the last epoch alone')
    crops = args.out
    tf.keras.utils.set_random_seed(SEED)
    tf.config.experimental.enable_op_determinism()

    meta = json.loads((crops / 'crops-meta.json').read_text())
    rows = meta[args.kind]
    size = meta['sizes'][args.kind]
    h, w = size['height'], size['width']
    images = np.fromfile(crops / f'crops-{args.kind}.u8', dtype=np.uint8).reshape(len(rows), h, w, 3)
    labels = np.array([r['label'] for r in rows], dtype=np.int32)
    excluded = set(args.exclude.read_text().split()) if args.exclude else set()
    kept = np.array([r['photo'] not in excluded for r in rows])
    train = np.where(np.array([r['fold'] == 'train' for r in rows]) & kept)[0]
    holdout = np.where(np.array([r['fold'] == 'holdout' and not r['augmented'] for r in rows]) & kept)[0]
    safety_vest = np.array([rows[i]['photo'].startswith('safety-vest') for i in holdout])
    classes = ['hat', 'bare', 'other'] if args.kind == 'head' else ['vest', 'none']
    cls = 'no_hat' if args.kind == 'head' else 0  # what the targets are hardest on: no hard hat / hi-vis
    print(f'{args.kind}: {len(train)} training crops ({", ".join(f"{c} {(labels[train] == i).sum()}" for i, c in enumerate(classes))}), {len(holdout)} hold-out crops, {len(excluded)} photos left out', flush=True)

    net = Backbone(trainable='.')
    batch = 256
    embed = tf.function(net.embed, input_signature=[tf.TensorSpec([batch, h, w, 3], tf.float32)])

    def embed_all(idx):
        out = []
        for s in range(0, len(idx), batch):
            x = images[idx[s:s + batch]].astype(np.float32)
            n = len(x)
            x = np.concatenate([x, np.zeros((batch - n, h, w, 3), np.float32)]) if n < batch else x
            out.append(embed(tf.constant(x)).numpy()[:n])
        return np.concatenate(out)

    frozen = embed_all(train)
    mean, std = frozen.mean(0), frozen.std(0) + 1e-3
    head = classifier_head(len(classes), SEED)
    head.build((None, frozen.shape[1]))
    counts = np.array([(labels[train] == c).sum() for c in range(len(classes))])
    weight = tf.constant(class_weights('sqrt' if args.sqrt_weights else 'balanced', counts).tolist(), tf.float32)
    opt_head, opt_backbone = tf.keras.optimizers.Adam(1e-3), tf.keras.optimizers.Adam(args.lr)
    trainable = net.trainable()

    def loss_of(features, y):
        logits = head((features - mean) / std, training=True)
        return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits) * tf.gather(weight, y)) + tf.add_n(head.losses)

    @tf.function
    def head_step(features, y):
        with tf.GradientTape() as tape:
            loss = loss_of(features, y)
        opt_head.apply_gradients(zip(tape.gradient(loss, head.trainable_variables), head.trainable_variables))
        return loss

    @tf.function(input_signature=[tf.TensorSpec([None, h, w, 3], tf.float32), tf.TensorSpec([None], tf.int32)])
    def full_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_of(net.embed(x), y)
        grads = tape.gradient(loss, head.trainable_variables + trainable)
        k = len(head.trainable_variables)
        opt_head.apply_gradients(zip(grads[:k], head.trainable_variables))
        opt_backbone.apply_gradients([(g, v) for g, v in zip(grads[k:], trainable) if g is not None])
        return loss

    def evaluate():
        p = tf.nn.softmax(head((embed_all(holdout) - mean) / std, training=False)).numpy()
        return figures(p, labels[holdout], cls, safety_vest)

    rng = np.random.default_rng(SEED)
    aug_rng = np.random.default_rng(SEED + 1)
    for _ in range(args.warmup):
        order = rng.permutation(len(train))
        for s in range(0, len(order), 64):
            i = order[s:s + 64]
            head_step(tf.constant(frozen[i]), tf.constant(labels[train][i]))
    report = {'kind': args.kind, 'class': cls, 'frozen': evaluate(), 'epochs': []}
    print('frozen backbone:', json.dumps(report['frozen']), flush=True)
    averaged, total, count = head.trainable_variables + trainable, None, 0
    for epoch in range(args.epochs):
        started = time.time()
        order = rng.permutation(train)
        losses = []
        for s in range(0, len(order), 64):
            x = images[order[s:s + 64]].astype(np.float32)
            if args.augment:
                x = augment(x, aug_rng)
            losses.append(float(full_step(tf.constant(x), tf.constant(labels[order[s:s + 64]]))))
        figs = evaluate()
        # The report goes into the committed model file: no timings in it, so a rerun writes the same bytes.
        report['epochs'].append({'loss': round(float(np.mean(losses)), 4), **figs})
        print(f'epoch {epoch + 1}: loss {np.mean(losses):.4f}, {time.time() - started:.0f} s,', json.dumps(figs), flush=True)
        if args.average_from and epoch + 1 >= args.average_from:
            # Summed from the first snapshot, not from zeros: 0.0 + -0.0 would turn negative zeros positive.
            snapshot = [v.numpy() for v in averaged]
            total = snapshot if total is None else [t + x for t, x in zip(total, snapshot)]
            count += 1
    if args.average_from:
        for v, t in zip(averaged, total):
            v.assign(t / count)
        report['averaged'] = {'epochs': count, **evaluate()}
        print(f'mean of the weights after epochs {args.average_from}..{args.epochs}:', json.dumps(report['averaged']), flush=True)
    (args.write or crops).mkdir(parents=True, exist_ok=True)
    export(args.write or crops, net, head, mean, std, holdout, embed_all, args.kind, classes, report)


def export(out, net, head, mean, std, holdout, embed_all, kind, classes, report):
    """The tuned backbone as a weights file for the unchanged centernet.json (same manifest order and
    quantisation), the classifier in ppeModel.ts's MlpModel shape, and TensorFlow's probabilities on
    every un-augmented hold-out crop (with the float16-rounded weights tfjs will load), so that tfjs
    can be checked against them and the thresholds picked on them."""
    graph = json.loads((MODEL_DIR / 'centernet.json').read_text())
    parts = []
    for w in graph['weightsManifest'][0]['weights']:
        value = net.vars[w['name']].numpy()
        if (w.get('quantization') or {}).get('dtype') == 'float16':
            parts.append(value.astype(np.float16).tobytes())
        else:
            parts.append(value.astype(np.int32 if w['dtype'] == 'int32' else np.float32).tobytes())
    (out / f'backbone-{kind}.bin').write_bytes(b''.join(parts))
    model = mlp_model(head, mean, std, classes)
    for w in graph['weightsManifest'][0]['weights']:
        if (w.get('quantization') or {}).get('dtype') == 'float16':
            net.vars[w['name']].assign(net.vars[w['name']].numpy().astype(np.float16).astype(np.float32))
    p = tf.nn.softmax(head((embed_all(holdout) - mean) / std, training=False)).numpy()
    (out / f'classifier-{kind}.json').write_text(json.dumps({'model': model, 'holdout': {'index': holdout.tolist(), 'p': p.tolist()}, 'report': report}))
    print(f'written to {out}', flush=True)


if __name__ == '__main__':
    main()
