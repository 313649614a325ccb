"""The head classifier's trade-off between worksite hard hats and caps (issue 38; ADR 0028 addendum 4).

For each threshold t on p(hard hat): the share of the hold-out fold's hard hats (the worksite
subsets: the photos `npm run train` keeps out) that fall below t — a worksite hard hat a rule with
"hard hat seen at p >= t, no hard hat below" would flag — against the hard-hat-or-headwear caps,
hats and bare heads at or above t (called hard hats), each predicted by a fit without its
cross-validation fold (train_head.py's recipe: logistic regression on the embedding of --onnx).

  python tradeoff.py --dir tmp/ppe-train/lite --onnx MODEL.onnx [--only-cv-fold K]

--only-cv-fold K: only that fold's caps (for a backbone fine-tuned without fold K, whose other folds
it has seen: finetune_tail.py export --exclude-cv-fold K). Crops of labelled boxes, no detector in the
loop: `scripts/eval/headRules.ts` judges the same rules end to end.
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_head as th  # noqa: E402

THRESHOLDS = [0.5, 0.8, 0.9, 0.95, 0.98]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dir', required=True)
    ap.add_argument('--onnx', required=True)
    ap.add_argument('--only-cv-fold', type=int, default=None)
    args = ap.parse_args()
    with open(os.path.join(args.dir, 'crops-meta.json')) as f:
        meta = json.load(f)
    rows = meta['head']
    x = th.embeddings(args, meta, False)
    labels = np.array([r['label'] for r in rows])
    cv_fold = np.array([-1 if r.get('cvFold') is None else r['cvFold'] for r in rows])
    is_head = labels < th.BACKGROUND
    train = np.array([r['fold'] == 'train' for r in rows]) & is_head
    held = np.array([r['fold'] == 'holdout' for r in rows]) & is_head
    _, p_held, _, _, _ = th.fit(x, None, labels, train, held, th.CLASSES, th.SEED)
    worksite_hats = p_held[labels[held] == 0, 0]
    folds = [args.only_cv_fold] if args.only_cv_fold is not None else range(5)
    p_cv, y_cv = [], []
    for k in folds:
        left = is_head & (cv_fold == k)
        _, p, _, _, _ = th.fit(x, None, labels, train & (cv_fold != k), left, th.CLASSES, th.SEED)
        p_cv.append(p[:, 0])
        y_cv.append(labels[left])
    p_cv, y_cv = np.concatenate(p_cv), np.concatenate(y_cv)
    out = []
    for t in THRESHOLDS:
        out.append({
            't': t,
            'worksiteHardHatsBelow': round(float((worksite_hats < t).mean()), 3),
            'capsAbove': f'{int((p_cv[y_cv == 2] >= t).sum())}/{int((y_cv == 2).sum())}',
            'bareAbove': f'{int((p_cv[y_cv == 1] >= t).sum())}/{int((y_cv == 1).sum())}',
            'cvHardHatsBelow': f'{int((p_cv[y_cv == 0] < t).sum())}/{int((y_cv == 0).sum())}',
        })
    print(json.dumps({'onnx': os.path.basename(args.onnx), 'worksiteHardHats': int(len(worksite_hats)), 'rows': out}, indent=1))


if __name__ == '__main__':
    main()
