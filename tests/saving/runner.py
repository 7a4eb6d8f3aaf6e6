"""Runs calls on saved models, in the test process or (as a script) in a fresh one that cannot
import the code that defined the models.

    python tests/saving/runner.py WORKDIR   # loads WORKDIR/<name>/, runs WORKDIR/calls.*,
                                            # writes WORKDIR/results.*

Calls and results travel as ``<stem>.json`` (structure) + ``<stem>.npz`` (arrays); this codec is
independent of the one under test. Call arguments: arrays become tensors, ``{"ref": path}`` is an
attribute of the model (a variable), other values pass as they are. A call path ``sig:KEY`` is
``signatures[KEY]``.
"""

import json
import os
import sys

import numpy as np


def encode(value, arrays):
    """JSON structure of ``value``; arrays (NumPy) are stored in ``arrays`` by key."""
    if isinstance(value, (np.ndarray, np.generic)):
        key = f"x{len(arrays)}"
        arr = np.asarray(value)
        if arr.dtype == object:  # bytes strings
            arrays[key] = np.array([bytes(b) for b in arr.reshape(-1)], dtype="S").reshape(
                arr.shape) if arr.size else np.zeros(arr.shape, "S1")
            return {"strings": key, "lengths": [len(b) for b in arr.reshape(-1)],
                    "scalar": isinstance(value, np.generic)}
        arrays[key] = arr
        return {"array": key, "scalar": isinstance(value, np.generic)}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {"namedtuple": type(value).__name__, "fields": list(value._fields),
                "items": [encode(v, arrays) for v in value]}
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [encode(v, arrays) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[k, encode(v, arrays)] for k, v in value.items()]}
    if isinstance(value, bytes):
        return {"bytes": value.decode("latin-1")}
    if isinstance(value, Ref):
        return {"ref": value.path}
    assert value is None or isinstance(value, (bool, int, float, str)), value
    return {"value": value}


def decode(doc, arrays):
    (kind, payload), = [(k, v) for k, v in doc.items() if k in _KINDS]
    if kind == "array":
        arr = arrays[payload]
        return arr[()] if doc["scalar"] else arr
    if kind == "strings":
        flat = arrays[payload].reshape(-1)
        items = [bytes(b).ljust(n, b"\0")[:n] for b, n in zip(flat, doc["lengths"])]
        out = np.empty(len(items), dtype=object)
        out[:] = items
        out = out.reshape(arrays[payload].shape)
        return out[()] if doc["scalar"] else out
    if kind == "namedtuple":
        import collections

        return collections.namedtuple(payload, doc["fields"])(*(decode(v, arrays)
                                                               for v in doc["items"]))
    if kind in ("list", "tuple"):
        items = [decode(v, arrays) for v in payload]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        return {k: decode(v, arrays) for k, v in payload}
    if kind == "bytes":
        return payload.encode("latin-1")
    if kind == "ref":
        return Ref(payload)
    return payload


_KINDS = ("array", "strings", "namedtuple", "list", "tuple", "dict", "bytes", "ref", "value")


class Ref:
    """An argument naming an attribute of the model (``Ref("sub.v")``)."""

    def __init__(self, path):
        self.path = path

    def resolve(self, obj):
        for part in self.path.split("."):
            if isinstance(obj, (list, tuple)):
                obj = obj[int(part)]
            elif isinstance(obj, dict):
                obj = obj[part]
            else:
                obj = getattr(obj, part)
        return obj


def write(stem, value):
    arrays = {}
    doc = encode(value, arrays)
    with open(stem + ".json", "w") as f:
        json.dump(doc, f)
    np.savez(stem + ".npz", **arrays)


def read(stem):
    with open(stem + ".json") as f:
        doc = json.load(f)
    with np.load(stem + ".npz", allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    return decode(doc, arrays)


def run_calls(tf, obj, signatures, calls):
    """Run ``calls`` ((path, args, kwargs) triples) in order; returns their results as NumPy."""
    results = []
    for path, args, kwargs in calls:
        fn = signatures[path[4:]] if path.startswith("sig:") else Ref(path).resolve(obj)
        args = [_argument(tf, obj, a) for a in args]
        kwargs = {k: _argument(tf, obj, v) for k, v in kwargs.items()}
        results.append(to_numpy(tf, fn(*args, **kwargs)))
    return results


def _argument(tf, obj, value):
    if isinstance(value, Ref):
        return value.resolve(obj)
    if isinstance(value, (np.ndarray, np.generic)):
        return tf.constant(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_argument(tf, obj, v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_argument(tf, obj, v) for v in value)
    if isinstance(value, dict):
        return {k: _argument(tf, obj, v) for k, v in value.items()}
    return value


def to_numpy(tf, value):
    if isinstance(value, tf.Tensor):
        return value._value
    if isinstance(value, tf.Variable):
        return np.asarray(value.numpy())
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(to_numpy(tf, v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(to_numpy(tf, v) for v in value)
    if isinstance(value, dict):
        return {k: to_numpy(tf, v) for k, v in value.items()}
    return value


class _BlockDefiningCode:
    """Refuses to import the test package: the models must load without their source."""

    def find_spec(self, name, path=None, target=None):
        if name in ("corpus", "tests") or name.startswith("tests."):
            raise ImportError(f"the fresh process must not import {name!r}")


def main(workdir):
    sys.meta_path.insert(0, _BlockDefiningCode())
    import tensortrace as tf

    calls = read(os.path.join(workdir, "calls"))
    results = {}
    for name, model_calls in calls.items():
        loaded = tf.saved_model.load(os.path.join(workdir, name))
        results[name] = run_calls(tf, loaded, loaded.signatures, model_calls)
    leaked = [m for m in sys.modules if m == "corpus" or m.startswith("tests")]
    assert not leaked, leaked
    write(os.path.join(workdir, "results"), results)


if __name__ == "__main__":
    main(sys.argv[1])
