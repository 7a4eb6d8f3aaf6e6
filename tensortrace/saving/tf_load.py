"""``tf.saved_model.load`` of a SavedModel in TensorFlow's format: parse ``saved_model.pb``, read
the variables' checkpoint, rebuild the functions the object graph names from the FunctionDef
library (each graph verified and checked before anything runs), then the objects.

    loaded = load_tf(path)         # TF's user objects, variables, functions and signatures
    loaded.signatures["serving_default"](x=x)      # {"output_0": ...}
"""

import inspect
import json
import os

import numpy as np

from .. import _protos, errors, nest
from ..checkpoint import tracking
from ..checkpoint.bundle import BundleReader
from ..graph import ir, tensor_proto, tf_attrs
from ..graph.function_def import function_def_to_graph
from ..graph.verify import GraphVerificationError, verify
from ..ops.random.seeds import _STREAM_IDS
from ..shapes import TensorShape
from ..tensor import EagerTensor, TensorSpec
from ..tracing.signature import Binder
from ..variables import Variable, VariableSpec
from . import checks, custom_gradients, tf_datasets, tf_files, tf_resources  # noqa: F401
from .assets import Asset
from .format import FormatError
from .restored import (
    RestoredConcreteFunction,
    RestoredFunction,
    RestoredSignatureFunction,
    _UserObject,
    set_attribute,
    stub,
)
from .signatures import SignatureMap
from .structure_coder import decode

_P = inspect.Parameter
SIGNATURE_MAP = "signature_map"
CUSTOM_GRADIENTS = "tensortrace_custom_gradients"  # a collection (tf_save writes it)
_WRAPPERS = {"trackable_list_wrapper": list, "trackable_tuple_wrapper": tuple,
             "trackable_dict_wrapper": dict}
_MAX_NODES = 1 << 20


def load_tf(export_dir, tags=None, shown=None, options=None):
    """Load the TF-format SavedModel in ``export_dir`` (see ``load``); errors name ``shown``
    (the path the caller gave)."""
    shown = export_dir if shown is None else shown
    proto = tf_files.read_saved_model(export_dir)
    mg = tf_files.meta_graph(proto, tags, shown)
    try:
        loader = _Loader(mg, export_dir)
        loader.load_aliases = bool(getattr(options, "experimental_load_function_aliases", False))
        return loader.root()
    except (FormatError, GraphVerificationError) as e:
        raise type(e)(f"Cannot load the SavedModel at {shown}: {e}") from None
    except (LookupError, TypeError, AttributeError, ValueError, ArithmeticError, RecursionError,
            NotImplementedError, MemoryError) as e:
        raise FormatError(f"Cannot load the SavedModel at {shown}: malformed model "
                          f"({type(e).__name__}: {e})") from None


def _aliases(names, concretes):
    """``SaveOptions.function_aliases`` as TF loads them: alias -> its concrete function (a
    list of them when the alias names several traces)."""
    found = {}
    for name, cf in concretes.items():
        if name in names:
            found.setdefault(names[name], []).append(cf)
    return {alias: fns[0] if len(fns) == 1 else fns for alias, fns in found.items()}


class _Loader:
    load_aliases = False  # LoadOptions.experimental_load_function_aliases

    def __init__(self, mg, export_dir):
        self.mg = mg
        self.graph = mg.object_graph_def
        self.nodes = list(self.graph.nodes)
        self.export_dir = export_dir
        self.library = {f.signature.name: f for f in mg.graph_def.library.function}
        self.gradients = _gradients(mg)
        if mg.meta_info_def.stripped_default_attrs:
            _restore_default_attrs(mg.graph_def.library, mg.meta_info_def.stripped_op_list)

    # --- the whole model ------------------------------------------------------------------
    def root(self):
        if not self.nodes or len(self.nodes) > _MAX_NODES:
            raise FormatError(f"the object graph has {len(self.nodes)} nodes")
        kinds = [n.WhichOneof("kind") for n in self.nodes]
        for i, node in enumerate(self.nodes):
            for child in node.children:
                self._node_id(child.node_id, f"object #{i} child {child.local_name!r}")
            if kinds[i] not in ("user_object", "variable", "function", "bare_concrete_function",
                                "constant", "asset", "resource"):
                raise FormatError(f"object #{i} is a {kinds[i]}, which tensortrace cannot load")
        if kinds[0] != "user_object":
            raise FormatError("the root of the object graph is not a user object")
        signature_ids = self._signature_ids(kinds)
        attribute_names = {}  # node id -> the first attribute name it has (a function's name)
        for node in self.nodes:
            for child in node.children:
                attribute_names.setdefault(child.node_id, child.local_name)
        variables = self._variables(kinds)
        variables.update(self._constants(kinds))  # what functions capture, by node id
        variables.update(self._assets(kinds))
        tables = tf_resources.create(self, kinds)  # lookup tables: what functions capture
        variables.update(tables)
        made = dict(variables)
        concretes = {}
        for i, kind in enumerate(kinds):
            if kind == "function":
                names = list(self.nodes[i].function.concrete_functions)
            elif kind == "bare_concrete_function":
                names = [self.nodes[i].bare_concrete_function.concrete_function_name]
            else:
                continue
            for name in names:
                if name not in concretes:
                    concretes[name] = self._concrete(name, variables, i in signature_ids, i)
        tf_resources.initialize(self, tables, concretes, _checkpoint_keys)
        made.update({i: tf_resources.RestoredResource(h) for i, h in tables.items()})
        wrappers = {}
        for i, kind in enumerate(kinds):
            node = self.nodes[i]
            if kind == "user_object" and node.user_object.identifier in _WRAPPERS:
                wrappers[i] = _WRAPPERS[node.user_object.identifier]
            elif kind == "user_object":
                made[i] = _UserObject()
            elif kind == "function":
                made[i] = self._function(node.function, concretes, i,
                                         attribute_names.get(i, "function"))
            elif kind == "bare_concrete_function":
                made[i] = concretes[node.bare_concrete_function.concrete_function_name]
        for i in wrappers:
            self._wrapper(i, wrappers, made, set())
        for i, kind in enumerate(kinds):
            if kind != "user_object" or i in wrappers:
                continue
            obj = made[i]
            if self.nodes[i].user_object.identifier == SIGNATURE_MAP:
                continue
            for child in self.nodes[i].children:
                if child.local_name == "signatures" and i == 0:
                    continue
                set_attribute(obj, child.local_name, made[child.node_id])
        root = made[0]
        root.signatures = SignatureMap(
            {c.local_name: made[c.node_id] for c in self._signature_children()})
        if self.load_aliases:
            root.function_aliases = _aliases(self.mg.meta_info_def.function_aliases, concretes)
        return root

    def _wrapper(self, i, wrappers, made, active):
        """The list, tuple or dict of node ``i`` (TF's ListWrapper & co.), its items first."""
        if i in made:
            return made[i]
        if i in active:
            raise FormatError(f"object #{i}: a container that holds itself")
        active.add(i)
        items = []
        for child in self.nodes[i].children:
            j = child.node_id
            items.append((child.local_name, self._wrapper(j, wrappers, made, active)
                          if j in wrappers else made[j]))
        kind = wrappers[i]
        if kind is dict:
            made[i] = tracking._DictWrapper(dict(items))
            return made[i]
        if kind is tuple:  # TF revives a tuple as a list, a namedtuple's field names ignored
            items = [(k, v) for k, v in items if not k.isidentifier()]
        # the trackable items at their indices, None in the others' slots (TF's)
        if not all(k.isdigit() and len(k) < 8 for k, _ in items) or \
                len({k for k, _ in items}) < len(items):
            raise FormatError(f"object #{i}: a {kind.__name__} whose items are not named "
                              "by distinct indices")
        slots = [None] * (max((int(k) for k, _ in items), default=-1) + 1)
        for k, v in items:
            slots[int(k)] = v
        made[i] = tracking.ListWrapper(slots)
        return made[i]

    def _node_id(self, value, what):
        if not 0 <= value < len(self.nodes):
            raise FormatError(f"{what}: node #{value} does not exist")
        return value

    def _signature_children(self):
        for child in self.nodes[0].children:
            node = self.nodes[child.node_id]
            if child.local_name == "signatures" and node.WhichOneof("kind") == "user_object":
                if node.user_object.identifier != SIGNATURE_MAP:
                    raise FormatError("the root's 'signatures' is not a signature map")
                return list(node.children)
        return []

    def _signature_ids(self, kinds):
        ids = set()
        for child in self._signature_children():
            if kinds[child.node_id] != "bare_concrete_function":
                raise FormatError(f"signature {child.local_name!r} is not a concrete function")
            ids.add(child.node_id)
        return ids

    # --- variables --------------------------------------------------------------------------
    def _variables(self, kinds):
        """{node id: Variable}, values restored from the checkpoint by the object-graph keys."""
        wanted = [i for i, k in enumerate(kinds) if k == "variable"]
        if not wanted:
            return {}
        prefix = tf_files.variables_prefix(self.export_dir)
        try:
            reader = BundleReader(prefix)
        except errors.NotFoundError as e:  # TF's loader raises FileNotFoundError here
            raise FileNotFoundError(
                f"{e.message}\n You may be trying to load on a different device from the "
                "computational device. Consider setting the `experimental_io_device` option in "
                "`tf.saved_model.LoadOptions` to the io_device such as '/job:localhost'."
            ) from None
        if tf_files.OBJECT_GRAPH_KEY not in reader:
            raise FormatError(f"the checkpoint {prefix} has no object graph")
        raw = reader.read(tf_files.OBJECT_GRAPH_KEY)
        ckpt = _protos.parse(_protos.trackable_object_graph_pb2.TrackableObjectGraph,
                             raw.item() if isinstance(raw, np.ndarray) else raw,
                             f"the object graph of {prefix}")
        keys = _checkpoint_keys(self.nodes, ckpt)
        for i in wanted:  # a variable no attribute reaches: the node of the same id
            if i not in keys and i < len(ckpt.nodes):
                for a in ckpt.nodes[i].attributes:
                    if a.name == "VARIABLE_VALUE":
                        keys[i] = a.checkpoint_key
        made = {}
        for i in wanted:
            saved = self.nodes[i].variable
            dtype = tensor_proto.dtype_from_enum(saved.dtype)
            shape = tensor_proto.shape_from_proto(saved.shape)
            key = keys.get(i)
            if key is None or key not in reader:
                raise FormatError(f"variable {saved.name!r} (object #{i}) has no value in the "
                                  f"checkpoint {prefix}")
            if reader.dtype(key) != dtype or not shape.is_compatible_with(reader.shape(key)):
                raise FormatError(f"variable {saved.name!r} is declared {dtype.name} {shape}, its "
                                  f"checkpoint value {key!r} is {reader.dtype(key).name} "
                                  f"{TensorShape(reader.shape(key))}")
            value = np.asarray(reader.read(key))
            v = Variable(value, trainable=saved.trainable, name=saved.name or "Variable",
                         dtype=dtype, shape=shape)
            v._name = saved.name or v._name
            made[i] = v
        return made

    def _constants(self, kinds):
        """{node id: EagerTensor}: captured constants, held by Const nodes of the graph_def."""
        nodes = {n.name: n for n in self.mg.graph_def.node}
        made = {}
        for i, kind in enumerate(kinds):
            if kind != "constant":
                continue
            name = self.nodes[i].constant.operation
            node = nodes.get(name)
            if node is None or node.op != "Const" or "value" not in node.attr:
                raise FormatError(f"constant #{i}: {name!r} is not a Const node of the graph")
            value = tensor_proto.to_array(node.attr["value"].tensor)
            made[i] = EagerTensor._wrap(value)
        return made

    def _assets(self, kinds):
        """{node id: Asset}: the files of the model's assets/ directory, by the meta graph's
        asset file list."""
        files = self.mg.asset_file_def
        made = {}
        for i, kind in enumerate(kinds):
            if kind != "asset":
                continue
            index = self.nodes[i].asset.asset_file_def_index
            if not 0 <= index < len(files):
                raise FormatError(f"asset #{i}: asset file #{index} does not exist")
            name = files[index].filename
            if not name or os.path.basename(name) != name or name in (".", ".."):
                raise FormatError(f"asset #{i}: invalid file name {name!r}")
            made[i] = Asset(os.path.join(os.fspath(self.export_dir), tf_files.ASSETS, name))
        return made

    # --- functions --------------------------------------------------------------------------
    def _concrete(self, name, variables, is_signature, node_id):
        where = f"function {name!r}"
        fdef = self.library.get(name)
        saved = self.graph.concrete_functions.get(name) if name in \
            self.graph.concrete_functions else None
        if fdef is None or saved is None:
            raise FormatError(f"{where} is not in the function library and object graph")
        node = self.nodes[node_id]
        spec_proto = node.bare_concrete_function.function_spec if \
            node.WhichOneof("kind") == "bare_concrete_function" else node.function.function_spec
        signature = decode(saved.canonicalized_input_signature, f"{where}: input signature")
        if not (type(signature) is tuple and len(signature) == 2 and
                type(signature[0]) is tuple and type(signature[1]) is dict):
            raise FormatError(f"{where}: malformed input signature {signature!r:.100}")
        args, kwargs = signature
        if is_signature:
            parameters = [_P(k, _P.KEYWORD_ONLY) for k in sorted(kwargs)]
            specs = tuple(kwargs[k] for k in sorted(kwargs))
            if args:
                raise FormatError(f"{where}: a signature takes keyword arguments only")
        else:
            parameters = _parameters(spec_proto, where)
            specs = _specs(parameters, args, kwargs, where)
        captured = []
        for bound in saved.bound_inputs:
            self._node_id(bound, f"{where}: bound input")
            if bound not in variables:
                raise FormatError(f"{where}: bound input #{bound} is neither a variable nor a "
                                  "constant")
            captured.append(variables[bound])
        graph = _graph(fdef, self.mg.graph_def.library, where)
        flat = [s for s in nest.flatten(specs, expand_composites=True)
                if isinstance(s, TensorSpec)]
        if len(graph.inputs) != len(flat) + len(captured):
            raise FormatError(f"{where}: {len(graph.inputs)} inputs, but its signature has "
                              f"{len(flat)} tensors and {len(captured)} captured variables")
        placeholders = list(graph.inputs)
        graph.inputs = placeholders[:len(flat)]
        for v, ph in zip(captured, placeholders[len(flat):]):
            value = v.handle if isinstance(v, Variable) else \
                v.asset_path if isinstance(v, Asset) else v
            if ph.dtype != value.dtype or not ph.shape.is_compatible_with(value.shape):
                raise FormatError(f"{where}: the input {ph.name!r} is {ph.dtype.name} {ph.shape}"
                                  f", but it is fed {value.dtype.name} {value.shape}")
            graph.captures.append((value, ph))
            graph._capture_index[id(value)] = ph
        outputs = decode(saved.output_signature, f"{where}: output signature")
        graph.structured_outputs = _structure(outputs, graph.outputs, where)
        verify(graph, where)
        checks.check_function(graph, specs, where)
        if name in self.gradients:
            objects = {i: v.handle if isinstance(v, Variable) else
                       v.asset_path if isinstance(v, Asset) else v for i, v in variables.items()}
            custom_gradients.restore_tf(graph, placeholders, self.gradients[name],
                                        lambda n: self._library_graph(n, where), objects, where)
        binder = Binder(stub(name, parameters))
        kind = RestoredSignatureFunction if is_signature else RestoredConcreteFunction
        restored = kind(graph, binder, specs, _function_name(name))
        restored._output_specs = outputs  # TF's structured_outputs of a loaded function
        return restored

    def _library_graph(self, name, where):
        fdef = self.library.get(name)
        if fdef is None:
            raise FormatError(f"{where}: function {name!r} is not in the library")
        graph = _graph(fdef, self.mg.graph_def.library, f"{where}: {name}")
        verify(graph, f"{where}: {name}")
        return graph

    def _function(self, function, concretes, i, name):
        where = f"object #{i}"
        signature = decode(function.function_spec.input_signature, f"{where}: input signature")
        if function.concrete_functions:
            first = concretes[function.concrete_functions[0]]
            name, params = first._function_name, list(first._binder.params)
        else:  # never traced: calling it is TF's "Found zero restored functions" error
            params = _parameters(function.function_spec, where)
        for n in function.concrete_functions:
            concretes[n]._show_captures = False  # TF's restored traces print "Captures: None"
        return RestoredFunction(name, params, None if signature is None else tuple(signature),
                                [concretes[n] for n in function.concrete_functions])


def _graph(fdef, library, where):
    try:
        graph = function_def_to_graph(fdef, library)
    except errors.NotFoundError as e:  # an op type tensortrace lacks: TF's error, with where
        raise errors.NotFoundError(None, None, f"{e.message} (in {where})") from None
    except (errors.OpError, KeyError, TypeError, ValueError) as e:
        raise FormatError(f"{where}: {getattr(e, 'message', e)}") from None
    graph.is_function_graph = True  # a function's graph, as a trace's FuncGraph
    _as_traced(graph)
    return graph


def _as_traced(graph):
    """Numeric scalar constants as NumPy scalars, as tracing makes them (a TensorProto does not
    tell a 0-d array from a scalar), so loaded graphs print and fold as traced ones; and each
    stateful random op a stream of its own, as a freshly loaded TF kernel starts anew."""
    for op in graph.get_operations():
        value = op.attrs.get("value") if op.type == "Const" else None
        if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind not in "OSUV":
            op.attrs["value"] = op.outputs[0].static = value[()]
        if type(op.attrs.get("_stream")) is int and op.attrs["_stream"] > 0:
            op.attrs["_stream"] = next(_STREAM_IDS)
        for _, sub in ir.subgraphs(op.attrs):
            _as_traced(sub)


def _gradients(mg):
    """{function name: custom gradients} from tensortrace's collection (``tf_save``)."""
    if CUSTOM_GRADIENTS not in mg.collection_def:
        return {}
    values = mg.collection_def[CUSTOM_GRADIENTS].bytes_list.value
    try:
        found = json.loads(values[0].decode("utf-8")) if len(values) == 1 else None
    except (ValueError, UnicodeDecodeError) as e:
        raise FormatError(f"malformed custom gradients: {e}") from None
    if not isinstance(found, dict) or not all(isinstance(v, list) for v in found.values()):
        raise FormatError("malformed custom gradients")
    return found


def _restore_default_attrs(library, op_list):
    """Put back the attrs TF's saver stripped because they held their defaults (TF's loader
    does the same): from the model's own op list, else from TF's op signatures."""
    stripped = {op.name: op for op in op_list.op}
    for fdef in library.function:
        for node in fdef.node_def:
            opdef = stripped.get(node.op)
            if opdef is not None:
                for attr in opdef.attr:
                    if attr.name not in node.attr and attr.HasField("default_value"):
                        node.attr[attr.name].CopyFrom(attr.default_value)
                continue
            sig = tf_attrs.signature(node.op)
            for name, (kind, has_default, _) in ({} if sig is None else sig.attrs).items():
                if name not in node.attr and has_default:
                    node.attr[name].CopyFrom(tf_attrs.encode(tf_attrs.default(sig, name), kind))


def _function_name(name):
    """``__inference_add_846`` -> ``add`` (the Python function's name TF's trace had)."""
    if name.startswith("__inference_"):
        base = name[len("__inference_"):]
        head, _, tail = base.rpartition("_")
        return head if tail.isdigit() and head else base
    return name


def _parameters(spec_proto, where):
    """A saved function's Python parameters, from TF's FullArgSpec."""
    spec = decode(spec_proto.fullargspec, f"{where}: argument spec")
    names = list(getattr(spec, "args", None) or [])
    if spec_proto.is_method and names and names[0] == "self":
        names = names[1:]
    defaults = list(getattr(spec, "defaults", None) or ())
    first_default = len(names) - len(defaults)
    params = [_P(n, _P.POSITIONAL_OR_KEYWORD,
                 default=defaults[j - first_default] if j >= first_default else _P.empty)
              for j, n in enumerate(names)]
    if getattr(spec, "varargs", None):
        params.append(_P(spec.varargs, _P.VAR_POSITIONAL))
    kwonly_defaults = getattr(spec, "kwonlydefaults", None) or {}
    params += [_P(n, _P.KEYWORD_ONLY, default=kwonly_defaults.get(n, _P.empty))
               for n in getattr(spec, "kwonlyargs", None) or []]
    if getattr(spec, "varkw", None):
        params.append(_P(spec.varkw, _P.VAR_KEYWORD))
    inspect.Signature(params)  # raises ValueError for an impossible order
    return params


def _specs(params, args, kwargs, where):
    """One spec per parameter, as tensortrace keeps a trace's, from TF's canonical ``(args,
    kwargs)``: ``*args`` takes the positional rest, ``**kwargs`` the unnamed keywords, a
    parameter the trace did not bind its default."""
    specs, kwargs, positional = [], dict(kwargs), list(args)
    for p in params:
        if p.kind == p.POSITIONAL_OR_KEYWORD:
            value = positional.pop(0) if positional else kwargs.pop(p.name, p.default)
        elif p.kind == p.VAR_POSITIONAL:
            value, positional = tuple(positional), []
        elif p.kind == p.KEYWORD_ONLY:
            value = kwargs.pop(p.name, p.default)
        else:
            value, kwargs = kwargs, {}
        if value is _P.empty:
            raise FormatError(f"{where}: its trace binds no value to parameter {p.name!r}")
        specs.append(value)
    if positional or kwargs:
        raise FormatError(f"{where}: its trace has arguments its parameters do not take")
    return tuple(specs)


def _structure(outputs, flat, where):
    """The function's outputs in the structure TF's output signature records."""
    specs = nest.flatten(outputs, expand_composites=True)
    tensors = [s for s in specs if isinstance(s, TensorSpec)]
    if len(tensors) != len(flat):
        raise FormatError(f"{where}: its output signature has {len(tensors)} tensors, its graph "
                          f"{len(flat)} outputs")
    it = iter(flat)
    for spec, t in zip(tensors, flat):
        if isinstance(spec, VariableSpec) or spec.dtype != t.dtype:
            raise FormatError(f"{where}: output {spec.name!r} is declared {spec.dtype.name}, its "
                              f"graph computes {t.dtype.name}")
    return nest.pack_sequence_as(outputs, [next(it) if isinstance(s, TensorSpec) else s
                                           for s in specs], expand_composites=True)


def _checkpoint_keys(nodes, ckpt, attribute="VARIABLE_VALUE"):
    """{saved object id: checkpoint key of its ``attribute``}: the two object graphs walked
    together from their roots by child names (TF matches them the same way)."""
    keys, seen = {}, set()
    stack = [(0, 0)]
    while stack:
        saved_id, ckpt_id = stack.pop()
        if saved_id in seen or not 0 <= ckpt_id < len(ckpt.nodes):
            continue
        seen.add(saved_id)
        entry = ckpt.nodes[ckpt_id]
        for attr in entry.attributes:
            if attr.name == attribute:
                keys[saved_id] = attr.checkpoint_key
        by_name = {c.local_name: c.node_id for c in entry.children}
        for child in nodes[saved_id].children:
            if child.local_name in by_name:
                stack.append((child.node_id, by_name[child.local_name]))
    return keys
