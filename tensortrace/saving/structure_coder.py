"""TF's ``StructuredValue`` encoding (its ``nested_structure_coder``): the input signatures,
argument specs and output signatures a TF-format SavedModel stores, to Python values and back.

    proto = encode((TensorSpec([None, 3], tf.float32, "x"),))
    decode(proto) == (TensorSpec([None, 3], tf.float32, "x"),)
"""

import numpy as np

from .. import _protos
from .. import dtypes as D
from ..graph import tensor_proto
from ..shapes import TensorShape
from ..tensor import EagerTensor, TensorSpec
from ..variables import VariableSpec
from ..composite import TypeSpec, spec_class, spec_key
from .format import (CompositeSpecError, FormatError, UnsaveableError, _namedtuple,
                     is_namedtuple)

_MAX_DEPTH = 64  # deeper nesting is a hostile file, not a signature
# TF's TypeSpecClass of the composite specs tensortrace has: enum name -> (package, class)
_COMPOSITES = {"SPARSE_TENSOR_SPEC": ("sparse", "SparseTensorSpec"),
               "RAGGED_TENSOR_SPEC": ("ragged", "RaggedTensorSpec")}


def encode(value):
    """The ``StructuredValue`` of ``value``.

    Raises:
        UnsaveableError: for a value TF's coder has no encoding for.
    """
    proto = _protos.struct_pb2.StructuredValue()
    _encode(value, proto)
    return proto


def _encode(x, out):
    t = type(x)
    if x is None:
        out.none_value.SetInParent()
    elif t is bool:
        out.bool_value = x
    elif t is int:
        out.int64_value = x
    elif t is float:
        out.float64_value = x
    elif t is str:
        out.string_value = x
    elif t is list:
        out.list_value.SetInParent()
        for v in x:
            _encode(v, out.list_value.values.add())
    elif t is tuple:
        out.tuple_value.SetInParent()
        for v in x:
            _encode(v, out.tuple_value.values.add())
    elif t is dict:
        out.dict_value.SetInParent()
        for k, v in x.items():
            if type(k) is not str:
                raise UnsaveableError(f"a dict key {k!r} (TF's signatures take string keys)")
            _encode(v, out.dict_value.fields[k])
    elif is_namedtuple(x):
        out.named_tuple_value.name = t.__name__
        for k, v in zip(t._fields, x):
            _encode(v, out.named_tuple_value.values.add(key=k).value)
    elif isinstance(x, TensorShape):
        out.tensor_shape_value.CopyFrom(tensor_proto.shape_proto(x))
    elif isinstance(x, D.DType):
        out.tensor_dtype_value = tensor_proto.dtype_enum(x)
    elif t is VariableSpec:
        spec = out.type_spec_value
        spec.type_spec_class = _protos.struct_pb2.TypeSpecProto.VARIABLE_SPEC
        spec.type_spec_class_name = "VariableSpec"
        spec.num_flat_components = 1
        _encode((x.shape, x.dtype, True, x.alias_id), spec.type_state)
    elif t is TensorSpec:
        spec = out.tensor_spec_value
        spec.shape.CopyFrom(tensor_proto.shape_proto(x.shape))
        spec.dtype = tensor_proto.dtype_enum(x.dtype)
        if x.name:
            spec.name = x.name
    elif isinstance(x, EagerTensor):
        out.tensor_value.CopyFrom(tensor_proto.to_proto(x.numpy(), x.dtype))
    elif isinstance(x, (np.ndarray, np.generic)):
        out.numpy_value.CopyFrom(tensor_proto.to_proto(np.asarray(x)))
    elif isinstance(x, TypeSpec) and spec_key(x) in _COMPOSITES.values():
        kind = next(k for k, v in _COMPOSITES.items() if v == spec_key(x))
        spec = out.type_spec_value
        spec.type_spec_class = _protos.struct_pb2.TypeSpecProto.TypeSpecClass.Value(kind)
        spec.type_spec_class_name = t.__name__
        spec.num_flat_components = len(x._flat_tensor_specs)
        _encode(x._serialize(), spec.type_state)
    else:
        error = CompositeSpecError if isinstance(x, TypeSpec) else UnsaveableError
        raise error(f"a value of type {t.__module__}.{t.__qualname__} ({x!r:.80})")


def decode(proto, what="a structured value"):
    """The Python value ``proto`` (a ``StructuredValue``) encodes.

    Raises:
        FormatError: naming ``what`` for a kind tensortrace cannot rebuild or a malformed value.
    """
    try:
        return _decode(proto, 0)
    except (TypeError, ValueError) as e:  # FormatError included: name what held it
        raise FormatError(f"{what}: {e}") from None


def _decode(p, depth):
    if depth > _MAX_DEPTH:
        raise FormatError(f"nested deeper than {_MAX_DEPTH} levels")
    kind = p.WhichOneof("kind")
    if kind is None or kind == "none_value":
        return None
    if kind in ("bool_value", "int64_value", "string_value"):
        return getattr(p, kind)
    if kind == "float64_value":
        return float(p.float64_value)
    if kind == "list_value":
        return [_decode(v, depth + 1) for v in p.list_value.values]
    if kind == "tuple_value":
        return tuple(_decode(v, depth + 1) for v in p.tuple_value.values)
    if kind == "dict_value":
        return {k: _decode(p.dict_value.fields[k], depth + 1)
                for k in sorted(p.dict_value.fields)}
    if kind == "named_tuple_value":
        pairs = p.named_tuple_value.values
        cls = _namedtuple(p.named_tuple_value.name, [pair.key for pair in pairs])
        return cls(*[_decode(pair.value, depth + 1) for pair in pairs])
    if kind == "tensor_shape_value":
        return tensor_proto.shape_from_proto(p.tensor_shape_value)
    if kind == "tensor_dtype_value":
        return tensor_proto.dtype_from_enum(p.tensor_dtype_value)
    if kind == "tensor_spec_value":
        s = p.tensor_spec_value
        return TensorSpec(tensor_proto.shape_from_proto(s.shape),
                          tensor_proto.dtype_from_enum(s.dtype), s.name or None)
    if kind == "type_spec_value":
        return _type_spec(p.type_spec_value, depth)
    if kind in ("tensor_value", "numpy_value"):
        array = tensor_proto.to_array(getattr(p, kind))
        return EagerTensor._wrap(array) if kind == "tensor_value" else array
    raise FormatError(f"{kind} values are not supported by tensortrace")


def _type_spec(spec, depth):
    classes = _protos.struct_pb2.TypeSpecProto.TypeSpecClass
    kind = classes.Name(spec.type_spec_class) if spec.type_spec_class in classes.values() \
        else None
    if kind in _COMPOSITES:
        return _composite(spec, kind, depth)
    if spec.type_spec_class != _protos.struct_pb2.TypeSpecProto.VARIABLE_SPEC:
        name = spec.type_spec_class_name or kind or spec.type_spec_class
        raise FormatError(f"type spec {name!r} is not supported by tensortrace")
    state = _decode(spec.type_state, depth + 1)
    if type(state) is not tuple or len(state) < 2 or not isinstance(state[0], TensorShape) or \
            not isinstance(state[1], D.DType):
        raise FormatError(f"malformed VariableSpec state {state!r:.80}")
    alias = state[3] if len(state) > 3 else None
    return VariableSpec(state[0], state[1], alias_id=alias if type(alias) is int else None)



def _composite(spec, kind, depth):
    """A SparseTensorSpec or RaggedTensorSpec from TF's type state (its constructor's
    arguments: shape, dtype, then ragged_rank and row_splits_dtype for a ragged one)."""
    state = _decode(spec.type_state, depth + 1)
    cls = spec_class(*_COMPOSITES[kind])
    if cls is None or type(state) is not tuple or len(state) < 2 or \
            not isinstance(state[0], TensorShape) or not isinstance(state[1], D.DType) or \
            not all(isinstance(v, (int, D.DType, TypeSpec, type(None))) for v in state[2:]):
        raise FormatError(f"malformed {kind} state {state!r:.80}")
    try:
        value = cls._deserialize(state)
    except (TypeError, ValueError) as e:
        raise FormatError(f"malformed {kind} state {state!r:.80}: {e}") from None
    if len(value._flat_tensor_specs) != spec.num_flat_components:
        raise FormatError(f"{kind} of {len(value._flat_tensor_specs)} components is declared "
                          f"with {spec.num_flat_components}")
    return value
