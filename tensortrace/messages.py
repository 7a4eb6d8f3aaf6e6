"""TF's message texts, one place for each: dtype and shape as its runtime prints them, and the
errors its kernels and shape functions raise (these modules' public names would otherwise show
in ``tf.dtypes`` and ``tf.errors``).

    >>> input_dtype_error("AddV2", 1, tf.float32, tf.int32)
    InvalidArgumentError('cannot compute AddV2 as input #1(zero-based) was expected to be a
    float tensor but is a int32 tensor [Op:AddV2]')
"""

import functools
import json
import os
import sys

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
    """A dtype outside the op's allowed list for type attr ``attr`` (eager). TF names the node
    and prints the op's registration after it; here where that registration is ``attr`` alone
    (TF's signature from tf_ops.json)."""
    text = ", ".join(c_name(d) for d in allowed)
    text = f"Value for attr '{attr}' of {c_name(got)} is not in the list of allowed values: {text}"
    doc = _tf_signatures().get(op_name) if op_name else None
    if doc and [a[0] for a in doc["attr"]] == [attr]:
        kinds = ", ".join(f"DT_{enum_name(d)}" for d in allowed)
        text += (f"\n\t; NodeDef: {{{{node {op_name}}}}}; Op<name={op_name}; signature="
                 f"{', '.join(doc['in'])} -> {', '.join(doc['out'])}; "
                 f"attr={attr}:type,allowed=[{kinds}]{_OP_FLAGS.get(op_name, '')}>")
    return invalid_argument(text, op_name)


# The flags TF's op registrations print after their attrs (of our single-attr ops).
_OP_FLAGS = {**dict.fromkeys(("BitwiseAnd", "BitwiseOr", "BitwiseXor", "Equal", "LogicalAnd",
                              "LogicalOr", "Mul", "NotEqual", "SquaredDifference"),
                             "; is_commutative=true"),
             "AddV2": "; is_commutative=true; is_aggregate=true"}
_TF_OPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "graph", "tf_ops.json")


@functools.cache
def _tf_signatures():
    """TF 2.21's op signatures (the data file graph/tf_attrs.py reads), read on a first error."""
    try:
        with open(_TF_OPS, encoding="utf-8") as f:
            return json.load(f)
    except OSError:
        return {}


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
                "Unpack": (("num", 0, 1),), "CTCBeamSearchDecoder": (("top_paths", 0, 1),),
                "EagerPyFunc": (("Tin", 0, 1), ("Tout", 0, 1))}


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_MACHINERY = {os.path.join(_PACKAGE, f) for f in ("context.py", "messages.py", "errors.py")}

# The arguments TF's public functions hand an op as the caller gave them. A value the fast path
# cannot take there (a list, tuple, string, NumPy scalar) sends TF down its slow path, whose
# errors carry no name tail. By default TF's generated wrapper: every parameter that is no attr
# of the op (tf_ops.json, and the attrs the call binds); here the parameters where that reads
# wrong (``other``: an operator's, which all but ``+``, ``/`` and ``@`` pass through), and ()
# where TF's function converts them.
_RAW_INPUTS = {
    **{op: () for op in ("AddV2", "MatMul", "BatchMatMulV2", "BatchMatMulV3", "Abs", "Cumsum",
                         "Cumprod", "Pack")},
    "Reshape": ("tensor", "shape"), "Transpose": ("perm",), "GatherV2": ("params", "indices"),
    "GatherNd": ("params", "indices"), "Tile": ("input", "multiples"),
    "Slice": ("input_", "begin", "size"), "Pad": ("paddings",), "PadV2": ("paddings",),
    "MirrorPad": ("paddings",), "BroadcastTo": ("input", "shape"), "Fill": ("dims",),
    "ReverseV2": ("tensor", "axis"), "ExpandDims": ("input",), "OneHot": ("indices",),
    "StridedSlice": ("begin", "end", "strides"), "Substr": ("input", "pos", "len"),
    "ArgMax": ("input",), "ArgMin": ("input",), "ConcatV2": ("values",),
    **{op: ("input_tensor", "axis") for op in ("Sum", "Prod", "Max", "Min", "Mean", "All", "Any")},
    **{op: ("x", "y", "other") for op in (
        "Mul", "Sub", "Maximum", "Minimum", "FloorMod", "Less", "LessEqual", "Greater",
        "GreaterEqual", "Equal", "NotEqual", "SquaredDifference", "Atan2", "Xlogy")},
    **{op: ("x",) for op in (
        "Sqrt", "Rsqrt", "Exp", "Expm1", "Log", "Log1p", "Sin", "Cos", "Tan", "Asin", "Acos",
        "Atan", "Sinh", "Cosh", "Tanh", "Neg", "Sign", "Square", "Erf", "Erfc", "Lgamma",
        "Digamma", "Floor", "Ceil", "Rint", "Reciprocal", "IsNan", "IsFinite", "IsInf")},
    "Relu": ("features",), "Elu": ("features",), "Selu": ("features",),
    "FloorDiv": ("other",), "Pow": ("y", "other"), "ReduceJoin": ("axis",),
}
# Ops whose public function TF wraps in a name scope that eager execution skips: their errors
# end "name: " whatever name the call gave (``tf.add(x, y, name="a")``).
_NAME_DROPPED = frozenset((
    "AddV2", "RealDiv", "FloorDiv", "Pow", "Xdivy", "Xlog1py", "DivNoNan", "MulNoNan", "Abs",
    "Sigmoid", "Relu6", "LeakyRelu", "MatMul", "BatchMatMulV2", "BatchMatMulV3", "Range",
    "Transpose",
    # tf.lookup's tables run their ops inside a name scope
    "LookupTableFindV2", "LookupTableInsertV2", "LookupTableRemoveV2", "LookupTableSizeV2",
    "LookupTableExportV2", "LookupTableImportV2", "InitializeTableV2",
    "InitializeTableFromTextFileV2"))
# Functions whose op TF runs by ``execute`` itself (tf.constant's Fill for a shape) or always
# hands a Python sequence (tf.norm's axes, a tuple): no tail.
_EXECUTED = {"constant": "tensortrace.convert", "norm": "tensortrace.ops.linalg.norms"}
# The name scope TF's Python operators keep eagerly for their op (``x[5]``: "strided_slice/").
_KEPT_SCOPES = {"StridedSlice": "strided_slice/"}


def _fast_input(value, sequence=False):
    """Whether TF's eager fast path takes ``value`` as an op input: not a list, tuple, string,
    complex or NumPy scalar (for a list input: a list or tuple of values it takes). None is an
    optional argument left out, which TF's function fills in; a function, a tensor or an array
    is taken (or is no input). ``sequence`` None: a parameter named after no input of TF's,
    which may feed a list input (py_function's ``inp``)."""
    if value is None:
        return True
    if sequence or sequence is None and isinstance(value, (list, tuple)):
        return isinstance(value, (list, tuple)) and all(map(_fast_input, value))
    if isinstance(value, (int, float)):
        return True
    return not isinstance(value, (np.generic, complex, list, tuple, str, bytes))


@functools.cache
def _signature_args(op_name):
    """TF's op's inputs (name -> whether a list) and attr names."""
    doc = _tf_signatures().get(op_name) or {"in": [], "attr": []}
    return ({a.split(":")[0]: "*" in a or "list(" in a for a in doc["in"]},
            frozenset(a[0] for a in doc["attr"]))


def _raw_inputs(op_name, code, attrs):
    """(parameter, is a list input) for each input TF's public function (``code``) passes
    through as given."""
    inputs, tf_attrs = _signature_args(op_name)
    names = _RAW_INPUTS.get(op_name)
    if names is not None:
        return [(name, inputs.get(name, False)) for name in names]
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    # a parameter named after no input of TF's may feed a list input (py_function's inp)
    return [(p, inputs.get(p)) for p in params if p not in tf_attrs and p not in (attrs or ())
            and p not in ("name", "dtype", "self")]


def eager_name_tail(op_name, attrs=None):
    """The `` name: ...`` TF 2.21 appends to an eager op's error when its generated wrapper ran
    the op by the fast path: the name that wrapper got (the call's ``name``, or its default:
    ``concat``; nothing where TF's function scopes it away), and no tail at all when an input
    went to the op as a value the fast path cannot take. Read from the call stack (the nearest
    package function taking a ``name``, else the one user code called): errors only."""
    frame, outer, named = sys._getframe(1), None, False
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        code = frame.f_code
        if "name" in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]:
            named = True
            break
        if code.co_filename not in _MACHINERY:  # bind itself is no call of the user's
            outer = frame
        frame = frame.f_back
    where = frame if named else outer
    local = where.f_locals if where is not None else {}
    for arg, sequence in _raw_inputs(op_name, where.f_code, attrs) if where else ():
        if arg in local and not _fast_input(local[arg], sequence):
            return ""
    if named and frame.f_code.co_qualname in _EXECUTED and frame.f_globals.get(
            "__name__") == _EXECUTED[frame.f_code.co_qualname]:
        return ""
    if not named:  # an operator: no name, or the scope TF keeps (x[5]: "strided_slice/")
        return f" name: {_KEPT_SCOPES.get(op_name, '')}"
    name = local.get("name")
    if op_name in _NAME_DROPPED or not isinstance(name, str):
        name = ""
    return f" name: {name}"


def kernel_error_text(message, op_name, n_inputs=0, attrs=None, tail=None):
    """An eager kernel's error as TF 2.21 words it: TF runs each eager op as a one-op function,
    whose name leads the message, and the op's name ends it, followed by ``tail`` (default: the
    call's ``eager_name_tail``). An attr's error comes from building the kernel, before that
    function runs: it has no such name."""
    if tail is None:
        tail = eager_name_tail(op_name, attrs)
    if message.startswith("Value for attr '"):
        return f"{message} [Op:{op_name}]{tail}"
    name = f"__wrapped__{op_name}"
    for attr, fixed, lists in _COUNT_ATTRS.get(op_name, ()):
        count = (attrs or {}).get(attr)
        if count is None:  # counted over the op's inputs
            count = (n_inputs - fixed) // lists
        elif not isinstance(count, int):
            count = len(count)
        name += f"_{attr}_{count}"
    return (f"{{{{function_node {name}_device_/job:localhost/replica:0/task:0/device:CPU:0}}}} "
            f"{message} [Op:{op_name}]{tail}")


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


def check_size(dims, dtype, op_name=None, product=False):
    """Refuse a result of shape ``dims`` that cannot exist: more than 2**63 - 1 elements is TF's
    InvalidArgumentError (worded as TF's shape check, or with ``product`` as its overflowing
    multiplication, Tile's), more bytes than the machine has is its OOM ResourceExhaustedError."""
    n = 1
    for d in dims:
        d = int(d)
        if d > 0 and n * d >= 2**63:
            text = (f"Encountered overflow when multiplying {n} with {d}, result: -1" if product
                    else f"Shape {shape_text([int(x) for x in dims])} would have more than "
                         f"2**63 - 1 elements")
            raise InvalidArgumentError(None, None,
                                       kernel_error_text(text, op_name) if op_name else text)
        n *= max(d, 0)
    if n * np.dtype(getattr(dtype, "_np", dtype)).itemsize > MAX_TENSOR_BYTES:
        raise oom_error(dims, dtype, op_name)
