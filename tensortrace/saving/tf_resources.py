"""Resources (TF's ``TrackableResource`` nodes) in TF-format SavedModels, loading: each lookup
table is created eagerly from the table op of its ``_create_resource`` function, captured by the
functions that use it, filled by running its ``_initialize`` function (a text-file vocabulary
reads the model's asset) and, for mutable tables, by the checkpoint's ``table-keys`` and
``table-values``. A tracked dataset's resource is the dataset its creator builds; a generic
resource whose creator makes a variable by handle (VarHandleOp) is a new variable that its
``_initialize`` function assigns."""

import numpy as np

from .. import _protos, errors
from .. import dtypes as D
from ..autodiff.grad_util import not_differentiable
from ..checkpoint.bundle import BundleReader
from .._export import tf_export
from ..context import bind, state
from ..data import ops as data_ops
from ..executor.compiled import compile_graph
from ..graph import tf_attrs
from ..convert import convert_to_tensor
from ..ops.lookup import records
from ..registry import define_op
from ..registry import get as get_op
from ..shapes import TensorShape
from ..tensor import TensorSpec
from ..tracing.function import function
from ..variables import Variable
from . import tf_files
from .format import FormatError

CREATORS = ("HashTableV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2",
            "MutableDenseHashTableV2", "AnonymousHashTable", "AnonymousMutableHashTable")
_IMPORT = get_op("LookupTableImportV2")


def resource_functions(resource):
    """The ``_create_resource``, ``_initialize`` and ``_destroy_resource`` children a saved
    resource has: argument-less tf.functions of its methods (made once per resource)."""
    return resource._saved_functions()


def saveable_functions(resource):
    """``(save, restore)`` concrete functions of a table whose contents are checkpointed (TF's
    ``saveable_objects``: ``save(checkpoint_key)`` names and gives each tensor,
    ``restore(*tensors)`` imports them), or None."""
    if getattr(type(resource), "_checkpoint_suffixes", None) is None:
        return None
    made = getattr(resource, "_saved_saveable_functions", None)
    if made is None:
        key_dtype, value_dtype = resource.key_dtype, resource.value_dtype

        def save_fn(checkpoint_key):
            tensors = resource._serialize_to_tensors()
            return [{"name": checkpoint_key + suffix, "slice_spec": convert_to_tensor(""),
                     "tensor": tensors[suffix]} for suffix in ("-keys", "-values")]

        def restore_fn(restored_tensors_0, restored_tensors_1):
            resource._restore_from_tensors({"-keys": restored_tensors_0,
                                            "-values": restored_tensors_1})
            return convert_to_tensor(1)

        save = function(save_fn, input_signature=[TensorSpec([], D.string)], autograph=False)
        restore = function(restore_fn, autograph=False, input_signature=[
            TensorSpec(None, key_dtype), TensorSpec(None, value_dtype)])
        made = (save.get_concrete_function(), restore.get_concrete_function())
        resource._saved_saveable_functions = made
    return made


class RestoredResource:
    """A loaded resource object (TF's ``RestoredResource``): its handle, and the functions
    that made and fill it."""

    def __init__(self, handle):
        self.resource_handle = handle

    def _checkpoint_children(self):
        return []


def _child(node, name):
    return next((c.node_id for c in node.children if c.local_name == name), None)


def _function_name(loader, node_id):
    node = loader.nodes[node_id]
    kind = node.WhichOneof("kind")
    if kind == "function" and node.function.concrete_functions:
        return node.function.concrete_functions[0]
    if kind == "bare_concrete_function":
        return node.bare_concrete_function.concrete_function_name
    return None


def create(loader, kinds):
    """{node id: table handle}: every resource node's table, new and empty."""
    made = {}
    for i, kind in enumerate(kinds):
        if kind != "resource":
            continue
        where = f"object #{i}"
        creator = _child(loader.nodes[i], "_create_resource")
        name = None if creator is None else _function_name(loader, creator)
        if name is None:
            raise FormatError(f"{where}: a resource without a _create_resource function")
        fdef = loader.library.get(name)
        handles = [n for n in fdef.node_def if n.op == "VarHandleOp"] if fdef else []
        if len(handles) == 1 and not any(n.op in CREATORS for n in fdef.node_def):
            made[i] = _variable(handles[0])  # a generic resource: a variable's handle
            continue
        graph = loader._library_graph(name, f"{where}: _create_resource")
        ops = [op for op in graph.get_operations() if op.type in CREATORS]
        if not ops and [t.dtype for t in graph.outputs] == [D.variant]:
            made[i] = _dataset(graph, name)  # a tracked dataset's _variant_tracker
            continue
        if len(ops) != 1:
            raise FormatError(f"{where}: its _create_resource function makes no lookup table "
                              "tensortrace knows")
        op = ops[0]
        inputs = [convert_to_tensor(t.op.attrs["value"]) for t in op.inputs]
        made[i] = records.create(get_op(op.type), *inputs, **op.attrs)
    return made


def _dataset(graph, name):
    """The dataset a ``_variant_tracker``'s ``_create_resource`` makes (TF's resource of a
    tracked dataset, which table initializers capture), as an eager variant tensor."""
    value = compile_graph(graph, name)()[0]
    return data_ops.handle(value)


def _new_variable(dtype, shape):
    shape = TensorShape(shape)
    dims = [0 if d is None else d for d in shape.as_list()] if shape.rank is not None else []
    var = Variable(np.zeros(dims, dtype.as_numpy_dtype), dtype=dtype, shape=shape,
                   trainable=False)
    var._array = None  # as TF's: reading it before it is assigned is an error
    return var


@define_op("VarHandleOp", stateful=True)
class VarHandleOp:
    """TF's variable made by handle, as a generic TrackableResource's ``_create_resource``
    writes it: a new variable each run, uninitialized until assigned."""

    def infer(container="", shared_name="", dtype=D.float32, shape=None, allowed_devices=()):
        return TensorSpec((), D.resource)

    def kernel(container="", shared_name="", dtype=D.float32, shape=None, allowed_devices=()):
        return _new_variable(dtype, shape)  # a resource's run-time value: the variable


not_differentiable("VarHandleOp")  # as in TF (this layer declares its op's gradient itself)


# --- TF's raw ops of variables by handle: what a generic resource is written with ---------------
@tf_export("raw_ops.VarHandleOp")
def var_handle_op(*, dtype, shape, container="", shared_name="", debug_name="",
                  allowed_devices=(), name=None):
    """A new variable's handle, uninitialized (eagerly now; in a function each run)."""
    dtype = D.as_dtype(dtype)
    if state.graph is None:
        return _new_variable(dtype, shape).handle
    return bind(VarHandleOp, container=container, shared_name=shared_name, dtype=dtype,
                shape=TensorShape(shape))


@tf_export("raw_ops.ReadVariableOp")
def read_variable_op(*, resource, dtype, name=None):
    return bind(get_op("ReadVariableOp"), resource, dtype=D.as_dtype(dtype),
                shape=_variable_shape(resource))


@tf_export("raw_ops.AssignVariableOp")
def assign_variable_op(*, resource, value, validate_shape=False, name=None):
    return bind(get_op("AssignVariableOp"), resource, convert_to_tensor(value))


@tf_export("raw_ops.AssignAddVariableOp")
def assign_add_variable_op(*, resource, value, name=None):
    return bind(get_op("AssignAddVariableOp"), resource, convert_to_tensor(value))


@tf_export("raw_ops.DestroyResourceOp")
def destroy_resource_op(*, resource, ignore_lookup_error=True, name=None):
    return bind(get_op("DestroyResourceOp"), resource, ignore_lookup_error=ignore_lookup_error)


def _variable_shape(resource):
    value = getattr(resource, "_value", None)
    return TensorShape(getattr(value, "shape", None))


def _variable(node):
    """The resource a generic TrackableResource's ``_create_resource`` makes with TF's
    VarHandleOp: a new variable, uninitialized until its ``_initialize`` function runs."""
    dtype = tf_attrs.decode(node.attr["dtype"]) if "dtype" in node.attr else D.float32
    shape = tf_attrs.decode(node.attr["shape"]) if "shape" in node.attr else None
    return _new_variable(dtype, shape).handle


def initialize(loader, tables, concretes, checkpoint_keys):
    """Run each table's ``_initialize`` function, then restore mutable tables' contents from
    the checkpoint (``checkpoint_keys(nodes, ckpt, attribute)``: the loader's key walk)."""
    for i, handle in tables.items():
        init = _child(loader.nodes[i], "_initialize")
        name = None if init is None else _function_name(loader, init)
        if name is not None:
            concretes[name]()
    if not tables:
        return
    try:
        reader = BundleReader(tf_files.variables_prefix(loader.export_dir))
    except errors.NotFoundError:
        return  # a model with no checkpoint: no table contents saved
    if tf_files.OBJECT_GRAPH_KEY not in reader:
        return
    raw = reader.read(tf_files.OBJECT_GRAPH_KEY)
    ckpt = _protos.parse(_protos.trackable_object_graph_pb2.TrackableObjectGraph,
                         raw.item() if hasattr(raw, "item") else raw, "the checkpoint")
    keys = checkpoint_keys(loader.nodes, ckpt, "table")
    for i, key in keys.items():
        if i in tables and tables[i].dtype == D.resource and key + "-keys" in reader:
            handle = tables[i]
            table = handle._value
            k = convert_to_tensor(reader.read(key + "-keys"), dtype=table.key_dtype)
            v = convert_to_tensor(reader.read(key + "-values"), dtype=table.value_dtype)
            bind(_IMPORT, handle, k, v, Tin=table.key_dtype, Tout=table.value_dtype)
