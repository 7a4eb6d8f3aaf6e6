"""The TF-made checkpoints (tests/fixtures/tf/checkpoints) and their recorded values."""

import base64
import json
import pathlib

import numpy as np

DIR = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "tf" / "checkpoints"
EXPECTED = json.loads((DIR / "expected.json").read_text())


def decode(rec):
    """A recorded value as the NumPy array TF returned (strings: object array of bytes)."""
    shape = tuple(rec["shape"])
    if rec["dtype"] == "string":
        flat = [base64.b64decode(s) for s in rec["b64"]]
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        return out.reshape(shape)
    if rec["dtype"].startswith("complex"):
        return np.array([complex(a, b) for a, b in rec["value"]],
                        dtype=rec["dtype"]).reshape(shape)
    if rec["dtype"] == "bfloat16":
        return np.array(rec["value"], np.float32).reshape(shape)
    return np.array(rec["value"], dtype=rec["dtype"]).reshape(shape)


def assert_same(actual, rec):
    """``actual`` equals the recorded value exactly (dtype and bits, NaNs and signs included)."""
    expected = decode(rec)
    actual = np.asarray(actual, dtype=object if isinstance(actual, bytes) else None)
    if rec["dtype"] == "bfloat16":
        assert actual.dtype.name == "bfloat16"
        actual = actual.astype(np.float32)
    assert actual.shape == expected.shape
    if expected.dtype == object:
        assert actual.dtype == object and list(actual.reshape(-1)) == list(expected.reshape(-1))
    else:
        assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
        assert actual.tobytes() == expected.tobytes()
