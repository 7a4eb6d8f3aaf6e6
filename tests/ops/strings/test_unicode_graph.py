"""The string and tf.io ops inside tf.function: TF's static shapes, the same values as eager
execution, and TF's graph-construction errors (all pinned from TF 2.21)."""

import numpy as np
import pytest

import tensortrace as tf


def _shapes(structure):
    """Output shapes as nested lists (None for an unknown rank)."""
    if isinstance(structure, (list, tuple)):
        return [_shapes(t) for t in structure]
    return structure.shape.as_list() if structure.shape.rank is not None else None


def test_unicode_ops_in_a_function():
    @tf.function(input_signature=[tf.TensorSpec([], tf.string)])
    def f(x):
        cps = tf.strings.unicode_decode(x, "UTF-8")
        return (cps, tf.strings.unicode_split(x, "UTF-8"),
                tf.strings.unicode_encode(cps, "UTF-16-BE"), tf.strings.unicode_script(cps))

    assert _shapes(f.get_concrete_function().structured_outputs) == [[None], [None], [], [None]]
    cps, chars, utf16, scripts = f(tf.constant("hé😊"))
    assert cps.numpy().tolist() == [104, 233, 128522]
    assert chars.numpy().tolist() == [b"h", "é".encode(), "😊".encode()]
    assert utf16.numpy() == "hé😊".encode("utf-16-be")
    assert scripts.numpy().tolist() == [25, 25, 0]


def test_ragged_results_from_a_function():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def f(x):
        return tf.strings.unicode_decode(x, "UTF-8")

    assert f(tf.constant(["ab", "ç"])).to_list() == [[97, 98], [231]]


def test_encode_ngrams_and_segment_join_shapes():
    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)])
    def encode(x):
        return tf.strings.unicode_encode(x, "UTF-8")

    assert _shapes(encode.get_concrete_function().structured_outputs) == [None]
    assert encode(tf.constant([[104, 105], [233, 33]])).numpy().tolist() == [b"hi", b"\xc3\xa9!"]

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.string)])
    def join(x):
        return tf.strings.ngrams(x, 2), tf.strings.unsorted_segment_join(x, [0, 0], 1)

    assert _shapes(join.get_concrete_function().structured_outputs) == [[None, None], [1, 3]]
    grams, joined = join(tf.constant([["a", "b", "c"], ["d", "e", "f"]]))
    assert grams.numpy().tolist() == [[b"a b", b"b c"], [b"d e", b"e f"]]
    assert joined.numpy().tolist() == [[b"ad", b"be", b"cf"]]


def test_io_and_svd_shapes():
    @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.string)])
    def io(x):
        return (tf.io.decode_raw(x, tf.int16), tf.io.decode_base64(x),
                tf.io.decode_csv(x, [[0], [""]]), tf.io.parse_tensor(x[0, 0], tf.float32),
                tf.io.serialize_tensor(x), tf.io.read_file(x[0, 0]))

    assert _shapes(io.get_concrete_function().structured_outputs) == \
        [[2, 3, None], [2, 3], [[2, 3], [2, 3]], None, [], []]

    @tf.function(input_signature=[tf.TensorSpec([4, 3], tf.float32)])
    def svd(x):
        return (tf.linalg.svd(x), tf.linalg.svd(x, full_matrices=True),
                tf.linalg.svd(x, compute_uv=False))

    assert _shapes(svd.get_concrete_function().structured_outputs) == \
        [[[3], [4, 3], [3, 3]], [[3], [4, 4], [3, 3]], [3]]
    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    s, u, v = svd(tf.constant(x))[0]
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, x, atol=1e-5)


@pytest.mark.parametrize("fn, error, message", [
    (lambda x: tf.strings.unicode_transcode(x, "UTF-8", "latin1"), ValueError,
     "Attr 'output_encoding' of 'UnicodeTranscode' Op passed string 'latin1' not in: "
     "\"UTF-8\", \"UTF-16-BE\", \"UTF-32-BE\"."),
    (lambda x: tf.strings.unicode_decode(x, "UTF-8", errors="x"), ValueError,
     "Attr 'errors' of 'UnicodeDecode' Op passed string 'x' not in: \"strict\", \"replace\", "
     "\"ignore\"."),
    (lambda x: tf.io.decode_raw(x, tf.string), TypeError,
     "Value passed to parameter 'out_type' has DataType string not in list of allowed values: "
     "float16, float32, float64, int32, uint16, uint8, int16, int8, int64, complex64, "
     "complex128, bool, bfloat16"),
])
def test_graph_errors(fn, error, message):
    with pytest.raises(error) as info:
        tf.function(fn)(tf.constant("a"))
    assert message in str(info.value)
