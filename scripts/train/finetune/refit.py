"""Re-fits the head classifier on the embeddings of an already fine-tuned head backbone (the
backbone frozen), with other class weights: an experiment of issue 26, not a step of `npm run
train` (measured and not taken: docs/adr/history/ppe-issue-26-measurements.md, "Class weights and
thresholds").

The fine-tuning (finetune.py) trains backbone and classifier together with class-balanced weights;
with them the 741 other-headgear crops weigh about 18 times a hard hat's and the classifier takes
some hard hats for other headgear. This re-fits only the classifier (the run time's shape: dense 32,
ReLU, dropout 0.3, dense 3) on the tuned backbone's embeddings of the training crops, with the
weights of --weights, and writes it with TensorFlow's probabilities on the hold-out crops (as
finetune.py does) and on the crops of the photos left out (--exclude: a cross-validation fold).

Usage: python refit.py --backbone DIR/backbone-head.bin [--exclude FILE] --write DIR
         [--weights balanced|sqrt|none|cap:K|w:HAT,BARE,OTHER] [--epochs N]
Reads the crops dump-crops.ts wrote (--out, default tmp/ppe-train/finetune/). Never reads ppe-photos.
"""
import argparse
import json
from pathlib import Path

import numpy as np
import tensorflow as tf

from backbone import Backbone
from classifier import class_weights, classifier_head, mlp_model

SEED = 11
CLASSES = ['hat', 'bare', 'other']


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--backbone', type=Path, required=True, help='the tuned head backbone (finetune.py\'s backbone-head.bin)')
    ap.add_argument('--out', type=Path, default=Path(__file__).resolve().parents[3] / 'tmp' / 'ppe-train' / 'finetune', help='folder of the crops')
    ap.add_argument('--exclude', type=Path, help='photo keys (one a line) left out of training: a cross-validation fold')
    ap.add_argument('--write', type=Path, required=True)
    ap.add_argument('--weights', action='append', default=None, help='class weights (repeatable: one classifier each)')
    ap.add_argument('--epochs', type=int, default=8)
    args = ap.parse_args()
    args.write.mkdir(parents=True, exist_ok=True)
    meta = json.loads((args.out / 'crops-meta.json').read_text())
    rows = meta['head']
    h, w = meta['sizes']['head']['height'], meta['sizes']['head']['width']
    images = np.memmap(args.out / 'crops-head.u8', dtype=np.uint8, mode='r').reshape(len(rows), h, w, 3)
    labels = np.array([r['label'] for r in rows], dtype=np.int32)
    excluded = set(args.exclude.read_text().split()) if args.exclude else set()
    kept = np.array([r['photo'] not in excluded for r in rows])
    fold = np.array([r['fold'] for r in rows])
    augmented = np.array([r['augmented'] for r in rows])
    train = np.where((fold == 'train') & kept)[0]
    holdout = np.where((fold == 'holdout') & ~augmented & kept)[0]
    left_out = np.where(~kept & ~augmented)[0]

    cache = args.write / 'embeddings.npy'
    if cache.exists():
        emb = np.load(cache)
    else:
        tf.keras.utils.set_random_seed(SEED)
        tf.config.experimental.enable_op_determinism()
        net = Backbone(weights_file=args.backbone)
        batch = 256
        embed = tf.function(net.embed, input_signature=[tf.TensorSpec([batch, h, w, 3], tf.float32)])
        need = np.concatenate([train, holdout, left_out])
        parts = {}
        for s in range(0, len(need), batch):
            idx = need[s:s + batch]
            x = images[idx].astype(np.float32)
            n = len(x)
            if n < batch:
                x = np.concatenate([x, np.zeros((batch - n, h, w, 3), np.float32)])
            for i, e in zip(idx, embed(tf.constant(x)).numpy()[:n]):
                parts[int(i)] = e
            if s % (40 * batch) == 0:
                print(f'embedded {s}/{len(need)}', flush=True)
        print()
        emb = np.zeros((len(rows), len(next(iter(parts.values())))), np.float32)
        for i, e in parts.items():
            emb[i] = e
        np.save(cache, emb)

    counts = np.array([(labels[train] == c).sum() for c in range(3)])
    x_train = emb[train]
    mean, std = x_train.mean(0), x_train.std(0) + 1e-3
    results = {}
    for mode in args.weights or ['balanced']:
        tf.keras.utils.set_random_seed(SEED)
        tf.config.experimental.enable_op_determinism()
        weight = tf.constant(class_weights(mode, counts), tf.float32)
        head = classifier_head(3, SEED)
        head.build((None, emb.shape[1]))
        opt = tf.keras.optimizers.Adam(1e-3)

        @tf.function
        def step(f, y):
            with tf.GradientTape() as tape:
                logits = head((f - mean) / std, training=True)
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits) * tf.gather(weight, y)) + tf.add_n(head.losses)
            opt.apply_gradients(zip(tape.gradient(loss, head.trainable_variables), head.trainable_variables))
            return loss

        rng = np.random.default_rng(SEED)
        for _ in range(args.epochs):
            order = rng.permutation(len(train))
            for s in range(0, len(order), 64):
                i = order[s:s + 64]
                step(tf.constant(x_train[i]), tf.constant(labels[train][i]))

        def prob(idx):
            if len(idx) == 0:
                return np.zeros((0, 3), np.float32)
            return tf.nn.softmax(head((emb[idx] - mean) / std, training=False)).numpy()

        model = mlp_model(head, mean, std, CLASSES)
        name = mode.replace(':', '-').replace(',', '_')
        out = {'weights': mode, 'classWeights': class_weights(mode, counts).tolist(), 'model': model,
               'holdout': {'index': holdout.tolist(), 'p': prob(holdout).tolist()},
               'leftOut': {'index': left_out.tolist(), 'p': prob(left_out).tolist()}}
        (args.write / f'classifier-head-{name}.json').write_text(json.dumps(out))
        results[mode] = out
        print(f'{mode}: weights {np.round(class_weights(mode, counts), 3).tolist()} written', flush=True)


if __name__ == '__main__':
    main()
