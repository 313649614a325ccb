"""Fine-tunes the last blocks of EfficientNet-Lite2 on the head crops (issue 38; ADR 0028 addendum 3).

Blocks 0..TUNE_FROM-1 stay Google's (their activations cached by tail_cache.py); blocks TUNE_FROM..20,
the head convolution and its batch norm are tuned together with a linear classifier (hard hat /
bare / other headgear) on the run time's embedding: the pooled 1,280 features and the 12 ImageNet
logits (the ImageNet classifier itself frozen), standardised. Batch norms keep ImageNet's running
statistics (eval mode); their scale and shift are tuned.

Recipe, fixed before any cross-validated figure was seen (not chosen on a hold-out): training crops
and their mirror images; seed 11; batch 64; class-balanced cross-entropy; dropout 0.3 on the
standardised embedding; WARM epochs of the classifier alone on the frozen embedding (Adam 1e-3),
then JOINT epochs of the tuned blocks (Adam 1e-4) and the classifier (1e-3) together.

  python finetune_tail.py --dir tmp/ppe-train/lite cv --out FILE
      5-fold cross-validation by photo on hard-hat-or-headwear (the other subsets always train):
      for each fold, the frozen logistic regression (train_head.py's recipe) and the fine-tuned
      model's classifier, and a logistic regression refitted on the fine-tuned embedding; writes
      every left-out crop's probabilities and the summed figures.
  python finetune_tail.py --dir tmp/ppe-train/lite export --exclude-cv-fold K --onnx OUT.onnx
      tunes on every training crop but fold K's (or all, without --exclude-cv-fold), writes the
      whole network as ONNX (export_onnx.py's graph; onnxruntime checked against torch within
      1e-3 on real crops) and the embeddings of every crop (and pattern crop) under that ONNX file's
      hash, where train_head.py looks for them.
"""
import argparse
import hashlib
import json
import os
import sys
import time

import numpy as np
import torch

from lite2 import FROZEN_UPTO, load_lite2, normalise

# BARET_TUNE_FROM=17 tunes blocks 17–20 (the cache starts at FROZEN_UPTO = 17): measured, not the recipe.
TUNE_FROM = int(os.environ.get('BARET_TUNE_FROM', '19'))
if not FROZEN_UPTO <= TUNE_FROM <= 20:
    sys.exit(f'BARET_TUNE_FROM must be between {FROZEN_UPTO} (where the cached activations start) and 20, not {TUNE_FROM}')
IMAGENET = [808, 515, 518, 715, 560, 452, 793, 667, 433, 652, 610, 643]
SEED = 11
BATCH = 64
WARM = 10
JOINT = 4
LR_TAIL = 1e-4
LR_HEAD = 1e-3
DROPOUT = 0.3
C = 0.05
CV_SUBSET = 'hard-hat-or-headwear'


class Tail(torch.nn.Module):
    """Blocks TUNE_FROM..20, head convolution, pooling, the run time's embedding, the classifier."""

    def __init__(self, net, mean, std):
        super().__init__()
        self.blocks = torch.nn.ModuleList(net._blocks[TUNE_FROM:])
        self.conv_head, self.bn1, self.swish = net._conv_head, net._bn1, net._swish
        self.fc = net._fc
        for p in self.fc.parameters():
            p.requires_grad_(False)
        self.register_buffer('mean', torch.as_tensor(mean, dtype=torch.float32))
        self.register_buffer('std', torch.as_tensor(std, dtype=torch.float32))
        self.cls = torch.nn.Linear(len(mean), 3)

    def embed(self, h):
        for b in self.blocks:
            h = b(h)
        pooled = self.swish(self.bn1(self.conv_head(h))).mean(dim=(2, 3))
        return torch.cat([pooled, self.fc(pooled)[:, IMAGENET]], 1)

    def forward(self, h, train=False):
        z = (self.embed(h) - self.mean) / self.std
        return self.cls(torch.nn.functional.dropout(z, DROPOUT, training=True) if train else z)


def frozen_middle(net, act):
    """Blocks FROZEN_UPTO..TUNE_FROM-1 on cached activations (never tuned): once."""
    out = []
    with torch.no_grad():
        for s in range(0, len(act), 256):
            h = torch.from_numpy(np.asarray(act[s:s + 256]))
            for b in net._blocks[FROZEN_UPTO:TUNE_FROM]:
                h = b(h)
            out.append(h)
    return torch.cat(out)


def embed_all(tail, h):
    tail.eval()
    with torch.no_grad():
        return torch.cat([tail.embed(h[s:s + 256]) for s in range(0, len(h), 256)]).numpy()


def lr_fit(x, y, seed=SEED):
    from sklearn.linear_model import LogisticRegression
    mean, std = x.mean(0), x.std(0) + 1e-6
    clf = LogisticRegression(C=C, class_weight='balanced', max_iter=3000, random_state=seed)
    clf.fit((x - mean) / std, y)
    return lambda z: clf.predict_proba((z - mean) / std)


def tune(net, h_train, y_train, log):
    """The recipe above on (activations entering block TUNE_FROM, labels); returns the tuned Tail."""
    torch.manual_seed(SEED)
    rng = np.random.RandomState(SEED)
    base = Tail(net, np.zeros(1292), np.ones(1292))
    e = embed_all(base, h_train)
    tail = Tail(net, e.mean(0), e.std(0) + 1e-6)
    counts = np.bincount(y_train, minlength=3)
    weight = torch.tensor(len(y_train) / (3 * counts), dtype=torch.float32)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weight)
    y = torch.from_numpy(y_train)
    ez = torch.from_numpy((e - tail.mean.numpy()) / tail.std.numpy())
    opt = torch.optim.Adam(tail.cls.parameters(), lr=LR_HEAD)
    for epoch in range(WARM):
        order = rng.permutation(len(y))
        total = 0.0
        for s in range(0, len(order), BATCH):
            i = order[s:s + BATCH]
            loss = loss_fn(tail.cls(torch.nn.functional.dropout(ez[i], DROPOUT, training=True)), y[i])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss) * len(i)
        log(f'warm {epoch + 1}/{WARM}: loss {total / len(y):.4f}')
    tuned = [p for n, p in tail.named_parameters() if not n.startswith('cls.') and p.requires_grad]
    opt = torch.optim.Adam([{'params': tuned, 'lr': LR_TAIL}, {'params': tail.cls.parameters(), 'lr': LR_HEAD}])
    for epoch in range(JOINT):
        tail.eval()  # batch norms keep ImageNet's running statistics; dropout is applied by hand
        order = rng.permutation(len(y))
        total, started = 0.0, time.time()
        for s in range(0, len(order), BATCH):
            i = torch.from_numpy(order[s:s + BATCH])
            loss = loss_fn(tail(h_train[i], train=True), y[i])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss) * len(i)
        log(f'joint {epoch + 1}/{JOINT}: loss {total / len(y):.4f} ({time.time() - started:.0f} s)')
    tail.eval()
    return tail


def load(args):
    with open(os.path.join(args.dir, 'crops-meta.json')) as f:
        meta = json.load(f)
    rows = meta['head']
    act = np.load(os.path.join(args.dir, 'tail-act-head.npy'), mmap_mode='r')
    actm = np.load(os.path.join(args.dir, 'tail-act-head-mirrored.npy'), mmap_mode='r')
    return meta, rows, act, actm


def training_set(rows, labels, h, hm, mirror_index, exclude):
    train = np.array([r['fold'] == 'train' and labels[i] < 3 and (exclude is None or r.get('cvFold') != exclude) for i, r in enumerate(rows)])
    idx = np.nonzero(train)[0]
    return torch.cat([h[idx], hm[mirror_index[idx]]]), np.concatenate([labels[idx], labels[idx]]), train


def recipe():
    return {'tuneFrom': TUNE_FROM, 'frozenUpto': FROZEN_UPTO, 'warm': WARM, 'joint': JOINT, 'lrTail': LR_TAIL, 'lrHead': LR_HEAD, 'batch': BATCH, 'seed': SEED, 'dropout': DROPOUT}


def state_path(d, k):
    return os.path.join(d, f'tail-tuned-{"all" if k is None else f"fold-{k}"}.pt')


def figures(p_hat, y):
    """'No hard hat' (bare or other) figures of p(no hard hat) = 1 - p(hat)."""
    from sklearn.metrics import roc_auc_score
    pos = y != 0
    s = 1 - p_hat
    out = {'crops': int(len(y)), 'positives': int(pos.sum()), 'auc': round(float(roc_auc_score(pos, s)), 4)}
    out['atHalf'] = {'tp': int(((s >= 0.5) & pos).sum()), 'fp': int(((s >= 0.5) & ~pos).sum()), 'fn': int(((s < 0.5) & pos).sum())}
    order = np.argsort(-s, kind='stable')
    tp = np.cumsum(pos[order])
    fp = np.cumsum(~pos[order])
    prec, rec = tp / (tp + fp), tp / pos.sum()
    for target in (0.95, 0.98, 1.0):
        ok = prec >= target - 1e-12
        out[f'recallAtPrecision{target}'] = round(float(rec[ok].max()) if ok.any() else 0.0, 4)
    others = y == 2
    out['capsAsHat0.5'] = int(((p_hat >= 0.5) & others).sum())
    out['capsAsHat0.9'] = int(((p_hat >= 0.9) & others).sum())
    out['others'] = int(others.sum())
    return out


def prepared(args, net):
    """The crops' metadata, rows and labels, each head crop's index among the mirrored ones, and the
    frozen middle blocks' activations of the crops and of their mirror images."""
    meta, rows, act, actm = load(args)
    labels = np.array([r['label'] for r in rows])
    heads = np.nonzero(labels < 3)[0]
    mirror_index = np.full(len(rows), -1)
    mirror_index[heads] = np.arange(len(heads))
    return meta, rows, labels, mirror_index, frozen_middle(net, act), frozen_middle(net, actm)


def cv(args, net, log):
    _meta, rows, labels, mirror_index, h, hm = prepared(args, net)
    log(f'middle blocks done: {tuple(h.shape)}, mirrored {tuple(hm.shape)}')
    base = Tail(net, np.zeros(1292), np.ones(1292))
    frozen = embed_all(base, h)
    results = {'recipe': recipe(), 'folds': []}
    pooled = {'frozenLR': [], 'tuned': [], 'tunedLR': [], 'y': []}
    for k in args.folds:
        started = time.time()
        net = load_lite2()  # fresh ImageNet weights per fold
        h_train, y_train, train = training_set(rows, labels, h, hm, mirror_index, k)
        left = np.array([r.get('cvFold') == k for r in rows]) & (labels < 3)
        y = labels[left]
        p_frozen = lr_fit(frozen[train], labels[train])(frozen[left])
        tail = tune(net, h_train, y_train, lambda s: log(f'fold {k}: {s}'))
        torch.save({'recipe': recipe(), 'state': tail.state_dict()}, state_path(args.dir, k))
        with torch.no_grad():
            p_tuned = torch.softmax(tail(h[torch.from_numpy(np.nonzero(left)[0])]), 1).numpy()
        tuned_e = embed_all(tail, h)
        p_tuned_lr = lr_fit(tuned_e[train], labels[train])(tuned_e[left])
        fold = {'fold': k, 'seconds': round(time.time() - started), 'frozenLR': figures(p_frozen[:, 0], y), 'tuned': figures(p_tuned[:, 0], y), 'tunedLR': figures(p_tuned_lr[:, 0], y)}
        log(json.dumps(fold))
        results['folds'].append(fold)
        for name, p in (('frozenLR', p_frozen), ('tuned', p_tuned), ('tunedLR', p_tuned_lr)):
            pooled[name].append(p)
        pooled['y'].append(y)
        y_all = np.concatenate(pooled['y'])
        results['pooled'] = {name: figures(np.concatenate(pooled[name])[:, 0], y_all) for name in ('frozenLR', 'tuned', 'tunedLR')}
        results['probabilities'] = {name: np.concatenate(pooled[name]).round(5).tolist() for name in ('frozenLR', 'tuned', 'tunedLR')}
        results['labels'] = y_all.tolist()
        with open(args.out, 'w') as f:
            json.dump(results, f)
    log(json.dumps(results['pooled'], indent=1))


class Whole(torch.nn.Module):
    """export_onnx.py's graph with the tuned blocks."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, pixels):
        f = self.net.extract_features(normalise(pixels))
        pooled = f.mean(dim=(2, 3))
        return pooled, self.net._fc(pooled)


def export(args, net, log):
    import onnxruntime as ort

    meta, rows, labels, mirror_index, h, hm = prepared(args, net)
    saved = state_path(args.dir, args.exclude_cv_fold)
    if os.path.exists(saved) and torch.load(saved)['recipe'] == recipe():
        # The same recipe on the same crops (deterministic): the cv run's tuned blocks, not tuned again.
        tail = Tail(net, np.zeros(1292), np.ones(1292))
        tail.load_state_dict(torch.load(saved)['state'])
        tail.eval()
        log(f'tuned blocks from {saved}')
    else:
        h_train, y_train, _ = training_set(rows, labels, h, hm, mirror_index, args.exclude_cv_fold)
        tail = tune(net, h_train, y_train, log)
        torch.save({'recipe': recipe(), 'state': tail.state_dict()}, saved)
    whole = Whole(net).eval()  # net's blocks are the tuned ones (Tail holds the same modules)
    torch.manual_seed(0)
    dummy = torch.rand(2, 160, 160, 3) * 255
    with torch.no_grad():
        torch.onnx.export(whole, (dummy,), args.onnx, input_names=['pixels'], output_names=['features', 'logits'],
                          dynamic_axes={'pixels': {0: 'n', 1: 'h', 2: 'w'}, 'features': {0: 'n'}, 'logits': {0: 'n'}},
                          opset_version=17, do_constant_folding=True, dynamo=False)
    # Parity on real crops: onnxruntime on the pixels against torch's cached-activation path.
    size = meta['size']
    crops = np.memmap(os.path.join(args.dir, 'crops-head.u8'), dtype=np.uint8, mode='r').reshape(len(rows), size, size, 3)
    sample = np.linspace(0, len(rows) - 1, 64).astype(int)
    sess = ort.InferenceSession(args.onnx, providers=['CPUExecutionProvider'])
    f, logits = sess.run(None, {'pixels': np.asarray(crops[sample], dtype=np.float32)})
    got = np.concatenate([f, logits[:, IMAGENET]], 1)
    mine = embed_all(tail, h[torch.from_numpy(sample)])
    worst = float(np.abs(got - mine).max())
    log(f'onnxruntime (pixels) vs torch (cached activations): max abs difference {worst:.2e} on {len(sample)} crops')
    if worst > 1e-3:
        raise SystemExit('the ONNX export differs from torch')
    with open(args.onnx, 'rb') as fh:
        sha = hashlib.sha256(fh.read()).hexdigest()[:16]
    embed_all(tail, h).astype(np.float32).tofile(os.path.join(args.dir, f'embeddings-{sha}-{len(rows)}.f32'))
    pact = os.path.join(args.dir, 'tail-act-patterns.npy')
    if os.path.exists(pact):
        hp = frozen_middle(net, np.load(pact, mmap_mode='r'))
        embed_all(tail, hp).astype(np.float32).tofile(os.path.join(args.dir, f'embeddings-patterns-{sha}-{len(hp)}.f32'))
    with torch.no_grad():
        p = torch.softmax(tail(h), 1).numpy()
    with open(args.onnx + '.classifier.json', 'w') as fh:
        w = tail.cls.weight.detach().numpy().astype(np.float64)
        b = tail.cls.bias.detach().numpy().astype(np.float64)
        json.dump({'model': {'classes': ['hat', 'bare', 'other'], 'featureMean': tail.mean.numpy().astype(np.float64).tolist(), 'featureStd': tail.std.numpy().astype(np.float64).tolist(), 'layers': [{'weights': w.tolist(), 'bias': b.tolist()}]}, 'excludeCvFold': args.exclude_cv_fold, 'parity': worst}, fh)
    log(f'wrote {args.onnx} (sha256 {sha}...) and the embeddings of {len(rows)} crops')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dir', required=True)
    sub = ap.add_subparsers(dest='cmd', required=True)
    c = sub.add_parser('cv')
    c.add_argument('--out', required=True)
    c.add_argument('--folds', default='0,1,2,3,4')
    e = sub.add_parser('export')
    e.add_argument('--onnx', required=True)
    e.add_argument('--exclude-cv-fold', type=int, default=None)
    args = ap.parse_args()
    torch.set_num_threads(int(os.environ.get('BARET_TRAIN_THREADS', '2')))
    torch.use_deterministic_algorithms(True)
    net = load_lite2()
    log = lambda s: print(s, file=sys.stderr, flush=True)
    if args.cmd == 'cv':
        args.folds = [int(k) for k in args.folds.split(',')]
        cv(args, net, log)
    else:
        export(args, net, log)


if __name__ == '__main__':
    main()
