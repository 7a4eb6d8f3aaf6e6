"""Load-time checks a saved graph must pass beyond ``graph.verify`` (which re-derives every op's
output specs through its ``infer``): constants hold values of their declared dtype, control-flow
sub-graphs take and return what their op feeds and declares, a function graph's inputs and
outputs match its signature, and loaded strings that later code formats (tf.print templates)
are data only. A file that fails any of them is refused before anything runs.

    check_function(graph, specs, where)   # raises FormatError naming the function and the op
"""

import re

import numpy as np

from .. import dtypes as D
from .. import nest
from ..graph.ir import Graph, subgraphs
from ..shapes import TensorShape
from ..tensor import Tensor, TensorSpec
from ..variables import VariableSpec
from .format import FormatError

_STREAMS = {"stderr", "stdout", "log(info)", "log(warning)", "log(error)"}
_WHILE = {"While", "StatelessWhile"}
_IF = {"If", "StatelessIf"}
_CASE = {"Case", "StatelessCase"}
# a tf.print template's pieces: literal text, ``{{``/``}}``, and fields ``{N}`` naming an input
_PIECE = re.compile(r"[^{}]+|\{\{|\}\}|\{([0-9]{1,6})\}")


def check_function(graph, specs, where):
    """Check a loaded function graph against its input ``specs``, then every op in it.

    Raises:
        FormatError: naming ``where`` and what does not fit.
    """
    flat = [s for s in nest.flatten(specs, expand_composites=True)  # composites: components
            if isinstance(s, (TensorSpec, VariableSpec))]
    if len(flat) != len(graph.inputs):
        raise FormatError(f"{where}: its signature has {len(flat)} tensor inputs, its graph "
                          f"{len(graph.inputs)}")
    for i, (spec, ph) in enumerate(zip(flat, graph.inputs)):
        dtype = D.resource if isinstance(spec, VariableSpec) else spec.dtype
        if ph.dtype != dtype or not TensorShape(spec.shape).is_compatible_with(ph.shape) and \
                dtype != D.resource:
            raise FormatError(f"{where}: input #{i} is declared {dtype.name} {spec.shape}, its "
                              f"placeholder {ph.name!r} is {ph.dtype.name} {ph.shape}")
    check_graph(graph, where)


def check_graph(graph, where):
    """Check ``graph``'s outputs and every op in it and in its sub-graphs."""
    if len({id(t) for t in graph.inputs}) != len(graph.inputs):
        raise FormatError(f"{where}: graph {graph.name!r} lists an input twice")
    flat = [t for t in nest.flatten(graph.structured_outputs, expand_composites=True)
            if isinstance(t, Tensor)]
    if len(flat) != len(graph.outputs) or any(a is not b for a, b in zip(flat, graph.outputs)):
        raise FormatError(f"{where}: graph {graph.name!r} has outputs "
                          f"{[t.name for t in graph.outputs]}, its structured outputs hold "
                          f"{[t.name for t in flat]}")
    fed = {id(t) for t in _feeds(graph)}
    for op in graph.get_operations():
        context = f"{where}: op {op.name!r} ({op.type})"
        if op.type == "Placeholder" and id(op.outputs[0]) not in fed:
            _fail(context, f"graph {graph.name!r} never feeds this placeholder")
        check = _CHECKS.get(op.type)
        if check is not None:
            check(op, context)
        elif subgraphs(op.attrs):
            raise FormatError(f"{context} holds sub-graphs, which only control-flow ops do")
        for _, sub in subgraphs(op.attrs):
            check_graph(sub, where)


# --- per-op checks --------------------------------------------------------------------------------
def _fail(context, message):
    raise FormatError(f"{context}: {message}")


def _const(op, context):
    value, dtype = op.attrs.get("value"), op.attrs.get("dtype")
    if not isinstance(value, (np.ndarray, np.generic)) or not isinstance(dtype, D.DType):
        _fail(context, "its value is not an array of a dtype")
    if dtype._np is None or np.asarray(value).dtype != dtype._np:
        _fail(context, f"declares dtype {dtype.name} but holds {np.asarray(value).dtype} values")


def _feeds(graph):
    return list(graph.inputs) + [ph for _, ph in graph.captures]


def _fits(context, what, placeholders, values):
    """Each placeholder takes the value fed to it: same dtype, compatible shape."""
    if len(placeholders) != len(values):
        _fail(context, f"{what} takes {len(placeholders)} values, the op feeds it {len(values)}")
    for ph, value in zip(placeholders, values):
        if ph.dtype != value.dtype or not ph.shape.is_compatible_with(value.shape):
            _fail(context, f"{what} takes {ph.dtype.name} {ph.shape} as {ph.name!r}, the op "
                           f"feeds it {value.name!r} ({value.dtype.name} {value.shape})")


def _types(op, context, dtypes_key):
    dtypes, shapes = op.attrs.get(dtypes_key), op.attrs.get("output_shapes")
    if not isinstance(dtypes, (tuple, list)) or not all(isinstance(d, D.DType) for d in dtypes) \
            or not isinstance(shapes, (tuple, list)) or len(shapes) != len(dtypes):
        _fail(context, f"its {dtypes_key} and output_shapes attrs do not describe its outputs")
    try:
        return [TensorSpec(s, d) for s, d in zip(shapes, dtypes)]
    except (TypeError, ValueError) as e:
        _fail(context, f"invalid output_shapes: {e}")


def _returns(context, what, graph, specs):
    if len(graph.outputs) != len(specs):
        _fail(context, f"{what} returns {len(graph.outputs)} values, the op declares "
                       f"{len(specs)}")
    for t, spec in zip(graph.outputs, specs):
        if t.dtype != spec.dtype or not spec.shape.is_compatible_with(t.shape):
            _fail(context, f"{what} returns {t.name!r} as {t.dtype.name} {t.shape}, the op "
                           f"declares {spec.dtype.name} {spec.shape}")


def _branches(op, context, graphs, args):
    specs = _types(op, context, "Tout")
    for name, branch in graphs:
        if not isinstance(branch, Graph):
            _fail(context, f"{name} is not a graph")
        # the kernel feeds captures first, the generated code inputs first: both must fit
        _fits(context, name, _feeds(branch), args)
        _fits(context, name, [ph for _, ph in branch.captures] + list(branch.inputs), args)
        _returns(context, name, branch, specs)


def _if(op, context):
    _branches(op, context, [("then_branch", op.attrs.get("then_branch")),
                            ("else_branch", op.attrs.get("else_branch"))], op.inputs[1:])


def _case(op, context):
    branches = op.attrs.get("branches")
    if not isinstance(branches, (tuple, list)) or not branches:
        _fail(context, "its branches attr is not a list of graphs")
    if op.inputs[0].dtype != D.int32:
        _fail(context, f"its branch index is {op.inputs[0].dtype.name}, not int32")
    _branches(op, context, [(f"branches[{i}]", b) for i, b in enumerate(branches)],
              op.inputs[1:])


def _while(op, context):
    specs = _types(op, context, "T")
    n, inputs = len(specs), list(op.inputs)
    if op.attrs.get("has_maximum_iterations"):
        if not inputs or inputs[0].dtype not in (D.int32, D.int64) or inputs[0].shape.rank:
            _fail(context, "its maximum_iterations input is not an integer scalar")
        inputs = inputs[1:]
    if len(inputs) < n:
        _fail(context, f"it has {n} loop variables but {len(inputs)} inputs")
    values, captured = inputs[:n], inputs[n:]
    for value, spec in zip(values, specs):
        if value.dtype != spec.dtype or not spec.shape.is_compatible_with(value.shape):
            _fail(context, f"loop variable {value.name!r} is {value.dtype.name} {value.shape}, "
                           f"the op declares {spec.dtype.name} {spec.shape}")
    for key in ("cond", "body"):
        graph = op.attrs.get(key)
        if not isinstance(graph, Graph):
            _fail(context, f"{key} is not a graph")
        if len(graph.inputs) != n or len(graph.captures) != len(captured):
            _fail(context, f"{key} takes {len(graph.inputs)} loop variables and "
                           f"{len(graph.captures)} captures, the op feeds {n} and "
                           f"{len(captured)}")
        _fits(context, key, _feeds(graph), values + captured)
    cond, body = op.attrs["cond"], op.attrs["body"]
    if len(cond.outputs) != 1 or cond.outputs[0].dtype != D.bool:
        _fail(context, "cond does not return one bool")
    _returns(context, "body", body, [TensorSpec(ph.shape, ph.dtype) for ph in body.inputs])


def _print(op, context):
    attrs = op.attrs
    template = attrs.get("template")
    if not isinstance(template, str) or type(attrs.get("end")) is not str or \
            attrs.get("output_stream") not in _STREAMS or type(attrs.get("summarize")) is not int:
        _fail(context, "malformed attrs")
    n = len(op.inputs)
    if template == "{0!s}" and n == 1 and op.inputs[0].dtype == D.string:
        return
    end = 0
    for piece in _PIECE.finditer(template):
        if piece.start() != end or piece.group(1) is not None and int(piece.group(1)) >= n:
            break
        end = piece.end()
    if end != len(template):
        _fail(context, f"invalid template {template!r}: only text and {{N}} fields naming "
                       f"one of its {n} inputs are allowed")


def _string_format(op, context):
    attrs = op.attrs
    template, placeholder = attrs.get("template"), attrs.get("placeholder")
    if type(template) is not str or type(placeholder) is not str or not placeholder or \
            type(attrs.get("summarize")) is not int:
        _fail(context, "malformed attrs")
    if template.count(placeholder) != len(op.inputs):
        _fail(context, f"its template has {template.count(placeholder)} placeholders for "
                       f"{len(op.inputs)} inputs")


_CHECKS = {"Const": _const, "PrintV2": _print, "StringFormat": _string_format,
           **dict.fromkeys(_WHILE, _while), **dict.fromkeys(_IF, _if),
           **dict.fromkeys(_CASE, _case)}
