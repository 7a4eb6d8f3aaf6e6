"""Graphs as TF's ``GraphDef`` and ``FunctionDef`` protocol buffers (``Graph.as_graph_def()``).

Each op becomes a NodeDef under its TF op type, with TF's input strings (``name``, ``name:1``,
``^ctrl``; inside a FunctionDef ``node:out_arg:index``) and TF's attrs: the type attrs (``T``,
``Tidx``, ``N``...) derived from the input and output dtypes, our attrs under TF's names, TF's
defaults for the rest, and a constant input where TF takes a tensor we hold as an attr
(``Sum``'s ``reduction_indices``). Control-flow sub-graphs become FunctionDefs in the library, laid
out as TF lays them out: an If/Case branch takes the op's inputs; a While's loop variables are TF's
(``loop_counter``, ``maximum_iterations``, the loop values, then the captured values, which the
body passes through). ``tf.print`` becomes TF's StringFormat + PrintV2.

Needs the ``tf-formats`` extra; ``Graph.as_graph_def`` falls back to a light view without it.
"""

import importlib
import inspect
import os
import re

import numpy as np

from .. import _protos, dtypes
from .._export import tf_export
from ..registry import get as get_op
from . import tensor_proto, tf_attrs, tf_composites
from .tf_attrs import EXTRA_PREFIX, INPUT_ATTRS, RENAMES, TF_PRIVATE, encode

PRODUCER, MIN_CONSUMER = 2474, 12  # what TF 2.21 writes in GraphDef.versions
PYTHON_OBJECT = "python:"  # the marker of an attr holding a Python object (lenient export)
_UNSAVEABLE = {"EagerPyFunc": "tf.py_function/tf.numpy_function calls a Python callable",
               "PythonDataset": "a tf.data pipeline is a Python object"}
# attrs TF's op lacks that only restate what TF infers (the variable's shape)
_INFORMATIONAL = frozenset({"shape"})
_LAST_AXIS = ("Softmax", "LogSoftmax", "SoftmaxCrossEntropyWithLogits")


class ExportError(ValueError):
    """A graph holds something a GraphDef cannot express."""


def _pb():
    return _protos.graph_pb2, _protos.function_pb2, _protos.node_def_pb2


@tf_export("io.write_graph")
def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """``tf.io.write_graph``: write a graph's GraphDef (with each node's ``_output_shapes``) or a
    GraphDef to ``logdir/name``, as text or binary; returns the path."""
    graph_def = graph_or_graph_def
    if hasattr(graph_or_graph_def, "get_operations"):
        graph_def = graph_to_graph_def(graph_or_graph_def, add_shapes=True)
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    if as_text:
        text_format = importlib.import_module("google.protobuf.text_format")
        data = text_format.MessageToString(graph_def).encode("utf-8")
    else:
        data = graph_def.SerializeToString(deterministic=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)  # atomic, as TF's atomic_write_string_to_file
    return path


def graph_to_graph_def(graph, strict=False, add_shapes=False):
    """``graph`` as a ``GraphDef``: one NodeDef per op (placeholders included), its sub-graphs
    as FunctionDefs in ``library``, and TF 2.21's versions. Like TF's, it holds ops that call
    Python (py_function, generator datasets) with a marker in place of the Python object, which
    cannot be imported; ``strict`` refuses them (ExportError)."""
    exporter = _Exporter(strict, add_shapes)
    gd = _pb()[0].GraphDef()
    gd.node.extend(_Body(exporter, graph, function=False).nodes)
    gd.library.function.extend(exporter.functions)
    gd.versions.producer = PRODUCER
    gd.versions.min_consumer = MIN_CONSUMER
    return gd


def graph_to_function_def(graph, name):
    """``graph`` as a FunctionDef named ``name`` (its feeds are the arguments: inputs, then
    captures, as TF orders a FuncGraph's; its outputs the return values) and the FunctionDefs of
    its nested sub-graphs."""
    exporter = _Exporter()
    fdef = exporter.function(graph, name)
    return fdef, [f for f in exporter.functions if f is not fdef]


class _Exporter:
    """The library being built: one FunctionDef per sub-graph, unique names."""

    def __init__(self, strict=True, add_shapes=False):
        self.strict, self.add_shapes = strict, add_shapes
        self.functions = []
        self.names = {}  # id(graph, layout) -> function name
        self.used = set()
        self.scope = None  # the control-flow node whose sub-graphs are being named
        self.outer = ""  # the scope that node sits in (a While body's "while/")

    def function_name(self, graph, layout=None):
        """The FunctionDef name of a sub-graph (exported on first use)."""
        key = (id(graph), layout)
        name = self.names.get(key)
        if name is None:  # TF names a nested sub-graph after its scope: while_cond_true
            name = self._unique((self.outer + graph.name).replace("/", "_"))
            self.names[key] = name
            self.function(graph, name, layout, self.scope)
        return name

    def _unique(self, base):
        base = re.sub(r"[^A-Za-z0-9_.\-]", "_", base) or "function"
        name, i = base, 0
        while name in self.used:
            i += 1
            name = f"{base}_{i}"
        self.used.add(name)
        return name

    def function(self, graph, name, layout=None, scope=None):
        """``graph`` as the FunctionDef ``name``; a control-flow sub-graph's nodes are named
        under its node's ``scope`` and its outputs pass Identity nodes, as TF's are."""
        self.used.add(name)
        fdef = _pb()[1].FunctionDef()
        self.functions.append(fdef)  # before the body, so nested functions follow their caller
        saved, self.scope, self.outer = (self.scope, self.outer), None, ""  # nested: their own
        body = _Body(self, graph, function=True, layout=layout, scope=scope)
        self.scope, self.outer = saved
        sig = fdef.signature
        sig.name = name
        for i, (arg, dtype, shape) in enumerate(body.args):
            sig.input_arg.add(name=arg, type=dtype.as_datatype_enum)
            if shape is not None:
                fdef.arg_attr[i].attr["_output_shapes"].list.shape.add().CopyFrom(
                    tensor_proto.shape_proto(shape))
        for i, (ref, dtype) in enumerate(body.rets):
            out = f"output_{i}"
            sig.output_arg.add(name=out, type=dtype.as_datatype_enum)
            fdef.ret[out] = ref
        fdef.node_def.extend(body.nodes)
        for node_name in body.control_outputs:
            sig.control_output.append(node_name)
            fdef.control_ret[node_name] = node_name
        sig.is_stateful = body.stateful
        return fdef


def _arg_name(name, used):
    """A FunctionDef argument name (TF requires ``[a-z][a-z0-9_]*``), unique among ``used``."""
    base = re.sub(r"[^a-z0-9_]", "_", name.lower())
    if not base or not base[0].isalpha():
        base = "arg_" + base
    out, i = base, 0
    while out in used:
        i += 1
        out = f"{base}_{i}"
    used.add(out)
    return out


class _Body:
    """The NodeDefs of one graph: ``nodes``; for a function also ``args`` (name, dtype, shape),
    ``rets`` (reference, dtype) and ``control_outputs``."""

    def __init__(self, exporter, graph, function, layout=None, scope=None):
        self.exporter, self.graph, self.function = exporter, graph, function
        self.prefix = f"{scope}/" if scope else ""  # a control-flow sub-graph's node scope
        self.nodes, self.args, self.rets, self.control_outputs = [], [], [], []
        self.refs = {}  # id(tensor) -> its reference string
        self.op_names = {op.name for op in graph.get_operations()}
        self.names = set(self.op_names)
        self.stateful = False
        self.expansion_control = ()
        self.controlled = {id(c) for o in graph.get_operations() for c in o.control_inputs}
        feeds = list(graph.inputs) + [ph for _, ph in graph.captures]  # a branch: captures only
        used = self.op_names - {ph.op.name for ph in feeds} if function else set()
        if layout is not None and layout.startswith("while_"):
            self.counter = _arg_name("loop_counter", used)
            self.limit = _arg_name("maximum_iterations", used)
            self.args += [(self.counter, dtypes.int32, ()), (self.limit, dtypes.int32, ())]
        if function:
            for ph in feeds:
                arg = _arg_name(ph.op.name, used)
                self.args.append((arg, ph.dtype, ph.shape))
                self.refs[id(ph)] = arg
        fed = {id(ph.op) for ph in feeds} if function else set()
        for op in graph.get_operations():
            if id(op) in fed:
                continue
            self._op(op)
        if function:
            self._rets(layout)
            if scope:
                self._identity_rets()

    # --- references ---------------------------------------------------------------------------
    def ref(self, t):
        try:
            return self.refs[id(t)]
        except KeyError:
            raise ExportError(f"tensor {t.name} is read before it is defined in graph "
                              f"{self.graph.name!r}") from None

    def out_ref(self, node_name, op_type, attrs_pb, index):
        """The reference to output ``index`` of a node (TF's function form inside bodies)."""
        if not self.function:
            return node_name if index == 0 else f"{node_name}:{index}"
        sig = tf_attrs.signature(op_type)
        if sig is not None and sig.outputs:
            decoded = {k: tf_attrs.decode(v) for k, v in attrs_pb.items() if k in sig.bound}
            for arg, start, count in sig.output_ranges(decoded):
                if start <= index < start + count:
                    return f"{node_name}:{arg}:{index - start}"
        return f"{node_name}:output:{index}"

    def fresh(self, base):
        name, i = base, 0
        while name in self.names:
            i += 1
            name = f"{base}_{i}"
        self.names.add(name)
        return name

    def add_node(self, name, op_type, inputs, attrs, control=()):
        """A NodeDef named ``name`` (and its ``control`` inputs) under the body's scope."""
        node = _pb()[2].NodeDef(name=self.prefix + name, op=op_type)
        node.input.extend(inputs)
        node.input.extend("^" + self.prefix + c for c in (*control, *self.expansion_control))
        for k, v in attrs.items():
            node.attr[k].CopyFrom(v)
        self.nodes.append(node)
        return node

    def const(self, base, value, dtype=None):
        """A Const node holding ``value``; returns its output reference."""
        arr = np.asarray(value)
        proto = tensor_proto.to_proto(arr, dtype)
        name = self.fresh(base)
        node = self.add_node(name, "Const", [], {"value": _tensor_attr(proto),
                                                 "dtype": encode(tensor_proto.dtype_from_enum(
                                                     proto.dtype))})
        return self.out_ref(node.name, "Const", node.attr, 0)

    # --- ops ----------------------------------------------------------------------------------
    def _op(self, op):
        if op.type in _UNSAVEABLE and self.exporter.strict and \
                not tf_composites.has_rule(op.type):
            raise ExportError(f"op '{op.name}' ({op.type}) has no GraphDef form: "
                              f"{_UNSAVEABLE[op.type]}")
        if get_op(op.type).stateful:
            self.stateful = True
        control = [c.name for c in op.control_inputs]
        self.expansion_control = control  # every node of an expansion waits on them
        first = len(self.nodes)
        try:
            refs = tf_composites.expand(self, op)
        finally:
            self.expansion_control = ()
        if refs is None and op.type in _UNSAVEABLE and self.exporter.strict:
            raise ExportError(f"op '{op.name}' ({op.type}) has no GraphDef form: "
                              f"{_UNSAVEABLE[op.type]}")
        if refs is not None:  # a fused op of ours, written as the ops TF composes
            for t, ref in zip(op.outputs, refs):
                self.refs[id(t)] = ref
            if id(op) in self.controlled:  # what waits on the op waits on its expansion
                ends = sorted({r.lstrip("^").split(":")[0] for r in refs} or
                              {n.name for n in self.nodes[first:]})
                ends = [e[len(self.prefix):] for e in ends]  # add_node scopes them again
                self.add_node(op.name, "NoOp", [], {}, control=ends)
            return
        refs = None
        if op.type == "PrintV2":
            node = self._print(op, control)
        elif op.type in ("While", "StatelessWhile"):
            node = self._while(op, control)
        elif op.type in _LAST_AXIS:
            node, refs = self._last_axis(op, control)
        else:
            if op.type in _BRANCHING:  # its branches' nodes go under its name
                self.exporter.scope, self.exporter.outer = self.prefix + op.name, self.prefix
            node = self._generic(op, control)
            self.exporter.scope, self.exporter.outer = None, ""
        if self.exporter.add_shapes and op.outputs:
            shapes = node.attr["_output_shapes"].list.shape
            shapes.extend(tensor_proto.shape_proto(t.shape) for t in op.outputs)
        offset = 2 if op.type in ("While", "StatelessWhile") else 0
        for i, t in enumerate(op.outputs):
            self.refs[id(t)] = self.out_ref(node.name, node.op, node.attr, i + offset)
        for t, ref in zip(op.outputs, refs or ()):
            if ref is not None:
                self.refs[id(t)] = ref
        if op.type in _BRANCHING:  # TF reads a conditional's outputs through cond/Identity
            for t in op.outputs:
                name = self.fresh(f"{op.name}/Identity")
                out = self.add_node(name, "Identity", [self.refs[id(t)]], {"T": encode(t.dtype)})
                self.refs[id(t)] = self.out_ref(out.name, "Identity", out.attr, 0)
        if self.function and get_op(op.type).stateful and op.type not in ("NoOp",):
            self.control_outputs.append(node.name)

    def _last_axis(self, op, control):
        """Softmax & co. work on the last axis in TF: another axis is moved there and back, as
        TF's Python wrappers do."""
        rank = op.inputs[0].shape.rank
        axis = op.attrs.get("axis", -1)
        if rank is not None:
            axis %= rank
        if axis == -1 or axis == (rank or 0) - 1:
            return self._generic(op, control, drop=("axis",)), None
        if rank is None or any(t.shape.rank != rank for t in op.inputs):
            raise ExportError(f"op '{op.name}' ({op.type}): axis {axis} of a tensor of unknown "
                              "or mismatched rank has no TF form")
        perm = [i for i in range(rank) if i != axis] + [axis]
        ins = [self._transpose(op.name + "/transpose", self.ref(t), t.dtype, perm)
               for t in op.inputs]
        node = self._generic(op, control, drop=("axis",), inputs=ins)
        back = [int(i) for i in np.argsort(perm)]
        out = len(op.outputs) - 1  # the softmax, or the backprop (the loss keeps its order)
        refs = [None] * len(op.outputs)
        refs[out] = self._transpose(op.name + "/transpose_out",
                                    self.out_ref(node.name, node.op, node.attr, out),
                                    op.outputs[out].dtype, back)
        return node, refs

    def _all_axes(self, op, base):
        """Every axis of a tensor of unknown rank: TF's Range(0, Rank(x), 1)."""
        x = op.inputs[0]
        rank = self.fresh(base + "/Rank")
        node = self.add_node(rank, "Rank", [self.ref(x)], {"T": encode(x.dtype)})
        start = self.const(base + "/start", np.int32(0))
        delta = self.const(base + "/delta", np.int32(1))
        name = self.fresh(base)
        node = self.add_node(name, "Range", [start, self.out_ref(node.name, "Rank", node.attr, 0),
                                             delta], {"Tidx": encode(dtypes.int32)})
        return self.out_ref(node.name, "Range", node.attr, 0)

    def _transpose(self, base, ref, dtype, perm):
        perm_ref = self.const(base + "/perm", np.array(perm, np.int32))
        name = self.fresh(base)
        node = self.add_node(name, "Transpose", [ref, perm_ref],
                             {"T": encode(dtype), "Tperm": encode(dtypes.int32)})
        return self.out_ref(node.name, "Transpose", node.attr, 0)

    def _generic(self, op, control, drop=(), inputs=None):
        sig = tf_attrs.signature(op.type)
        refs = inputs
        inputs = [self.ref(t) for t in op.inputs] if refs is None else refs
        if sig is None and self.exporter.strict:
            raise ExportError(f"op '{op.name}' ({op.type}) has no TF op of that type: TF could "
                              "not load it")
        if sig is None:  # an op TF does not have: our attrs under our names (a lenient view)
            attrs = {(EXTRA_PREFIX + k if k.startswith("_") and k not in TF_PRIVATE else k):
                     self.encode(v, None, op) for k, v in op.attrs.items()}
            return self.add_node(op.name, op.type, inputs, attrs, control)
        ours = {k: v for k, v in op.attrs.items() if k not in drop}
        from_attrs = INPUT_ATTRS.get(op.type, {})
        renames = RENAMES.get(op.type, {})
        attrs, tf_inputs = {}, []
        fed = [a for a in sig.inputs if not (a.name in from_attrs and
                                             from_attrs[a.name][0] in ours)]
        lists = sum(1 for a in fed if a.number_attr or a.list_attr)
        spare = len(op.inputs) - (len(fed) - lists)
        pos = 0
        for a in sig.inputs:
            if a not in fed:
                attr, kind = from_attrs[a.name]
                rank = op.inputs[0].shape.rank if op.inputs else None
                value = ours.pop(attr)
                every = value is None
                dtype = a.dtype or dtypes.int32
                if kind == "axes" and value is None and rank is None:
                    tf_inputs.append(self._all_axes(op, f"{op.name}/{a.name}"))
                else:
                    try:
                        value = tf_attrs.input_array(kind, value, rank)
                    except ValueError as e:
                        raise ExportError(f"op '{op.name}' ({op.type}): {e}") from None
                    # TF's reductions of every axis make that range first, a plain "Const"
                    base = "Const" if kind == "axes" and every else \
                        f"{op.name}/{a.name}"
                    tf_inputs.append(self.const(base, value, dtype))
                if a.type_attr:
                    attrs[a.type_attr] = encode(dtype)
                continue
            n = spare if (a.number_attr or a.list_attr) else 1
            got = op.inputs[pos:pos + n]
            tf_inputs.extend(inputs[pos:pos + n])
            pos += n
            _derive(attrs, a, [t.dtype for t in got])
        start = 0
        outs = list(op.outputs)
        lists = sum(1 for a in sig.outputs if a.number_attr or a.list_attr)
        spare = len(outs) - (len(sig.outputs) - lists)
        for a in sig.outputs:
            n = spare if (a.number_attr or a.list_attr) else 1
            got = outs[start:start + n]
            start += n
            if got or a.number_attr or a.list_attr:
                _derive(attrs, a, [t.dtype for t in got], outputs=True)
        if op.type == "Placeholder" and any(op is t.op for t in self.graph.inputs):
            attrs["_user_specified_name"] = encode(op.name)  # as TF marks a function's inputs
        if op.type == "Const":  # the value in the op's dtype (strings, bfloat16 ...)
            attrs["value"] = _tensor_attr(tensor_proto.to_proto(ours.pop("value"), ours["dtype"]))
        for k, v in ours.items():
            tk = renames.get(k, k)
            if tk in sig.attrs:
                attrs[tk] = self.encode(v, sig.attrs[tk][0], op)
            elif tk in TF_PRIVATE:
                attrs[tk] = self.encode(v, None, op)
            else:
                self._check_extra(op, k, v)
                attrs[EXTRA_PREFIX + k] = self.encode(v, None, op)
        for k, (kind, has, value) in sig.attrs.items():
            if k not in attrs and has:
                attrs[k] = encode(tf_attrs.default(sig, k), kind)
        if op.type in ("If", "StatelessIf"):
            attrs["Tcond"] = encode(op.inputs[0].dtype)
        return self.add_node(op.name, op.type, tf_inputs, attrs, control)

    def _check_extra(self, op, name, value):
        """An attr TF's op lacks must not change what the op computes (TF would ignore it):
        strict exports refuse one that differs from its default."""
        if not self.exporter.strict or name.startswith("_") or name in _INFORMATIONAL:
            return
        param = inspect.signature(get_op(op.type).infer).parameters.get(name)
        plain = param.default if param is not None and \
            param.default is not inspect.Parameter.empty else None
        # without a default in the shape rule, the plain form is the empty one (axis 0,
        # batch_dims 0, no explicit paddings): what TF's op computes
        if _same(plain, value) if plain is not None else not _nonempty(value):
            return
        raise ExportError(f"op '{op.name}' ({op.type}): its attr {name}={value!r} has no "
                          f"equivalent in TF's {op.type}, which would compute something else")

    def encode(self, value, kind, op):
        try:
            return encode(value, kind, func=self.exporter.function_name)
        except TypeError as e:
            if not self.exporter.strict:  # a Python object: a marker import refuses
                av = _protos.attr_value_pb2.AttrValue()
                av.placeholder = PYTHON_OBJECT + type(value).__name__
                return av
            raise ExportError(f"op '{op.name}' ({op.type}): {e}") from None

    def _print(self, op, control):
        """tf.print: TF's StringFormat of the printed tensors, then PrintV2 of that string."""
        template = op.attrs["template"]
        if template == "{0!s}":
            text = self.ref(op.inputs[0])
        else:
            parts, order = _split_template(template)
            placeholder = "{}"
            while any(placeholder in p for p in parts):
                placeholder = "{" + placeholder + "}"
            fmt_attrs = {"template": encode(placeholder.join(parts)),
                         "placeholder": encode(placeholder),
                         "summarize": encode(int(op.attrs["summarize"])),
                         "T": encode(tuple(op.inputs[i].dtype for i in order), "list(type)")}
            name = self.fresh(op.name + "/StringFormat")
            node = self.add_node(name, "StringFormat", [self.ref(op.inputs[i]) for i in order],
                                 fmt_attrs)
            text = self.out_ref(node.name, "StringFormat", node.attr, 0)
        attrs = {"output_stream": encode(op.attrs["output_stream"]), "end": encode(op.attrs["end"])}
        return self.add_node(op.name, "PrintV2", [text], attrs, control)

    def _while(self, op, control):
        """TF's While: loop_counter, maximum_iterations, the loop values, the captured values."""
        limited = op.attrs.get("has_maximum_iterations", False)
        inputs = list(op.inputs)
        if limited:
            limit = self.ref(inputs.pop(0))
        else:
            limit = self.const(f"{op.name}/maximum_iterations", np.int32(-1))
        counter = self.const(f"{op.name}/loop_counter", np.int32(0))
        ex = self.exporter  # its cond's and body's nodes go under its name
        ex.scope, ex.outer = self.prefix + op.name, self.prefix
        cond = ex.function_name(op.attrs["cond"], "while_cond_limited" if limited else "while_cond")
        ex.scope, ex.outer = self.prefix + op.name, self.prefix
        body = ex.function_name(op.attrs["body"], "while_body")
        ex.scope, ex.outer = None, ""
        n = len(op.attrs["T"])
        dts = [dtypes.int32, dtypes.int32] + [t.dtype for t in inputs]
        shapes = [(), ()] + [_dims(s) for s in op.attrs["output_shapes"]] + \
            [_dims(t.shape) for t in inputs[n:]]
        attrs = {"T": encode(tuple(dts), "list(type)"), "cond": _func(cond), "body": _func(body),
                 "output_shapes": encode(tuple(shapes), "list(shape)"),
                 "parallel_iterations": encode(int(op.attrs["parallel_iterations"])),
                 "_num_original_outputs": encode(len(dts))}
        if limited:
            attrs[EXTRA_PREFIX + "has_maximum_iterations"] = encode(True)
        return self.add_node(op.name, op.type, [counter, limit] + [self.ref(t) for t in inputs],
                             attrs, control)

    def _rets(self, layout):
        graph = self.graph
        outs = [(self.ref(t), t.dtype) for t in graph.outputs]
        if layout in ("while_cond", "while_cond_limited"):
            pred = outs[0][0]
            if layout == "while_cond_limited":  # TF's cond: counter < limit and the user's
                less = self.add_node(self.fresh("Less"), "Less", [self.counter, self.limit],
                                     {"T": encode(dtypes.int32)})
                both = self.add_node(self.fresh("LogicalAnd"), "LogicalAnd",
                                     [f"{less.name}:z:0", pred], {})
                pred = f"{both.name}:z:0"
            outs = [(pred, dtypes.bool)]
        elif layout == "while_body":  # the counter's step comes after the user's ops
            add = self.fresh("add")
            one = self.const(f"{add}/y", np.int32(1))
            node = self.add_node(add, "AddV2", [self.counter, one], {"T": encode(dtypes.int32)})
            captured = [(self.ref(ph), ph.dtype) for _, ph in graph.captures]
            outs = [(f"{node.name}:z:0", dtypes.int32), (self.limit, dtypes.int32)] + outs + \
                captured
        self.rets = outs

    def _identity_rets(self):
        """A control-flow function returns its values through Identity nodes, as TF's do."""
        rets = []
        for ref, dtype in self.rets:
            node = self.add_node(self.fresh("Identity"), "Identity", [ref], {"T": encode(dtype)})
            rets.append((f"{node.name}:output:0", dtype))
        self.rets = rets


_BRANCHING = ("If", "StatelessIf", "Case", "StatelessCase")


def _nonempty(value):
    try:
        return bool(value)
    except (TypeError, ValueError):
        return True


def _same(a, b):
    try:
        return bool(a == b) if not isinstance(a, (tuple, list)) else tuple(a) == tuple(b)
    except (TypeError, ValueError):
        return False


def _derive(attrs, arg, dts, outputs=False):
    """Set the type/number attrs an argument binds from the dtypes it carries."""
    if arg.number_attr and arg.number_attr not in attrs:
        attrs[arg.number_attr] = encode(len(dts))
    if arg.list_attr and arg.list_attr not in attrs:
        attrs[arg.list_attr] = encode(tuple(dts), "list(type)")
    if arg.type_attr and arg.type_attr not in attrs and dts:
        attrs[arg.type_attr] = encode(dts[0])


def _split_template(template):
    """Our print template ("{0} and {1}", braces doubled) -> its text pieces and the input
    index each placeholder names, in order."""
    parts, order, text = [], [], []
    for m in re.finditer(r"\{\{|\}\}|\{(\d+)\}|[^{}]+|[{}]", template):
        if m.group(1) is not None:
            parts.append("".join(text))
            text = []
            order.append(int(m.group(1)))
        else:
            tok = m.group(0)
            text.append(tok[0] if tok in ("{{", "}}") else tok)
    parts.append("".join(text))
    return parts, order


def _tensor_attr(proto):
    av = _protos.attr_value_pb2.AttrValue()
    av.tensor.CopyFrom(proto)
    return av


def _func(name):
    av = _protos.attr_value_pb2.AttrValue()
    av.func.name = name
    return av


def _dims(shape):
    if shape is None:
        return None
    if hasattr(shape, "rank"):
        return None if shape.rank is None else tuple(shape.as_list())
    return tuple(shape)
