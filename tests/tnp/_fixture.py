"""TF 2.21's recorded tnp results (tests/fixtures/tf/make_tnp.py) and the encoding that
compares ours with them."""

import contextlib
import json
import os

import numpy as np

import tensortrace as tf
import tensortrace.experimental.numpy as tnp
from tensortrace.tnp import _behavior

PATH = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf", "tnp", "expected.json")

with open(PATH, encoding="utf-8") as _f:
    RECORDED = json.load(_f)


def expected(mode, part, expr):
    """TF's record of ``expr`` in ``mode`` ("legacy-0", "legacy-1", "off-0"); the other modes
    store only what differs from legacy-0."""
    found = RECORDED[mode][part].get(expr)
    return found if found is not None else RECORDED["legacy-0"][part][expr]


@contextlib.contextmanager
def numpy_behavior(mode):
    """NumPy behaviour as in ``mode`` for the block, then off again."""
    kind, f32 = mode.split("-")
    if kind != "off":
        tnp.experimental_enable_numpy_behavior(prefer_float32=f32 == "1",
                                               dtype_conversion_mode=kind)
    try:
        yield
    finally:
        _behavior._disable()


def _jsonable(v):
    v = np.asarray(v)
    if v.dtype.kind == "c":
        return {"re": _jsonable(v.real), "im": _jsonable(v.imag)}
    if v.dtype.kind == "f":
        return [float(x) if np.isfinite(x) else repr(float(x)) for x in v.ravel()] \
            if v.ndim else (float(v) if np.isfinite(v) else repr(float(v)))
    if v.dtype.kind in "SUO":
        return str(v.tolist())
    return v.tolist()


def encode(r):
    """What the fixture script records of a result, for our objects."""
    if isinstance(r, tf.Tensor):
        return {"kind": "tensor", "dtype": r.dtype.name, "shape": list(r.shape),
                "value": _jsonable(r.numpy())}
    if isinstance(r, (list, tuple)):
        return {"kind": type(r).__name__, "items": [encode(x) for x in r]}
    if isinstance(r, np.ndarray):
        return {"kind": "ndarray", "dtype": str(r.dtype), "value": _jsonable(r)}
    if isinstance(r, type):
        return {"kind": "type", "value": r.__name__}
    if isinstance(r, tf.DType):
        return {"kind": "dtype", "value": r.name}
    if isinstance(r, np.dtype):
        return {"kind": "type", "value": r.type.__name__}
    if isinstance(r, tf.TensorShape):
        return {"kind": "shape", "value": r.as_list()}
    if isinstance(r, np.generic):
        return {"kind": "scalar", "type": type(r).__name__, "value": _jsonable(r)}
    return {"kind": "python", "type": type(r).__name__, "value": _jsonable(r)}


def evaluate(expr):
    try:
        return encode(eval(expr, {"tf": tf, "tnp": tnp, "np": np}))  # noqa: S307 - fixed texts
    except Exception as e:  # noqa: BLE001 - the error type is compared
        return {"kind": "error", "type": type(e).__name__, "message": str(e)[:300]}


def _close(a, b):
    if isinstance(a, dict) and isinstance(b, dict) and set(a) == {"re", "im"}:
        return _close(a["re"], b["re"]) and _close(a["im"], b["im"])
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or abs(a - b) <= 1e-6 * max(abs(a), abs(b)) + 1e-12
    return a == b


def same(ours, theirs):
    """Our encoded result matches TF's: kinds, dtypes, shapes and types equal; values equal
    (floats to 1e-6 relative); errors by type."""
    if ours.get("kind") != theirs.get("kind"):
        return False
    if theirs["kind"] == "error":
        return ours["type"] == theirs["type"]
    if "items" in theirs:
        return len(ours["items"]) == len(theirs["items"]) and all(
            same(o, t) for o, t in zip(ours["items"], theirs["items"]))
    for key in ("dtype", "shape", "type"):
        if ours.get(key) != theirs.get(key):
            return False
    return _close(ours.get("value"), theirs.get("value"))
