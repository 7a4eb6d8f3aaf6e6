"""``tnp.experimental_enable_numpy_behavior``: NumPy's methods and properties on ``tf.Tensor``
(``.T``, ``.reshape``, ``.astype``, ``.tolist`` ...), NumPy's indexing (integer and boolean arrays)
and a type promotion mode for the tensor operators: "legacy" (NumPy's rules: ``int32_tensor +
1.5`` is float64), or TF's new lattice with weak types ("all", and "safe", which refuses the
lossy and bit-widening promotions; ``_promotion`` does their operators and API functions).
Nothing is checked on the hot path while a mode is off: enabling installs wrapped operators on
``Tensor`` and disabling (``_disable``, for tests) puts the originals back."""

import threading

import numpy as np

from .. import dtypes as D
from .. import nest
from ..convert import convert_to_tensor
from ..ops.array.broadcasting import broadcast_dynamic_shape, broadcast_to
from ..ops.array.joining import stack
from ..ops.array.reshaping import reshape as _reshape, transpose as _transpose
from ..ops.array.shapes import shape as _shape
from ..ops.indexing import getitem as _getitem_ops  # noqa: F401 - installs Tensor.__getitem__
from ..ops.indexing.gathering import gather_nd
from ..ops.linalg import products as _products  # noqa: F401 - installs Tensor.__matmul__
from ..ops.math import operators as _operators  # noqa: F401 - installs Tensor's operators
from ..ops.math.casting import cast
from ..ops.math.select import where
from ..tensor import EagerTensor, Tensor
from ..variables import Variable
from . import _core, _promotion
from ._math import around, clip
from ._reductions import amax, amin, mean
from ._shaping import _reshape_method, flatten, ravel, transpose

MODES = ("off", "legacy", "safe", "all")

#: The binary operators TF promotes (its ``maybe_promote_tensors``), forward and reflected.
PROMOTED = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
            "matmul")
COMPARED = ("lt", "le", "gt", "ge", "eq", "ne")
PROMOTED_NAMES = tuple(f"__{p}{op}__" for op in PROMOTED for p in ("", "r")) + \
    tuple(f"__{op}__" for op in COMPARED)

_saved = {}  # (class, attribute) -> its value before enabling (_ABSENT: there was none)
_ABSENT = object()
_tf_slicing = threading.local()  # .on while a variable slices: TF keeps its own slicing there


def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """Enable NumPy behavior on tensors: NumPy methods, NumPy indexing and the type promotion
    of ``dtype_conversion_mode`` ("legacy": NumPy's; "all"/"safe": TF's lattice with weak types;
    "off" keeps TF's strict dtypes); ``prefer_float32`` makes Python floats float32 in dtype
    inference.

    Raises:
        ValueError: for an unknown ``dtype_conversion_mode``.
    """
    if dtype_conversion_mode not in MODES:
        raise ValueError(f"The provided promotion mode {dtype_conversion_mode} does not exist. "
                         "Make sure the provided dtype conversion mode is one of the "
                         "followings: 'off', 'legacy', 'safe' or 'all'.")
    _install_methods()
    _install_getitem()
    _promotion.uninstall(_restore)
    _restore(PROMOTED_NAMES)
    if dtype_conversion_mode == "legacy":
        _install_promotion()
    elif dtype_conversion_mode in ("safe", "all"):
        _promotion.install(_set, PROMOTED_NAMES)
    _core.config.mode = dtype_conversion_mode
    _core.config.prefer_float32 = bool(prefer_float32)


def _disable():
    """Undo ``experimental_enable_numpy_behavior`` (TF has no public way; tests need one)."""
    _promotion.uninstall(_restore)
    _restore(list(_saved))
    _core.config.prefer_float32 = False
    _core.config.mode = "off"


def _set(name, value, cls=Tensor):
    if (cls, name) not in _saved:
        _saved[cls, name] = vars(cls).get(name, _ABSENT)
    if cls is Tensor and name in Tensor.OVERLOADABLE_OPERATORS:
        Tensor._override_operator(name, value)
    else:
        setattr(cls, name, value)


def _restore(keys):
    for key in keys:
        old = _saved.pop(key if isinstance(key, tuple) else (Tensor, key), None)
        if old is None:
            continue
        cls, name = key if isinstance(key, tuple) else (Tensor, key)
        if old is _ABSENT:
            delattr(cls, name)
        else:
            setattr(cls, name, old)


# --- methods ------------------------------------------------------------------------------------
def _tensor_size(self):
    if not self.shape.is_fully_defined():
        return None
    return np.prod(self.shape.as_list())


def _tensor_tolist(self):
    if not isinstance(self, EagerTensor):
        raise ValueError("Symbolic Tensors do not support the tolist API.")
    return self.numpy().tolist()


def _astype(self, dtype, name=None):
    return cast(self, dtype)


def _install_methods():
    _set("T", property(lambda self: self.transpose()))
    _set("ndim", property(lambda self: self.shape.ndims))
    _set("size", property(_tensor_size))
    _set("__pos__", lambda self: self)
    _set("tolist", _tensor_tolist)
    _set("transpose", transpose)
    _set("flatten", flatten)
    _set("reshape", _reshape_method)
    _set("ravel", ravel)
    _set("clip", clip)
    _set("astype", _astype)
    _set("__round__", around)
    _set("max", amax)
    _set("mean", mean)
    _set("min", amin)
    _set("data", property(lambda self: self))


# --- promotion ----------------------------------------------------------------------------------
_SCALAR_RESULTS = {}  # (tensor dtype, Python type, prefer_float32) -> the promoted DType


def _promote_operands(a, b):
    """TF's ``maybe_promote_tensors`` in legacy mode: both operands as tensors of the NumPy
    result type (tensors cast, other values converted). A Python number that leaves the tensor's
    dtype as it is stays a number (the operator converts it as TF's does)."""
    if isinstance(a, Tensor):
        kind = type(b)
        if kind is int or kind is float or kind is bool:
            key = (a.dtype, kind, _core.config.prefer_float32)
            dtype = _SCALAR_RESULTS.get(key)
            if dtype is None:  # NumPy 2 promotes by the number's type, not its value
                dtype = _SCALAR_RESULTS[key] = _core.dtype_of(a.dtype.as_numpy_dtype, kind(0))
            if dtype == a.dtype:
                return a, b
            return cast(a, dtype), convert_to_tensor(b, dtype)
        if isinstance(b, Tensor) and b.dtype == a.dtype:
            return a, b
    values = (a, b)
    dtype = _core.dtype_of(*[_core.dtype_source(x) for x in nest.flatten(list(values))])
    out = []
    for x in values:
        if isinstance(x, Tensor):
            out.append(x if x.dtype == dtype else cast(x, dtype))
        elif hasattr(x, "_as_graph_or_eager_tensor"):
            x = convert_to_tensor(x)
            out.append(x if x.dtype == dtype else cast(x, dtype))
        else:
            out.append(convert_to_tensor(x, dtype))
    return out


def _promoting(name, original):
    """``original`` (Tensor's operator ``name``) after NumPy promotion of both operands; a
    failure gives the other value's reflected operator a chance, as TF's wrapper does."""
    reflected = name.startswith("__r") and name[3:-2] in PROMOTED

    def operator(self, other):
        if other is None and name in ("__eq__", "__ne__"):
            return original(self, other)
        if reflected:
            self, other = _promote_operands(self, other)
            return original(self, other)
        try:
            a, b = _promote_operands(self, other)
            return original(a, b)
        except (TypeError, ValueError) as e:
            r_op = getattr(type(other), f"__r{name[2:]}", None)
            if r_op is not None and name[2:-2] in PROMOTED:
                try:
                    out = r_op(other, self)
                except (TypeError, ValueError):
                    raise e from None
                if out is not NotImplemented:
                    return out
            raise

    operator.__name__ = name
    operator._promoting = True
    return operator


def _install_promotion():
    for name in PROMOTED_NAMES:
        if not getattr(vars(Tensor).get(name), "_promoting", False):
            _set(name, _promoting(name, getattr(Tensor, name)))


# --- indexing -----------------------------------------------------------------------------------
def _install_getitem():
    if (Tensor, "__getitem__") in _saved:
        return
    original = Tensor.__getitem__

    def getitem(self, slice_spec):
        spec = None if getattr(_tf_slicing, "on", False) else _advanced_spec(slice_spec)
        if spec is None:
            return original(self, slice_spec)
        return _advanced_getitem(self, spec, original)

    original_variable = Variable.__getitem__

    def variable_getitem(self, slice_spec):
        """TF slices a variable as before (its NumPy slicing is for tensors only)."""
        _tf_slicing.on = True
        try:
            return original_variable(self, slice_spec)
        finally:
            _tf_slicing.on = False

    getitem.__name__ = variable_getitem.__name__ = "__getitem__"
    _set("__getitem__", getitem)
    _set("__getitem__", variable_getitem, Variable)


def _is_array_index(s):
    """An index entry NumPy takes as an array (TF's ``_as_index`` converts it with asarray)."""
    if isinstance(s, (list, tuple)):
        return True
    if isinstance(s, np.ndarray):
        return s.ndim != 0
    return isinstance(s, Tensor) and s.shape.rank != 0


def _advanced_spec(spec):
    """The index tuple when ``spec`` needs NumPy's advanced indexing, else None (TF's own
    slicing handles it)."""
    if isinstance(spec, (bool, np.bool_)):
        return None
    if isinstance(spec, (Tensor, np.ndarray)) and np.dtype(
            spec.dtype.as_numpy_dtype if isinstance(spec, Tensor) else spec.dtype) == np.bool_:
        return None  # a boolean mask: TF's boolean_mask
    if isinstance(spec, list):
        if any(s is None or s is Ellipsis or isinstance(s, (list, tuple, slice))
               or (isinstance(s, np.ndarray) and s.ndim != 0) for s in spec):
            spec = tuple(spec)
        else:
            spec = (spec,)
    elif not isinstance(spec, tuple):
        spec = (spec,)
    return spec if any(_is_array_index(s) for s in spec) else None


def _advanced_getitem(t, spec, original):
    """NumPy's indexing with integer (and 1-D boolean) arrays: basic slices first, then one
    gather_nd over the indexed axes, whose broadcast shape goes where NumPy puts it."""
    rank = t.shape.rank
    real = sum(1 for s in spec if s is not None and s is not Ellipsis)
    entries = []
    for s in spec:
        if s is Ellipsis:
            entries.extend([slice(None)] * (rank - real))
        else:
            entries.append(s)
    new_axes = sum(1 for s in entries if s is None)
    entries.extend([slice(None)] * (rank + new_axes - len(entries)))
    if new_axes:  # new axes first, then each is a full slice
        dims = [d if d is not None else -1 for d in t.shape.as_list()]
        new_shape, k = [], 0
        for s in entries:
            if s is None:
                new_shape.append(1)
            else:
                new_shape.append(dims[k])
                k += 1
        t = _reshape(t, new_shape)
        entries = [slice(None) if s is None else s for s in entries]
    t = original(t, tuple(s if isinstance(s, slice) else slice(None) for s in entries))
    dims = t.shape.as_list()
    positions, indices = [], []
    for axis, s in enumerate(entries):
        if isinstance(s, slice):
            continue
        idx = _core.asarray(s)
        if idx.dtype is D.bool:
            if idx.shape.rank != 1:
                raise NotImplementedError(f"Need rank 1 for bool index {s}")
            idx = _reshape(where(idx), [-1])
        if not idx.dtype.is_integer:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                             f"(`None`) and integer or boolean arrays are valid indices, got "
                             f"{s!r}")
        idx = cast(idx, D.int64)
        idx = where(idx < 0, idx + dims[axis], idx)
        positions.append(axis)
        indices.append(idx)
    shape = _shape(indices[0], out_type=D.int64)
    for idx in indices[1:]:
        shape = broadcast_dynamic_shape(shape, _shape(idx, out_type=D.int64))
    rest = [i for i in range(len(dims)) if i not in positions]
    moved = _transpose(t, positions + rest) if positions + rest != list(range(len(dims))) else t
    out = gather_nd(moved, stack([broadcast_to(i, shape) for i in indices], axis=-1))
    first, n_b = positions[0], out.shape.rank - len(rest)
    if positions == list(range(first, first + len(positions))) and first:
        perm = list(range(n_b, n_b + first)) + list(range(n_b)) + \
            list(range(n_b + first, out.shape.rank))
        out = _transpose(out, perm)
    return out

