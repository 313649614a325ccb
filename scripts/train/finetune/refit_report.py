"""Crop-level figures of the head classifiers `refit.py` wrote for the cross-validation folds
(MODEL_CARD.md, "tried and not taken"): per fold, the thresholds picked on the hold-out crops by
train.ts's rule (hard hat at precision 0.95, "no hard hat" at 0.9; or a fixed hard-hat threshold),
the hold-out figures, then the left-out hard-hat-or-headwear crops of each fold (crops of photos
that fold's backbone and classifier never trained on), summed over the folds. `orig` is each fold's
own classifier (trained with its backbone by `npm run train -- --cv`) on the same embeddings.

Usage: python refit_report.py DIR [MODE…]   (DIR: refit.py's --write folders are DIR/fold-0…fold-4;
MODE: a --weights value as written in the file names, e.g. balanced, sqrt, cap-3, none; default all)
Reads tmp/ppe-train (crops-meta.json, cv/fold-k/ppe-classifier.json); never reads ppe-photos.
"""
import json
import os
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[3]

ROOT = REPO / 'tmp' / 'ppe-train'
OUT = Path(sys.argv[1])
meta = json.loads((ROOT / 'finetune' / 'crops-meta.json').read_text())
rows = meta['head']
labels = np.array([r['label'] for r in rows])
subset = np.array([r['photo'].split('/')[0] for r in rows])


def mlp(model, x):
    x = (x - np.array(model['featureMean'])) / np.array(model['featureStd'])
    for i, l in enumerate(model['layers']):
        x = x @ np.array(l['weights']).T + np.array(l['bias'])
        if i < len(model['layers']) - 1:
            x = np.maximum(x, 0)
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def pick(scores, positive, target):
    for t in np.arange(0.5, 0.991, 0.01):
        sel = scores >= t
        tp = (sel & positive).sum()
        prec = tp / sel.sum() if sel.sum() else 1
        if prec >= target:
            return round(float(t), 2)
    return 0.99


def judge(p, hat_t, nohat_t):
    v = np.full(len(p), 'unknown', dtype=object)
    nohat = p[:, 1] + p[:, 2] >= nohat_t
    v[nohat] = np.where(p[nohat, 2] > p[nohat, 1], 'other', 'bare')
    v[p[:, 0] >= hat_t] = 'hat'
    return v


folds = [f'fold-{k}' for k in os.environ.get('FOLDS', '01234')]
modes = sys.argv[2:] or ['orig', 'balanced', 'sqrt', 'cap-3', 'cap-2', 'none']
extra_hat = [None, 0.8, 0.9, 0.95]
for mode in modes:
    for fixed_hat in extra_hat:
        tab = {}
        ho = {'hat_tp': 0, 'hat_fp': 0, 'hat_n': 0, 'nh_tp': 0, 'nh_fp': 0, 'nh_n': 0, 'sv_hat_as_nohat': 0, 'sv_hat': 0}
        ths = []
        ok = True
        for f in folds:
            d = OUT / f
            if not (d / 'embeddings.npy').exists():
                ok = False
                break
            if mode == 'orig':
                emb = np.load(d / 'embeddings.npy', mmap_mode='r')
                model = json.loads((ROOT / 'cv' / f / 'ppe-classifier.json').read_text())['head']
                c = json.loads((d / 'classifier-head-balanced.json').read_text())
                hi, li = np.array(c['holdout']['index']), np.array(c['leftOut']['index'])
                hp, lp = mlp(model, emb[hi]), mlp(model, emb[li])
            else:
                c = json.loads((d / f'classifier-head-{mode}.json').read_text())
                hi, li = np.array(c['holdout']['index']), np.array(c['leftOut']['index'])
                hp, lp = np.array(c['holdout']['p']), np.array(c['leftOut']['p'])
            hl = labels[hi]
            hat_t = pick(hp[:, 0], hl == 0, 0.95) if fixed_hat is None else fixed_hat
            nohat_t = pick(1 - hp[:, 0], hl != 0, 0.9)
            ths.append((hat_t, nohat_t))
            hv = judge(hp, hat_t, nohat_t)
            ho['hat_tp'] += ((hv == 'hat') & (hl == 0)).sum(); ho['hat_fp'] += ((hv == 'hat') & (hl != 0)).sum(); ho['hat_n'] += (hl == 0).sum()
            nh = (hv == 'other') | (hv == 'bare')
            ho['nh_tp'] += (nh & (hl != 0)).sum(); ho['nh_fp'] += (nh & (hl == 0)).sum(); ho['nh_n'] += (hl != 0).sum()
            sv = subset[hi] == 'safety-vest-v4-train'
            ho['sv_hat'] += ((hl == 0) & sv).sum(); ho['sv_hat_as_nohat'] += ((hl == 0) & sv & nh).sum()
            lv = judge(lp, hat_t, nohat_t)
            ll = labels[li]
            for lab in range(3):
                for v in ('hat', 'bare', 'other', 'unknown'):
                    tab[(lab, v)] = tab.get((lab, v), 0) + int(((ll == lab) & (lv == v)).sum())
        if not ok:
            print(mode, 'incomplete')
            break
        names = ['hat', 'bare', 'other']
        nh_tp = sum(tab[(l, v)] for l in (1, 2) for v in ('bare', 'other'))
        nh_fp = sum(tab[(0, v)] for v in ('bare', 'other'))
        nh_n = sum(tab[(l, v)] for l in (1, 2) for v in ('hat', 'bare', 'other', 'unknown'))
        caps_hat = tab[(2, 'hat')]
        hats_seen = tab[(0, 'hat')]
        print(f"{mode:9s} hatSeen={'picked' if fixed_hat is None else fixed_hat} th={ths} | holdout hat P {ho['hat_tp']/max(1,ho['hat_tp']+ho['hat_fp']):.3f} R {ho['hat_tp']/ho['hat_n']:.3f}; nohat P {ho['nh_tp']/max(1,ho['nh_tp']+ho['nh_fp']):.3f} R {ho['nh_tp']/ho['nh_n']:.3f}; sv hats->nohat {ho['sv_hat_as_nohat']}/{ho['sv_hat']}")
        print(f"          left-out crops: nohat P {nh_tp/max(1,nh_tp+nh_fp):.3f} R {nh_tp/nh_n:.3f} ({nh_tp}/{nh_fp}/{nh_n-nh_tp}); other->hat {caps_hat}/{sum(tab[(2,v)] for v in ('hat','bare','other','unknown'))}; bare->hat {tab[(1,'hat')]}; hat seen {hats_seen}/{sum(tab[(0,v)] for v in ('hat','bare','other','unknown'))}, hat->nohat {nh_fp}")
