"""TF's ``FunctionDef`` and ``GraphDef`` protocol buffers -> tensortrace graphs ready to compile.

Nodes are rebuilt through the op registry in dependency order (a FunctionDef lists its nodes in
any order) with TF's attrs translated back (``tf_attrs``): constant inputs that tensortrace holds
as attrs become attrs again, type attrs TF derives are dropped, ``_tt_*`` attrs are ours. Inside
function bodies inputs are TF's ``node:out_arg:index`` strings, in a GraphDef ``node:index``.
Function calls (PartitionedCall, StatefulPartitionedCall) are inlined from the library; If, Case
and While take their branches and bodies from it as sub-graphs (an If/Case branch captures the
op's inputs; a While's loop variables are all TF's). Resource ops stay: a FunctionDef's resource
arguments are placeholders a loader feeds with variables; a GraphDef's VarHandleOp nodes become
resource placeholders listed in ``graph.variable_handles``. Nothing runs while parsing (only the
trace-time folding of small constants tracing does too); the graph is verified before it is
returned.

    graph = function_def_to_graph(fdef, library)   # then executor.compile_graph(graph, name)
"""

import platform

import numpy as np

from .. import errors
from ..registry import get as get_op
from ..shapes import TensorShape
from ..tensor import TensorSpec
from . import tensor_proto, tf_attrs
from .graph_def import graph_to_function_def  # noqa: F401 - the pair's other half
from .ir import Graph, _propagate_static
from .tf_attrs import EXTRA_PREFIX, INPUT_ATTRS, RENAMES, TF_PRIVATE
from .verify import verify

_CALLS = ("PartitionedCall", "StatefulPartitionedCall")

class GraphImportError(ValueError):
    """A GraphDef or FunctionDef that cannot be rebuilt (named, with the node)."""


def not_registered(op_type):
    """TF's NotFoundError for an op type this binary lacks."""
    return errors.NotFoundError(
        None, None, f"Op type not registered '{op_type}' in binary running on {platform.node()}. "
        "Make sure the Op and Kernel are registered in the binary running in this process. Note "
        "that if you are loading a saved graph which used ops from tf.contrib (e.g. "
        "`tf.contrib.resampler`), accessing should be done before importing the graph, as "
        "contrib ops are lazily registered when the module is first accessed.")


def _library(library):
    """``library`` (a FunctionDefLibrary, a list of FunctionDefs or a dict) as name -> fdef."""
    if library is None:
        return {}
    if isinstance(library, dict):
        return library
    functions = getattr(library, "function", library)
    return {f.signature.name: f for f in functions}


def function_def_to_graph(fdef, library=None, input_specs=None):
    """A Graph of ``fdef``: one placeholder per ``signature.input_arg`` (``graph.inputs``), its
    ``ret`` values in ``output_arg`` order as ``graph.outputs``. ``library`` resolves the
    functions it calls; ``input_specs`` (TensorSpecs) refine the arguments' shapes.

    Raises:
        NotFoundError: for an op type tensortrace does not have.
        ValueError: for a malformed function.
    """
    importer = _Importer(_library(library))
    graph = importer.function(fdef, input_specs)
    return verify(graph)


def graph_def_to_graph(graph_def, name="graph"):
    """A Graph of a ``GraphDef``'s nodes: its Placeholders are ``graph.inputs`` (then the
    VarHandleOp placeholders, also in ``graph.variable_handles``: name -> the handle's attrs);
    ``graph.outputs`` is empty (pick tensors with ``get_tensor_by_name``)."""
    importer = _Importer(_library(graph_def.library))
    graph = Graph(name)
    graph.structured_outputs = []
    graph.variable_handles = {}
    body = _Body(importer, graph, function=False)
    body.build(list(graph_def.node), {})
    placeholders = [op.outputs[0] for op in graph.get_operations() if op.type == "Placeholder"]
    handles = [t for t in placeholders if t.op.name in graph.variable_handles]
    graph.inputs = [t for t in placeholders if t.op.name not in graph.variable_handles] + handles
    return verify(graph)


def import_into(graph, graph_def, input_map, prefix):
    """Import ``graph_def``'s nodes into ``graph`` (the graph being built), named under
    ``prefix``; ``input_map`` ({"node:index": tensor of ``graph``}) replaces those outputs (a
    mapped Placeholder is not imported). Returns {node name: (outputs, operation or None)}.

    Raises:
        ValueError: for input_map keys naming no node of the GraphDef (TF's message), or a
            malformed GraphDef.
        NotFoundError: for an op type tensortrace does not have.
    """
    names = {n.name for n in graph_def.node}
    unused = [k for k in input_map if k.split(":")[0] not in names]
    if unused:
        raise ValueError("Attempted to map inputs that were not found in graph_def: "
                         f"[{', '.join(sorted(unused))}]")
    body = _Body(_Importer(_library(graph_def.library)), graph, function=False, prefix=prefix)
    body.mapped = dict(input_map)
    body.build(list(graph_def.node), {})
    return {name: (entry[2], entry[3]) for name, entry in body.nodes.items()}


class _Importer:
    def __init__(self, library):
        self.library = library

    def fdef(self, name, where):
        found = self.library.get(name)
        if found is None:
            raise GraphImportError(f"{where}: function {name!r} is not in the library")
        return found

    def function(self, fdef, input_specs=None, outer=None, captured=None):
        """A graph of ``fdef``; with ``captured`` (outer tensors), its arguments are captures of
        those (an If/Case branch), else inputs."""
        sig = fdef.signature
        graph = Graph(sig.name, outer=outer)
        args = {}
        listed = tf_attrs.decode(fdef.attr["_input_shapes"]) if "_input_shapes" in fdef.attr \
            else ()
        with graph.as_default():
            for i, arg in enumerate(sig.input_arg):
                dtype = _arg_dtype(arg, fdef)
                shape = TensorShape(None)
                if input_specs is not None:
                    shape = input_specs[i].shape
                elif i in fdef.arg_attr and "_output_shapes" in fdef.arg_attr[i].attr:
                    shapes = tf_attrs.decode(fdef.arg_attr[i].attr["_output_shapes"])
                    shape = TensorShape(shapes[0]) if shapes else shape
                elif len(listed) == len(sig.input_arg):  # a SavedModel function's own list
                    shape = TensorShape(listed[i])
                ph = graph.placeholder(TensorSpec(shape, dtype), arg.name)
                args[arg.name] = ph
        if captured is not None:
            graph.captures = list(zip(captured, args.values()))
            for value, ph in graph.captures:
                graph._capture_index[id(value)] = ph
                graph._capture_index[id(ph)] = ph
        else:
            graph.inputs = list(args.values())
        body = _Body(self, graph, function=True)
        body.build(list(fdef.node_def), args)
        graph.outputs = [body.resolve(fdef.ret[o.name], f"function {sig.name!r}: return value")
                         for o in sig.output_arg]
        graph.structured_outputs = list(graph.outputs)
        return graph


def _arg_dtype(arg, fdef):
    if arg.type_attr or arg.type_list_attr or arg.number_attr:
        raise GraphImportError(f"function {fdef.signature.name!r}: argument {arg.name!r} has a "
                           "polymorphic type; only functions with concrete types can be imported")
    return tensor_proto.dtype_from_enum(arg.type)


def _topological(nodes, where):
    """``nodes`` ordered so each follows the nodes it reads (TF lists them in any order)."""
    by_name = {n.name: n for n in nodes}
    order, state = [], {}
    for root in nodes:
        if root.name in state:
            continue
        stack = [(root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                state[node.name] = 2
                order.append(node)
                continue
            if state.get(node.name) == 2:
                continue
            if state.get(node.name) == 1:
                continue
            state[node.name] = 1
            stack.append((node, True))
            for inp in node.input:
                dep = by_name.get(inp.lstrip("^").split(":")[0])
                if dep is None:
                    continue
                if state.get(dep.name) == 1:
                    raise GraphImportError(f"{where}: nodes {node.name!r} and {dep.name!r} form a "
                                       "cycle")
                if dep.name not in state:
                    stack.append((dep, False))
    return order


class _Body:
    """Rebuilds one body's nodes into ``graph``: ``resolve`` turns TF's input strings into
    tensors."""

    def __init__(self, importer, graph, function, prefix=""):
        self.importer, self.graph, self.function, self.prefix = importer, graph, function, prefix
        self.args = {}
        self.nodes = {}  # node name -> (op type, decoded TF attrs, outputs, control op)
        self.mapped = {}  # "node:index" -> the tensor replacing it (import_graph_def's input_map)

    def build(self, nodes, args):
        self.args = args
        where = f"function {self.graph.name!r}" if self.function else "GraphDef"
        with self.graph.as_default():
            for node in _topological(nodes, where):
                self.node(node)

    def resolve(self, ref, where):
        if ref.startswith("^"):
            raise GraphImportError(f"{where}: {ref!r} is a control input, not a tensor")
        parts = ref.split(":")
        if self.function and len(parts) == 1:
            if ref in self.args:
                return self.args[ref]
            raise GraphImportError(f"{where}: {ref!r} is not an argument of the function")
        name = parts[0]
        entry = self.nodes.get(name)
        if entry is None:
            if not self.function and name in self.args:
                return self.args[name]
            raise GraphImportError(f"{where}: input {ref!r} names no node")
        op_type, attrs, outputs, _ = entry
        if self.function:
            if len(parts) != 3:
                raise GraphImportError(f"{where}: input {ref!r} is not of TF's form "
                                   "node:out_arg:index")
            index = _output_index(op_type, attrs, parts[1], int(parts[2]), ref, where)
        else:
            index = int(parts[1]) if len(parts) > 1 else 0
        if not self.function and f"{name}:{index}" in self.mapped:
            return self.mapped[f"{name}:{index}"]
        if not 0 <= index < len(outputs):
            raise GraphImportError(f"{where}: input {ref!r} names output {index} of a node with "
                               f"{len(outputs)} outputs in tensortrace")
        return outputs[index]

    def control(self, ref, where):
        entry = self.nodes.get(ref[1:])
        if entry is None:
            raise GraphImportError(f"{where}: control input {ref!r} names no node")
        return entry[3]

    def node(self, node):
        where = f"node '{node.name}' ({node.op})"
        data = [self.resolve(r, where) for r in node.input if not r.startswith("^")]
        control = [c for r in node.input if r.startswith("^")
                   for c in [self.control(r, where)] if c is not None]
        attrs = dict(node.attr)
        if node.op == "Placeholder" and f"{node.name}:0" in self.mapped:
            self.nodes[node.name] = (node.op, {}, [self.mapped[f"{node.name}:0"]], None)
            return
        handler = _HANDLERS.get(node.op)
        if handler is not None:
            outputs, op = handler(self, node, data, attrs, where)
        else:
            outputs, op = self.generic(node, data, attrs, where)
        if op is not None and control and op.type != "Const":
            # a constant's control inputs only order it (TF's gradient graphs have them); the
            # optimizer folds and moves constants, and stateful ops run regardless
            op.control_inputs = tuple(op.control_inputs) + tuple(control)
        sig = tf_attrs.signature(node.op)
        decoded = {} if sig is None else {k: tf_attrs.decode(attrs[k]) for k in sig.bound
                                          if k in attrs}
        self.nodes[node.name] = (node.op, decoded, list(outputs), op)

    def add(self, op_type, name, inputs, attrs):
        """Append one op of ``op_type`` (its outputs from the record's shape rule)."""
        for t in inputs:
            if isinstance(t, _Partial):
                raise GraphImportError(f"node '{name}' ({op_type}) reads {t.what}, which "
                                       "tensortrace has only as part of its own ops")
        try:
            opdef = get_op(op_type)
        except KeyError:
            raise not_registered(op_type) from None
        try:
            specs = opdef.infer(*inputs, **attrs)
        except (errors.OpError, ValueError, TypeError) as e:
            raise GraphImportError(f"node '{name}' ({op_type}) does not accept its inputs and "
                                   f"attrs: {type(e).__name__}: {e}") from None
        single = isinstance(specs, TensorSpec)
        op = self.graph.add_op(op_type, inputs, attrs, (specs,) if single else tuple(specs),
                               name=self.prefix + name)
        op.multi = not single
        if not opdef.stateful:
            _propagate_static(opdef, op, inputs, attrs)
        return op

    def generic(self, node, data, attrs, where):
        op_type = node.op
        try:
            get_op(op_type)
        except KeyError:
            raise not_registered(op_type) from None
        sig = tf_attrs.signature(op_type)
        ours = {k[len(EXTRA_PREFIX):]: tf_attrs.decode(v) for k, v in attrs.items()
                if k.startswith(EXTRA_PREFIX)}
        ours.update((k, tf_attrs.decode(attrs[k])) for k in TF_PRIVATE if k in attrs)
        inputs = data
        if sig is not None:
            inputs = []
            decoded = {k: tf_attrs.decode(attrs[k]) for k in sig.bound if k in attrs}
            from_attrs = INPUT_ATTRS.get(op_type, {})
            pos = 0
            for a in sig.inputs:
                try:
                    n = a.count(decoded)
                except KeyError as e:
                    raise GraphImportError(f"{where}: attr {e} is missing") from None
                got = data[pos:pos + n]
                pos += n
                if a.name in from_attrs:
                    attr, kind = from_attrs[a.name]
                    src = got[0] if got else None
                    if kind == "axes" and src is not None and _all_axes(src, data[0]):
                        ours[attr] = None
                        continue
                    # a constant, or a value known while importing (Range of constants)
                    value = None if src is None else src.op.attrs["value"] \
                        if src.op.type == "Const" else getattr(src, "static", None)
                    if value is None:
                        raise GraphImportError(f"{where}: input {a.name!r} must be a constant "
                                           "(tensortrace holds it as the attr "
                                           f"{attr!r})")
                    ours[attr] = tf_attrs.input_value(kind, value, f"{where}: {a.name}")
                else:
                    inputs.extend(got)
            names, extra = tf_attrs.our_attrs(op_type, len(inputs))
            back = {v: k for k, v in RENAMES.get(op_type, {}).items()}
            for k, v in attrs.items():
                if k.startswith("_") or v.WhichOneof("value") == "func":
                    continue
                mine = back.get(k, k)
                if mine in ours:
                    continue
                if mine in names or (extra and k not in sig.bound):
                    ours[mine] = tf_attrs.decode(v)
            for mine in names:  # SavedModels strip attrs at TF's default: restore them
                k = RENAMES.get(op_type, {}).get(mine, mine)
                if mine not in ours and k not in attrs and k in sig.attrs and sig.attrs[k][1]:
                    ours[mine] = tf_attrs.default(sig, k)
        else:
            for k, v in attrs.items():
                if not k.startswith("_") and k not in ours:
                    ours[k] = tf_attrs.decode(v)
        self.fill_required(op_type, len(inputs), ours, attrs, where)
        op = self.add(op_type, node.name, inputs, ours)
        return op.outputs, op

    def fill_required(self, op_type, n_inputs, ours, attrs, where):
        for name in tf_attrs.required_attrs(op_type, n_inputs):
            if name in ours:
                continue
            if (op_type, name) in tf_attrs.PLAIN:
                ours[name] = tf_attrs.PLAIN[op_type, name]
            elif name == "shape" and "_output_shapes" in attrs:  # ReadVariableOp & co.
                shapes = tf_attrs.decode(attrs["_output_shapes"])
                ours[name] = TensorShape(shapes[0] if shapes else None)
            elif name == "shape":
                ours[name] = TensorShape(None)
            else:
                raise GraphImportError(f"{where}: attr {name!r} is missing")


def _all_axes(t, x):
    """Whether ``t`` is Range(0, Rank(x), 1): every axis of ``x`` (TF's reduction over all the
    axes of a tensor of unknown rank)."""
    op = t.op
    if op.type != "Range" or len(op.inputs) != 3:
        return False
    start, rank, delta = op.inputs
    consts = [s.op.attrs["value"] if s.op.type == "Const" else None for s in (start, delta)]
    return rank.op.type == "Rank" and rank.op.inputs[0] is x and \
        consts[0] is not None and consts[1] is not None and \
        int(np.asarray(consts[0])) == 0 and int(np.asarray(consts[1])) == 1


def _output_index(op_type, attrs, arg, k, ref, where):
    sig = tf_attrs.signature(op_type)
    if sig is None or not sig.outputs or op_type in _CALLS or op_type == "IdentityN":
        return k
    for name, start, count in sig.output_ranges(attrs):
        if name == arg:
            if k >= count:
                break
            return start + k
    raise GraphImportError(f"{where}: input {ref!r} names no output of {op_type}")


# --- ops with their own translation --------------------------------------------------------------
def _placeholder(body, node, data, attrs, where):
    dtype = tf_attrs.decode(attrs["dtype"])
    shape = tf_attrs.decode(attrs["shape"]) if "shape" in attrs else TensorShape(None)
    if "_output_shapes" in attrs and shape.rank is None:
        shapes = tf_attrs.decode(attrs["_output_shapes"])
        shape = TensorShape(shapes[0]) if shapes else shape
    t = body.graph.placeholder(TensorSpec(shape, dtype), body.prefix + node.name)
    return [t], t.op


def _var_handle(body, node, data, attrs, where):
    if body.function:  # a function making a variable by handle (a generic resource's creator)
        return body.generic(node, data, attrs, where)
    t = body.graph.placeholder(TensorSpec([], tensor_proto.dtype_from_enum(20)),
                               body.prefix + node.name)
    info = {k: tf_attrs.decode(attrs[k]) for k in ("shared_name", "container", "dtype", "shape")
            if k in attrs}
    handles = getattr(body.graph, "variable_handles", None)
    if handles is None:
        handles = body.graph.variable_handles = {}
    handles[t.op.name] = info
    return [t], t.op


def _const(body, node, data, attrs, where):
    value = tf_attrs.decode(attrs["value"])
    dtype = tf_attrs.decode(attrs["dtype"])
    op = body.graph.add_op("Const", (), {"value": value, "dtype": dtype},
                           (TensorSpec(value.shape, dtype),), name=body.prefix + node.name)
    op.outputs[0].static = value
    return op.outputs, op


def _print(body, node, data, attrs, where):
    op = body.add("PrintV2", node.name, data[:1],
                  {"template": "{0!s}", "end": tf_attrs.decode(attrs.get("end")) if "end" in attrs
                   else "\n", "output_stream": tf_attrs.decode(attrs["output_stream"])
                   if "output_stream" in attrs else "stderr", "summarize": 3})
    return [], op


def _call(body, node, data, attrs, where):
    """A function call, inlined: the callee's nodes under ``<call>/``, its returns as outputs."""
    fdef = body.importer.fdef(attrs["f"].func.name, where)
    sig = fdef.signature
    if len(sig.input_arg) != len(data):
        raise GraphImportError(f"{where}: {len(data)} inputs for a function of "
                           f"{len(sig.input_arg)} arguments")
    inner = _Body(body.importer, body.graph, function=True, prefix=body.prefix + node.name + "/")
    inner.build(list(fdef.node_def), {a.name: t for a, t in zip(sig.input_arg, data)})
    outputs = [inner.resolve(fdef.ret[o.name], f"{where}: return value") for o in sig.output_arg]
    effects = [inner.nodes[n][3] for n in fdef.control_ret.values() if n in inner.nodes]
    done = body.add("NoOp", node.name, [], {})
    done.control_inputs = tuple(op for op in effects if op is not None)
    return outputs, done


def _identity_n(body, node, data, attrs, where):
    outputs = [body.add("Identity", f"{node.name}_{i}" if i else node.name, [t], {}).outputs[0]
               for i, t in enumerate(data)]
    return outputs, outputs[0].op if outputs else None


def _branch(body, name, specs, data, where):
    return body.importer.function(body.importer.fdef(name, where), specs, outer=body.graph,
                                  captured=data)


def _if(body, node, data, attrs, where):
    specs = [t.spec for t in data[1:]]
    then_g = _branch(body, attrs["then_branch"].func.name, specs, data[1:], where)
    else_g = _branch(body, attrs["else_branch"].func.name, specs, data[1:], where)
    tout = tf_attrs.decode(attrs["Tout"])
    shapes = _out_shapes(attrs, [then_g, else_g], len(tout))
    op = body.add(node.op, node.name, data, {"then_branch": then_g, "else_branch": else_g,
                                             "Tout": tout, "output_shapes": shapes})
    return _outs(op), op


def _case(body, node, data, attrs, where):
    specs = [t.spec for t in data[1:]]
    graphs = [_branch(body, f.name, specs, data[1:], where)
              for f in attrs["branches"].list.func]
    tout = tf_attrs.decode(attrs["Tout"])
    op = body.add(node.op, node.name, data, {"branches": tuple(graphs), "Tout": tout,
                                             "output_shapes": _out_shapes(attrs, graphs,
                                                                          len(tout))})
    return _outs(op), op


def _while(body, node, data, attrs, where):
    imp = body.importer
    specs = [t.spec for t in data]
    shapes = tf_attrs.decode(attrs["output_shapes"]) if "output_shapes" in attrs else ()
    if len(shapes) == len(data):
        specs = [TensorSpec(s, t.dtype) for s, t in zip(shapes, data)]
    cond = imp.function(imp.fdef(attrs["cond"].func.name, where), specs, outer=body.graph)
    loop = imp.function(imp.fdef(attrs["body"].func.name, where), specs, outer=body.graph)
    if len(shapes) != len(data):
        shapes = tuple(_common(t.shape, o.shape) for t, o in zip(data, loop.outputs))
    op = body.add(node.op, node.name, data, {
        "cond": cond, "body": loop, "T": tuple(t.dtype for t in data), "output_shapes": shapes,
        "parallel_iterations": tf_attrs.decode(attrs["parallel_iterations"])
        if "parallel_iterations" in attrs else 10, "has_maximum_iterations": False})
    return _outs(op), op


def _outs(op):
    return list(op.outputs)


def _common(a, b):
    if a.rank is None or b.rank is None or a.rank != b.rank:
        return None
    return tuple(x if x == y else None for x, y in zip(a.as_list(), b.as_list()))


def _out_shapes(attrs, graphs, n):
    shapes = tf_attrs.decode(attrs["output_shapes"]) if "output_shapes" in attrs else ()
    if len(shapes) == n:
        return shapes
    outs = [g.outputs for g in graphs]
    shapes = []
    for i in range(n):
        s = outs[0][i].shape
        for o in outs[1:]:
            s = TensorShape(_common(s, o[i].shape))
        shapes.append(None if s.rank is None else tuple(s.as_list()))
    return tuple(shapes)


class _Partial:
    """A TF value tensortrace has no tensor for, only the composition it begins: TF's ops that
    spell one of ours (SumToShape, StringBytesSplit: our export writes them so) become that op
    when the composition's last node is imported; any other reader is an import error."""

    def __init__(self, what, *parts):
        self.what, self.parts = what, parts


def _broadcast_gradient_args(body, node, data, attrs, where):
    if len(data) != 2:
        raise GraphImportError(f"{where}: 2 inputs expected, got {len(data)}")
    return [_Partial(f"'{node.name}' output {k} (BroadcastGradientArgs)", data[0], data[1], k)
            for k in (0, 1)], None


def _sum(body, node, data, attrs, where):
    """Sum over BroadcastGradientArgs' indices (TF's unbroadcast): the start of SumToShape."""
    if len(data) == 2 and isinstance(data[1], _Partial) and len(data[1].parts) == 3 and \
            not (tf_attrs.decode(attrs["keep_dims"]) if "keep_dims" in attrs else False):
        shapes, k = data[1].parts[:2], data[1].parts[2]
        return [_Partial(f"'{node.name}' (a Sum over BroadcastGradientArgs)", data[0],
                         shapes[k])], None
    return body.generic(node, data, attrs, where)


def _reshape(body, node, data, attrs, where):
    """Reshape of an unbroadcasting Sum to its target shape: our SumToShape."""
    if len(data) == 2 and isinstance(data[0], _Partial) and len(data[0].parts) == 2:
        x, target = data[0].parts
        if target is data[1]:
            op = body.add("SumToShape", node.name, [x, target], {})
        else:
            summed = body.add("SumToShape", node.name + "/SumToShape", [x, target], {})
            op = body.add("Reshape", node.name, [summed.outputs[0], data[1]], {})
        return op.outputs, op
    return body.generic(node, data, attrs, where)


def _string_split(body, node, data, attrs, where):
    """StringSplit of [x] (a scalar string) on "" keeping empty parts: x's bytes, TF's
    tf.strings.bytes_split, our StringBytesSplit (its other outputs have no tensor here)."""
    skip = tf_attrs.decode(attrs["skip_empty"]) if "skip_empty" in attrs else True
    row, delimiter = (data + [None, None])[:2]
    pack = getattr(row, "op", None)
    if not skip and delimiter is not None and delimiter.op.type == "Const" and \
            np.asarray(delimiter.op.attrs["value"]).tolist() in (b"", "") and \
            pack is not None and pack.type == "Pack" and len(pack.inputs) == 1 and \
            pack.inputs[0].shape.rank == 0:
        op = body.add("StringBytesSplit", node.name, [pack.inputs[0]], {})
        return [_Partial(f"'{node.name}' indices (StringSplit)"), op.outputs[0],
                _Partial(f"'{node.name}' shape (StringSplit)")], op
    raise not_registered("StringSplit")


def _transpose(body, node, data, attrs, where):
    """Transpose by TF's matrix_transpose perm of a tensor of unknown rank (concat(range(rank
    - 2), [rank - 1, rank - 2])): our MatrixTranspose."""
    if len(data) == 2 and data[1].op.type == "ConcatV2" and data[1].op.inputs:
        lead = data[1].op.inputs[0].op
        limit = lead.inputs[1].op if lead.type == "Range" and len(lead.inputs) == 3 else None
        rank = limit.inputs[0].op if limit is not None and limit.type == "Sub" else None
        if rank is not None and rank.type == "Rank" and rank.inputs[0] is data[0]:
            op = body.add("MatrixTranspose", node.name, data[:1],
                          {"conjugate": node.op == "ConjugateTranspose"})
            return op.outputs, op
    return body.generic(node, data, attrs, where)


def _const_keys(data, where):
    keys = []
    for t in data:
        if t.op.type != "Const":
            raise GraphImportError(f"{where}: the feature keys must be constants")
        keys.append([k.decode("utf-8") if isinstance(k, bytes) else k
                     for k in np.asarray(t.op.attrs["value"]).reshape(-1).tolist()])
    return keys


def _parse_spec(keys, sparse_types, dense_types, shapes, ragged_types, split_types,
                lists=False, missing=()):
    """Our parse op's features from TF's keys and types (sparse, dense, then ragged)."""
    sparse_keys, dense_keys, ragged_keys = keys
    spec = [("sparse", k, d.name) for k, d in zip(sparse_keys, sparse_types)]
    for i, (k, d, shape) in enumerate(zip(dense_keys, dense_types, shapes)):
        dims = tuple(TensorShape(shape).as_list())
        if lists:
            spec.append(("dense", k, d.name, dims, bool(missing[i]) if i < len(missing)
                         else False))
            continue
        sequence = bool(dims) and dims[0] is None
        spec.append(("dense", k, d.name, dims[1:] if sequence else dims, sequence))
    spec += [("ragged", k, d.name, r.name, ()) for k, d, r in zip(ragged_keys, ragged_types,
                                                                  split_types)]
    return spec


def _tf_order(spec, ours, batched, node, lists=False):
    """Our outputs of ``spec`` (each feature's in turn, from the iterator ``ours``) in TF's
    grouped order; lengths of dense feature lists are taken after all features."""
    groups = {"sparse": [], "dense": [], "ragged": []}
    for f in spec:
        if f[0] == "sparse":
            groups["sparse"].append([next(ours) for _ in range(3)])
        elif f[0] == "dense":
            groups["dense"].append(next(ours))
        else:
            values = next(ours)
            outer = next(ours) if batched else None
            inner = next(ours) if lists else None
            groups["ragged"].append((values, outer, inner))
    missing = _Partial(f"'{node.name}' row splits of a single example ({node.op})")
    out = [g[j] for j in range(3) for g in groups["sparse"]] + groups["dense"]
    return out, groups["ragged"], missing


def _parse_example(body, node, data, attrs, where):
    """TF's ParseExampleV2 (keys as constant inputs, outputs grouped by kind) as ours (the
    features an attr, each feature's tensors in turn)."""
    dec = {k: tf_attrs.decode(v) for k, v in attrs.items() if not k.startswith("_")}
    if len(data) < 5:
        raise GraphImportError(f"{where}: 5 or more inputs expected, got {len(data)}")
    spec = _parse_spec(_const_keys(data[2:5], where), dec.get("sparse_types", ()),
                       dec.get("Tdense", ()), dec.get("dense_shapes", ()),
                       dec.get("ragged_value_types", ()), dec.get("ragged_split_types", ()))
    op = body.add("ParseExampleV2", node.name, data[:2] + data[5:], {"features": tuple(spec)})
    batched = data[0].shape.rank != 0
    out, ragged, missing = _tf_order(spec, iter(op.outputs), batched, node)
    out += [r[0] for r in ragged] + [missing if r[1] is None else r[1] for r in ragged]
    return out, op


def _parse_sequence_example(body, node, data, attrs, where):
    """TF's ParseSequenceExampleV2 as ours: the context as ParseExampleV2's, then the feature
    lists (dense lengths after the dense values; ragged values, outer and inner splits)."""
    dec = {k: tf_attrs.decode(v) for k, v in attrs.items() if not k.startswith("_")}
    if len(data) < 9:
        raise GraphImportError(f"{where}: 9 or more inputs expected, got {len(data)}")
    keys = _const_keys(data[2:8], where)
    flags = data[8]
    if flags.op.type != "Const":
        raise GraphImportError(f"{where}: feature_list_dense_missing_assumed_empty must be a "
                               "constant")
    context = _parse_spec(keys[:3], dec.get("context_sparse_types", ()),
                          dec.get("Tcontext_dense", ()), dec.get("context_dense_shapes", ()),
                          dec.get("context_ragged_value_types", ()),
                          dec.get("context_ragged_split_types", ()))
    lists = _parse_spec(keys[3:], dec.get("feature_list_sparse_types", ()),
                        dec.get("feature_list_dense_types", ()),
                        dec.get("feature_list_dense_shapes", ()),
                        dec.get("feature_list_ragged_value_types", ()),
                        dec.get("feature_list_ragged_split_types", ()), lists=True,
                        missing=np.asarray(flags.op.attrs["value"]).reshape(-1).tolist())
    op = body.add("ParseSequenceExampleV2", node.name, data[:2] + data[9:],
                  {"context": tuple(context), "feature_lists": tuple(lists)})
    batched = data[0].shape.rank != 0
    ours = iter(op.outputs)
    out, ragged, missing = _tf_order(context, ours, batched, node)
    out += [r[0] for r in ragged] + [missing if r[1] is None else r[1] for r in ragged]
    more, lragged, _ = _tf_order(lists, ours, batched, node, lists=True)
    more += list(ours)  # the dense lists' lengths, after their values
    more += [r[0] for r in lragged] + [missing if r[1] is None else r[1] for r in lragged]
    more += [r[2] for r in lragged]
    return out + more, op


_HANDLERS = {"Placeholder": _placeholder, "VarHandleOp": _var_handle, "Const": _const,
             "PrintV2": _print, "PartitionedCall": _call, "StatefulPartitionedCall": _call,
             "IdentityN": _identity_n, "If": _if, "StatelessIf": _if, "Case": _case,
             "StatelessCase": _case, "While": _while, "StatelessWhile": _while,
             "BroadcastGradientArgs": _broadcast_gradient_args, "Sum": _sum,
             "Reshape": _reshape, "StringSplit": _string_split,
             "ParseExampleV2": _parse_example, "Transpose": _transpose,
             "ParseSequenceExampleV2": _parse_sequence_example,
             "ConjugateTranspose": _transpose}
