"""TF's message texts, one place for each: dtype and shape as its runtime prints them, and the
errors its kernels and shape functions raise (these modules' public names would otherwise show
in ``tf.dtypes`` and ``tf.errors``).

    >>> input_dtype_error("AddV2", 1, tf.float32, tf.int32)
    InvalidArgumentError('cannot compute AddV2 as input #1(zero-based) was expected to be a
    float tensor but is a int32 tensor [Op:AddV2]')
"""

import os

import numpy as np

from .dtypes import DType, from_numpy
from .errors import InvalidArgumentError, NotFoundError, ResourceExhaustedError, invalid_argument
from .shapes import TensorShape

_C_NAMES = {"float32": "float", "float64": "double", "float16": "half"}
_ENUM_NAMES = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}


def c_name(dtype):
    """TF's C++ name of a DType or NumPy dtype, as its runtime errors spell it ("float")."""
    name = (dtype if isinstance(dtype, DType) else from_numpy(dtype)).name
    return _C_NAMES.get(name, name)


def enum_name(dtype):
    """The ``DT_`` suffix of a DType or NumPy dtype in TF's node texts ("FLOAT", "INT32")."""
    name = (dtype if isinstance(dtype, DType) else from_numpy(dtype)).name
    return _ENUM_NAMES.get(name, name.upper())


def shape_text(shape):
    """A shape as TF's runtime prints it: ``[2,?,3]`` (a TensorShape, or a sequence of dims).

    Unknown dimensions print as ``?``; an unknown rank as ``<unknown>``.
    """
    dims = shape.dims if isinstance(shape, TensorShape) else shape
    if dims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def input_dtype_error(op_name, index, expected, got):
    """Input ``index`` of ``op_name`` has dtype ``got`` where ``expected`` was due (DTypes or NumPy
    dtypes): TF's eager ``cannot compute ... as input #1(zero-based)`` error."""
    return invalid_argument(
        f"cannot compute {op_name} as input #{index}(zero-based) was expected to be a "
        f"{c_name(expected)} tensor but is a {c_name(got)} tensor", op_name)


def attr_dtype_error(op_name, attr, got, allowed):
    """A dtype outside the op's allowed list for type attr ``attr`` (eager)."""
    text = ", ".join(c_name(d) for d in allowed)
    return invalid_argument(f"Value for attr '{attr}' of {c_name(got)} is not in the list of "
                            f"allowed values: {text}", op_name)


def no_kernel_error(op_name, dtype, attrs=""):
    """The NotFoundError TF raises for a dtype its OpDef allows but no CPU kernel handles;
    ``attrs`` continues the node's attr list (``", Tidx=DT_INT32"``)."""
    return NotFoundError(
        None, None, f"Could not find device for node: {{{{node {op_name}}}}} = {op_name}"
        f"[T=DT_{enum_name(dtype)}{attrs}] [Op:{op_name}]")


def node_error(message, op_name, shapes, attrs="", args=""):
    """TF's graph-construction ValueError naming the node and its input shapes (texts)."""
    call = f"({args})" if args else ""
    return ValueError(f"{message} for '{{{{node {op_name}}}}} = {op_name}[{attrs}]{call}' with "
                      f"input shapes: {', '.join(shapes)}.")


def _attr_text(value):
    """An attr value as TF's node texts print it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)


def shape_fn_error(op_name, message, dtype, attrs, inputs, names=("a", "b")):
    """The ValueError a shape function raises while a graph is built, naming the node (its
    ``T``, then ``attrs``), its input names and the inputs' shapes (an unknown rank prints as
    ``?`` there)."""
    attr_text = ", ".join([f"T=DT_{enum_name(dtype)}"]
                          + [f"{k}={_attr_text(v)}" for k, v in attrs.items()])
    shapes = ["?" if t.shape.rank is None else shape_text(t.shape) for t in inputs]
    return node_error(message, op_name, shapes, attr_text, ", ".join(names[:len(inputs)]))


# The attrs that give an op's input or output counts (TF's number and type-list attrs), with how
# many inputs are not counted and how many lists share the count; TF names the one-op function
# it runs an eager op in after them.
_COUNT_ATTRS = {"AddN": (("N", 0, 1),), "ConcatV2": (("N", 0, 1),), "Einsum": (("N", 0, 1),),
                "Pack": (("N", 0, 1),), "ShapeN": (("N", 0, 1),), "StringJoin": (("N", 0, 1),),
                "DynamicStitch": (("N", 0, 2),), "ParallelDynamicStitch": (("N", 0, 2),),
                "SparseConcat": (("N", 0, 3),), "Assert": (("T", 1, 1),),
                "StringFormat": (("T", 0, 1),), "IdentityN": (("T", 0, 1),),
                "Split": (("num_split", 0, 1),), "SplitV": (("num_split", 0, 1),),
                "Unpack": (("num", 0, 1),), "EagerPyFunc": (("Tin", 0, 1), ("Tout", 0, 1))}


def kernel_error_text(message, op_name, n_inputs=0, attrs=None):
    """An eager kernel's error as TF 2.21 words it: TF runs each eager op as a one-op function,
    whose name leads the message, and the op's name ends it. An attr's error comes from building
    the kernel, before that function runs: it has no such name."""
    if message.startswith("Value for attr '"):
        return f"{message} [Op:{op_name}]"
    name = f"__wrapped__{op_name}"
    for attr, fixed, lists in _COUNT_ATTRS.get(op_name, ()):
        count = (attrs or {}).get(attr)
        if count is None:  # counted over the op's inputs
            count = (n_inputs - fixed) // lists
        elif not isinstance(count, int):
            count = len(count)
        name += f"_{attr}_{count}"
    return (f"{{{{function_node {name}_device_/job:localhost/replica:0/task:0/device:CPU:0}}}} "
            f"{message} [Op:{op_name}]")


def oom_error(shape, dtype, op_name=None):
    """The ResourceExhaustedError TF's CPU allocator raises for a tensor it cannot allocate."""
    try:
        type_text = c_name(dtype)
    except (TypeError, ValueError, KeyError):
        type_text = str(dtype)
    text = (f"OOM when allocating tensor with shape{shape_text(list(shape))} and type "
            f"{type_text} on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu")
    return ResourceExhaustedError(None, None, kernel_error_text(text, op_name) if op_name else text)


def merge_error_text(a, b):
    """TF's message when shape inference merges two incompatible TensorShapes."""
    if a.rank != b.rank:
        return f"Shapes must be equal rank, but are {a.rank} and {b.rank}"
    for i, (x, y) in enumerate(zip(a.dims, b.dims)):
        if x is not None and y is not None and x != y:
            return (f"Dimension {i} in both shapes must be equal, but are {x} and {y}. Shapes are "
                    f"{shape_text(a)} and {shape_text(b)}.")
    return f"Shapes {a} and {b} are not compatible"


def _memory_bytes():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 2**40


# A tensor bigger than this machine's memory cannot be allocated (TF's CPU allocator fails the
# same way); refusing it up front keeps NumPy from committing and filling pages until the
# process is killed (a lazily committed array can outgrow memory).
MAX_TENSOR_BYTES = _memory_bytes()


def check_size(dims, dtype, op_name=None):
    """Refuse a result of shape ``dims`` that cannot exist: more than 2**63 - 1 elements is TF's
    InvalidArgumentError, more bytes than the machine has is its OOM ResourceExhaustedError."""
    n = 1
    for d in dims:
        d = int(d)
        if d > 0 and n * d >= 2**63:
            text = f"Encountered overflow when multiplying {n} with {d}, result: -1"
            raise InvalidArgumentError(None, None,
                                       kernel_error_text(text, op_name) if op_name else text)
        n *= max(d, 0)
    if n * np.dtype(getattr(dtype, "_np", dtype)).itemsize > MAX_TENSOR_BYTES:
        raise oom_error(dims, dtype, op_name)
