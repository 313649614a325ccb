"""Converts two of Human's tfjs graph models to ONNX (ADR 0030): CenterNet (persons) and BlazeFace (faces).

    python export_onnx.py HUMAN_MODELS_DIR OUT_DIR

HUMAN_MODELS_DIR is `node_modules/@vladmandic/human/models` (MIT): `centernet.json`/`.bin` (from
MB3-CenterNet) becomes OUT_DIR/person-centernet.onnx (its `tower_0/detections` output), and
`blazeface.json`/`.bin` (MediaPipe BlazeFace, back-camera model) becomes OUT_DIR/face-blazeface.onnx.
Needs `tensorflow-cpu` and `tf2onnx` in a Python environment of its own (from the repository's root):

    python3 -m venv tmp/tf2onnx && tmp/tf2onnx/bin/pip install tensorflow-cpu tf2onnx
    tmp/tf2onnx/bin/python scripts/train/human-onnx/export_onnx.py \
        node_modules/@vladmandic/human/models services/analysis/models

The graphs keep their inputs and outputs; what Human does around them (resizing, decoding,
non-maximum suppression) stays in `services/analysis/src/engine/onnxDetectors.ts`.

tfjs' converter writes its fused ops without the attributes TensorFlow gives defaults for, and
without `TArgs`; both are filled in from TensorFlow's op definitions before tf2onnx reads the graph.
"""
import json
import os
import shutil
import sys
import tempfile

import numpy as np

if not hasattr(np, "product"):  # tf2onnx 1.16 still calls numpy's removed alias
    np.product = np.prod

from google.protobuf import json_format  # noqa: E402
from tensorflow.python.framework import op_def_registry  # noqa: E402


def complete(model: dict) -> dict:
    """Fills each node's attributes that TensorFlow has defaults for, and the fused ops' `TArgs`."""
    for node in model["modelTopology"]["node"]:
        attr = node.setdefault("attr", {})
        if node["op"] in ("_FusedConv2D", "_FusedMatMul") and "TArgs" not in attr:
            count = int(attr.get("num_args", {}).get("i", "0"))
            attr["TArgs"] = {"list": {"type": ["DT_FLOAT"] * count}}
        op_name = "_FusedDepthwiseConv2dNative" if node["op"] == "FusedDepthwiseConv2dNative" else node["op"]
        op_def = op_def_registry.get(op_name)
        if op_def is None:
            continue
        for a in op_def.attr:
            if a.name not in attr and a.HasField("default_value"):
                attr[a.name] = json_format.MessageToDict(a.default_value)
    return model


# (Human's file name, ONNX file name, outputs to keep or None for all)
MODELS = [
    ("centernet", "person-centernet.onnx", "tower_0/detections"),
    ("blazeface", "face-blazeface.onnx", None),
    ("movenet-lightning", "pose-movenet-lightning.onnx", None),
]


def main() -> None:
    models, out_dir = sys.argv[1], sys.argv[2]
    from tf2onnx import convert

    for name, onnx_name, outputs in MODELS:
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(models, f"{name}.json")) as f:
                model = complete(json.load(f))
            with open(os.path.join(tmp, f"{name}.json"), "w") as f:
                json.dump(model, f)
            shutil.copy(os.path.join(models, f"{name}.bin"), tmp)
            sys.argv = ["tf2onnx.convert", "--tfjs", os.path.join(tmp, f"{name}.json"), "--output", os.path.join(out_dir, onnx_name), "--opset", "17"]
            if outputs:
                sys.argv += ["--outputs", outputs]
            convert.main()

if __name__ == "__main__":
    main()
