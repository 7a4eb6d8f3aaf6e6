"""The versioned SavedModel document: file names, the tagged JSON encoding of values, and arrays.

    {"format": "tensortrace.saved_model", "version": 1, "npz_sha256": "...",
     "variables": [...], "constants": [...], "functions": {...}, "objects": [...],
     "signatures": {...}}

Plain JSON (null, booleans, ints, strings, finite floats, lists) stands for itself; every other
value is a one-key object naming its kind: ``{"tuple": [...]}``, ``{"dtype": "float32"}``,
``{"shape": [2, null]}``, ``{"array": {...}}`` ... Arrays of up to ``INLINE_BYTES`` bytes are
written inline (base64 of their raw bytes); larger ones, and every variable, go to the ``.npz``,
which is read with ``allow_pickle=False``. Nothing in the document is code.
"""

import base64
import collections
import math
import re
import unicodedata

import numpy as np

from .. import dtypes as D
from ..composite import CompositeTensor, TypeSpec, spec_class, spec_key
from ..shapes import TensorShape
from ..tensor import TensorSpec
from ..variables import VariableSpec

FORMAT = "tensortrace.saved_model"
VERSION = 1
SUPPORTED_VERSIONS = (1,)
DOCUMENT = "saved_model.json"
ARRAYS = "variables.npz"
INLINE_BYTES = 64

# NumPy dtypes an array may declare: byte order, then bool/int/uint/float/complex/fixed strings.
_DTYPE_RE = re.compile(r"[<>|=]?(b1|i[1248]|u[1248]|f[248]|c(8|16)|[US]\d{1,6})")


class UnsaveableError(ValueError):
    """A value the format has no encoding for (a Python callable, an arbitrary object)."""


class CompositeSpecError(UnsaveableError):
    """A composite tensor's spec (RaggedTensorSpec ...) in a signature: TF's format as written
    here cannot hold it yet, tensortrace's JSON format can."""


class FormatError(ValueError):
    """The document is malformed: a field is missing, of the wrong kind, or out of range."""


# --- arrays ---------------------------------------------------------------------------------------
def _dtype_name(dtype):
    if D.bfloat16 is not None and dtype == D.bfloat16._np:
        return "bfloat16"
    if dtype == object:
        return "object"
    name = dtype.str
    if not _DTYPE_RE.fullmatch(name):
        raise UnsaveableError(f"arrays of NumPy dtype {dtype} cannot be saved")
    return name


def _parse_dtype(name):
    if name == "bfloat16":
        if D.bfloat16 is None:
            raise FormatError("the model holds bfloat16 arrays but ml_dtypes is not installed")
        return D.bfloat16._np
    if name == "object":
        return np.dtype(object)
    if not isinstance(name, str) or not _DTYPE_RE.fullmatch(name):
        raise FormatError(f"unsupported array dtype {name!r}")
    return np.dtype(name)


def _string_items(arr):
    items = arr.reshape(-1).tolist()
    for item in items:
        if type(item) is not bytes:
            raise UnsaveableError(f"string arrays must hold bytes, found {type(item).__name__}")
    return items


class ArrayWriter:
    """Encodes arrays at save time: small ones inline, the rest collected for the ``.npz``."""

    def __init__(self):
        self.npz = {}

    def encode(self, value, to_npz=False):
        arr = np.asarray(value)
        dtype = _dtype_name(arr.dtype)
        doc = {"dtype": dtype, "shape": list(arr.shape)}
        if dtype == "object":
            items = _string_items(arr)
            if not to_npz and sum(map(len, items)) <= INLINE_BYTES:
                doc["items"] = [base64.b64encode(b).decode("ascii") for b in items]
                return doc
            key = f"a{len(self.npz)}"
            self.npz[key + ".data"] = np.frombuffer(b"".join(items), np.uint8)
            self.npz[key + ".offsets"] = np.cumsum([0] + [len(b) for b in items], dtype=np.int64)
            doc["npz"] = key
            return doc
        if not to_npz and arr.nbytes <= INLINE_BYTES:
            doc["b64"] = base64.b64encode(arr.tobytes()).decode("ascii")
            return doc
        key = f"a{len(self.npz)}"
        self.npz[key] = arr.view(np.uint16) if dtype == "bfloat16" else np.asarray(arr, order="C")
        doc["npz"] = key
        return doc


class ArrayReader:
    """Decodes arrays at load time from inline data or the loaded ``.npz`` members."""

    def __init__(self, npz):
        self.npz = npz  # name -> ndarray (already read, allow_pickle=False)

    def decode(self, doc):
        doc = expect(doc, dict, "array")
        dtype = _parse_dtype(doc.get("dtype"))
        shape = tuple(expect(d, int, "array dimension") for d in expect(doc.get("shape"), list,
                                                                          "array shape"))
        if any(d < 0 for d in shape):
            raise FormatError(f"negative array dimension in {list(shape)}")
        size = math.prod(shape)
        if dtype == object:
            return self._strings(doc, shape, size)
        if "b64" in doc:
            raw = _b64(doc["b64"])
            if len(raw) != size * dtype.itemsize:
                raise FormatError(f"inline array of shape {list(shape)} and dtype {dtype} holds "
                                  f"{len(raw)} bytes")
            return np.frombuffer(raw, dtype).reshape(shape).copy()
        arr = self._member(doc.get("npz"))
        stored = np.dtype(np.uint16) if doc["dtype"] == "bfloat16" else dtype
        if arr.dtype != stored or arr.shape != shape:
            raise FormatError(f"array {doc['npz']!r} in {ARRAYS} has dtype {arr.dtype} and shape "
                              f"{arr.shape}, the document declares {stored} and {shape}")
        return arr.view(dtype) if doc["dtype"] == "bfloat16" else arr

    def _strings(self, doc, shape, size):
        if "items" in doc:
            items = [_b64(s) for s in expect(doc["items"], list, "string items")]
        else:
            key = expect(doc.get("npz"), str, "npz key")
            data, offsets = self._member(key + ".data"), self._member(key + ".offsets")
            if data.dtype != np.uint8 or offsets.dtype != np.int64 or offsets.shape != (size + 1,) \
                    or offsets[0] != 0 or offsets[-1] != data.size or np.any(np.diff(offsets) < 0):
                raise FormatError(f"string array {key!r} in {ARRAYS} is malformed")
            raw = data.tobytes()
            items = [raw[a:b] for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())]
        if len(items) != size:
            raise FormatError(f"string array of shape {list(shape)} holds {len(items)} items")
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return out.reshape(shape)

    def _member(self, key):
        if not isinstance(key, str) or key not in self.npz:
            raise FormatError(f"array {key!r} is missing from {ARRAYS}")
        return self.npz[key]


def _b64(text):
    try:
        return base64.b64decode(expect(text, str, "base64 data"), validate=True)
    except (ValueError, TypeError) as e:
        raise FormatError(f"invalid base64 data: {e}") from None


# --- values ---------------------------------------------------------------------------------------
def is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def encode(x, arrays, leaf=None):
    """The JSON form of ``x``; ``leaf(x)`` encodes kinds the caller knows (graphs, tensors) or
    returns None.

    Raises:
        UnsaveableError: for values with no encoding (callables, arbitrary objects).
    """
    t = type(x)
    if x is None or t is bool or t is str or t is int:
        return x
    if t is float:
        return x if math.isfinite(x) else {"float": repr(x)}
    if t is list:
        return [encode(v, arrays, leaf) for v in x]
    if t is tuple:
        return {"tuple": [encode(v, arrays, leaf) for v in x]}
    if t is dict:
        return {"dict": [[encode(k, arrays, leaf), encode(v, arrays, leaf)] for k, v in x.items()]}
    if is_namedtuple(x):
        return {"namedtuple": {"name": t.__name__, "fields": list(t._fields),
                               "values": [encode(v, arrays, leaf) for v in x]}}
    if t is bytes:
        return {"bytes": base64.b64encode(x).decode("ascii")}
    if t is complex:
        return {"complex": [encode(x.real, arrays), encode(x.imag, arrays)]}
    if isinstance(x, D.DType):
        return {"dtype": x.name}
    if isinstance(x, TensorShape):
        return {"shape": None if x.rank is None else list(x.dims)}
    if t is TensorSpec or t is VariableSpec:
        kind = "tensor_spec" if t is TensorSpec else "variable_spec"
        return {kind: {"shape": encode(x.shape, arrays), "dtype": x.dtype.name, "name": x.name}}
    if isinstance(x, TypeSpec) and t is not TensorSpec:  # a composite's spec (ragged, sparse)
        package, name = spec_key(x)
        return {"type_spec": {"package": package, "name": name,
                              "fields": encode(x._serialize(), arrays, leaf)}}
    if isinstance(x, CompositeTensor):  # its spec and its components (graph tensors)
        spec = x._type_spec
        return {"composite": [encode(spec, arrays, leaf),
                              [encode(c, arrays, leaf) for c in spec._to_components(x)]]}
    if isinstance(x, np.ndarray):
        return {"array": arrays.encode(x)}
    if isinstance(x, np.generic):
        return {"scalar": arrays.encode(x)}
    if leaf is not None:
        out = leaf(x)
        if out is not None:
            return out
    raise UnsaveableError(f"a value of type {t.__module__}.{t.__qualname__} ({_short(x)})")


def _short(x):
    text = repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


_NAMEDTUPLES = {}


def _namedtuple(name, fields):
    """A namedtuple class rebuilt from its name and fields (TF does the same on load)."""
    # as Python source spells them: identifiers in their NFKC form (namedtuple compiles its
    # fields into code, where 'ﬁ' would be a second 'fi')
    if not all(isinstance(n, str) and n.isidentifier() and
               unicodedata.normalize("NFKC", n) == n for n in [name, *fields]):
        raise FormatError(f"invalid namedtuple {name!r} with fields {fields!r}")
    key = (name, tuple(fields))
    cls = _NAMEDTUPLES.get(key)
    if cls is None:
        cls = _NAMEDTUPLES[key] = collections.namedtuple(name, fields)
    return cls


def decode(doc, arrays, leaf=None):
    """The value ``encode`` wrote; ``leaf(kind, payload)`` decodes the caller's kinds.

    Raises:
        FormatError: for anything that is not a valid encoding.
    """
    t = type(doc)
    if doc is None or t in (bool, int, str, float):
        return doc
    if t is list:
        return [decode(v, arrays, leaf) for v in doc]
    if t is not dict or len(doc) != 1:
        raise FormatError(f"expected an encoded value, got {_short(doc)}")
    (kind, payload), = doc.items()
    if kind == "tuple":
        return tuple(decode(v, arrays, leaf) for v in expect(payload, list, kind))
    if kind == "dict":
        pairs = [expect(p, list, "dict item") for p in expect(payload, list, kind)]
        if any(len(p) != 2 for p in pairs):
            raise FormatError("dict items must be [key, value] pairs")
        return {_hashable(decode(k, arrays, leaf)): decode(v, arrays, leaf) for k, v in pairs}
    if kind == "namedtuple":
        payload = expect(payload, dict, kind)
        cls = _namedtuple(payload.get("name"), expect(payload.get("fields"), list, "fields"))
        values = [decode(v, arrays, leaf) for v in expect(payload.get("values"), list, "values")]
        if len(values) != len(cls._fields):
            raise FormatError(f"namedtuple {cls.__name__} has {len(cls._fields)} fields, "
                              f"{len(values)} values")
        return cls(*values)
    if kind == "float":
        if payload not in ("nan", "inf", "-inf"):
            raise FormatError(f"invalid float {payload!r}")
        return float(payload)
    if kind == "bytes":
        return _b64(payload)
    if kind == "complex":
        re_im = expect(payload, list, kind)
        return complex(*(expect(decode(v, arrays), float, "complex part") for v in re_im))
    if kind == "dtype":
        return decode_dtype(payload)
    if kind == "shape":
        return decode_shape(payload)
    if kind in ("tensor_spec", "variable_spec"):
        payload = expect(payload, dict, kind)
        name = payload.get("name")
        if name is not None and not isinstance(name, str):
            raise FormatError(f"invalid spec name {name!r}")
        shape = decode(payload.get("shape"), arrays)
        if not isinstance(shape, TensorShape):
            raise FormatError(f"invalid spec shape {payload.get('shape')!r}")
        dtype = decode_dtype(payload.get("dtype"))
        if kind == "tensor_spec":
            return TensorSpec(shape, dtype, name)
        return VariableSpec(shape, dtype)
    if kind == "composite":
        pair = expect(payload, list, kind)
        if len(pair) != 2:
            raise FormatError("a composite is [spec, components]")
        spec = decode(pair[0], arrays, leaf)
        components = pair[1]
        if not isinstance(spec, TypeSpec) or isinstance(spec, TensorSpec):
            raise FormatError(f"invalid composite spec {_short(spec)}")
        parts = [decode(c, arrays, leaf) for c in expect(components, list, "components")]
        try:
            return spec._from_components(parts)
        except (TypeError, ValueError, IndexError) as e:
            raise FormatError(f"invalid {type(spec).__name__} components: {e}") from None
    if kind == "type_spec":
        return _decode_type_spec(expect(payload, dict, kind), arrays, leaf)
    if kind == "array":
        return arrays.decode(payload)
    if kind == "scalar":
        value = arrays.decode(payload)
        if value.ndim:
            raise FormatError("a scalar must have shape []")
        return value[()]
    if leaf is not None:
        out = leaf(kind, payload)
        if out is not None:
            return out
    raise FormatError(f"unknown value kind {kind!r}")


def _decode_type_spec(payload, arrays, leaf):
    cls = spec_class(payload.get("package"), payload.get("name"))
    if cls is None:
        raise FormatError(f"unknown type spec {payload.get('name')!r}")
    fields = decode(payload.get("fields"), arrays, leaf)
    if not isinstance(fields, tuple):
        raise FormatError(f"invalid {cls.__name__} fields {_short(fields)}")
    try:
        return cls._deserialize(fields)
    except (TypeError, ValueError) as e:
        raise FormatError(f"invalid {cls.__name__}: {e}") from None


def _hashable(key):
    try:
        hash(key)
    except TypeError:
        raise FormatError(f"unhashable dict key {_short(key)}") from None
    return key


def decode_dtype(name):
    if not isinstance(name, str):
        raise FormatError(f"invalid dtype {name!r}")
    try:
        return D.as_dtype(name)
    except TypeError:
        raise FormatError(f"unknown dtype {name!r}") from None


def decode_shape(dims):
    if dims is None:
        return TensorShape(None)
    dims = expect(dims, list, "shape")
    for d in dims:
        if d is not None and (type(d) is not int or d < 0):
            raise FormatError(f"invalid dimension {d!r} in shape {dims}")
    return TensorShape(dims)


def expect(value, kind, what):
    """``value`` if it is a ``kind``, else a FormatError naming ``what``."""
    if kind is float and type(value) is int:
        return float(value)
    if type(value) is not kind:
        raise FormatError(f"{what}: expected {kind.__name__}, got {_short(value)}")
    return value
