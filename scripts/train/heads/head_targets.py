"""The head detectors' training targets (train_heads.py, lite_heads.py): numpy only."""
import numpy as np


def targets(heads, grid, stride):
    """Gaussian heatmap per class (0 hard hat, 1 no hard hat), and at each head's centre cell its
    log size and a mask: `grid` x `grid` x 5 (HWC), boxes in input pixels."""
    t = np.zeros((grid, grid, 5), np.float32)
    yy, xx = np.mgrid[0:grid, 0:grid] + 0.5
    for h in heads:
        x, y, w, hh = h['box']
        if w < 4:
            continue
        cx, cy = (x + w / 2) / stride, (y + hh / 2) / stride
        sigma = max(0.5, min(w, hh) / stride / 4)
        c = h['label']
        t[:, :, c] = np.maximum(t[:, :, c], np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma * sigma)))
        ix, iy = min(grid - 1, int(cx)), min(grid - 1, int(cy))
        t[iy, ix, c] = 1.0
        t[iy, ix, 2:5] = [np.log(w / stride), np.log(hh / stride), 1.0]
    return t
