"""The PPE classifier on the backbone's embedding, as finetune.py trains it and refit.py re-fits it:
its shape, its class weights, and its export in ppeModel.ts's MlpModel shape."""
import numpy as np
import tensorflow as tf


def classifier_head(n_classes: int, seed: int) -> tf.keras.Sequential:
    """Dense 32 (ReLU, L2 1e-3), dropout 0.3, dense `n_classes` (logits): the run time's shape."""
    return tf.keras.Sequential([
        tf.keras.layers.Dense(32, activation='relu', kernel_regularizer=tf.keras.regularizers.l2(1e-3)),
        tf.keras.layers.Dropout(0.3, seed=seed),
        tf.keras.layers.Dense(n_classes),
    ])


def class_weights(mode: str, counts: np.ndarray) -> np.ndarray:
    """Loss weight per class from the training crops' counts. `balanced`: N / (C n_c) (what `npm run
    train` uses); `sqrt`: the square root of those, scaled to the same mean weight per crop; `cap:K`:
    balanced, each class at most K times the first's (the hard hat's); `none`: 1; `w:a,b,c`: given."""
    n = counts.sum()
    balanced = n / (len(counts) * counts)
    if mode == 'balanced':
        return balanced
    if mode == 'none':
        return np.ones(len(counts))
    if mode == 'sqrt':
        w = np.sqrt(balanced)
        return w * n / (w * counts).sum()
    if mode.startswith('cap:'):
        w = np.minimum(balanced, float(mode[4:]) * balanced[0])
        return w * n / (w * counts).sum()
    if mode.startswith('w:'):
        return np.array([float(v) for v in mode[2:].split(',')])
    raise ValueError(f'unknown class weights {mode}')


def mlp_model(head: tf.keras.Sequential, mean: np.ndarray, std: np.ndarray, classes: list) -> dict:
    """The classifier as ppeModel.ts's MlpModel: feature normalisation and the dense layers."""
    dense = [l for l in head.layers if isinstance(l, tf.keras.layers.Dense)]
    layers = [{'weights': l.kernel.numpy().T.tolist(), 'bias': l.bias.numpy().tolist()} for l in dense]
    return {'classes': classes, 'featureMean': mean.tolist(), 'featureStd': std.tolist(), 'layers': layers}
