"""Functions whose ops export as the ops TF's Python API composes (norms, l2_normalize,
matrix_transpose, dropout with a noise shape, searchsorted, parse_example ...), written against
the TF API: ``module(tf)`` builds one tf.Module holding them all. The tests save it with
tensortrace and load it back; ``tests/fixtures/tf/make_lowerings.py`` loads the same SavedModel
in TF 2.21 and records TF's outputs. ``ARGS`` are the inputs each function is called with."""

import numpy as np

F32 = np.float32
M = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0], [2.0, 1.0, 1.0]], F32)
M4 = np.linspace(-1.0, 1.0, 24, dtype=F32).reshape(2, 3, 4)
C = np.array([1 + 2j, -0.5j, 3.0], np.complex64)
SEQ = np.array([[1.0, 2.0, 2.0, 5.0], [0.0, 1.0, 4.0, 9.0]], F32)
VALS = np.array([[2.0, 6.0], [4.5, -1.0]], F32)


def _encoders():
    """Protocol-buffer writers (TF's example.proto field numbers: Feature bytes=1 float=2
    int64=3, each list's values field 1; Features/FeatureLists map field 1, key 1 value 2)."""

    def varint(n):
        out = b""
        while True:
            b, n = n & 0x7F, n >> 7
            out += bytes([b | (0x80 if n else 0)])
            if not n:
                return out

    def field(num, payload):
        return varint(num << 3 | 2) + varint(len(payload)) + payload

    def feature(kind, values):
        if kind == "float":
            return field(2, field(1, np.asarray(values, "<f4").tobytes()))
        if kind == "int64":
            return field(3, field(1, b"".join(varint(v & (2**64 - 1)) for v in values)))
        return field(1, b"".join(field(1, v) for v in values))

    def example(feats):
        entries = b"".join(field(1, field(1, k.encode()) + field(2, feature(*v)))
                           for k, v in feats.items())
        return field(1, entries)

    return varint, field, feature, example


def examples():
    """Two serialized tf.train.Example protos (bytes), built without TF."""
    example = _encoders()[3]
    return [example({"a": ("float", [1.5, 2.5]), "b": ("int64", [3, 4, 5]),
                     "c": ("int64", [7]), "d": ("bytes", [b"x"])}),
            example({"b": ("int64", [9]), "c": ("int64", [1, 2]), "d": ("bytes", [b"yz"])})]


def sequence_examples():
    """Two serialized tf.train.SequenceExample protos (context=1 Features, feature_lists=2
    FeatureLists: map<string, FeatureList>=1, FeatureList: repeated Feature=1)."""
    _, field, feature, _ = _encoders()

    def seq(context, lists):
        ctx = b"".join(field(1, field(1, k.encode()) + field(2, feature(*v)))
                       for k, v in context.items())
        fl = b"".join(field(1, field(1, k.encode()) + field(2, b"".join(
            field(1, feature(kind, values)) for values in frames)))
            for k, (kind, frames) in lists.items())
        return field(1, ctx) + field(2, fl)

    return [seq({"c": ("int64", [4]), "s": ("bytes", [b"p", b"q"])},
                {"f": ("float", [[1.0, 2.0], [3.0, 4.0]]), "v": ("int64", [[1], [2, 3]]),
                 "r": ("int64", [[5, 6], [], [7]])}),
            seq({"c": ("int64", [9])},
                {"f": ("float", [[0.5, -0.5]]), "v": ("int64", [[8]]), "r": ("int64", [[1]])})]


def context_features(tf):
    return {"c": tf.io.FixedLenFeature([], tf.int64), "s": tf.io.VarLenFeature(tf.string)}


def list_features(tf):
    return {"f": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
            "v": tf.io.VarLenFeature(tf.int64), "r": tf.io.RaggedFeature(tf.int64)}


def features(tf):
    return {"a": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.0, -1.0]),
            "b": tf.io.VarLenFeature(tf.int64), "c": tf.io.RaggedFeature(tf.int64),
            "d": tf.io.FixedLenFeature([], tf.string)}


def specs(tf):
    """name -> (function of the module, input signature)."""
    unknown = tf.TensorSpec(None, tf.float32)
    return {
        "norm_all_unknown_rank": (lambda x: tf.norm(x), [unknown]),
        "norm_ord1_vector": (lambda x: tf.norm(x, ord=1, axis=1), [unknown]),
        "norm_ord3": (lambda x: tf.norm(x, ord=3), [tf.TensorSpec([3, 3], tf.float32)]),
        "norm_inf_vector": (lambda x: tf.norm(x, ord=np.inf, axis=-1, keepdims=True),
                            [tf.TensorSpec([None, 3], tf.float32)]),
        "norm_matrix_1": (lambda x: tf.norm(x, ord=1, axis=[0, 1]),
                          [tf.TensorSpec([3, 3], tf.float32)]),
        "norm_matrix_inf": (lambda x: tf.norm(x, ord=np.inf, axis=[-2, -1]),
                            [tf.TensorSpec([2, 3, 4], tf.float32)]),
        "norm_matrix_2": (lambda x: tf.norm(x, ord=2, axis=[2, 0]),
                          [tf.TensorSpec([2, 3, 4], tf.float32)]),
        "norm_complex": (lambda x: (tf.norm(x), tf.norm(x, ord=1)),
                         [tf.TensorSpec([3], tf.complex64)]),
        "l2_normalize_unknown_rank": (lambda x: tf.math.l2_normalize(x), [unknown]),
        "l2_normalize_complex": (lambda x: tf.math.l2_normalize(x, 0),
                                 [tf.TensorSpec([3], tf.complex64)]),
        "matrix_transpose_unknown_rank": (lambda x: (tf.linalg.matrix_transpose(x),
                                                     tf.linalg.adjoint(tf.complex(x, x))),
                                          [unknown]),
        "dropout_noise_shape": (lambda x: tf.nn.dropout(x, 0.5, noise_shape=[None, 1], seed=3),
                                [tf.TensorSpec([3, 3], tf.float32)]),
        "searchsorted_unknown_rank": (lambda s, v: (tf.searchsorted(s, v),
                                                    tf.searchsorted(s, v, side="right")),
                                      [unknown, unknown]),
        "searchsorted_vectors": (lambda s, v: tf.searchsorted(s, v),
                                 [tf.TensorSpec([4], tf.float32), tf.TensorSpec([3], tf.float32)]),
        "parse_example": (lambda s: tf.io.parse_example(s, features(tf)),
                          [tf.TensorSpec([None], tf.string)]),
        "parse_single_example": (lambda s: tf.io.parse_single_example(s, features(tf)),
                                 [tf.TensorSpec([], tf.string)]),
        "parse_sequence_example": (lambda s: tf.io.parse_sequence_example(
            s, context_features(tf), list_features(tf)), [tf.TensorSpec([None], tf.string)]),
        "parse_single_sequence_example": (lambda s: tf.io.parse_single_sequence_example(
            s, context_features(tf), list_features(tf)), [tf.TensorSpec([], tf.string)]),
        "norm_matrix_2_unknown_rank": (lambda x: (
            tf.norm(x, ord=2, axis=[-2, -1]),
            tf.norm(x, ord=2, axis=[-1, -2], keepdims=True)), [unknown]),
        "histogram_buckets": (_histogram_buckets,
                              [tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.int32)]),
        "tf_named_ops": (lambda x: (
            tf.signal.fft(tf.complex(x, x)), tf.signal.rfft(x), tf.signal.irfft(tf.signal.rfft(x)),
            tf.math.erfinv(x * 0.1), tf.math.ndtri(x * 0.1 + 0.5),
            tf.math.bessel_i0e(x), tf.math.bessel_i1e(x),
            tf.math.invert_permutation(tf.constant([2, 0, 1])),
            tf.linalg.lu(tf.reshape(tf.concat([x, x[::-1] * 2.0, x * x - 1.0], 0), [3, 3])),
            tf.sets.size(tf.sets.intersection(tf.constant([[1, 2, 3], [4, 5, 6]]),
                                              tf.constant([[3, 1, 7], [4, 8, 9]])))),
            [tf.TensorSpec([3], tf.float32)]),
    }


def _histogram_buckets(x, k):
    """tf.summary.histogram's buckets (what its op computes in a saved function) of several
    data/count cases: spread values, all equal, no data, no bucket."""
    from tensortrace.summary.summaries import _buckets  # the module is built by tensortrace
    return (_buckets(x, k), _buckets(x * 0.0 + 4.0, k), _buckets(x[:0], k), _buckets(x, 0))


def args():
    """name -> the arguments (NumPy arrays) of each call."""
    ex = np.array(examples(), object)
    seq = np.array(sequence_examples(), object)
    return {
        "norm_all_unknown_rank": [M4], "norm_ord1_vector": [M], "norm_ord3": [M],
        "norm_inf_vector": [M], "norm_matrix_1": [M], "norm_matrix_inf": [M4],
        "norm_matrix_2": [M4], "norm_complex": [C], "l2_normalize_unknown_rank": [M4],
        "l2_normalize_complex": [C], "matrix_transpose_unknown_rank": [M4],
        "dropout_noise_shape": [M], "searchsorted_unknown_rank": [SEQ, VALS],
        "searchsorted_vectors": [SEQ[0], np.array([2.0, 0.0, 6.0], F32)],
        "parse_example": [ex], "parse_single_example": [ex[0]],
        "parse_sequence_example": [seq], "parse_single_sequence_example": [seq[0]],
        "norm_matrix_2_unknown_rank": [M4],
        "histogram_buckets": [np.array([1.0, 2.0, 2.0, 9.0, -3.0], F32), np.int32(4)],
        "tf_named_ops": [np.array([0.5, -1.5, 2.0], F32)],
    }


def module(tf):
    """A tf.Module with one tf.function per case (input signatures fixed)."""
    root = tf.Module()
    for name, (fn, signature) in specs(tf).items():
        setattr(root, name, tf.function(fn, input_signature=signature))
    return root


def flat(tf, result):
    """A call's result as a list of NumPy arrays (composites by their components)."""
    return [np.asarray(t) for t in tf.nest.flatten(result, expand_composites=True)]
