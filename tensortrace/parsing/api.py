"""``tf.io.parse_example``, ``parse_single_example``, ``parse_sequence_example`` and
``parse_single_sequence_example``: a feature dict checked as TF checks it, one parse op, its
components made into tensors, ``tf.SparseTensor`` and ``tf.RaggedTensor`` values."""

import collections.abc

from .. import dtypes as D
from .._export import tf_export
from ..errors import invalid_argument
from ..messages import c_name
from ..context import bind
from ..convert import convert_to_tensor
from ..ops.array.reshaping import reshape
from ..ragged.ragged_tensor import RaggedTensor
from ..shapes import as_shape
from ..sparse.sparse_tensor import SparseTensor
from .config import (PARSE_DTYPES, FixedLenFeature, FixedLenSequenceFeature, ParseParams,
                     RaggedFeature, SparseFeature, VarLenFeature)
from .kernels import ParseExampleV2, ParseSequenceExampleV2

_EXAMPLE_TYPES = (VarLenFeature, SparseFeature, FixedLenFeature, FixedLenSequenceFeature,
                  RaggedFeature)


def _key_order(features, params):
    """TF's output order: the parser's sparse, dense and ragged keys that are features, then the
    composite features (sparse and ragged) whose key the parser did not produce."""
    raw = params.sparse_keys + params.dense_keys + params.ragged_keys
    order = [k for k in raw if k in features]
    order += [k for k in sorted(features) if k not in raw]
    return order


def _dense_default(feature, dtype, shape, sequence):
    """The default input of a dense feature: its value of ``shape``, an empty tensor when it is
    required; a sequence feature's padding scalar."""
    default = feature.default_value
    if sequence:
        if default is None:
            default = "" if dtype == D.string else 0
        return reshape(convert_to_tensor(default, dtype), [])
    if default is None:
        return convert_to_tensor([], dtype)
    return reshape(convert_to_tensor(default, dtype), shape.as_list())


def _partitions(feature):
    return tuple((type(p).__name__, p.length if isinstance(p, RaggedFeature.UniformRowLength)
                  else p.key) for p in feature.partitions)


def _parse_dtype(dtype, op_name, attr):
    """A sparse or dense feature's dtype: one the parser supports (TF's attr error)."""
    dtype = D.as_dtype(dtype)
    if dtype not in PARSE_DTYPES:
        allowed = ", ".join(c_name(d) for d in PARSE_DTYPES)
        raise invalid_argument(f"Value for attr '{attr}' of {c_name(dtype)} is not in the list "
                               f"of allowed values: {allowed}\n\t; NodeDef: {{{{node {op_name}}}}}",
                               op_name)
    return dtype


def _op_features(features, order, *, sequence_list=False, op_name="ParseExampleV2",
                 prefix=""):
    """The parse op's ``features`` attr and dense default inputs, in ``order``."""
    spec, defaults = [], []
    for key in order:
        f = features[key]
        if isinstance(f, VarLenFeature):
            dtype = _parse_dtype(f.dtype, op_name, prefix + "sparse_types")
            spec.append(("sparse", key, dtype.name))
        elif isinstance(f, (FixedLenFeature, FixedLenSequenceFeature)):
            dtype = _parse_dtype(f.dtype, op_name, prefix + ("dense_types" if prefix else
                                                              "Tdense"))
            sequence = isinstance(f, FixedLenSequenceFeature)
            shape = _shape(f.shape)
            if sequence_list:
                if f.default_value is not None:
                    raise ValueError(f"Value feature_list.dense_defaults[{key}] must be None")
                spec.append(("dense", key, dtype.name, tuple(shape.as_list()),
                             bool(f.allow_missing)))
                continue
            spec.append(("dense", key, dtype.name, tuple(shape.as_list()), sequence))
            defaults.append(_dense_default(f, dtype, shape, sequence))
        elif isinstance(f, RaggedFeature):
            value_key = key if f.value_key is None else f.value_key
            spec.append(("ragged", value_key, f.dtype.name, f.row_splits_dtype.name,
                         _partitions(f)))
        else:
            index_keys = (f.index_key,) if isinstance(f.index_key, str) else tuple(f.index_key)
            size = (f.size,) if isinstance(f.index_key, str) else tuple(f.size)
            dtype = _parse_dtype(f.dtype, op_name, prefix + "sparse_types")
            spec.append(("sparse_feature", index_keys, f.value_key, dtype.name,
                         tuple(int(s) for s in size), bool(f.already_sorted)))
    return tuple(spec), defaults


def _shape(shape):
    return as_shape([shape] if isinstance(shape, int) else shape)


def _outputs(spec, values, order):
    """Build each feature's value from the op's outputs (in ``spec``'s order)."""
    out, it = {}, iter(values)
    for key, f in zip(order, spec):
        kind = f[0]
        if kind in ("sparse", "sparse_feature"):
            out[key] = SparseTensor(next(it), next(it), next(it))
        elif kind == "dense":
            out[key] = next(it)
        else:
            flat = next(it)
            depth = _split_count(f)
            splits = [next(it) for _ in range(depth)]
            out[key] = RaggedTensor.from_nested_row_splits(flat, splits, validate=False) \
                if splits else flat
    return out, it


def _split_count(f):
    # set on the spec by the caller: ("ragged", ..., partitions) plus the batch level
    return f[-1] if isinstance(f[-1], int) else 0


def _with_depths(spec, batched, per_list=False):
    """``spec`` with each ragged entry's number of row-split outputs appended (for ``_outputs``)."""
    out = []
    for f in spec:
        if f[0] == "ragged":
            kinds = [k for k, _ in f[4]]
            while kinds and kinds[-1] == "UniformRowLength":
                kinds.pop()  # trailing uniform lengths reshape the values instead
            out.append(f + (len(kinds) + int(batched) + int(per_list),))
        else:
            out.append(f)
    return out


def _serialized(serialized):
    return serialized if hasattr(serialized, "dtype") and serialized.dtype == D.string else \
        convert_to_tensor(serialized, D.string)


def _names(example_names):
    if example_names is None:
        return convert_to_tensor([], D.string)
    return convert_to_tensor(example_names, D.string)


def _check_mapping(features, what):
    """A feature dict argument: a mapping (or None), refused with a TypeError otherwise."""
    if features is not None and not isinstance(features, collections.abc.Mapping):
        raise TypeError(f"Argument `{what}` must be a dict mapping feature keys to feature "
                        f"configurations (tf.io.FixedLenFeature ...); got "
                        f"{type(features).__name__}")


@tf_export("io.parse_example")
def parse_example(serialized, features, example_names=None, name=None):
    """Parse a batch (a vector) of serialized ``tf.train.Example`` protos: a dict of each
    feature's ``Tensor``, ``SparseTensor`` or ``RaggedTensor`` (batch dimension first)."""
    _check_mapping(features, "features")
    if not features:
        raise ValueError(f"Argument `features` cannot be None or falsy. Got {features}")
    for key, f in features.items():
        if isinstance(f, FixedLenSequenceFeature) and not f.allow_missing:
            raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to "
                             "be True.")
    params = ParseParams.from_features(features, _EXAMPLE_TYPES)
    if params.num_features == 0:
        raise ValueError("Must provide at least one feature key.")
    protos = _serialized(serialized)  # serialized stays as given: errors' texts read it
    if params.ragged_keys and protos.shape.rank is None:
        raise ValueError("serialized must have statically-known rank to parse ragged features.")
    order = _key_order(features, params)
    spec, defaults = _op_features(features, order)
    values = bind(ParseExampleV2, protos, _names(example_names), *defaults, features=spec)
    out, _ = _outputs(_with_depths(spec, protos.shape.rank != 0), _as_list(values), order)
    return out


def _as_list(values):
    return list(values) if isinstance(values, (list, tuple)) else [values]


def _assert_scalar(serialized):
    if serialized.shape.rank is not None and serialized.shape.rank != 0:
        raise ValueError("Input serialized must be a scalar")


@tf_export("io.parse_single_example")
def parse_single_example(serialized, features, example_names=None, name=None):
    """Parse one serialized ``tf.train.Example`` (a scalar string): as ``parse_example``
    without the batch dimension."""
    _check_mapping(features, "features")
    if features is None:
        raise ValueError("Invalid argument: features cannot be None.")
    if not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    serialized = _serialized(serialized)
    _assert_scalar(serialized)
    return parse_example(serialized, features, example_names, name)


def _parse_sequence(serialized, context_features, sequence_features, example_names):
    _check_mapping(context_features, "context_features")
    _check_mapping(sequence_features, "sequence_features")
    context_params = ParseParams.from_features(
        context_features, [VarLenFeature, FixedLenFeature, RaggedFeature])
    list_params = ParseParams.from_features(
        sequence_features, [VarLenFeature, FixedLenSequenceFeature, RaggedFeature])
    if context_params.num_features + list_params.num_features == 0:
        raise ValueError("Must provide at least one feature key.")
    serialized = _serialized(serialized)
    context_features, sequence_features = context_features or {}, sequence_features or {}
    context_order = _key_order(context_features, context_params)
    list_order = _key_order(sequence_features, list_params)
    context_spec, defaults = _op_features(context_features, context_order,
                                          op_name="ParseSequenceExampleV2", prefix="context_")
    list_spec, _ = _op_features(sequence_features, list_order, sequence_list=True,
                                op_name="ParseSequenceExampleV2", prefix="feature_list_")
    values = _as_list(bind(ParseSequenceExampleV2, serialized, _names(example_names), *defaults,
                           context=context_spec, feature_lists=list_spec))
    batched = serialized.shape.rank != 0
    context, it = _outputs(_with_depths(context_spec, batched), values, context_order)
    lists, it = _outputs(_with_depths(list_spec, batched, per_list=True), it, list_order)
    dense_keys = [k for k, f in zip(list_order, list_spec) if f[0] == "dense"]
    lengths = {k: next(it) for k in dense_keys}
    return context, lists, lengths


@tf_export("io.parse_sequence_example")
def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None):
    """Parse a batch of serialized ``tf.train.SequenceExample`` protos: (context features,
    feature lists, the lengths of the dense feature lists)."""
    _check_mapping(context_features, "context_features")
    _check_mapping(sequence_features, "sequence_features")
    if not (context_features or sequence_features):
        raise ValueError("Both `context_features` and `sequence_features` argument are None, "
                         "but at least one should have values.")
    return _parse_sequence(serialized, context_features, sequence_features, example_names)


@tf_export("io.parse_single_sequence_example")
def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None):
    """Parse one serialized ``tf.train.SequenceExample``: (context features, feature lists)."""
    _check_mapping(context_features, "context_features")
    _check_mapping(sequence_features, "sequence_features")
    if not (context_features or sequence_features):
        raise ValueError("Both context_features and sequence_features are None, but at least "
                         "one should have values.")
    proto = _serialized(serialized)  # serialized stays as given: errors' texts read it
    _assert_scalar(proto)
    context, lists, _ = _parse_sequence(proto, context_features, sequence_features, example_name)
    return context, lists
