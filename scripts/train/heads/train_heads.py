"""Step of `npm run train` (scripts/train/heads/heads.ts): trains the head detector's head
(services/analysis/src/engine/headDetector.ts) on the frozen person-detector backbone.

Reads the photos heads.ts wrote (`photos-384.u8`, `photos-meta.json` in --dir), computes the
backbone's block 5 and block 11 activations of each (CenterNet weights as shipped, never tuned),
standardises them per channel with the training fold's statistics and trains two 3x3 convolutions
to a hard hat / bare heatmap (penalty-reduced focal loss on Gaussian targets, as CenterNet) and the
log size of the head box at its centre cell, on the training fold only; horizontal flips of half
the batches. Writes `head-detector.bin` (float16 weights, the run time's layer order),
`head-detector.json` (standardisation, shapes, TensorFlow's heatmaps on some hold-out photos for
the tfjs check, hold-out figures) to --out (default --dir).

The backbone's activations depend only on the photos written: they are cached in --dir
(`features-<hash of photos-meta.json>-{8,16}.npy`) for the next run, e.g. the next
cross-validation fold. `--exclude-cv-fold K` leaves out of the training fold the photos of
cross-validation fold K (rows with `cvFold` K: the cross-validated subset, train.ts `--cv`).

Usage: python scripts/train/heads/train_heads.py --dir DIR --epochs N --seed S [--out DIR] [--exclude-cv-fold K]
"""
import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np
import tensorflow as tf

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'finetune'))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from backbone import Backbone  # noqa: E402
from head_targets import targets  # noqa: E402

S, STRIDE = 384, 8
G = S // STRIDE
FEATURES = ['tower_0/MobilenetV3/expanded_conv_5/add', 'tower_0/MobilenetV3/expanded_conv_11/add']
MIN_SCORE = 0.5  # the prototype's heatmap threshold (MODEL_CARD.md)
PARITY_PHOTOS = 16


def features(run, images, rows):
    """Backbone activations of every photo (float16, to hold them all in memory)."""
    f8, f16 = [], []
    for s in range(0, len(rows), 16):
        a, b = run(tf.constant(images[s:s + 16].astype(np.float32)))
        f8.append(a.numpy().astype(np.float16))
        f16.append(b.numpy().astype(np.float16))
    return np.concatenate(f8), np.concatenate(f16)


def cached_features(run, images, rows, directory):
    """The activations of `features`, read from (or written to) the cache in `directory`."""
    key = hashlib.sha256((directory / 'photos-meta.json').read_bytes()).hexdigest()[:16]
    paths = [directory / f'features-{key}-{c}.npy' for c in (8, 16)]
    if all(p.exists() for p in paths):
        return tuple(np.load(p) for p in paths), True
    f8, f16 = features(run, images, rows)
    for p, f in zip(paths, (f8, f16)):
        np.save(p, f)
    return (f8.copy(), f16.copy()), False


def standardise(f, train):
    """Per-channel mean and standard deviation over the training fold's cells; the maps standardised in place."""
    n = 0
    total = np.zeros(f.shape[-1], np.float64)
    squares = np.zeros(f.shape[-1], np.float64)
    for i in train:
        x = f[i].astype(np.float64).reshape(-1, f.shape[-1])
        total += x.sum(0)
        squares += (x * x).sum(0)
        n += len(x)
    mean = total / n
    std = np.sqrt(np.maximum(squares / n - mean * mean, 0)) + 1e-3
    mean, std = mean.astype(np.float32), std.astype(np.float32)
    for s in range(0, len(f), 64):
        f[s:s + 64] = ((f[s:s + 64].astype(np.float32) - mean) / std).astype(np.float16)
    return mean, std



def build(c8, c16):
    i8, i16 = tf.keras.Input((G, G, c8)), tf.keras.Input((G // 2, G // 2, c16))
    x = tf.keras.layers.Concatenate()([i8, tf.keras.layers.UpSampling2D(2, interpolation='bilinear')(i16)])
    x = tf.keras.layers.Conv2D(96, 3, padding='same', activation='relu', name='conv1')(x)
    x = tf.keras.layers.Conv2D(96, 3, padding='same', activation='relu', name='conv2')(x)
    heat = tf.keras.layers.Conv2D(2, 1, name='heat', bias_initializer=tf.keras.initializers.Constant(-2.19))(x)
    size = tf.keras.layers.Conv2D(2, 1, name='size')(x)
    return tf.keras.Model([i8, i16], tf.keras.layers.Concatenate()([heat, size]))


def loss_fn(y, out):
    target, logit, mask = y[..., :2], out[..., :2], y[..., 4:5]
    size = tf.reduce_sum(tf.abs(out[..., 2:4] - y[..., 2:4]) * mask) / tf.maximum(1.0, tf.reduce_sum(mask))
    p = tf.clip_by_value(tf.sigmoid(logit), 1e-4, 1 - 1e-4)
    pos = tf.cast(target >= 1.0, tf.float32)
    focal = -pos * (1 - p) ** 2 * tf.math.log(p) - (1 - pos) * (1 - target) ** 4 * p ** 2 * tf.math.log(1 - p)
    return tf.reduce_sum(focal) / tf.maximum(1.0, tf.reduce_sum(pos)) + 0.5 * size


def predict(model, f8, f16, idx):
    out = []
    for s in range(0, len(idx), 64):
        b = idx[s:s + 64]
        o = model([tf.constant(f8[b].astype(np.float32)), tf.constant(f16[b].astype(np.float32))]).numpy()
        o[..., :2] = 1 / (1 + np.exp(-o[..., :2]))
        out.append(o)
    return np.concatenate(out)


def image_figures(P, rows, idx):
    """Image level on the hold-out photos, the detector alone: 'hard hat' = a peak >= MIN_SCORE of the hat class, 'not worn' = one of the bare class and none of the hat class."""
    hat, bare = P[..., 0].reshape(len(idx), -1).max(1), P[..., 1].reshape(len(idx), -1).max(1)
    truth_hat = np.array([any(h['label'] == 0 for h in rows[i]['heads']) for i in idx])
    truth_bare = np.array([any(h['label'] == 1 for h in rows[i]['heads']) for i in idx]) & ~truth_hat
    worn = hat >= MIN_SCORE
    bare_ = (bare >= MIN_SCORE) & ~worn
    out = {}
    for name, p, t in (('hard hat worn', worn, truth_hat), ('hard hat not worn', bare_, truth_bare)):
        tp, fp, fn = int((p & t).sum()), int((p & ~t).sum()), int((~p & t).sum())
        out[name] = {'precision': round(tp / max(1, tp + fp), 4), 'recall': round(tp / max(1, tp + fn), 4), 'tp': tp, 'fp': fp, 'fn': fn}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dir', type=Path, required=True)
    ap.add_argument('--epochs', type=int, default=10)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--out', type=Path, default=None)
    ap.add_argument('--exclude-cv-fold', type=int, default=None)
    ap.add_argument('--repeat-cv-subset', type=int, default=1, help="each training photo of the cross-validated subset (rows with a cvFold) seen this many times per epoch")
    args = ap.parse_args()
    out = args.out or args.dir
    out.mkdir(parents=True, exist_ok=True)
    tf.keras.utils.set_random_seed(args.seed)
    tf.config.experimental.enable_op_determinism()
    started = time.time()
    rows = json.loads((args.dir / 'photos-meta.json').read_text())['photos']
    images = np.memmap(args.dir / 'photos-384.u8', dtype=np.uint8, mode='r', shape=(len(rows), S, S, 3))
    train = np.array([i for i, r in enumerate(rows) if r['fold'] == 'train' and (args.exclude_cv_fold is None or r.get('cvFold') != args.exclude_cv_fold)])
    holdout = np.array([i for i, r in enumerate(rows) if r['fold'] == 'holdout'])
    net = Backbone(trainable=None)
    run = tf.function(lambda x: net.run(x, FEATURES), input_signature=[tf.TensorSpec([None, S, S, 3], tf.float32)])
    (f8, f16), hit = cached_features(run, images, rows, args.dir)
    print(f'head detector: backbone activations of {len(rows)} photos{" (cached)" if hit else ""}, {time.time() - started:.0f} s; training on {len(train)}', flush=True)
    m8, s8 = standardise(f8, train)
    m16, s16 = standardise(f16, train)
    T = np.stack([targets(r['heads'], G, STRIDE) for r in rows])
    model = build(f8.shape[-1], f16.shape[-1])
    opt = tf.keras.optimizers.Adam(1e-3)

    @tf.function
    def step(x8, x16, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model([x8, x16], training=True))
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    rng = np.random.default_rng(args.seed)
    losses = []
    # The cross-validated subset's photos (few, and the heads the others lack: backs of heads, brims from above, close-ups) repeated.
    epoch_rows = np.concatenate([train] + [np.array([i for i in train if 'cvFold' in rows[i]], dtype=train.dtype)] * (args.repeat_cv_subset - 1))
    for epoch in range(args.epochs):
        order = rng.permutation(epoch_rows)
        ls = []
        for s in range(0, len(order), 32):
            b = np.sort(order[s:s + 32])
            x8, x16, y = f8[b].astype(np.float32), f16[b].astype(np.float32), T[b]
            if rng.random() < 0.5:  # a mirrored batch (maps and targets flipped left to right)
                x8, x16, y = x8[:, :, ::-1], x16[:, :, ::-1], y[:, :, ::-1]
            ls.append(float(step(tf.constant(np.ascontiguousarray(x8)), tf.constant(np.ascontiguousarray(x16)), tf.constant(np.ascontiguousarray(y)))))
        losses.append(round(float(np.mean(ls)), 4))
        print(f'head detector: epoch {epoch + 1}/{args.epochs}, loss {losses[-1]}', flush=True)

    # The weights as the run time reads them: float16, kernel then bias per layer.
    names = ['conv1', 'conv2', 'heat', 'size']
    layers, parts = [], []
    for name in names:
        kernel, bias = model.get_layer(name).get_weights()
        kernel, bias = kernel.astype(np.float16), bias.astype(np.float16)
        model.get_layer(name).set_weights([kernel.astype(np.float32), bias.astype(np.float32)])
        layers.append({'name': name, 'kernel': list(kernel.shape), 'bias': list(bias.shape)})
        parts += [kernel.tobytes(), bias.tobytes()]
    (out / 'head-detector.bin').write_bytes(b''.join(parts))
    P = predict(model, f8, f16, holdout)
    # For the tfjs check: some hold-out photos from float32 activations, as the run time computes them.
    check = holdout[:PARITY_PHOTOS]
    a8, a16 = run(tf.constant(images[check].astype(np.float32)))
    ref = model([(a8 - m8) / s8, (a16 - m16) / s16]).numpy()[..., :2]
    ref = 1 / (1 + np.exp(-ref))
    report = {'epochs': args.epochs, 'loss': losses, **({'repeatCvSubset': args.repeat_cv_subset} if args.repeat_cv_subset != 1 else {}), **({'excludedCvFold': args.exclude_cv_fold} if args.exclude_cv_fold is not None else {}), 'trainPhotos': int(len(train)), 'holdoutPhotos': int(len(holdout)), 'holdoutImageLevel': image_figures(P, rows, holdout)}
    print('head detector: hold-out photos, detector alone:', json.dumps(report['holdoutImageLevel']), flush=True)
    (out / 'head-detector.json').write_text(json.dumps({
        'featureMean': [m8.tolist(), m16.tolist()],
        'featureStd': [s8.tolist(), s16.tolist()],
        'layers': layers,
        'minScore': MIN_SCORE,
        'holdout': {'index': check.tolist(), 'heat': ref.ravel().round(6).tolist()},
        'report': report,
    }))
    print(f'head detector: written to {out} ({time.time() - started:.0f} s)', flush=True)


if __name__ == '__main__':
    main()
