"""Ops with effects outside the graph: ``tf.print`` (PrintV2) and ``tf.py_function``
(EagerPyFunc), both stateful (they run on every call, in program order); and
``tf.strings.format`` (StringFormat), which formats tensors as ``tf.print`` prints them."""

import functools
import re
import sys
import traceback

import numpy as np

from .. import dtypes as D
from .._export import tf_export
from .. import errors
from ..context import bind, state
from ..convert import convert_to_tensor, to_array
from ..errors import InvalidArgumentError
from ..registry import define_op
from ..tensor import EagerTensor, Tensor, TensorSpec
from ._args import check_nesting, int_arg

# TF prints floats like its C++ FloatToBuffer: the short form when it round-trips, else full.
_FLOAT_FORMATS = {np.dtype(np.float32): ("%.6g", "%.9g"), np.dtype(np.float64): ("%.15g", "%.17g")}


def _format_scalar(v):
    if isinstance(v, (bytes, np.bytes_)):
        return '"' + bytes(v).decode("utf-8", "backslashreplace") + '"'
    if isinstance(v, (np.bool_, bool)):
        return "1" if v else "0"
    if getattr(v, "dtype", None) == np.float16 or type(v).__name__ == "bfloat16":
        v = np.float32(v)  # TF prints half types through float
    formats = _FLOAT_FORMATS.get(getattr(v, "dtype", None))
    if formats is not None:
        short = formats[0] % v
        return short if v.dtype.type(short) == v or v != v else formats[1] % v
    return str(v)


def format_tensor(arr, summarize=3, depth=0):
    """Text of an array as ``tf.print`` writes it: ``[1 2 ... 8 9]``, nested rows indented."""
    arr = np.asarray(arr)
    if arr.ndim == 0:
        return _format_scalar(arr[()])
    n = arr.shape[0]
    if 0 <= summarize and n > 2 * summarize:
        rows = list(range(summarize)) + [None] + list(range(n - summarize, n))
    else:
        rows = range(n)
    if arr.ndim == 1:
        return "[" + " ".join("..." if i is None else _format_scalar(arr[i]) for i in rows) + "]"
    parts = ["..." if i is None else format_tensor(arr[i], summarize, depth + 1) for i in rows]
    return "[" + ("\n" * (arr.ndim - 1) + " " * (depth + 1)).join(parts) + "]"


@define_op("StringFormat")
class StringFormat:
    """A scalar string: ``template`` with each ``placeholder`` replaced by one input, printed as
    ``tf.print`` prints it."""

    def infer(*inputs, template, placeholder, summarize):
        return TensorSpec([], D.string)

    def kernel(*inputs, template, placeholder, summarize):
        pieces = template.split(placeholder)
        out = [pieces[0]]
        for value, piece in zip(inputs, pieces[1:]):
            out.append(format_tensor(value, summarize))
            out.append(piece)
        return np.array("".join(out).encode("utf-8"), dtype=object)


@tf_export("strings.format")
def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """Format ``inputs`` (a tensor or a list of them) into ``template`` as a scalar string."""
    if isinstance(inputs, (list, tuple)):
        values = list(inputs)
    else:
        values = [inputs]
    values = [convert_to_tensor(v) for v in values]
    count = template.count(placeholder)
    if count != len(values):
        raise ValueError(f"The template expects {count} tensors, but the inputs only has "
                         f"{len(values)}. Please ensure the number of placeholders in template "
                         f"matches inputs length.")
    return bind(StringFormat, *values, template=str(template), placeholder=str(placeholder),
                summarize=int_arg(summarize, "summarize"))


class _Hole:
    """Stands for a tensor inside a printed Python structure."""

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return f"\x00{self.index}\x00"

    __str__ = __repr__


def _template(inputs, sep, tensors):
    """A str.format template for ``inputs``, collecting the tensors it prints into ``tensors``."""

    def holes(x):
        if isinstance(x, Tensor) or hasattr(x, "_as_graph_or_eager_tensor"):
            tensors.append(convert_to_tensor(x))
            return _Hole(len(tensors) - 1)
        if isinstance(x, (list, tuple)):
            return type(x)(holes(v) for v in x) if not hasattr(x, "_fields") else \
                type(x)(*(holes(v) for v in x))
        if isinstance(x, dict):  # TF prints dicts in sorted key order (tf.nest's)
            return {k: holes(x[k]) for k in sorted(x, key=repr)}
        return x

    def text_of(x):
        x = holes(check_nesting(x, "inputs"))
        return x if isinstance(x, str) else str(x) if isinstance(x, (_Hole, list, tuple, dict)) \
            else repr(x)

    text = sep.join(text_of(x) for x in inputs)
    text = text.replace("{", "{{").replace("}", "}}")
    parts = text.split("\x00")
    return "".join("{" + p + "}" if i % 2 else p for i, p in enumerate(parts))


_FIELD = re.compile(r"\{\{|\}\}|\{(\d+)\}")


def _fill(template, texts):
    """``template`` with each ``{N}`` replaced by ``texts[N]`` and ``{{``/``}}`` by braces: plain
    substitution, never ``str.format`` (a template read from a file is data)."""
    def field(m):
        if m.group(1) is None:
            return m.group(0)[0]
        i = int(m.group(1))
        if i >= len(texts):
            raise InvalidArgumentError(None, None, f"PrintV2's template names input {i} of "
                                       f"{len(texts)}")
        return texts[i]
    return _FIELD.sub(field, template)


_STREAMS = {"stderr", "stdout", "log(info)", "log(warning)", "log(error)"}


@define_op("PrintV2", stateful=True)
class PrintV2:
    """Write formatted tensors to a stream each time it runs."""

    def infer(*inputs, template, end, output_stream, summarize):
        return ()

    def kernel(*arrays, template, end, output_stream, summarize):
        if template == "{0!s}":  # a lone scalar string: its text, unquoted
            text = bytes(np.asarray(arrays[0])[()]).decode("utf-8", "backslashreplace") + end
        else:
            text = _fill(template, [format_tensor(a, summarize) for a in arrays]) + end
        stream = sys.stdout if output_stream == "stdout" else sys.stderr
        stream.write(text)
        stream.flush()
        return ()


@tf_export("print")
def print_(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):
    """``tf.print``: print tensors (formatted by value) and Python values, on every call.

    Raises:
        ValueError: for an ``output_stream`` other than sys.stdout/sys.stderr or their names.
    """
    if output_stream is None or output_stream is sys.stderr:
        stream = "stderr"
    elif output_stream is sys.stdout:
        stream = "stdout"
    elif isinstance(output_stream, str) and output_stream in _STREAMS:
        stream = output_stream
    else:
        raise ValueError(f"Unsupported output stream, logging level, or file: {output_stream}. "
                         f"Supported streams are sys.stdout, sys.stderr, or a file path prefixed "
                         f"by 'file://'.")
    tensors = []
    template = _template(inputs, sep, tensors)
    if len(inputs) == 1 and isinstance(inputs[0], Tensor) and inputs[0].dtype is D.string \
            and inputs[0].shape.rank == 0:
        template = "{0!s}"  # TF prints a lone scalar string tensor as it is, unquoted
    summarize = -1 if summarize is None else int_arg(summarize, "summarize")
    op = bind(PrintV2, *tensors, template=template, end=end, output_stream=stream,
              summarize=summarize)
    return None if op == () else op  # None eagerly; the PrintV2 Operation in a graph, as TF


# TF's PyFunc kernel maps the Python exception its function raised to an error code; any other
# exception (a TF error raised inside the function included) is UNKNOWN.
_PY_ERRORS = ((ValueError, errors.InvalidArgumentError), (TypeError, errors.InvalidArgumentError),
              (StopIteration, errors.OutOfRangeError),
              (MemoryError, errors.ResourceExhaustedError),
              (NotImplementedError, errors.UnimplementedError))

# Runs a function under a gradient tape watching its float inputs: ``(tape, result)``. Set by
# the EagerPyFunc gradient rule (autodiff sits above ops), which loads before any tape needs it.
_body_tape = []


def _op_error(e):
    """The TF error for exception ``e`` from a py_function, with TF's message: the exception's
    class and text, then its formatted traceback."""
    kind = next((err for py, err in _PY_ERRORS if isinstance(e, py)), errors.UnknownError)
    lines = traceback.format_exception(type(e), e, e.__traceback__)
    return kind(None, None, f"{type(e).__name__}: {e}\n" + "".join(f"{x}\n" for x in lines))


class _PyCall:
    """The Python function of one ``tf.py_function`` op. When a gradient may be asked (a tape
    is active, or a traced gradient was built) a run keeps its tape, as TF's ``EagerFunc``
    keeps it in its tape cache, so that the gradient needs no second run of the body."""

    __slots__ = ("func", "graph_gradient", "last", "__weakref__")

    def __init__(self, func):
        self.func, self.graph_gradient, self.last = func, False, None

    def __call__(self, *args):
        if (state.tapes or self.graph_gradient) and EagerPyFunc.grad and _body_tape:
            tape, result = _body_tape[0](self.func, args)
            self.last = (tape, args, result)
            return result
        return self.func(*args)

    def gradient(self, n_inputs, *args):
        """The body's gradient: ``args`` are the op's inputs then its output gradients."""
        inputs, dys = args[:n_inputs], args[n_inputs:]
        last, self.last = self.last, None
        if last is None:  # the run kept no tape (none was active then): run the body again
            tape, result = _body_tape[0](self.func, inputs)
        else:
            tape, inputs, result = last
        outputs = list(result) if isinstance(result, (list, tuple)) else [result]
        grads = tape.gradient(outputs, list(inputs), output_gradients=list(dys))
        # TF's gradient functions turn a None gradient into a zero of the input's dtype
        return [convert_to_tensor(0, dtype=x.dtype) if g is None else g
                for g, x in zip(grads, inputs)]

    def __repr__(self):
        return f"<py_function {getattr(self.func, '__name__', self.func)!r}>"


def _no_variables(results):
    """TF's ``EagerFunc`` refuses to return a variable (its RuntimeError)."""
    for r in results:
        if hasattr(r, "_as_graph_or_eager_tensor") and hasattr(r, "assign"):
            raise RuntimeError(
                "Attempting to return a variable from an eagerly executed py_func. Only numeric "
                "data structures like Tensors or NumPy arrays should be returned; to return the "
                "value of a variable, make sure to obtain the Tensor backing it by calling "
                f"`.read_value()` on the variable in question: {r}")


@define_op("EagerPyFunc", stateful=True)
class EagerPyFunc:
    """Run a Python function on tensors on every call (``tf.py_function``)."""

    def infer(*inputs, func, Tout):
        return tuple(TensorSpec(None, d) for d in Tout)

    def kernel(*arrays, func, Tout):
        try:
            result = func(*(EagerTensor._wrap(a) for a in arrays))
            results = result if isinstance(result, (list, tuple)) else [result]
            if Tout:
                _no_variables(results)
        except Exception as e:  # noqa: BLE001 - TF's kernel maps every Python exception
            raise _op_error(e) from None
        if not Tout:
            return ()
        if len(results) != len(Tout):
            raise InvalidArgumentError(None, None, f"py_function returned {len(results)} values, "
                                       f"but Tout has {len(Tout)} dtypes")
        out = []
        for r, d in zip(results, Tout):
            if isinstance(r, EagerTensor):
                if r.dtype != d:
                    raise InvalidArgumentError(
                        None, None, f"ValueError: Tensor conversion requested dtype {d.name} for "
                        f"Tensor with dtype {r.dtype.name}: {r!r}")
                out.append(r._value)
            else:
                out.append(to_array(r._as_tensor_value() if hasattr(r, "_as_tensor_value")
                                    else r, d))
        return tuple(out)


@tf_export("py_function")
def py_function(func=None, inp=None, Tout=None, name=None):
    """``tf.py_function``: call ``func`` eagerly on every run, even inside a tf.function. With
    no ``func`` it is a decorator (``@tf.py_function(Tout=tf.float32)``): the decorated
    function's arguments are the inputs.

    Returns:
        A tensor if ``Tout`` is a single dtype, else a list of tensors.
    """
    if func is None:
        return functools.partial(py_function, inp=inp, Tout=Tout, name=name)
    if inp is None:  # decorating: the call's arguments are the inputs
        return functools.update_wrapper(
            lambda *args: py_function(func, list(args), Tout, name), func)
    if isinstance(inp, Tensor) or hasattr(inp, "_as_graph_or_eager_tensor"):
        inp = [inp]  # a single tensor, as TF accepts
    if not isinstance(inp, (list, tuple)):
        raise TypeError(f"`inp` must be a list of tensors, got {inp!r}")
    single = not isinstance(Tout, (list, tuple))
    touts = (D.as_dtype(Tout),) if single else tuple(D.as_dtype(d) for d in Tout)
    inputs = [convert_to_tensor(x) for x in inp]
    out = bind(EagerPyFunc, *inputs, func=_PyCall(func), Tout=touts)
    if not touts:
        return []
    out = out if isinstance(out, tuple) else (out,)
    return out[0] if single else list(out)


tf_export("numpy_function")(lambda func, inp, Tout, stateful=True, name=None:
                            py_function(func, inp, Tout, name))
