"""Caches the frozen part of EfficientNet-Lite2 for the fine-tuning of its last blocks (issue 38,
finetune_tail.py): the activations entering block FROZEN_UPTO (5 x 5 x 208 at 160 px) of every
crop of crops-head.u8 (and the mirror images of the head crops) and of crops-patterns.u8. The
blocks before it never change, so they run once (about 9 min on 2 cores), not once per epoch.

Usage: python tail_cache.py --dir tmp/ppe-train/lite
Writes DIR/tail-act-{head,head-mirrored,patterns}.f32 (float32, N x 208 x 5 x 5; mirrored: head
crops only, in crops-meta.json's order of the rows with label < 3).
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

from lite2 import FROZEN_UPTO, load_lite2, normalise

BATCH = 64


def run(net, crops, rows, flip, out_path):
    n = len(rows)
    out = np.lib.format.open_memmap(out_path + '.tmp.npy', mode='w+', dtype=np.float32, shape=(n, 208, 5, 5))
    with torch.no_grad():
        for s in range(0, n, BATCH):
            x = np.asarray(crops[rows[s:s + BATCH]], dtype=np.float32)
            if flip:
                x = np.ascontiguousarray(x[:, :, ::-1, :])
            h = net._swish(net._bn0(net._conv_stem(normalise(torch.from_numpy(x)))))
            for block in net._blocks[:FROZEN_UPTO]:
                h = block(h)
            out[s:s + len(h)] = h.numpy()
            print(f'\r{os.path.basename(out_path)} {min(n, s + BATCH)}/{n}', end='', file=sys.stderr)
    print(file=sys.stderr)
    out.flush()
    del out
    os.replace(out_path + '.tmp.npy', out_path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dir', required=True)
    args = ap.parse_args()
    torch.set_num_threads(int(os.environ.get('BARET_TRAIN_THREADS', '2')))
    net = load_lite2()
    with open(os.path.join(args.dir, 'crops-meta.json')) as f:
        meta = json.load(f)
    size = meta['size']
    n = len(meta['head'])
    crops = np.memmap(os.path.join(args.dir, 'crops-head.u8'), dtype=np.uint8, mode='r').reshape(n, size, size, 3)
    heads = np.array([i for i, r in enumerate(meta['head']) if r['label'] < 3])
    todo = [('tail-act-head.npy', crops, np.arange(n), False), ('tail-act-head-mirrored.npy', crops, heads, True)]
    pm = os.path.join(args.dir, 'patterns-meta.json')
    if os.path.exists(pm):
        with open(pm) as f:
            pmeta = json.load(f)
        npat = len(pmeta['rows'])
        pcrops = np.memmap(os.path.join(args.dir, 'crops-patterns.u8'), dtype=np.uint8, mode='r').reshape(npat, size, size, 3)
        todo.append(('tail-act-patterns.npy', pcrops, np.arange(npat), False))
    for name, c, rows, flip in todo:
        path = os.path.join(args.dir, name)
        if not os.path.exists(path):
            run(net, c, rows, flip, path)


if __name__ == '__main__':
    main()
