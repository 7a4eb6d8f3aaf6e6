"""Checkpoints written by tensortrace for TensorFlow to restore (the other direction).

    python -m tests.checkpoint.ours_for_tf OUT_DIR
    python tests/fixtures/tf/check_our_checkpoints.py OUT_DIR     # in a TF 2.21 environment

``write(OUT_DIR)`` writes ``mlp/`` (Checkpoint.save of the fixture's MLP), ``dtypes/``
(Checkpoint.write of variables of every dtype), ``manager/`` (a CheckpointManager directory,
max_to_keep=2), ``blocks/`` (a bundle of 400 keys in many table blocks) and ``expected.json``
(every value, in the format make_checkpoints.py records).
"""

import base64
import json
import os
import sys

import numpy as np

import tensortrace as tf
from tensortrace.checkpoint import bundle


def encode(value):
    a = np.asarray(value, dtype=object if isinstance(value, bytes) else None)
    if a.dtype.kind in "OS":
        flat = [base64.b64encode(bytes(s)).decode() for s in a.reshape(-1)]
        return {"dtype": "string", "shape": list(a.shape), "b64": flat}
    if a.dtype.name == "bfloat16":
        return {"dtype": "bfloat16", "shape": list(a.shape),
                "value": a.astype(np.float32).reshape(-1).tolist()}
    if a.dtype.kind == "c":
        return {"dtype": a.dtype.name, "shape": list(a.shape),
                "value": [[float(z.real), float(z.imag)] for z in a.reshape(-1)]}
    return {"dtype": a.dtype.name, "shape": list(a.shape), "value": a.reshape(-1).tolist()}


def record(prefix):
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    values = {}
    for key in sorted(reader.get_variable_to_shape_map()):
        if key != "_CHECKPOINTABLE_OBJECT_GRAPH":
            values[key] = dict(encode(reader.get_tensor(key)), tf_dtype=dtypes[key].name)
    return values


class Dense(tf.Module):
    def __init__(self, n_in, n_out, seed, name=None):
        super().__init__(name=name)
        rng = np.random.default_rng(seed)
        self.w = tf.Variable(rng.normal(size=(n_in, n_out)).astype(np.float32), name="w")
        self.b = tf.Variable(np.arange(n_out, dtype=np.float32) / 10, name="b")


class MLP(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(3, 4, 1), Dense(4, 2, 2)]
        self.extras = [tf.Variable(1.5, name="e0"), tf.Variable([1, 2, 3], name="e1")]
        self.config = {"scale": tf.Variable(2.0, name="scale"),
                       "nested": {"inner": tf.Variable([[1.0, -1.0]], name="inner")}}
        self.gen = tf.random.Generator.from_seed(42)
        self.head = Dense(2, 1, 3, name="head")


def dtype_variables():
    bf16 = getattr(tf, "bfloat16", None)
    out = dict(
        f32=tf.Variable([[1.5, -2.25], [3.0, 1e-30]], dtype=tf.float32),
        f64=tf.Variable([np.pi, -np.e, 1e300], dtype=tf.float64),
        f16=tf.Variable([0.5, 65504.0, -0.0009765625], dtype=tf.float16),
        i8=tf.Variable([-128, 127], dtype=tf.int8),
        i16=tf.Variable([-32768, 32767], dtype=tf.int16),
        i32=tf.Variable([[-(2 ** 31), 2 ** 31 - 1, 0]], dtype=tf.int32),
        i64=tf.Variable([-(2 ** 63), 2 ** 63 - 1], dtype=tf.int64),
        u8=tf.Variable([0, 255], dtype=tf.uint8),
        u16=tf.Variable([0, 65535], dtype=tf.uint16),
        c64=tf.Variable([1 + 2j, -3.5j], dtype=tf.complex64),
        c128=tf.Variable([[1e-200 + 1j]], dtype=tf.complex128),
        b=tf.Variable([[True, False], [False, True]]),
        s=tf.Variable([[b"", b"hello"], [b"\x00\xff bytes", "\u00e9t\u00e9".encode()]]),
        s0=tf.Variable(b"scalar string"),
        empty=tf.Variable(tf.zeros([0, 3], tf.float32)),
        scalar=tf.Variable(42, dtype=tf.int64),
    )
    if bf16 is not None:
        out["bf16"] = tf.Variable([1.0, -3.5, 256.0], dtype=bf16)
    return out


def write(out_dir):
    """Write the checkpoints and ``expected.json``; returns the expected record."""
    os.makedirs(out_dir, exist_ok=True)
    expected = {}
    mlp = MLP()
    mlp.gen.normal([3])
    ckpt = tf.train.Checkpoint(model=mlp, step=tf.Variable(7, dtype=tf.int64))
    path = ckpt.save(os.path.join(out_dir, "mlp", "ckpt"))
    expected["mlp"] = {"path": os.path.relpath(path, out_dir), "values": record(path)}
    path = tf.train.Checkpoint(**dtype_variables()).write(os.path.join(out_dir, "dtypes", "ckpt"))
    expected["dtypes"] = {"path": os.path.relpath(path, out_dir), "values": record(path)}
    v = tf.Variable([0.0, 0.0])
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), os.path.join(out_dir, "manager"),
                                         max_to_keep=2, checkpoint_name="model")
    for i in range(3):
        v.assign([i + 1.0, -(i + 1.0)])
        manager.save()
    expected["manager"] = {"checkpoints": [os.path.relpath(p, out_dir) for p in manager.checkpoints],
                           "values": record(manager.latest_checkpoint)}
    tensors = {f"k/{i:04d}/" + "x" * (i % 50): np.arange(i % 5, dtype=np.int64) * i
               for i in range(400)}
    prefix = os.path.join(out_dir, "blocks", "bundle")
    old = bundle.BLOCK_SIZE
    bundle.BLOCK_SIZE = 1024  # many data blocks (TF reads any block size)
    try:
        bundle.write_bundle(prefix, tensors)
    finally:
        bundle.BLOCK_SIZE = old
    expected["blocks"] = {"path": "blocks/bundle", "values": record(prefix)}
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
    return expected


if __name__ == "__main__":
    write(sys.argv[1])
    print("wrote", sys.argv[1])
