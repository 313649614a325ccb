"""The person detector's MobileNetV3 backbone (CenterNet of @vladmandic/human) in TensorFlow, with
trainable weights.

Reads the tfjs graph (`models/centernet.json` + `.bin`, float16-quantised weights) from the
package in node_modules and runs its nodes with TensorFlow ops, so the backbone that embeds PPE
crops at run time (services/analysis/src/engine/ppeEmbedding.ts) can be fine-tuned here. Only the
ops the backbone uses are implemented; the detection head is never run. Checked against tfjs: the
same crops give the same squeeze-and-excite means within 1.2e-4 (README.md).
"""
import base64
import json
import re
from pathlib import Path

import numpy as np
import tensorflow as tf

REPO = Path(__file__).resolve().parents[3]
MODEL_DIR = REPO / 'node_modules' / '@vladmandic' / 'human' / 'models'
PREFIX = 'tower_0/MobilenetV3/'
# The pooled activations ppeEmbedding.ts reads (blocks 5, 10, 12, 14), and the backbone's last layer.
SE_MEANS = [f'{PREFIX}expanded_conv_{i}/squeeze_excite/Mean' for i in (5, 10, 12, 14)]
LAST = 'tower_0/extern1/hard_swish/mul_1'


def load_graph(model_dir: Path = MODEL_DIR, weights_file: Path | None = None):
    """The graph's nodes and weights; the weights from `weights_file` when given (a tuned backbone
    finetune.py exported: the same manifest order and quantisation), else the package's."""
    graph = json.loads((model_dir / 'centernet.json').read_text())
    weights_file = weights_file or model_dir / 'centernet.bin'
    data = weights_file.read_bytes()
    weights, offset = {}, 0
    for w in graph['weightsManifest'][0]['weights']:
        n = int(np.prod(w['shape'])) if w['shape'] else 1
        if (w.get('quantization') or {}).get('dtype') == 'float16':
            a = np.frombuffer(data, dtype=np.float16, count=n, offset=offset).astype(np.float32)
            offset += 2 * n
        elif w['dtype'] == 'int32':
            a = np.frombuffer(data, dtype=np.int32, count=n, offset=offset)
            offset += 4 * n
        else:
            a = np.frombuffer(data, dtype=np.float32, count=n, offset=offset)
            offset += 4 * n
        weights[w['name']] = a.reshape(w['shape'])
    if offset != len(data):
        raise ValueError(f'{weights_file}: {len(data)} bytes, the manifest reads {offset}')
    nodes = {n['name']: n for n in graph['modelTopology']['node']}
    return nodes, weights


def _s(attr, k):
    return base64.b64decode(attr[k]['s']).decode()


def _ints(attr, k):
    return [int(v) for v in attr[k]['list'].get('i', [])]


def _strs(attr, k):
    return [base64.b64decode(v).decode() for v in attr[k]['list'].get('s', [])]


class Backbone:
    """The graph's float weights as variables; those whose name matches `trainable` are trained."""

    def __init__(self, trainable: str | None = None, model_dir: Path = MODEL_DIR, weights_file: Path | None = None):
        self.nodes, weights = load_graph(model_dir, weights_file)
        self.vars = {}
        for name, value in weights.items():
            if value.dtype == np.float32:
                train = bool(trainable and re.search(trainable, name))
                self.vars[name] = tf.Variable(value, trainable=train, name=re.sub(r'[^A-Za-z0-9_./-]', '_', name))
            else:
                self.vars[name] = tf.constant(value)

    def trainable(self):
        return [v for v in self.vars.values() if isinstance(v, tf.Variable) and v.trainable]

    def run(self, images, outputs):
        """Values of the `outputs` nodes for a batch of images (pixels 0..255, NHWC)."""
        memo = {'tower_0/images': images}

        def ev(name):
            name = name.split(':')[0]
            if name in memo:
                return memo[name]
            node = self.nodes[name]
            op, attr = node['op'], node.get('attr', {})
            if op == 'Const':
                out = self.vars[name]
            else:
                ins = [ev(i) for i in node['input'] if not i.startswith('^')]
                if op in ('_FusedConv2D', 'Conv2D', 'FusedDepthwiseConv2dNative', 'DepthwiseConv2dNative'):
                    strides, padding = _ints(attr, 'strides'), _s(attr, 'padding')
                    dilations = _ints(attr, 'dilations') or [1, 1, 1, 1]
                    if op in ('_FusedConv2D', 'Conv2D'):
                        out = tf.nn.conv2d(ins[0], ins[1], strides, padding, dilations=dilations)
                    else:
                        out = tf.nn.depthwise_conv2d(ins[0], ins[1], strides, padding, dilations=dilations[1:3])
                    arg = 2
                    for fused in _strs(attr, 'fused_ops') if 'fused_ops' in attr else []:
                        if fused == 'BiasAdd':
                            out, arg = out + ins[arg], arg + 1
                        elif fused == 'Relu':
                            out = tf.nn.relu(out)
                        elif fused == 'Relu6':
                            out = tf.nn.relu6(out)
                        else:
                            raise ValueError(f'unsupported fused op {fused}')
                elif op == 'Mul':
                    out = ins[0] * ins[1]
                elif op == 'Add':
                    out = ins[0] + ins[1]
                elif op == 'Relu6':
                    out = tf.nn.relu6(ins[0])
                elif op == 'Relu':
                    out = tf.nn.relu(ins[0])
                elif op == 'Mean':
                    axes = [int(v) for v in np.array(ins[1]).ravel()]
                    out = tf.reduce_mean(ins[0], axis=axes, keepdims=bool(attr.get('keep_dims', {}).get('b', False)))
                else:
                    raise ValueError(f'unsupported op {op} ({name})')
            memo[name] = out
            return out

        return [ev(o) for o in outputs]

    def embed(self, images):
        """The run time's embedding (the four squeeze-and-excite means) followed by the mean of the last layer."""
        outs = self.run(images, SE_MEANS + [LAST])
        n = tf.shape(images)[0]
        return tf.concat([tf.reshape(t, [n, -1]) for t in outs[:4]] + [tf.reduce_mean(outs[4], [1, 2])], 1)
