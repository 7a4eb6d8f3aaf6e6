"""``tf.saved_model.save`` in TensorFlow's format: the object graph (objects, variables,
functions and their traces, the signature map) walked breadth-first as TF walks it, every
concrete function as a FunctionDef, a MetaGraphDef tagged "serve" with TF's SignatureDefs, the
variables as a tensor bundle whose object graph has the same node ids, and ``fingerprint.pb``.
The directory is replaced in one step (``io.replace_dir``).

    write_tf(module, "/tmp/model", signatures)      # TF's tf.saved_model.load reads it
"""

import collections
import inspect
import json
import os
import secrets
import shutil

from .. import _protos, _version, dtypes, nest
from ..checkpoint import graph_view, tracking
from ..checkpoint.graph_view import saved_form
from ..checkpoint.bundle import index_filename, write_bundle
from ..graph import ir, tensor_proto
from ..graph.function_def import graph_to_function_def
from ..composite import CompositeTensor
from ..module import Module
from ..tensor import EagerTensor, TensorSpec
from ..tracing.concrete import ConcreteFunction
from ..tracing.function import PolymorphicFunction
from ..variables import ResourceHandle, Variable
from ..lookup.resource import TrackableResource
from ..ops.lookup.resources import TableHandle
from . import custom_gradients, io, structure_coder, tf_datasets, tf_files, tf_resources
from .assets import Asset
from .save_context import traces_to_save
from . import signatures as _signatures
from .format import UnsaveableError, is_namedtuple
from .graphs import PYTHON_OPS, python_op_error
from .restored import _UserObject

TRACKABLE = (Module, _UserObject)
_FUNCTIONS = (PolymorphicFunction, ConcreteFunction)
_TRACKING_WRAPPERS = (tracking.ListWrapper, tracking._DictWrapper, tracking._TupleWrapper)
# TF's identifiers of the lists, tuples and dicts its objects hold (ListWrapper & co.)
_WRAPPERS = {list: "trackable_list_wrapper", tuple: "trackable_tuple_wrapper",
             dict: "trackable_dict_wrapper"}
SIGNATURE_MAP = "signature_map"
USER_OBJECT = "_generic_user_object"
PREDICT = "tensorflow/serving/predict"
INIT_OP = "__saved_model_init_op"
# a collection of the MetaGraphDef (TF 2's loader reads none; function attrs it would refuse)
CUSTOM_GRADIENTS = "tensortrace_custom_gradients"
_FULL_ARG_SPEC = collections.namedtuple(
    "FullArgSpec", ["args", "varargs", "varkw", "defaults", "kwonlyargs", "kwonlydefaults",
                    "annotations"])


def write_tf(obj, export_dir, signatures, aliases=None):
    """Write ``obj`` and ``signatures`` ({key: SignatureFunction}) to ``export_dir``;
    ``aliases`` ({alias: tf.function or concrete function}) name saved functions in the
    MetaGraphDef (``SaveOptions.function_aliases``)."""
    files = _Writer(obj, signatures, aliases).build()

    def fill(staging):
        os.makedirs(os.path.join(staging, tf_files.ASSETS))  # TF writes it, empty or not
        for name, source, _ in files["assets"]:
            shutil.copyfile(source, os.path.join(staging, tf_files.ASSETS, name))
        prefix = write_bundle(tf_files.variables_prefix(staging), files["variables"])
        with open(index_filename(prefix), "rb") as f:  # TF hashes the index as written
            files[tf_files.FINGERPRINT] = _fingerprint(files["model"], f.read())
        for name in (tf_files.SAVED_MODEL, tf_files.FINGERPRINT):
            path = os.path.join(staging, name)
            with open(path, "wb") as f:
                f.write(files[name])
                f.flush()
                os.fsync(f.fileno())

    io.replace_dir(export_dir, fill)


def has_trackable_protocol(obj):
    """Whether ``obj`` follows TF's Trackable protocol (``_trackable_children(save_type)``):
    ``tf.__internal__.tracking`` objects, Keras' layers and export archives, resources."""
    return callable(getattr(type(obj), "_trackable_children", None)) and \
        not isinstance(obj, (Module, _UserObject) + _FUNCTIONS)


def _protocol_children(obj):
    """A Trackable-protocol object's children: what ``_trackable_children("savedmodel")``
    names (lists, dicts and tuples wrapped, as TF's converter does); for one that is not an
    AutoTrackable, then the attributes an AutoTrackable would track (lists, dicts, functions,
    trackables assigned to it), in assignment order."""
    found = {k: tracking.wrap_or_unwrap(v)  # TF's converter: lists & co. as wrappers
             for k, v in obj._trackable_children("savedmodel").items()}
    if isinstance(obj, tracking.AutoTrackable):
        return found  # it tracks its attributes and finds its functions itself
    if isinstance(inspect.getattr_static(type(obj), _signatures.DEFAULT_SIGNATURE_ATTR, None),
                  property):  # a computed default signature (Keras' models): TF saves it too
        default = getattr(obj, _signatures.DEFAULT_SIGNATURE_ATTR)
        if isinstance(default, _FUNCTIONS):
            found[_signatures.DEFAULT_SIGNATURE_ATTR] = default
    for k, v in vars(obj).items():
        if k in found or k.startswith(("_self_", "_tt_")):
            continue
        if isinstance(v, _FUNCTIONS + (Variable, Module, _UserObject)) or \
                has_trackable_protocol(v) or (isinstance(v, (list, tuple, dict)) and _holds(v)):
            found[k] = v
    return found


def _holds(container):
    """Whether a list/tuple/dict (string keys: what TF's wrappers save) holds something a
    SavedModel saves."""
    if isinstance(container, dict) and not all(isinstance(k, str) for k in container):
        return False
    values = container.values() if isinstance(container, dict) else container
    return any(isinstance(saved_form(v), _FUNCTIONS + (Variable, Module, _UserObject)) or
               has_trackable_protocol(v) or (isinstance(v, (list, tuple, dict)) and _holds(v))
               for v in values)


def trackable_children(obj):
    """A trackable object's (name, value) children in TF's order: the checkpoint's children (its
    attributes as assigned) and tf.functions among its attributes, then its tf.function methods
    by name."""
    if has_trackable_protocol(obj):
        found = _protocol_children(obj)
    elif isinstance(obj, Module):
        ignored = getattr(obj, "_TF_MODULE_IGNORED_PROPERTIES", ())
        tracked = dict(graph_view.children(obj))
        found = {k: v for k, v in vars(obj).items() if k in tracked or
                 isinstance(v, _FUNCTIONS + (_UserObject,)) and k not in ignored}
    elif isinstance(obj, _UserObject):
        found = {k: v for k, v in vars(obj).items() if k != "signatures" and (
            graph_view.is_trackable(v) or isinstance(v, _FUNCTIONS + (_UserObject,)))}
    else:
        found = dict(graph_view.children(obj))
    for name in sorted(dir(type(obj))):
        if name not in found and isinstance(inspect.getattr_static(obj, name, None),
                                            PolymorphicFunction):
            found[name] = getattr(obj, name)
    return [(k, v) for k, v in found.items() if not isinstance(v, _signatures.SignatureMap)]


class _Writer:
    def __init__(self, root, signatures, aliases=None):
        self.aliases = dict(aliases or {})
        self.root = root
        self.signatures = signatures
        self.nodes, self.kinds = [], []  # graph_view.Node, and what each object is
        self.constants = []  # (graph_def node name, captured EagerTensor)
        self.gradients = {}  # function name -> its custom gradients (custom_gradients.encode_tf)
        self.feeds = {}  # node id of a variable or constant -> its graph_def node
        self._ids = {}
        self._alive = []
        self._saved_traces = {}  # id(tf.function) -> the concrete functions saved for it
        self.assets = []  # (file name in assets/, the file it copies, the Asset's node id)
        self._asset_paths = {}  # id(an Asset's path tensor) -> the Asset's node id
        self.saveables = {}  # a table's node id -> its save and restore functions' node ids

    # --- the object graph, breadth first --------------------------------------------------
    def _add(self, value, path):
        value = saved_form(value)
        key = id(value)
        if key in self._ids:
            return self._ids[key], False
        self._ids[key] = len(self.nodes)
        self._alive.append(value)
        self.nodes.append(graph_view.Node(len(self.nodes), value, path))
        self.kinds.append(_kind(value))
        if self.kinds[-1] == "asset":  # functions capture its path: bound to this node
            self._asset_paths[id(value.asset_path)] = len(self.nodes) - 1
        if self.kinds[-1] == "resource" and value.resource_handle is not None:
            self._asset_paths[id(value.resource_handle)] = len(self.nodes) - 1
        return len(self.nodes) - 1, True

    def _walk(self):
        self._add(self.root, ())
        queue = collections.deque([0])
        while queue:
            i = queue.popleft()
            node = self.nodes[i]
            for name, child in self._children(node.obj, self.kinds[i]):
                if _kind(child) is None:
                    continue
                j, new = self._add(child, node.path + (name,))
                node.children.append((name, j))
                if new:
                    queue.append(j)
            if not queue:  # tables' save and restore functions: nodes after the walk, as TF's
                queue.extend(self._saveables())

    def _saveables(self):
        """Add the save/restore functions of checkpointed tables not yet given them; their new
        node ids (walked next)."""
        added = []
        for i, kind in enumerate(list(self.kinds)):
            if kind != "resource" or i in self.saveables:
                continue
            functions = tf_resources.saveable_functions(self.nodes[i].obj)
            if functions is None:
                continue
            self.saveables[i] = [self._add(cf, ())[0] for cf in functions]
            added.extend(self.saveables[i])
        return added

    def _children(self, value, kind):
        if value is self.root:
            yield from trackable_children(value)
            yield "signatures", _SignatureMapNode(self.signatures)
        elif isinstance(value, _SignatureMapNode):
            yield from value.functions.items()  # as given: TF's loaded order
        elif kind == "user_object":
            yield from trackable_children(value)
        elif kind == "resource":  # tracked children, then the three functions TF saves
            yield from graph_view.children(value)
            yield from tf_resources.resource_functions(value)
        elif kind == "function":
            for k, cf in enumerate(self._traces(value)):
                yield f"trace_{k}", cf
        elif kind in ("list", "dict"):
            tracked = value._trackable_children("savedmodel") if isinstance(
                value, _TRACKING_WRAPPERS) else dict(graph_view.children(value))  # TF's errors
            items = enumerate(value) if kind == "list" else value.items()
            yield from ((str(k), v) for k, v in items
                        if str(k) in tracked or isinstance(v, _FUNCTIONS + (_UserObject,)) or
                        has_trackable_protocol(v) or saved_form(v) is not v)

    def _traces(self, pf):
        traces = self._saved_traces.get(id(pf))
        if traces is None:  # asked once per function: the walk and the writer see the same
            traces = self._saved_traces[id(pf)] = traces_to_save(pf)
        return traces

    # --- everything -------------------------------------------------------------------------
    def build(self):
        self._walk()
        self.library = {}  # function name -> FunctionDef
        self.saved_functions = {}  # function name -> SavedConcreteFunction
        self.names = {}  # id(concrete) -> library name
        pb = _protos.saved_object_graph_pb2
        graph = pb.SavedObjectGraph()
        for i, node in enumerate(self.nodes):
            saved = graph.nodes.add()
            for name, j in node.children:
                saved.children.add(node_id=j, local_name=name)
                if self.kinds[i] in ("function", "bare_concrete_function"):
                    saved.dependencies.add(node_id=j, local_name=name)
            self._fill(saved, node.obj, self.kinds[i], node.children)
        for name, fn in self.saved_functions.items():
            graph.concrete_functions[name].CopyFrom(fn)
        for node, kind in zip(self.nodes, self.kinds):
            if kind == "variable" and node.obj._array is None:
                raise UnsaveableError(f"Cannot save variable {node.obj.name}: it is "
                                      "uninitialized (it was created inside a tf.function whose "
                                      "first call has not run).")
        variables, _ = graph_view.serialize(self.root, self.nodes)
        mg = self._meta_graph(graph)
        model = _protos.SavedModel(saved_model_schema_version=tf_files.SCHEMA_VERSION)
        model.meta_graphs.add().CopyFrom(mg)
        data = model.SerializeToString(deterministic=True)
        return {tf_files.SAVED_MODEL: data, "variables": variables, "assets": self.assets,
                "model": model}

    def _fill(self, saved, value, kind, children):
        if kind == "user_object":
            saved.user_object.identifier = SIGNATURE_MAP if isinstance(
                value, _SignatureMapNode) else USER_OBJECT
            saved.user_object.version.producer = 1
            saved.user_object.version.min_consumer = 1
        elif kind == "variable":
            v = saved.variable
            v.dtype = tensor_proto.dtype_enum(value.dtype)
            v.shape.CopyFrom(tensor_proto.shape_proto(value.shape))
            v.trainable = value.trainable
            v.name = value._name
        elif kind == "function":
            traces = [self.nodes[j].obj for _, j in children]
            saved.function.concrete_functions.extend(self._concrete(cf) for cf in traces)
            saved.function.function_spec.CopyFrom(self._function_spec(
                value._binder.params, value.input_signature))
        elif kind == "bare_concrete_function":
            bare = saved.bare_concrete_function
            bare.concrete_function_name = self._concrete(value)
            params = value._binder.params
            positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                               p.POSITIONAL_OR_KEYWORD)]
            bare.argument_keywords.extend(p.name for p, s in zip(params, value._specs)
                                          if isinstance(s, TensorSpec))
            if isinstance(value, _signatures.SignatureFunction):
                bare.allowed_positional_arguments = value._num_positional_args
            else:
                bare.allowed_positional_arguments = len(positional)
            bare.function_spec.CopyFrom(self._function_spec(params, None))
        elif kind == "constant":
            saved.constant.operation = self._constant_op(value)
        elif kind == "asset":
            saved.asset.asset_file_def_index = self._asset(value)
        elif kind == "resource":
            saved.resource.SetInParent()
            functions = self.saveables.get(self._ids[id(value)])
            if functions:
                entry = saved.saveable_objects[type(value)._checkpoint_attribute]
                entry.save_function, entry.restore_function = functions
        elif kind in ("list", "dict"):
            saved.user_object.identifier = _WRAPPERS[
                dict if kind == "dict" else tuple if type(value) is tuple or
                isinstance(value, tracking._TupleWrapper) else list]
            saved.user_object.version.producer = 1
            saved.user_object.version.min_consumer = 1

    def _function_spec(self, params, input_signature):
        spec = _protos.saved_object_graph_pb2.FunctionSpec()
        args = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        defaults = [_default(p) for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                              p.POSITIONAL_OR_KEYWORD)
                    and p.default is not p.empty]
        kwonly = [p.name for p in params if p.kind == p.KEYWORD_ONLY]
        kwdefaults = {p.name: _default(p) for p in params
                      if p.kind == p.KEYWORD_ONLY and p.default is not p.empty}
        varargs = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), None)
        varkw = next((p.name for p in params if p.kind == p.VAR_KEYWORD), None)
        full = _FULL_ARG_SPEC(args, varargs, varkw, tuple(defaults) if defaults else None, kwonly,
                              kwdefaults or None, {})
        spec.fullargspec.CopyFrom(structure_coder.encode(full))
        spec.input_signature.CopyFrom(structure_coder.encode(
            None if input_signature is None else tuple(input_signature)))
        return spec

    def _library_function(self, graph, name):
        fdef, nested = graph_to_function_def(graph, name)
        for f in [fdef, *nested]:
            self.library.setdefault(f.signature.name, f)
        return name

    def _capture_node(self, value):
        """The object node of a captured variable or constant (added if new)."""
        if id(value) in self._asset_paths:
            return self._asset_paths[id(value)]
        if isinstance(value, ResourceHandle):
            return self._add(value._value, (f"_untracked_{len(self.nodes)}",))[0]
        if isinstance(value, TableHandle):
            raise UnsaveableError("a function captures a lookup table no attribute of the saved "
                                  "object reaches")
        if isinstance(value, EagerTensor):
            return self._add(value, ())[0]
        raise UnsaveableError(f"a custom gradient captures {value!r}, which is neither a "
                              "variable nor a constant")

    def _asset(self, asset):
        """The index of ``asset``'s file among the model's assets (TF's file name: the
        source's base name, made unique with a suffix)."""
        source = asset.asset_path.numpy()
        source = os.fsdecode(source)
        base, ext = os.path.splitext(os.path.basename(source))
        taken = {name for name, _, _ in self.assets}
        name, k = base + ext, 1
        while name in taken:
            name, k = f"{base}_{k}{ext}", k + 1
        if not os.path.isfile(source):
            raise UnsaveableError(f"Cannot save the asset {source!r}: no such file")
        self.assets.append((name, source, self._asset_paths[id(asset.asset_path)]))
        return len(self.assets) - 1

    def _constant_op(self, tensor):
        """The name of the graph_def Const node holding a captured constant (TF's form)."""
        name = f"Const_{len(self.constants)}" if self.constants else "Const"
        self.constants.append((name, tensor))
        self.feeds[self._ids[id(tensor)]] = name
        return name

    # --- functions --------------------------------------------------------------------------
    def _concrete(self, cf):
        name = self.names.get(id(cf))
        if name is not None:
            return name
        name = self.names[id(cf)] = cf.name
        where = f"function {cf._function_name!r} ({cf.name})"
        bound = []
        for value, _ in cf.graph.captures:
            # a variable no attribute reaches is saved by value (TF refuses it) as a node of its
            # own, named in the checkpoint only; a constant as TF's captured-constant node
            if isinstance(value, EagerTensor) and value.dtype in (dtypes.resource,
                                                                 dtypes.variant) and \
                    id(value) not in self._asset_paths and \
                    not isinstance(value, (ResourceHandle, TableHandle)):
                raise KeyError(  # a summary writer's, a dataset's ...: TF's error
                    f"Failed to add concrete function 'b'{cf.name}'' to object-based SavedModel "
                    f"as it captures tensor {value!r} which is unsupported or not reachable "
                    "from root. One reason could be that a stateful object or a variable that "
                    "the function depends on is not assigned to an attribute of the serialized "
                    "trackable object (see SaveTest.test_captures_unreachable_variable).")
            try:
                bound.append(self._capture_node(value))
            except UnsaveableError as e:
                raise UnsaveableError(f"Cannot save {where}: {e}.") from None
        _refuse_python_ops(cf.graph, where)
        fdef, nested = graph_to_function_def(cf.graph, name)
        for f in [fdef, *nested]:
            self.library.setdefault(f.signature.name, f)
        grads = custom_gradients.encode_tf(cf.graph, self._library_function, self._capture_node,
                                           where)
        if grads:
            self.gradients[name] = grads
        saved = _protos.saved_object_graph_pb2.SavedConcreteFunction()
        saved.bound_inputs.extend(bound)
        args, kwargs = cf.structured_input_signature
        if isinstance(cf, _signatures.SignatureFunction):
            args, kwargs = (), dict(kwargs)
        try:
            saved.canonicalized_input_signature.CopyFrom(
                structure_coder.encode((tuple(args), kwargs)))
            saved.output_signature.CopyFrom(structure_coder.encode(
                _output_specs(cf.graph.structured_outputs, _input_names(cf))))
        except UnsaveableError as e:
            raise type(e)(f"Cannot save {where}: its signature holds {e}.") from None
        self.saved_functions[name] = saved
        return name

    # --- the MetaGraphDef ------------------------------------------------------------------
    def _meta_graph(self, object_graph):
        mg = _protos.meta_graph_pb2.MetaGraphDef()
        info = mg.meta_info_def
        info.tags.append("serve")
        info.tensorflow_version = _version.VERSION
        info.tensorflow_git_version = "tensortrace"
        info.stripped_default_attrs = True
        for alias, fn in self.aliases.items():  # the saved traces of each aliased function
            traces = self._saved_traces.get(id(fn), ()) if isinstance(
                fn, PolymorphicFunction) else [fn]
            for cf in traces:
                if id(cf) in self.names:
                    info.function_aliases[self.names[id(cf)]] = alias
        gd = mg.graph_def
        gd.versions.producer = 2474
        gd.versions.min_consumer = 12
        handles = {}
        for i, (node, kind) in enumerate(zip(self.nodes, self.kinds)):
            if kind == "variable":
                v = node.obj
                n = gd.node.add(name=_unique(handles, v._name.split(":")[0] or "Variable"),
                                op="VarHandleOp")
                n.attr["shared_name"].s = n.name.encode()
                n.attr["dtype"].type = tensor_proto.dtype_enum(v.dtype)
                n.attr["shape"].shape.CopyFrom(tensor_proto.shape_proto(v.shape))
                handles[i] = self.feeds[i] = n.name
        for i, kind in enumerate(self.kinds):
            if kind == "resource" and isinstance(self.nodes[i].obj.resource_handle,
                                                 ResourceHandle):  # a variable by handle
                v = self.nodes[i].obj.resource_handle._value
                n = gd.node.add(name=_unique(handles, "VarHandleOp"), op="VarHandleOp")
                n.attr["dtype"].type = tensor_proto.dtype_enum(v.dtype)
                n.attr["shape"].shape.CopyFrom(tensor_proto.shape_proto(v.shape))
                handles[i] = self.feeds[i] = n.name
            elif kind == "resource":  # the resource's node in TF's graph (its TF 1 form)
                table = self.nodes[i].obj.resource_handle._value
                n = gd.node.add(name=_unique(handles, "hash_table"), op=table.kind + "V2")
                n.attr["key_dtype"].type = tensor_proto.dtype_enum(table.key_dtype)
                n.attr["value_dtype"].type = tensor_proto.dtype_enum(table.value_dtype)
                handles[i] = self.feeds[i] = n.name
        for k, (name, source, node_id) in enumerate(self.assets):
            ph = gd.node.add(name="asset_path_initializer" + (f"_{k}" if k else ""),
                             op="Placeholder")  # what TF's graph feeds an asset's path with
            ph.attr["dtype"].type = tensor_proto.dtype_enum(dtypes.string)
            ph.attr["shape"].shape.SetInParent()
            mg.asset_file_def.add(filename=name).tensor_info.name = f"{ph.name}:0"
            self.feeds[node_id] = ph.name
        for k, key in enumerate(sorted(self.signatures)):
            self._signature_def(mg, key, self.signatures[key], handles,
                                "StatefulPartitionedCall" + (f"_{k}" if k else ""))
        for name, tensor in self.constants:
            n = gd.node.add(name=name, op="Const")
            n.attr["dtype"].type = tensor_proto.dtype_enum(tensor.dtype)
            n.attr["value"].tensor.CopyFrom(tensor_proto.to_proto(tensor.numpy(), tensor.dtype))
        init = gd.node.add(name="NoOp", op="NoOp")
        mg.signature_def[INIT_OP].outputs[INIT_OP].name = init.name
        mg.signature_def[INIT_OP].outputs[INIT_OP].tensor_shape.unknown_rank = True
        for name in sorted(self.library):
            gd.library.function.add().CopyFrom(self.library[name])
        if self.gradients:
            mg.collection_def[CUSTOM_GRADIENTS].bytes_list.value.append(
                json.dumps(self.gradients, sort_keys=True).encode("utf-8"))
        mg.object_graph_def.CopyFrom(object_graph)
        return mg

    def _signature_def(self, mg, key, fn, handles, call_name):
        gd = mg.graph_def
        sig = mg.signature_def[key]
        sig.method_name = PREDICT
        inputs = []
        for p, spec in zip(fn._binder.params, fn._specs):
            ph = gd.node.add(name=f"{key}_{p.name}", op="Placeholder")
            ph.attr["dtype"].type = tensor_proto.dtype_enum(spec.dtype)
            ph.attr["shape"].shape.CopyFrom(tensor_proto.shape_proto(spec.shape))
            info = sig.inputs[p.name]
            info.name = f"{ph.name}:0"
            info.dtype = ph.attr["dtype"].type
            info.tensor_shape.CopyFrom(ph.attr["shape"].shape)
            inputs.append(ph.name)
        call = gd.node.add(name=call_name, op="StatefulPartitionedCall")
        call.input.extend(inputs)
        bound = self.saved_functions[self.names[id(fn)]].bound_inputs
        call.input.extend(self.feeds[j] for j in bound)
        call.attr["f"].func.name = self.names[id(fn)]
        call.attr["Tin"].list.type.extend(
            [tensor_proto.dtype_enum(s.dtype) for s in fn._specs] +
            [tensor_proto.dtype_enum(ph.dtype) for _, ph in fn.graph.captures])
        outputs = fn.graph.structured_outputs
        keys = sorted(outputs)
        call.attr["Tout"].list.type.extend(tensor_proto.dtype_enum(outputs[k].dtype)
                                           for k in keys)
        for index, k in enumerate(keys):
            info = sig.outputs[k]
            info.name = f"{call_name}:{index}"
            info.dtype = tensor_proto.dtype_enum(outputs[k].dtype)
            info.tensor_shape.CopyFrom(tensor_proto.shape_proto(outputs[k].shape))


class _SignatureMapNode:
    """The root's ``signatures`` child: a user object whose children are the signatures."""

    def __init__(self, functions):
        self.functions = dict(functions)


def _refuse_python_ops(graph, where):
    """Ops that call Python (tf.py_function, Python datasets) have no saved form: refused, as
    the JSON format refuses them, naming the op and the function."""
    for op in graph.get_operations():
        if op.type in PYTHON_OPS and not tf_datasets.saveable(op):
            raise python_op_error(op, where)
        for _, sub in ir.subgraphs(op.attrs):
            _refuse_python_ops(sub, where)


def _kind(value):
    value = saved_form(value)
    if isinstance(value, Variable):
        return "variable"
    if isinstance(value, TrackableResource) and \
            isinstance(value.resource_handle, (TableHandle, ResourceHandle)):
        return "resource"  # a lookup table or a variable by handle: TF's resource node
    if isinstance(value, Asset):
        return "asset"
    if isinstance(value, EagerTensor):
        return "constant"
    if isinstance(value, PolymorphicFunction):
        return "function"
    if isinstance(value, ConcreteFunction):
        return "bare_concrete_function"
    if isinstance(value, (tracking.ListWrapper, tracking._TupleWrapper)):
        return "list"  # TF's trackable list and tuple wrappers
    if isinstance(value, tracking._DictWrapper):
        return "dict"
    if isinstance(value, TRACKABLE + (_SignatureMapNode,)) or has_trackable_protocol(value):
        return "user_object"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, dict):
        return "dict"
    return "user_object" if graph_view.is_trackable(value) else None


def _default(p):
    try:
        structure_coder.encode(p.default)
    except UnsaveableError:
        return None  # TF then needs the argument passed
    return p.default


def _output_specs(outputs, inputs=None, path=()):
    """The outputs' specs as TF's output signature records them (its
    ``convert_structure_to_signature``): each tensor named after its path in the structure,
    or the argument it returns as is when that argument was named otherwise."""
    if isinstance(outputs, CompositeTensor):
        return outputs._type_spec
    if isinstance(outputs, dict):
        return {k: _output_specs(v, inputs, path + (k,)) for k, v in outputs.items()}
    if is_namedtuple(outputs):
        return type(outputs)(*[_output_specs(v, inputs, path + (k,))
                               for k, v in zip(outputs._fields, outputs)])
    if isinstance(outputs, (list, tuple)):
        return type(outputs)(_output_specs(v, inputs, path + (i,))
                             for i, v in enumerate(outputs))
    if not _is_tensor(outputs):
        return outputs
    name = (inputs or {}).get(id(outputs))
    if not (path and name and name != path[0]):
        name = _spec_name("_".join(str(p) for p in path))
    return TensorSpec(outputs.shape, outputs.dtype, name)


def _spec_name(name):
    """TF's ``sanitize_spec_name``: lower case, non-alphanumerics as ``_``, "unknown" for none."""
    if not name:
        return "unknown"
    swapped = "".join(c if c.isalnum() else "_" for c in name.lower())
    return swapped if swapped[0].isalpha() else "tensor_" + swapped


def _input_names(cf):
    """{id(graph input): the name its argument has in the trace's input signature}."""
    specs = [s for s in nest.flatten(cf.structured_input_signature) if isinstance(s, TensorSpec)]
    return {id(t): s.name for t, s in zip(cf.graph.inputs, specs) if s.name}


def _is_tensor(t):
    return isinstance(t, (EagerTensor, ir.SymbolicTensor))


def _unique(used, name):
    taken = set(used.values())
    candidate, k = name, 1
    while candidate in taken:
        candidate, k = f"{name}_{k}", k + 1
    return candidate


def _fingerprint(saved_model, checkpoint_index):
    """``fingerprint.pb``: TF's FarmHash fingerprints of the model's parts (TF uses them to tell
    models apart; its loader reads but does not verify them) and a random UUID."""
    fp = _protos.saved_model_fingerprint(saved_model, checkpoint_index)
    fp.uuid = str(secrets.randbits(128))
    return fp.SerializeToString(deterministic=True)
