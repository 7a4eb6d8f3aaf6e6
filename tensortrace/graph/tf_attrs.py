"""TF's op signatures and attr encodings, and how tensortrace's op attrs map onto them.

``tf_ops.json`` (made from TF's op registry by ``tests/fixtures/tf/make_graphdefs.py``) gives
each op type's input and output arguments and attrs with their defaults. Most ops carry their
attrs under TF's names already; the differences are tables here: ``INPUT_ATTRS`` (a TF input
tensor that tensortrace holds as an attr, e.g. ``Sum``'s ``reduction_indices`` is our ``axis``).
Attrs tensortrace has and TF lacks travel under an underscore name (``_axis``), which TF ignores.

    >>> decode(encode((1, 2)))
    (1, 2)
"""

import functools
import inspect
import json
import os

import numpy as np

from .. import _protos, dtypes
from ..registry import get as get_op
from ..shapes import TensorShape
from . import tensor_proto

_HERE = os.path.dirname(os.path.abspath(__file__))

# How a TF input tensor becomes a tensortrace attr: (our attr name, kind). Kinds: "int" (a
# scalar), "ints" (a vector, kept as a tuple), "index" (an int or a tuple of them, as the tensor
# is a scalar or a vector), "axes" (ints, or None for all axes), "shape" (a TensorList's element
# shape: -1 for an unknown rank, -1 for an unknown dim).
INPUT_ATTRS = {
    **{op: {"reduction_indices": ("axis", "axes")}
       for op in ("Sum", "Mean", "Max", "Min", "Prod", "All", "Any", "EuclideanNorm")},
    "ArgMax": {"dimension": ("axis", "int")}, "ArgMin": {"dimension": ("axis", "int")},
    "ExpandDims": {"dim": ("axis", "int")}, "ConcatV2": {"axis": ("axis", "int")},
    "Split": {"split_dim": ("axis", "int")},
    "SplitV": {"split_dim": ("axis", "int")},
    "Roll": {"axis": ("axis", "index")},
    "Transpose": {"perm": ("perm", "ints")}, "ConjugateTranspose": {"perm": ("perm", "ints")},
    "ReverseV2": {"axis": ("axis", "ints")}, "GatherV2": {"axis": ("axis", "int")},
    "Cumsum": {"axis": ("axis", "int")}, "Cumprod": {"axis": ("axis", "int")},
    "CumulativeLogsumexp": {"axis": ("axis", "int")},
    "TensorListReserve": {"element_shape": ("element_shape", "shape")},
    "TensorListGetItem": {"element_shape": ("element_shape", "shape")},
    "TensorListGather": {"element_shape": ("element_shape", "shape")},
    "TensorListStack": {"element_shape": ("element_shape", "shape")},
    "TensorListFromTensor": {"element_shape": ("element_shape", "shape")},
    "TensorListSplit": {"element_shape": ("element_shape", "shape")},
    "TensorListConcatV2": {"element_shape": ("element_shape", "shape")},
}
# tensortrace attr -> TF attr, where the names differ
RENAMES = {op: {"dtype": "T"} for op in ("ResourceScatterNdAdd", "ResourceScatterNdSub",
                                         "ResourceScatterNdMax", "ResourceScatterNdMin",
                                         "ResourceScatterNdUpdate")}
# our attrs TF's op lacks, at the value TF's op computes with (a TF node has none of them)
PLAIN = {("GatherNd", "batch_dims"): 0, ("LinSpace", "axis"): 0}
EXTRA_PREFIX = "_tt_"  # our attrs TF's op does not have (TF ignores attrs starting with "_")
# TF's own private attrs that ours mean too (a jit_compile call's mark): kept under TF's name
TF_PRIVATE = frozenset({"_XlaMustCompile"})
NONE = "None"  # an attr holding None travels as this AttrValue placeholder


class Arg:
    """One input or output argument of a TF op: ``name``, a fixed ``dtype`` or ``type_attr``,
    and ``number_attr`` (N tensors of one type) or ``list_attr`` (a list of types)."""

    __slots__ = ("name", "dtype", "type_attr", "number_attr", "list_attr")

    def __init__(self, spec, attr_types):
        self.name, kind = spec.split(":")
        self.number_attr, _, kind = kind.rpartition("*")
        self.dtype = self.type_attr = self.list_attr = None
        if attr_types.get(kind) == "list(type)":
            self.list_attr = kind
        elif kind in attr_types:
            self.type_attr = kind
        else:
            self.dtype = dtypes.as_dtype(kind)

    def count(self, attrs):
        """How many tensors this argument holds under the node's TF ``attrs`` (decoded)."""
        if self.number_attr:
            return int(attrs[self.number_attr])
        if self.list_attr:
            return len(attrs[self.list_attr])
        return 1


class Signature:
    """TF's OpDef of one op type: ``inputs``/``outputs`` (Args), ``attrs`` name -> (type,
    has default, default)."""

    def __init__(self, name, doc):
        self.name = name
        self.attrs = {a[0]: (a[1], len(a) > 2, a[2] if len(a) > 2 else None) for a in doc["attr"]}
        types = {k: v[0] for k, v in self.attrs.items()}
        self.inputs = [Arg(s, types) for s in doc["in"]]
        self.outputs = [Arg(s, types) for s in doc["out"]]
        self.stateful = doc.get("stateful", False)
        bound = set()
        for a in self.inputs + self.outputs:
            bound.update(x for x in (a.type_attr, a.number_attr, a.list_attr) if x)
        self.bound = bound  # attrs TF derives from the arguments' dtypes and counts

    def output_ranges(self, attrs):
        """[(arg name, first output index, count)] under the node's decoded TF ``attrs``."""
        out, start = [], 0
        for a in self.outputs:
            n = a.count(attrs)
            out.append((a.name, start, n))
            start += n
        return out


@functools.cache
def _table():
    with open(os.path.join(_HERE, "tf_ops.json"), encoding="utf-8") as f:
        return json.load(f)


@functools.cache
def signature(op_type):
    """TF's signature of ``op_type``, or None for an op TF does not have."""
    doc = _table().get(op_type)
    return None if doc is None else Signature(op_type, doc)


@functools.cache
def our_attrs(op_type, n_inputs):
    """The attr names tensortrace's ``op_type`` takes with ``n_inputs`` inputs, and whether it
    takes any others (a ``**attrs`` shape rule)."""
    params = inspect.signature(get_op(op_type).infer).parameters.values()
    names, positional, extra = [], 0, False
    for p in params:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            positional += 1
            if positional > n_inputs:
                names.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            positional = n_inputs  # the rest of the inputs
        elif p.kind == p.KEYWORD_ONLY:
            names.append(p.name)
        elif p.kind == p.VAR_KEYWORD:
            extra = True
    return tuple(names), extra


def required_attrs(op_type, n_inputs):
    """Our attr names without a default in the shape rule's signature."""
    params = inspect.signature(get_op(op_type).infer).parameters
    names, _ = our_attrs(op_type, n_inputs)
    return [n for n in names if params[n].default is inspect.Parameter.empty]


# --- AttrValue encoding -----------------------------------------------------------------------
def _attr_value():
    return _protos.attr_value_pb2.AttrValue()


def _is_shape(x):
    return isinstance(x, TensorShape) or x is None or (
        isinstance(x, (tuple, list)) and all(d is None or _is_int(d) for d in x))


def _is_int(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def encode(value, kind=None, func=None):
    """An ``AttrValue`` for a Python attr value. ``kind`` is TF's attr type when known
    ("shape", "list(shape)", "func", ...); ``func(graph)`` names a sub-graph's function."""
    av = _attr_value()
    if value is None:
        av.placeholder = NONE
    elif kind == "func" or (func is not None and hasattr(value, "get_operations")):
        av.func.name = func(value)
    elif kind == "list(func)":
        av.list.func.extend(_func_attr(func(g)) for g in value)
    elif kind == "shape" or isinstance(value, TensorShape):
        av.shape.CopyFrom(tensor_proto.shape_proto(value))
    elif kind == "list(shape)":
        av.list.shape.extend(tensor_proto.shape_proto(s) for s in value)
    elif isinstance(value, dtypes.DType):
        av.type = value.as_datatype_enum
    elif isinstance(value, (bool, np.bool_)):
        av.b = bool(value)
    elif _is_int(value):
        av.i = int(value)
    elif isinstance(value, (float, np.floating)):
        av.f = float(value)
    elif isinstance(value, str):
        av.s = value.encode("utf-8")
    elif isinstance(value, bytes):
        av.s = value
    elif isinstance(value, np.ndarray):
        av.tensor.CopyFrom(tensor_proto.to_proto(value))
    elif isinstance(value, (tuple, list)):
        _encode_list(av, value, kind)
    else:
        raise TypeError(f"an attr value of type {type(value).__name__} ({value!r}) has no "
                        "GraphDef encoding")
    return av


def _func_attr(name):
    f = _protos.attr_value_pb2.NameAttrList()
    f.name = name
    return f


def _encode_list(av, value, kind):
    lst = av.list
    lst.SetInParent()  # an empty list is still a list
    if kind == "list(type)" or (value and all(isinstance(v, dtypes.DType) for v in value)):
        lst.type.extend(dtypes.as_dtype(v).as_datatype_enum for v in value)
    elif kind == "list(int)" or all(_is_int(v) for v in value):
        lst.i.extend(int(v) for v in value)
    elif kind == "list(bool)" or all(isinstance(v, (bool, np.bool_)) for v in value):
        lst.b.extend(bool(v) for v in value)
    elif kind == "list(float)" or all(isinstance(v, (float, np.floating, int)) for v in value):
        lst.f.extend(float(v) for v in value)
    elif kind == "list(string)" or all(isinstance(v, (str, bytes)) for v in value):
        lst.s.extend(v.encode("utf-8") if isinstance(v, str) else v for v in value)
    elif all(_is_shape(v) for v in value):
        lst.shape.extend(tensor_proto.shape_proto(v) for v in value)
    else:
        raise TypeError(f"a list attr value {value!r} has no GraphDef encoding")


def decode(av, func=None):
    """The Python value of an ``AttrValue`` (tuples for lists, DTypes, TensorShapes for a shape,
    tuples of dims for a list of shapes, arrays for tensors); ``func(name)`` resolves functions."""
    kind = av.WhichOneof("value")
    if kind == "placeholder" and av.placeholder == NONE:
        return None
    if kind == "placeholder" and av.placeholder.startswith("python:"):
        raise TypeError(f"the attr held a Python object ({av.placeholder[7:]}), which a "
                        "GraphDef does not carry")
    if kind == "s":
        try:
            return av.s.decode("utf-8")
        except UnicodeDecodeError:
            return av.s
    if kind in ("i", "f", "b"):
        return getattr(av, kind)
    if kind == "type":
        return tensor_proto.dtype_from_enum(av.type)
    if kind == "shape":
        return tensor_proto.shape_from_proto(av.shape)
    if kind == "tensor":
        return tensor_proto.to_array(av.tensor)
    if kind == "func":
        return func(av.func.name) if func else av.func.name
    if kind == "list":
        lst = av.list
        if lst.type:
            return tuple(tensor_proto.dtype_from_enum(t) for t in lst.type)
        if lst.shape:
            return tuple(_dims(tensor_proto.shape_from_proto(s)) for s in lst.shape)
        if lst.func:
            return tuple(func(f.name) if func else f.name for f in lst.func)
        if lst.tensor:
            return tuple(tensor_proto.to_array(t) for t in lst.tensor)
        for field in ("i", "f", "b"):
            if getattr(lst, field):
                return tuple(getattr(lst, field))
        if lst.s:
            return tuple(s.decode("utf-8") for s in lst.s)
        return ()
    if kind is None:
        return None
    raise TypeError(f"an AttrValue holding {kind!r} is not supported")


def _dims(shape):
    return None if shape.rank is None else tuple(shape.as_list())


def default(sig, name):
    """TF's default of attr ``name`` as a Python value (None if it has none)."""
    kind, has, value = sig.attrs[name]
    if not has:
        return None
    if kind == "type":
        return dtypes.as_dtype(value)
    if kind == "list(type)":
        return tuple(dtypes.as_dtype(v) for v in value)
    if kind == "shape":
        return TensorShape(value)
    if isinstance(value, list):
        return tuple(value)
    return value


def input_value(kind, array, where):
    """A TF input tensor's constant value as the tensortrace attr of ``kind``."""
    flat = np.asarray(array).reshape(-1)
    if kind == "int":
        if flat.size != 1:
            raise ValueError(f"{where} must be a scalar, got shape {np.shape(array)}")
        return int(flat[0])
    if kind == "index" and np.ndim(array) == 0:
        return int(flat[0])
    if kind == "shape":  # as the TensorList ops hold it: None, or a tuple of dims
        if np.ndim(array) == 0 and int(flat[0]) == -1:
            return None
        return tuple(None if d == -1 else int(d) for d in flat)
    return tuple(int(v) for v in flat)


def input_array(kind, value, rank):
    """An attr value of ``kind`` as the int32 array TF's input holds (None axes: all of
    ``rank``'s)."""
    if kind == "axes" and value is None:
        if rank is None:
            raise ValueError("a reduction over all axes of a tensor of unknown rank has no "
                             "constant reduction_indices")
        return np.arange(rank, dtype=np.int32)
    if kind == "shape":
        shape = TensorShape(value)
        if shape.rank is None:
            return np.array(-1, np.int32)
        return np.array([-1 if d is None else d for d in shape.as_list()], np.int32)
    if kind == "int" or (kind == "index" and _is_int(value)):
        return np.array(int(value), np.int32)
    if _is_int(value):
        value = (value,)
    return np.array([int(v) for v in value], np.int32)
