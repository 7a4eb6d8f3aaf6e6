"""Bad input to every public op raises TF's error, never a raw Python/NumPy exception.

The sweep enumerates the public surface (every callable of tf, tf.math, tf.nn, tf.linalg,
tf.strings, tf.random, tf.bitwise, tf.debugging, tf.image, tf.signal, tf.sets that is an op,
class constructors such as tf.Variable and tf.TensorArray, and the methods of variables,
TensorArrays, random Generators and tensors), gives each a baseline call built from its parameter
names, and replaces one argument at a time by generated wrong values: wrong dtypes (strings,
bools, complex, None, objects), wrong ranks and ragged lists, axes out of range / float / str /
2**63 / -2**63, huge sizes (shape [2**40], [2**31, 2**31]) that must be refused rather than
allocated, lists nested 10,000 deep, out-of-range Python ints for small dtypes, NaN and inf where
ints are expected. Every call with a wrong axis, shape, size or dtype argument is made a second
time inside ``tf.function`` (named ``op [traced]``), where shape functions check it. Which inputs
are tried is fixed (no randomness).

A *raw leak* is an exception that is none of:

* a TF error: an instance of ``tf.errors.OpError`` (any subclass);
* a ``TypeError`` or ``ValueError`` that tensortrace raises deliberately: the innermost frame of
  its traceback is a ``raise`` statement in tensortrace's own source (so ``'<=' not supported``
  from a comparison, ``int('a')`` or a NumPy ``ValueError`` are leaks even though their types
  are TypeError/ValueError; re-raising them with a bare ``raise`` keeps the NumPy frame innermost
  and still counts);
* another Python exception TF itself raises for that argument (``TF_RAISES``), or a
  ``NotImplementedError`` naming a TF feature tensortrace lacks for input TF accepts
  (``UNSUPPORTED``: ragged results, ...), in both cases raised deliberately as above.

Anything else (RecursionError, MemoryError, OverflowError, IndexError, KeyError, AttributeError,
a NumPy error...) is a leak, and so is a call that runs past ``CALL_LIMIT_S`` (a hang: sizes are
bounded, so no correct call takes that long). The sweep runs in a subprocess with a timeout so a
crash or a runaway allocation fails the test instead of the suite.

    python tests/reliability/test_bad_input.py          # the sweep's figures, as JSON
"""

import ast
import functools
import inspect
import json
import os
import signal
import subprocess
import sys
import types

import numpy as np
import pytest

CALL_LIMIT_S = 5.0
NAMESPACES = ("", "math", "nn", "linalg", "strings", "random", "bitwise", "debugging", "image",
              "signal", "sets", "io")
# Public callables that are not ops: they take no tensor input, or build/run programs whose
# bad-input paths are the ops they call (tested through those ops).
NOT_OPS = {
    "tf.DType", "tf.GradientTape", "tf.Module", "tf.Tensor", "tf.TensorShape", "tf.TensorSpec",
    "tf.UnconnectedGradients", "tf.VariableAggregation", "tf.VariableSynchronization",
    "tf.random.Algorithm", "tf.function", "tf.custom_gradient", "tf.recompute_grad",
    "tf.executing_eagerly", "tf.get_logger", "tf.init_scope", "tf.device", "tf.name_scope",
    "tf.control_dependencies", "tf.gradients", "tf.hessians", "tf.no_op", "tf.timestamp",
    "tf.is_tensor", "tf.get_static_value", "tf.random.get_global_generator",
    "tf.debugging.enable_check_numerics", "tf.debugging.disable_check_numerics",
    "tf.debugging.set_log_device_placement", "tf.debugging.enable_traceback_filtering",
    "tf.debugging.disable_traceback_filtering", "tf.debugging.is_traceback_filtering_enabled",
    # containers of tensors and their specs: TF stores any shape without checking it
    "tf.IndexedSlices", "tf.IndexedSlicesSpec", "tf.SparseTensor", "tf.SparseTensorSpec",
    # feature configurations: TF stores them unchecked; the parse functions check them
    "tf.io.FixedLenFeature", "tf.io.FixedLenSequenceFeature", "tf.io.VarLenFeature",
    "tf.io.SparseFeature",
}
# (op, argument) -> the Python exception TF itself raises there for wrong input, which
# tensortrace raises deliberately too (its innermost frame a ``raise`` in tensortrace).
# While tracing, TF converts Python numbers with ``make_tensor_proto``, whose ``np.array(value,
# dtype)`` lets NumPy's OverflowError out for an int outside the dtype: tensortrace raises it
# deliberately there too (see ``leak_kind``).
TF_RAISES = {
    ("tf.vectorized_map", "elems"): IndexError,  # TF indexes a scalar's static shape
}


def _deep(depth):
    v = 1.0
    for _ in range(depth):
        v = [v]
    return v


class _Obj:
    """An arbitrary object: not a tensor, number, string or sequence."""

    def __repr__(self):
        return "<object>"


def inputs(tf):
    """The wrong values by argument kind; each is (label, value)."""
    nan, inf = float("nan"), float("inf")
    tensor = [
        ("str", "a"), ("bool", True), ("complex", 1 + 2j), ("None", None), ("object", _Obj()),
        ("ragged", [[1.0], [2.0, 3.0]]), ("deep10000", _deep(10_000)), ("nan", nan),
        ("int2**63", 2**63), ("list2**63", [[2**63]]), ("-2**63-1", -2**63 - 1),
        ("string_t", tf.constant(["a", "b"])), ("bool_t", tf.constant([True, False])),
        ("complex_t", tf.constant([1 + 1j, 2j])), ("rank5", tf.ones([1, 1, 1, 1, 2])),
        ("empty", tf.zeros([0])), ("int_t", tf.constant([[1, 2], [3, 4]])),
        ("scalar", tf.constant(2.0)), ("dict", {"a": 1}), ("set", {1.0}),
    ]
    axis = [
        ("5", 5), ("-5", -5), ("1.5", 1.5), ("'a'", "a"), ("2**63", 2**63), ("-2**63", -2**63),
        ("2**31", 2**31), ("[0,0]", [0, 0]), ("[5]", [5]), ("nan", nan), ("object", _Obj()),
        ("float_t", tf.constant(1.0)), ("[[0]]", [[0]]), ("complex", 1j),
    ]
    shape = [
        ("[2**40]", [2**40]), ("[2**31,2**31]", [2**31, 2**31]), ("[-5]", [-5]),
        ("[2**63]", [2**63]), ("2**63", 2**63), ("'a'", "a"), ("[1.5]", [1.5]), ("[[2]]", [[2]]),
        ("[nan]", [nan]), ("[inf]", [inf]), ("object", _Obj()), ("[None]", [None]),
        ("[2**20]*4", [2**20] * 4), ("-2**63", -2**63),
    ]
    count = [
        ("2**40", 2**40), ("-5", -5), ("2**63", 2**63), ("-2**63", -2**63), ("1.5", 1.5),
        ("'a'", "a"), ("nan", nan), ("inf", inf), ("object", _Obj()), ("[2,2]", [2, 2]),
        ("complex", 1j),
    ]
    window = [(label, value) for label, value in shape if label != "[None]"]
    dtype = [("'a'", "a"), ("1", 1), ("object", _Obj()), ("'float99'", "float99"),
             ("list", [tf.float32])]
    enum = [("'XYZ'", "XYZ"), ("1", 1), ("object", _Obj())]
    return {"tensor": tensor, "axis": axis, "shape": shape, "window": window, "count": count,
            "dtype": dtype, "enum": enum}


# Argument kinds by parameter name.
KIND = {}
for _n in ("x y input tensor a b data value values features logits input_tensor t params matrix "
           "arr input_ inp elems real imag labels predictions targets rhs diagonal mean "
           "variance offset scale bias weights condition pred mask filters filter "
           "depthwise_filter pointwise_filter initial_value inputs tensors t_list "
           "sorted_sequence seq_lengths lengths segment_ids indices updates start limit delta "
           "stop minval maxval alpha beta stddev lam clip_value_min clip_value_max clip_norm "
           "on_value off_value constant_values padding_value default coeffs ids noise_shape "
           "num_or_size_splits rate epsilon variance_epsilon pos_weight per_example_loss "
           "sample_weight regularization_loss value_range boundary diagonal shift "
           "l2_regularizer").split():
    KIND[_n] = "tensor"
for _n in "axis axes dim seq_axis batch_axis batch_dims".split():
    KIND[_n] = "axis"
for _n in ("shape dims multiples perm output_shape element_shape batch_shape begin end size "
           "paddings shape_x shape_y").split():
    KIND[_n] = "shape"
for _n in "ksize strides dilations window_shape".split():
    KIND[_n] = "window"
for _n in ("num_rows num_columns depth maxlen num k num_segments nbins minlength maxlength "
           "num_samples block_size num_lower num_upper summarize repeats depth_radius "
           "maximum_iterations rank width precision pos len maxsplit num_classes seed "
           "global_batch_size stride num_cols").split():
    KIND[_n] = "count"
for _n in "dtype out_type output_type out_idx index_type Tout".split():
    KIND[_n] = "dtype"
for _n in "data_format padding mode side unit encoding ord".split():
    KIND[_n] = "enum"


def baselines(tf):
    """A working value for each parameter name (the first positional tensor is a float32 2x2
    matrix), and per-op overrides where an op needs other operands to reach its checks."""
    f22 = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    i22 = tf.constant([[1, 2], [3, 4]])
    s2 = tf.constant(["ab", "c"])
    b2 = tf.constant([True, False])
    img = tf.ones([1, 4, 4, 1])
    by_name = {
        "condition": b2, "pred": True, "mask": b2, "segment_ids": [0, 1], "indices": [[0]],
        "updates": [[1.0, 1.0]], "seq_lengths": [1, 2], "lengths": [1, 2], "start": 0,
        "limit": 5, "delta": 1, "stop": 1.0, "minval": 0.0, "maxval": 1.0, "stddev": 1.0,
        "alpha": 1.0, "beta": 1.0, "lam": 1.0, "clip_value_min": 0.0, "clip_value_max": 1.0,
        "clip_norm": 1.0, "on_value": 1.0, "off_value": 0.0, "coeffs": [1.0, 2.0],
        "ids": [0], "num_or_size_splits": 2, "rate": 0.5, "epsilon": 1e-3,
        "variance_epsilon": 1e-3, "value_range": [0.0, 5.0], "shift": 1, "inputs": [f22, f22],
        "values": [f22, f22], "tensors": [f22], "t_list": [f22], "sorted_sequence": f22,
        "axis": 0, "axes": 1, "dim": 0, "seq_axis": 1, "batch_axis": 0, "shape": [2, 2],
        "dims": [2, 2], "multiples": [1, 2], "perm": [1, 0], "begin": [0, 0], "end": [1, 1],
        "size": [1, 1], "paddings": [[1, 1], [1, 1]], "ksize": 2, "strides": 1, "depth": 3,
        "maxlen": 3, "num": 3, "k": 1, "num_segments": 2, "nbins": 3, "num_rows": 2,
        "num_columns": 2, "seed": 1, "repeats": 2, "block_size": 2, "num_lower": 0,
        "num_upper": 0, "dtype": tf.float32, "fn": lambda v: v, "elems": f22,
        "initializer": f22[0], "value": f22,
    }
    conv = {"input": img, "filters": tf.ones([2, 2, 1, 1]), "strides": 1, "padding": "SAME"}
    pool = {"input": img, "ksize": 2, "strides": 1, "padding": "VALID"}
    per_op = {
        "tf.nn.conv2d": conv, "tf.nn.convolution": conv, "tf.nn.atrous_conv2d":
            {"value": img, "filters": tf.ones([2, 2, 1, 1]), "rate": 1, "padding": "SAME"},
        "tf.nn.conv1d": {"input": tf.ones([1, 4, 1]), "filters": tf.ones([2, 1, 1]),
                         "stride": 1, "padding": "SAME"},
        "tf.nn.conv3d": {"input": tf.ones([1, 4, 4, 4, 1]), "filters": tf.ones([2, 2, 2, 1, 1]),
                         "strides": [1, 1, 1, 1, 1], "padding": "SAME"},
        "tf.nn.conv2d_transpose": dict(conv, output_shape=[1, 4, 4, 1]),
        "tf.nn.conv_transpose": dict(conv, output_shape=[1, 4, 4, 1]),
        "tf.nn.conv1d_transpose": {"input": tf.ones([1, 4, 1]), "filters": tf.ones([2, 1, 1]),
                                   "output_shape": [1, 4, 1], "strides": 1, "padding": "SAME"},
        "tf.nn.conv3d_transpose": {"input": tf.ones([1, 4, 4, 4, 1]),
                                   "filters": tf.ones([2, 2, 2, 1, 1]),
                                   "output_shape": [1, 4, 4, 4, 1], "strides": [1, 1, 1, 1, 1],
                                   "padding": "SAME"},
        "tf.nn.depthwise_conv2d": dict(conv, filter=tf.ones([2, 2, 1, 1]), strides=[1, 1, 1, 1]),
        "tf.nn.separable_conv2d": {"input": img, "depthwise_filter": tf.ones([2, 2, 1, 1]),
                                   "pointwise_filter": tf.ones([1, 1, 1, 1]),
                                   "strides": [1, 1, 1, 1], "padding": "SAME"},
        "tf.nn.avg_pool": pool, "tf.nn.avg_pool2d": pool, "tf.nn.max_pool": pool,
        "tf.nn.max_pool2d": pool, "tf.nn.avg_pool1d": dict(pool, input=tf.ones([1, 4, 1])),
        "tf.nn.max_pool1d": dict(pool, input=tf.ones([1, 4, 1])),
        "tf.nn.avg_pool3d": dict(pool, input=tf.ones([1, 4, 4, 4, 1])),
        "tf.nn.max_pool3d": dict(pool, input=tf.ones([1, 4, 4, 4, 1])),
        "tf.nn.pool": {"input": img, "window_shape": [2, 2], "pooling_type": "MAX",
                       "padding": "VALID"},
        "tf.nn.depth_to_space": {"input": tf.ones([1, 2, 2, 4])},
        "tf.nn.space_to_depth": {"input": img},
        "tf.nn.bias_add": {"bias": tf.ones([2])},
        "tf.nn.batch_normalization": {"mean": 0.0, "variance": 1.0, "offset": 0.0,
                                      "scale": 1.0},
        "tf.nn.embedding_lookup": {"params": f22, "ids": [0, 1]},
        "tf.nn.sparse_softmax_cross_entropy_with_logits": {"labels": [0, 1], "logits": f22},
        "tf.nn.softmax_cross_entropy_with_logits": {"labels": f22, "logits": f22},
        "tf.nn.in_top_k": {"targets": [0, 1], "predictions": f22, "k": 1},
        "tf.math.in_top_k": {"targets": [0, 1], "predictions": f22, "k": 1},
        "tf.nn.compute_average_loss": {"per_example_loss": [1.0, 2.0]},
        "tf.nn.scale_regularization_loss": {"regularization_loss": 1.0},
        "tf.nn.moments": {"x": f22, "axes": [0]},
        "tf.gather": {"params": f22, "indices": [0]},
        "tf.gather_nd": {"params": f22, "indices": [[0]]},
        "tf.scatter_nd": {"indices": [[0]], "updates": [[1.0, 1.0]], "shape": [2, 2]},
        "tf.one_hot": {"indices": [0, 1], "depth": 3},
        "tf.sequence_mask": {"lengths": [1, 2]}, "tf.range": {"start": 0, "limit": 5},
        "tf.linspace": {"start": 0.0, "stop": 1.0, "num": 3},
        "tf.repeat": {"input": f22, "repeats": 2},
        "tf.searchsorted": {"sorted_sequence": f22, "values": f22},
        "tf.bincount": {"arr": [0, 1, 1]}, "tf.math.bincount": {"arr": [0, 1, 1]},
        "tf.histogram_fixed_width": {"values": f22}, "tf.histogram_fixed_width_bins":
            {"values": f22}, "tf.math.confusion_matrix": {"labels": [0, 1],
                                                          "predictions": [1, 1]},
        "tf.math.polyval": {"coeffs": [1.0, 2.0], "x": f22},
        "tf.math.polygamma": {"a": f22, "x": f22},
        "tf.math.zeta": {"x": f22, "q": f22},
        "tf.math.top_k": {"input": f22}, "tf.nn.top_k": {"input": f22},
        "tf.math.count_nonzero": {"input": f22}, "tf.math.scalar_mul": {"scalar": 2.0, "x": f22},
        "tf.scalar_mul": {"scalar": 2.0, "x": f22},
        "tf.add_n": {"inputs": [f22, f22]}, "tf.math.add_n": {"inputs": [f22, f22]},
        "tf.concat": {"values": [f22, f22]}, "tf.stack": {"values": [f22, f22]},
        "tf.meshgrid": {"args": ([1.0, 2.0], [3.0])},
        "tf.shape_n": {"input": [f22, f22]}, "tf.broadcast_dynamic_shape":
            {"shape_x": [2, 1], "shape_y": [1, 2]}, "tf.broadcast_static_shape":
            {"shape_x": tf.TensorShape([2, 1]), "shape_y": tf.TensorShape([1, 2])},
        "tf.where": {"condition": tf.constant([[True, False], [False, True]]), "x": f22,
                     "y": f22},
        "tf.boolean_mask": {"tensor": f22, "mask": b2},
        "tf.tensordot": {"a": f22, "b": f22, "axes": 1},
        "tf.linalg.tensordot": {"a": f22, "b": f22, "axes": 1},
        "tf.einsum": {"equation": "ij,jk->ik", "inputs": (f22, f22)},
        "tf.linalg.einsum": {"equation": "ij,jk->ik", "inputs": (f22, f22)},
        "tf.linalg.cross": {"a": tf.ones([3]), "b": tf.ones([3])},
        "tf.linalg.lstsq": {"matrix": f22, "rhs": f22}, "tf.linalg.solve":
            {"matrix": f22, "rhs": f22}, "tf.linalg.triangular_solve": {"matrix": f22,
                                                                       "rhs": f22},
        "tf.linalg.matvec": {"a": f22, "b": tf.ones([2])},
        "tf.linalg.eye": {"num_rows": 2}, "tf.eye": {"num_rows": 2},
        "tf.reverse_sequence": {"input": f22, "seq_lengths": [1, 2], "seq_axis": 1,
                                "batch_axis": 0},
        "tf.clip_by_global_norm": {"t_list": [f22], "clip_norm": 1.0},
        "tf.linalg.global_norm": {"t_list": [f22]},
        "tf.nn.weighted_cross_entropy_with_logits": {"labels": f22, "logits": f22,
                                                     "pos_weight": 1.0},
        "tf.nn.log_poisson_loss": {"targets": f22, "log_input": f22},
        "tf.nn.local_response_normalization": {"input": img}, "tf.nn.lrn": {"input": img},
        "tf.nn.dropout": {"x": f22, "rate": 0.5, "seed": 1},
        "tf.random.categorical": {"logits": f22, "num_samples": 2, "seed": 1},
        "tf.random.stateless_categorical": {"logits": f22, "num_samples": 2, "seed": [1, 2]},
        "tf.random.stateless_uniform": {"shape": [2, 2], "seed": [1, 2]},
        "tf.random.stateless_normal": {"shape": [2, 2], "seed": [1, 2]},
        "tf.random.stateless_truncated_normal": {"shape": [2, 2], "seed": [1, 2]},
        "tf.random.gamma": {"shape": [2], "alpha": 1.0, "seed": 1},
        "tf.random.poisson": {"shape": [2], "lam": 1.0, "seed": 1},
        "tf.random.create_rng_state": {"seed": 1, "alg": "philox"},
        "tf.random.set_global_generator": {"generator": tf.random.Generator.from_seed(1)},
        "tf.random.shuffle": {"value": f22, "seed": 1},
        "tf.strings.split": {"input": "a b"}, "tf.strings.bytes_split": {"input": "ab"},
        "tf.strings.substr":
            {"input": s2, "pos": 0, "len": 1}, "tf.strings.to_number": {"input": ["1", "2"]},
        "tf.strings.format": {"template": "{}", "inputs": [f22]},
        "tf.strings.join": {"inputs": [s2, s2]}, "tf.strings.reduce_join": {"inputs": s2},
        "tf.strings.regex_full_match": {"input": s2, "pattern": "a.*"},
        "tf.strings.regex_replace": {"input": s2, "pattern": "a", "rewrite": "b"},
        "tf.strings.as_string": {"input": f22}, "tf.as_string": {"input": f22},
        "tf.map_fn": {"fn": lambda v: v, "elems": f22},
        "tf.vectorized_map": {"fn": lambda v: v, "elems": f22},
        "tf.scan": {"fn": lambda a, v: a + v, "elems": f22},
        "tf.foldl": {"fn": lambda a, v: a + v, "elems": f22},
        "tf.foldr": {"fn": lambda a, v: a + v, "elems": f22},
        "tf.while_loop": {"cond": lambda i: i < 3, "body": lambda i: (i + 1,),
                          "loop_vars": (0,)},
        "tf.cond": {"pred": True, "true_fn": lambda: f22, "false_fn": lambda: f22},
        "tf.case": {"pred_fn_pairs": [(True, lambda: f22)], "default": lambda: f22},
        "tf.switch_case": {"branch_index": 0, "branch_fns": [lambda: f22]},
        "tf.py_function": {"func": lambda v: v, "inp": [f22], "Tout": tf.float32},
        "tf.numpy_function": {"func": lambda v: v, "inp": [f22], "Tout": tf.float32},
        "tf.ensure_shape": {"x": f22, "shape": [2, 2]},
        "tf.Variable": {"initial_value": f22}, "tf.TensorArray": {"dtype": tf.float32,
                                                                  "size": 2},
        "tf.random.Generator": {"state": [0, 0, 1], "alg": "philox"},
        "tf.debugging.assert_shapes": {"shapes": [(f22, ("a", "b"))]},
        "tf.debugging.assert_rank": {"x": f22, "rank": 2}, "tf.assert_rank":
            {"x": f22, "rank": 2},
        "tf.group": {"inputs": (f22,)}, "tf.Assert": {"condition": True, "data": [f22]},
        "tf.debugging.Assert": {"condition": True, "data": [f22]},
        "tf.print": {"inputs": (f22,)},
        "tf.constant_initializer": {"value": 1.0},
    }
    for name in ("tf.bitwise.bitwise_and", "tf.bitwise.bitwise_or", "tf.bitwise.bitwise_xor",
                 "tf.bitwise.left_shift", "tf.bitwise.right_shift"):
        per_op[name] = {"x": i22, "y": i22}
    per_op["tf.bitwise.invert"] = {"x": i22}
    for name in ("logical_and", "logical_or", "logical_xor"):
        per_op["tf.math." + name] = per_op["tf." + name] = {"x": b2, "y": b2}
    per_op["tf.math.logical_not"] = per_op["tf.logical_not"] = {"x": b2}
    per_op["tf.reduce_all"] = per_op["tf.reduce_any"] = {"input_tensor": b2}
    per_op["tf.math.reduce_all"] = per_op["tf.math.reduce_any"] = {"input_tensor": b2}
    for name in ("lower", "upper", "strip", "length"):
        per_op["tf.strings." + name] = {"input": s2}
    for name in ("to_hash_bucket", "to_hash_bucket_fast", "to_hash_bucket_strong"):
        per_op["tf.strings." + name] = per_op["tf.string_" + name] = \
            {"input": s2, "num_buckets": 10, "key": [1, 2]}
    per_op["tf.fingerprint"] = {"data": s2}
    varlen = {"a": tf.io.VarLenFeature(tf.int64)}
    per_op["tf.io.parse_example"] = {"serialized": [b""], "features": varlen}
    per_op["tf.io.parse_single_example"] = {"serialized": b"", "features": varlen}
    per_op["tf.io.parse_sequence_example"] = {"serialized": [b""], "context_features": varlen}
    per_op["tf.io.parse_single_sequence_example"] = {"serialized": b"",
                                                     "context_features": varlen}
    for name in ("segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod"):
        per_op["tf.math." + name] = {"data": f22, "segment_ids": [0, 1]}
    for name in ("sum", "mean", "max", "min", "prod", "sqrt_n"):
        per_op["tf.math.unsorted_segment_" + name] = {"data": f22, "segment_ids": [0, 1],
                                                      "num_segments": 2}
    for name in ("add", "sub", "update", "max", "min"):
        per_op["tf.tensor_scatter_nd_" + name] = {"tensor": f22, "indices": [[0]],
                                                  "updates": [[1.0, 1.0]]}
    return by_name, per_op, f22


def surface(tf):
    """(public name, callable) for every op of the swept namespaces, first name wins."""
    found, seen = [], set()
    for ns in NAMESPACES:
        mod = getattr(tf, ns, None) if ns else tf
        if mod is None:
            continue
        for attr in sorted(dir(mod)):
            value = getattr(mod, attr)
            name = f"tf.{ns}.{attr}" if ns else f"tf.{attr}"
            if attr.startswith("_") or isinstance(value, types.ModuleType) or \
                    not callable(value) or name in NOT_OPS or id(value) in seen:
                continue
            if inspect.isclass(value) and issubclass(value, BaseException):
                continue
            seen.add(id(value))
            found.append((name, value))
    return found


class _Hang(BaseException):
    """Raised by the alarm when one call runs past CALL_LIMIT_S."""


def _alarm(signum, frame):
    raise _Hang()


_SOURCE_ROOT = None
_RAISE_LINES = {}


def _raise_lines(path):
    """The line numbers covered by ``raise`` statements in one source file."""
    lines = _RAISE_LINES.get(path)
    if lines is None:
        lines = set()
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise):
                lines.update(range(node.lineno, node.end_lineno + 1))
        _RAISE_LINES[path] = lines
    return lines


def leak_kind(exc, tf, op_name="", arg=""):
    """None if ``exc`` is an allowed error (see the module docstring), else a short label."""
    if isinstance(exc, tf.errors.OpError):
        return None
    key = (op_name.replace(" [traced]", ""), arg)
    deliberate = type(exc) in (TypeError, ValueError) or TF_RAISES.get(key) is type(exc) or \
        (type(exc) is NotImplementedError and key in UNSUPPORTED) or \
        (type(exc) is OverflowError and "[traced]" in op_name)
    if deliberate:
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        if tb is not None:
            path = os.path.realpath(tb.tb_frame.f_code.co_filename)
            if path.startswith(_SOURCE_ROOT) and tb.tb_lineno in _raise_lines(path):
                return None
        return f"{type(exc).__name__}(not raised by tensortrace)"
    return type(exc).__name__


def _where(exc):
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return "?"
    path = tb.tb_frame.f_code.co_filename
    if _SOURCE_ROOT and os.path.realpath(path).startswith(_SOURCE_ROOT):
        path = os.path.relpath(os.path.realpath(path),
                               os.path.dirname(_SOURCE_ROOT.rstrip(os.sep)))
    else:
        path = os.path.basename(path)
    return f"{path}:{tb.tb_lineno}"


# Wrong values TF refuses for every op whose baseline call works (the op then must raise, or
# the call counts as silently accepted). Floats such as 1.5 are not here: TF's int attrs
# truncate them (``make_int``).
MUST_RAISE = {
    "axis": {"5", "-5", "'a'", "2**63", "-2**63", "2**31", "nan", "object", "complex", "[5]"},
    "shape": {"[2**40]", "[2**31,2**31]", "[-5]", "[2**63]", "2**63", "'a'", "[1.5]", "[nan]",
              "[inf]", "object", "[2**20]*4", "-2**63"},
    "window": {"'a'", "object", "[nan]", "[inf]", "[2**63]", "[-5]"},
    "count": {"2**63", "'a'", "nan", "inf", "object", "complex"},
    "dtype": {"'a'", "object", "'float99'"},
}
# Arguments (or one wrong value of one) TF does not check at the call, so only leaks are
# checked there, with the reason.
NO_MUST = {
    ("tf.TensorArray", "element_shape"): "a shape spec, not an allocation",
    ("tf.broadcast_static_shape", "shape_y"): "TF takes TensorShapes only; lists are ours",
    ("tf.split", "num"): "only read when the split sizes are a tensor of unknown length",
    ("tf.strided_slice", "begin"): "out-of-range bounds are clamped",
    ("tf.strided_slice", "end"): "out-of-range bounds are clamped",
    ("tf.strided_slice", "strides"): "a huge stride is a valid stride",
    ("tf.print", "end"): "a string (the line end), not a slice bound",
    ("tf.random_normal_initializer", "seed"): "stored; checked when the initializer is called",
    ("tf.random_uniform_initializer", "seed"): "stored; checked when the initializer is called",
    ("tf.random.create_rng_state", "seed"): "any number seeds the state (converted by NumPy)",
    # one wrong value only: TF converts it to int32 eagerly, which wraps it (TF_WRAPS_EAGERLY)
    ("tf.ones", "shape", "-2**63"): "TensorShape refuses it, then int32 conversion wraps to 0",
    ("tf.zeros", "shape", "-2**63"): "TensorShape refuses it, then int32 conversion wraps to 0",
    ("tf.strings.reduce_join", "axis", "-2**63"): "converted to int32, which wraps it to 0",
}
# Inputs TF accepts that tensortrace does not support: a deliberate NotImplementedError naming
# the missing feature is the answer there (these are gaps, not bad input).
UNSUPPORTED = {
    ("tf.strings.bytes_split", "input"): "rank >= 1 gives a RaggedTensor",
    ("tf.linalg.matrix_set_diag", "k"): "k != 0",
    ("tf.nn.pool", "dilations"): "dilations > 1",
}


def calls(tf):
    """Yield (op name, argument, label, thunk, must_raise) for every call of the sweep."""
    bad = inputs(tf)
    by_name, per_op, f22 = baselines(tf)
    for name, fn in surface(tf):
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            continue
        over = per_op.get(name, {})
        base, star = {}, None
        for i, p in enumerate(params):
            if p.kind is p.VAR_KEYWORD or p.name == "name":
                continue
            if p.kind is p.VAR_POSITIONAL:
                star = p.name
                continue
            if p.name in over:
                base[p.name] = over[p.name]
            elif p.default is p.empty:
                base[p.name] = by_name.get(p.name, f22)
        ok = _works(fn, base, star)
        for p in params:
            kind = KIND.get(p.name)
            if kind is None or p.kind is p.VAR_KEYWORD:
                continue
            for label, value in bad[kind]:
                args = dict(base, **{p.name: value})
                must = ok and label in MUST_RAISE.get(kind, ()) and \
                    (name, p.name) not in NO_MUST and (name, p.name, label) not in NO_MUST
                yield name, p.name, label, _thunk(fn, args, star), must
                if kind != "tensor":  # the same call traced by tf.function (shape functions)
                    yield name + " [traced]", p.name, label, \
                        _traced(tf, _thunk(fn, args, star)), False
    yield from _method_calls(tf, bad, f22)
    yield from _small_dtype_calls(tf)


def _thunk(fn, args, star):
    args = dict(args)
    if star is not None:  # the parameters before *star go positionally
        names = list(inspect.signature(fn).parameters)
        lead = [args.pop(n) for n in names[:names.index(star)] if n in args]
        rest = args.pop(star, ())
        rest = tuple(rest) if isinstance(rest, (list, tuple)) else (rest,)
        return lambda: fn(*lead, *rest, **args)
    return lambda: fn(**args)


def _traced(tf, thunk):
    return lambda: tf.function(thunk, autograph=False)()


def _works(fn, base, star):
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, CALL_LIMIT_S)
    try:
        _thunk(fn, base, star)()
        return True
    except Exception:  # the baseline is only a starting point
        return False
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _method_calls(tf, bad, f22):
    """Methods of variables, TensorArrays, random Generators and tensors."""
    def var():
        return tf.Variable([1.0, 2.0, 3.0])

    for method, kind in (("assign", "tensor"), ("assign_add", "tensor"),
                         ("assign_sub", "tensor")):
        for label, value in bad[kind]:
            yield f"Variable.{method}", "value", label, \
                functools.partial(_unchanged, var, method, value), False
    for label, value in bad["tensor"] + bad["axis"]:
        yield "Tensor.__getitem__", "slice", label, (lambda v=value: f22[v]), False
    for method, args, kind, arg in (("normal", {"shape": [2]}, "shape", "shape"),
                                    ("uniform", {"shape": [2]}, "shape", "shape"),
                                    ("uniform", {"shape": [2]}, "dtype", "dtype"),
                                    ("truncated_normal", {"shape": [2]}, "shape", "shape"),
                                    ("make_seeds", {}, "count", "count"),
                                    ("split", {}, "count", "count"),
                                    ("skip", {}, "count", "delta")):
        for label, value in bad[kind]:
            def call(method=method, args=args, arg=arg, value=value):
                g = tf.random.Generator.from_seed(1)
                return getattr(g, method)(**dict(args, **{arg: value}))
            yield f"Generator.{method}", arg, label, call, False
    for label, value in bad["tensor"]:
        yield "Generator.from_seed", "seed", label, \
            (lambda v=value: tf.random.Generator.from_seed(v)), False
    for method, args, arg, kind in (("write", {"index": 0, "value": f22[0]}, "index", "count"),
                                    ("write", {"index": 0, "value": f22[0]}, "value", "tensor"),
                                    ("read", {"index": 0}, "index", "count"),
                                    ("gather", {"indices": [0]}, "indices", "tensor"),
                                    ("scatter", {"indices": [0], "value": f22[:1]}, "value",
                                     "tensor"),
                                    ("unstack", {"value": f22}, "value", "tensor"),
                                    ("split", {"value": f22, "lengths": [1, 1]}, "lengths",
                                     "tensor")):
        for label, value in bad[kind]:
            def call(method=method, args=args, arg=arg, value=value):
                ta = tf.TensorArray(tf.float32, size=2)
                return getattr(ta, method)(**dict(args, **{arg: value}))
            yield f"TensorArray.{method}", arg, label, call, False


def _unchanged(make, method, value):
    """Call a variable method that fails; the variable must keep its value."""
    v = make()
    before = v.numpy().copy()
    try:
        getattr(v, method)(value)
    except BaseException:
        after = v.numpy()
        if before.shape != after.shape or not (before == after).all():
            raise AssertionError(f"{method} failed half-way: {before} became {after}") from None
        raise


# Eagerly TF's converter has no int8/uint8/int16/uint16 converter and turns an int that fits
# int64 into an int64 tensor, then casts it to the requested dtype (``IsCompatible`` +
# ``EagerCast`` in ``ConvertToEagerTensorUncached``): 1000 -> int8 is -24, not an error. An
# int32 request refuses only what overflows int64. These labels therefore must not raise
# eagerly (tracing goes through NumPy, which refuses them: OverflowError above).
TF_WRAPS_EAGERLY = {"1000->int8", "-1->uint8", "2**31->int32", "256->uint8"}


def _small_dtype_calls(tf):
    """Python values outside the requested dtype's range: TF wraps some eagerly and refuses
    the rest, and refuses all of them while tracing."""
    nan, inf = float("nan"), float("inf")
    values = [("1000->int8", 1000, tf.int8), ("-1->uint8", -1, tf.uint8),
              ("2**63->int64", 2**63, tf.int64), ("2**31->int32", 2**31, tf.int32),
              ("-2**63-1->int64", -2**63 - 1, tf.int64), ("nan->int32", nan, tf.int32),
              ("inf->int64", inf, tf.int64), ("256->uint8", [1, 256], tf.uint8),
              ("1.5->int32", 1.5, tf.int32), ("'a'->float32", "a", tf.float32)]
    for label, value, dtype in values:
        must = label not in TF_WRAPS_EAGERLY
        yield "tf.constant", "value", label, (lambda: tf.constant(value, dtype)), must
        yield "tf.constant [traced]", "value", label, \
            tf.function(lambda: tf.constant(value, dtype)), True
        yield "tf.convert_to_tensor", "value", label, \
            (lambda: tf.convert_to_tensor(value, dtype)), must
        yield "tf.Variable", "initial_value", label, (lambda: tf.Variable(value, dtype=dtype)), \
            must
        yield "tf.fill", "value", label, (lambda: tf.fill([2], tf.constant(value, dtype))), must
    for label, value, dtype in values[:5]:
        must = label not in TF_WRAPS_EAGERLY
        x = tf.constant([1], dtype)
        yield "tf.add", "y", label, (lambda: tf.add(x, value)), must
        yield "Tensor.__mul__", "other", label, (lambda: x * value), must
        yield "Tensor.__mul__ [traced]", "other", label, tf.function(lambda: x * value), True
        yield "Variable.assign", "value", label, \
            functools.partial(_unchanged, lambda: tf.Variable(1, dtype=dtype), "assign",
                              value), must


def sweep():
    """Run every call; return the figures and the failures (leaks, hangs, silent accepts)."""
    global _SOURCE_ROOT
    import numpy as np
    import tensortrace as tf
    _SOURCE_ROOT = os.path.realpath(os.path.dirname(tf.__file__)) + os.sep
    np.random.seed(0)
    tf.random.set_seed(0)
    old = signal.signal(signal.SIGALRM, _alarm)
    stats = {"ops": set(), "calls": 0, "leaks": {}}
    failures = []
    try:
        for op_name, arg, label, thunk, must in calls(tf):
            stats["calls"] += 1
            stats["ops"].add(op_name.replace(" [traced]", ""))
            signal.setitimer(signal.ITIMER_REAL, CALL_LIMIT_S)
            try:
                thunk()
            except _Hang:
                kind, where, text = "Hang", "", ""
            except AssertionError as e:  # a failed call that changed state
                kind, where, text = "HalfDone", "", str(e)[:100]
            except BaseException as e:  # noqa: B902 - classifying every exception is the job
                if isinstance(e, KeyboardInterrupt):
                    raise
                kind = leak_kind(e, tf, op_name, arg)
                where, text = _where(e), str(e).replace("\n", " ")[:100]
            else:
                kind, where, text = ("Silent" if must else None), "", ""
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if kind is not None:
                stats["leaks"][kind] = stats["leaks"].get(kind, 0) + 1
                failures.append({"call": f"{op_name}({arg}={label})", "kind": kind,
                                 "where": where, "text": text})
    finally:
        signal.signal(signal.SIGALRM, old)
    stats["ops"] = len(stats["ops"])
    return stats, failures


def _run_sweep():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, os.path.abspath(__file__)], cwd=root,
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=root))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_sweep_has_no_raw_leaks():
    result = _run_sweep()
    assert result["calls"] > 15_000 and result["ops"] > 300, result
    left = [f"{f['call']}: {f['kind']} at {f['where']} {f['text']}"
            for f in result["failures"]]
    assert not left, "\n".join(left)


def _pinned_cases():
    import tensortrace as tf
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    img = tf.ones([1, 4, 4, 1])
    oom = ("{{{{function_node __wrapped__{2}_device_/job:localhost/replica:0/task:0/device:CPU:0}}}} "
           "OOM when allocating tensor with shape[{0}] and type {1} on "
           "/job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu [Op:{2}]")
    # TF 2.21's eager texts: its one-op function first, the " name: " tail of its generated op
    # wrappers last (none where TF hands the op a Python tuple: tf.norm's axes)
    reduction = ("{{function_node __wrapped__Sum_device_/job:localhost/replica:0/task:0/"
                 "device:CPU:0}} Invalid reduction dimension (5 for input with 2 dimension(s) "
                 "[Op:Sum]")
    return [
        # huge sizes are refused before allocating: TF's OOM, or its element-count overflow
        ("ones-2**40", lambda: tf.ones([2**40]), tf.errors.ResourceExhaustedError,
         oom.format(2**40, "float", "Fill") + " name: "),
        ("zeros-int8-2**40", lambda: tf.zeros([2**40], tf.int8),
         tf.errors.ResourceExhaustedError, oom.format(2**40, "int8", "Fill") + " name: "),
        ("fill-2**31x2**31", lambda: tf.fill([2**31, 2**31], 1.0),
         tf.errors.ResourceExhaustedError, oom.format("2147483648,2147483648", "float", "Fill")),
        ("random-2**40", lambda: tf.random.normal([2**40]), tf.errors.ResourceExhaustedError,
         oom.format(2**40, "float", "RandomStandardNormal") + " name: "),
        ("zeros-2**80", lambda: tf.zeros([2**20] * 4), tf.errors.InvalidArgumentError,
         "{{function_node __wrapped__Fill_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
         "Shape [1048576,1048576,1048576,1048576] would have more than 2**63 - 1 elements "
         "[Op:Fill] name: "),
        ("tile-overflow", lambda: tf.tile(x, [2**31, 2**31]), tf.errors.InvalidArgumentError,
         "{{function_node __wrapped__Tile_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
         "Encountered overflow when multiplying 4294967296 with 4294967296, result: -1 "
         "[Op:Tile]"),
        # axes out of range are refused, not wrapped (norm returned the axis-1 norm)
        ("norm-axis5", lambda: tf.linalg.norm(x, axis=5), tf.errors.InvalidArgumentError,
         reduction),
        ("norm-pair", lambda: tf.norm(x, axis=[0, 5]), tf.errors.InvalidArgumentError,
         reduction),
        ("l2_normalize-axis5", lambda: tf.nn.l2_normalize(x, axis=5),
         tf.errors.InvalidArgumentError, reduction + " name: "),
        ("l2_normalize-axis-5", lambda: tf.math.l2_normalize(x, axis=-5),
         tf.errors.InvalidArgumentError, reduction.replace("(5", "(-5") + " name: "),
        # axes must be ints: TF converts them to int32 tensors
        ("moments-float-axis", lambda: tf.nn.moments(x, axes=1.5), TypeError,
         "Cannot convert 1.5 to EagerTensor of dtype int32"),
        ("moments-float-axes", lambda: tf.nn.moments(x, axes=[0.5]), TypeError,
         "Cannot convert [0.5] to EagerTensor of dtype int32"),
        ("sum-axis-2**63", lambda: tf.reduce_sum(x, axis=2**63), TypeError,
         "Cannot convert 9223372036854775808 to EagerTensor of dtype int32"),
        ("log_softmax-axis-str", lambda: tf.nn.log_softmax(x, axis="a"), TypeError,
         "Cannot convert 'a' to EagerTensor of dtype int32"),
        ("eye-batch-float", lambda: tf.eye(2, batch_shape=[1.5]), TypeError,
         "Cannot convert [1.5] to EagerTensor of dtype int32"),
        # int and float attrs: TF's make_int / make_float words, naming the argument
        ("leaky_relu-alpha", lambda: tf.nn.leaky_relu(x, alpha="a"), TypeError,
         "Expected float for argument 'alpha' not 'a'."),
        ("conv2d-strides", lambda: tf.nn.conv2d(img, tf.ones([2, 2, 1, 1]), strides="a",
                                                padding="SAME"), TypeError,
         "Expected int for argument 'strides' not 'a'."),
        ("Assert-summarize", lambda: tf.debugging.Assert(True, [x], summarize="a"), TypeError,
         "Expected int for argument 'summarize' not 'a'."),
        ("assert_equal-summarize", lambda: tf.debugging.assert_equal(x, x, summarize="a"),
         TypeError, "Expected int for argument 'summarize' not 'a'."),
        ("as_string-width", lambda: tf.strings.as_string(x, width="a"), TypeError,
         "Expected int for argument 'width' not 'a'."),
        ("unstack-num", lambda: tf.unstack(x, num="a"), TypeError,
         "Expected int for argument 'num' not 'a'."),
        ("depth_radius", lambda: tf.nn.local_response_normalization(img, depth_radius="a"),
         TypeError, "Expected int for argument 'depth_radius' not 'a'."),
        # index dtypes of MatrixBandPart (a complex band was truncated before)
        ("band_part-complex", lambda: tf.linalg.band_part(x, 1j, 0),
         tf.errors.InvalidArgumentError, "Value for attr 'Tindex' of complex128 is not in the "
         "list of allowed values: int32, int64 [Op:MatrixBandPart]"),
        # non-string input to string splitting is TF's input dtype error
        ("strings-split-float", lambda: tf.strings.split(x), tf.errors.InvalidArgumentError,
         "cannot compute StringSplitV2 as input #0(zero-based) was expected to be a string "
         "tensor but is a float tensor [Op:StringSplitV2]"),
    ]


@pytest.mark.parametrize("case", _pinned_cases(), ids=lambda c: c[0])
def test_pinned_errors_are_tensorflows(case):
    _, call, error, message = case
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error and str(info.value) == message, str(info.value)


def test_refused_calls_leave_nothing_half_done():
    import tensortrace as tf
    tf.random.set_seed(7)
    with pytest.raises(TypeError, match="Expected int for argument 'seed' not 'a'."):
        tf.random.set_seed("a")
    first = tf.random.uniform([3]).numpy()
    tf.random.set_seed(7)
    np.testing.assert_array_equal(tf.random.uniform([3]).numpy(), first)
    ta = tf.TensorArray(tf.float32, size=2)
    with pytest.raises(TypeError, match="Expected int for argument 'index' not 'a'."):
        ta.write("a", 1.0)
    assert ta.size().numpy() == 2 and ta.write(0, 1.0).read(0).numpy() == 1.0


def test_lstsq_and_cross_refuse_scalars_by_argument():
    import tensortrace as tf
    with pytest.raises(ValueError, match="`matrix` must have rank >= 2"):
        tf.linalg.lstsq(tf.constant(1.0), tf.ones([2, 2]))
    with pytest.raises(ValueError, match="rank >= 1"):
        tf.linalg.cross(tf.constant(1.0), tf.ones([3]))


def test_lrn_radius_is_bounded_not_looped():
    import tensortrace as tf
    img = tf.reshape(tf.range(12, dtype=tf.float32), [1, 2, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"depth_radius = 1099511627776 larger than int max \[Op:LRN\]"):
        tf.nn.local_response_normalization(img, depth_radius=2**40)
    # a radius past the channels sums them all: the same as the smallest radius that does
    wide = tf.function(lambda: tf.nn.local_response_normalization(img, depth_radius=2**30))()
    np.testing.assert_allclose(wide.numpy(),
                               tf.nn.local_response_normalization(img, depth_radius=2).numpy())
    x = img.numpy()
    np.testing.assert_allclose(wide.numpy(), x / (1 + (x * x).sum(-1, keepdims=True)) ** 0.5,
                               rtol=1e-6)


def test_deep_structures_are_refused_not_recursed():
    import tensortrace as tf
    with pytest.raises(ValueError, match="`elems` is nested more than 200 levels deep"):
        tf.map_fn(lambda v: v, _deep(10_000))
    with pytest.raises(ValueError, match="`inputs` is nested more than 200 levels deep"):
        tf.print(_deep(10_000))


if __name__ == "__main__":
    import io
    import contextlib
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        figures, failed = sweep()
    if "--text" in sys.argv:
        for f in failed:
            print(f"{f['call']}: {f['kind']} at {f['where']} {f['text']}")
    print(json.dumps(dict(figures, failures=failed)))
