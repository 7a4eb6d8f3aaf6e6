"""String hashes, tf.train.Example and the tf.io.parse_*example family against what TF 2.21
returns or raises for the same expressions (``tests/fixtures/tf/make_example_parsing.py``)."""

import importlib.util
import json
import pathlib

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import _farmhash

from .optable import Case, run_case

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "tf"
_spec = importlib.util.spec_from_file_location("make_example_parsing",
                                               FIXTURES / "make_example_parsing.py")
MAKE = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(MAKE)
TF_CASES = json.loads((FIXTURES / "example_parsing" / "cases.json").read_text())
NS = MAKE.namespace(tf)


def test_fixture_lists_every_case():
    assert [c["expr"] for c in TF_CASES] == MAKE.CASES


@pytest.mark.parametrize("case", TF_CASES, ids=[c["expr"][:70] for c in TF_CASES])
def test_as_tf(case):
    assert MAKE.run_case(NS, case["expr"]) == case["result"]


def _tf_values(expr):
    return next(c["result"]["values"] for c in TF_CASES if c["expr"] == expr)


def test_fingerprint64_every_length_class():
    """0-16, 17-32, 33-64 and >64 bytes (1 to 16 blocks): TF's Fingerprint64, as its bytes."""
    strings = eval(MAKE.STRINGS, {"LENGTHS": MAKE.LENGTHS})
    want = np.array(_tf_values(f"tf.fingerprint(tf.constant({MAKE.STRINGS}))"), np.uint8)
    got = _farmhash.fingerprint64(strings).astype("<u8").view(np.uint8)
    np.testing.assert_array_equal(got, want)
    # one at a time (no batching across length classes) gives the same values
    singles = [_farmhash.fingerprint64_one(s) for s in strings[60:75]]
    assert singles == [int(v) for v in _farmhash.fingerprint64(strings[60:75])]


def test_fingerprint_cat64():
    """FingerprintCat64 on NumPy words equals its definition on Python ints (TF's own values
    are checked through SavedModel signature hashes in tests/formats/test_fingerprint.py)."""
    for a, b in [(0, 0), (1, 2), (2**64 - 1, 12345), (0xDEADBEEF, 2**63)]:
        assert _farmhash.fingerprint_cat64(a, b) == _cat64_reference(a, b)


def _cat64_reference(fp1, fp2):
    mask, mul = 2**64 - 1, 0xC6A4A7935BD1E995

    def shift_mix(v):
        return v ^ (v >> 47)

    r = fp1 ^ mul
    r ^= (shift_mix((fp2 * mul) & mask) * mul) & mask
    r = (r * mul) & mask
    r = (shift_mix(r) * mul) & mask
    return shift_mix(r)


def test_hash_buckets_in_function_and_dataset():
    words = tf.constant(["Who", "is", "Dan", "Smith", "a" * 70])
    eager = tf.strings.to_hash_bucket_fast(words, 1000).numpy()
    f = tf.function(lambda w: (tf.strings.to_hash_bucket_fast(w, 1000),
                               tf.strings.to_hash_bucket_strong(w, 1000, [1, 2]),
                               tf.strings.to_hash_bucket(w, 1000), tf.fingerprint(w)))
    fast, strong, legacy, fp = f(words)
    np.testing.assert_array_equal(fast.numpy(), eager)
    np.testing.assert_array_equal(strong.numpy(), tf.strings.to_hash_bucket_strong(
        words, 1000, [1, 2]).numpy())
    np.testing.assert_array_equal(legacy.numpy(), tf.strings.to_hash_bucket(words, 1000).numpy())
    assert fp.shape == (5, 8) and fp.dtype == tf.uint8
    ds = tf.data.Dataset.from_tensor_slices(words).map(
        lambda w: tf.strings.to_hash_bucket_fast(w, 1000))
    assert [int(v) for v in ds] == eager.tolist()
    spec = tf.function(tf.fingerprint).get_concrete_function(
        tf.TensorSpec([None, 3], tf.string)).structured_outputs
    assert spec.shape.as_list() == [None, 8]


def _strings(*values):
    out = np.empty(len(values), object)
    out[:] = [v.encode() for v in values]
    return out


def _lit(value):
    return lambda *args, **kwargs: value


_EXAMPLES = np.array([NS["ex"](MAKE.A), NS["ex"](MAKE.B)], object)
_SEQUENCES = np.array([NS["seq"](MAKE.S1), NS["seq"](MAKE.S2)], object)

#: Op-table cases: TF 2.21's values (the fixture's cases), infer against the kernel.
CASES = [
    Case(tf.strings.to_hash_bucket_fast, (_strings("a", "hello"), 2**40),
         ref=_lit(np.array([436859794915, 726675229928])), id="StringToHashBucketFast"),
    Case(tf.strings.to_hash_bucket, (_strings("a", "b", "c"), 10),
         ref=_lit(np.array([8, 0, 7])), id="StringToHashBucket"),
    Case(tf.strings.to_hash_bucket_strong, (_strings("a", "b", "c"), 10, [1, 2]),
         ref=_lit(np.array([6, 4, 9])), id="StringToHashBucketStrong"),
    Case(tf.fingerprint, (np.array([[1, 2], [3, 4]], np.int32),),
         ref=_lit(np.array([[76, 18, 253, 133, 168, 204, 240, 10],
                            [254, 162, 60, 240, 103, 244, 53, 255]], np.uint8)),
         id="Fingerprint"),
    Case(lambda s: tf.io.parse_example(s, {"a": tf.io.FixedLenFeature([2], tf.int64)})["a"],
         (_EXAMPLES,), ref=_lit(np.array([[1, 2], [3, 4]])), id="ParseExampleV2"),
    Case(lambda s: tf.io.parse_sequence_example(s, sequence_features={
        "x": tf.io.FixedLenSequenceFeature([2], tf.float32)})[1]["x"], (_SEQUENCES,),
         ref=_lit(np.array([[[1, 2], [3, 4]], [[5, 6], [0, 0]]], np.float32)),
         dynamic_shape=True, id="ParseSequenceExampleV2"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)
