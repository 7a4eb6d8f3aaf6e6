"""``tf.saved_model.save``: walk a trackable object's attributes into an object graph, encode its
functions' graphs, variables and constants, and write the model atomically.

    tf.saved_model.save(module, "/tmp/model", signatures=module.serve)
"""

import inspect

from .. import nest
from .._logging import logger
from ..module import Module
from ..tracing.concrete import ConcreteFunction
from ..tracing.function import PolymorphicFunction
from ..tracing.signature import IdentitySpec
from ..variables import Variable
from . import custom_gradients, io, tf_save
from .save_context import save_context
from . import signatures as _signatures
from .format import FORMAT, VERSION, ArrayWriter, CompositeSpecError, UnsaveableError, encode
from .graphs import GraphWriter
from .restored import _UserObject

TRACKABLE = (Module, _UserObject)


def save(obj, export_dir, signatures=None, options=None):
    """Save ``obj`` (a tf.Module or a loaded object) to the directory ``export_dir``, in TF's
    SavedModel format (``saved_model.pb``, ``variables/``, ``fingerprint.pb``).

    Every tf.function attribute is saved with its concrete functions (one with an
    input_signature is traced now if it has none); variables are saved by value; ``signatures``
    (a function or a dict of them) become ``loaded.signatures``.

    Raises:
        ValueError: for an object that is not trackable, an invalid signature, or an op that
            cannot be saved (``tf.py_function``), naming the op and the function.
        FailedPreconditionError: when ``export_dir`` exists and is not a directory.
    """
    _check_trackable(obj)
    try:
        with save_context(options):  # functions trace again, as TF's save does
            built = _signatures.canonicalize(signatures)
            if signatures is None:
                built = _signatures.canonicalize(_signatures.default_signature(
                    tf_save.trackable_children(obj)))
            tf_save.write_tf(obj, export_dir, built,
                             getattr(options, "function_aliases", None) or {})
    except CompositeSpecError as e:  # raised before anything is written
        logger.warning("Saving %s in tensortrace's own SavedModel format (saved_model.json + "
                       "npz), which tf.saved_model.load here reads: %s", export_dir, e)
        save_json(obj, export_dir, signatures)


def save_json(obj, export_dir, signatures=None):
    """Save ``obj`` in tensortrace's earlier format (a JSON document and one ``.npz``), which
    ``load`` still reads; same arguments and errors as ``save``."""
    _check_trackable(obj)
    document, arrays = _Saver().document(obj, signatures)
    io.write(export_dir, document, arrays)


def _check_trackable(obj):
    if not isinstance(obj, TRACKABLE) and not tf_save.has_trackable_protocol(obj):
        raise ValueError(  # noqa: TRY004 - TF's error type
            "Expected an object of type `Trackable`, such as `tf.Module` or a subclass of the "
            f"`Trackable` class, for export. Got {obj} with type {type(obj)}.")


def children(obj):
    """The (name, value) attributes of a trackable object, tf.function methods included."""
    found = {}
    ignored = getattr(obj, "_TF_MODULE_IGNORED_PROPERTIES", ())
    for name, value in sorted(vars(obj).items()):
        if name not in ignored and not isinstance(value, _signatures.SignatureMap):
            found[name] = value
    for name in dir(type(obj)):
        if name not in found and isinstance(inspect.getattr_static(obj, name, None),
                                            PolymorphicFunction):
            found[name] = getattr(obj, name)
    return sorted(found.items())


class _Saver:
    """Builds the document: object graph, function table, variable and constant tables."""

    def __init__(self):
        self.arrays = ArrayWriter()
        self.graphs = GraphWriter(self.arrays, self.variable, self.constant)
        self.variables, self.constants, self.objects = [], [], []
        self.functions = {}
        self._ids = {}  # (table, id(python object)) -> index or key
        self._alive = []  # keeps every indexed object alive, so ids stay unique

    def document(self, root, signatures):
        built = _signatures.canonicalize(signatures)
        self.object(root)
        if signatures is None:
            built = _signatures.canonicalize(_signatures.default_signature(children(root)))
        return {
            "format": FORMAT,
            "version": VERSION,
            "npz_sha256": None,
            "variables": self.variables,
            "constants": self.constants,
            "functions": self.functions,
            "objects": self.objects,
            "signatures": {key: self.concrete(fn) for key, fn in built.items()},
        }, self.arrays.npz

    def _memo(self, table, obj):
        return self._ids.get((table, id(obj)))

    def _remember(self, table, obj, index):
        self._ids[(table, id(obj))] = index
        self._alive.append(obj)
        return index

    # --- tables -------------------------------------------------------------------------------
    def variable(self, v):
        index = self._memo("variable", v)
        if index is not None:
            return index
        if v._array is None:
            raise UnsaveableError(f"Cannot save variable {v.name}: it is uninitialized (it was "
                                  "created inside a tf.function whose first call has not run).")
        self.variables.append({"name": v._name, "dtype": v.dtype.name,
                               "shape": v.shape.dims, "trainable": v.trainable,
                               "value": self.arrays.encode(v._array, to_npz=True)})
        return self._remember("variable", v, len(self.variables) - 1)

    def constant(self, t):
        index = self._memo("constant", t)
        if index is not None:
            return index
        self.constants.append(encode(t._value, self.arrays))
        return self._remember("constant", t, len(self.constants) - 1)

    def concrete(self, cf):
        key = self._memo("function", cf)
        if key is not None:
            return key
        where = f"function {cf._function_name!r} ({cf.name})"
        self._remember("function", cf, cf.name)
        doc = self.functions[cf.name] = {
            "function_name": cf._function_name,
            "signature": isinstance(cf, _signatures.SignatureFunction),
            "parameters": self._parameters(cf._binder.params),
            "specs": self._specs(cf._specs, where),
            "graph": self.graphs.encode(cf.graph, where),
        }
        grads = custom_gradients.encode(cf.graph, self.graphs, where)
        if grads:
            doc["custom_gradients"] = grads
        return cf.name

    def _parameters(self, params):
        out = []
        for p in params:
            doc = {"name": p.name, "kind": p.kind.name}
            if p.default is not p.empty:
                try:
                    doc["default"] = encode(p.default, self.arrays)
                except UnsaveableError:  # the loaded function then needs the argument passed
                    pass
            out.append(doc)
        return out

    def _specs(self, specs, where):
        try:
            return encode(specs, self.arrays)
        except UnsaveableError as e:
            raise UnsaveableError(f"Cannot save {where}: its input signature holds {e}.") from None

    # --- the object graph ---------------------------------------------------------------------
    def object(self, value):
        """The index of ``value``'s node, or None if it is not saved (not trackable)."""
        index = self._memo("object", value)
        if index is not None:
            return index
        if isinstance(value, Variable):
            return self._node(value, {"kind": "variable", "variable": self.variable(value)})
        if isinstance(value, PolymorphicFunction):
            return self._node(value, self._function(value))
        if isinstance(value, ConcreteFunction):
            return self._node(value, {"kind": "concrete", "function": self.concrete(value)})
        if isinstance(value, TRACKABLE):
            node = {"kind": "object", "children": []}
            index = self._node(value, node)  # registered first: cycles point back to it
            for name, child in children(value):
                child_index = self.object(child)
                if child_index is not None:
                    node["children"].append([name, child_index])
            return index
        if (type(value) is tuple or isinstance(value, list)) and _holds_trackable(value):
            items = [self.object(v) for v in value]  # a tf.Module's ListWrapper: a list
            kind = "tuple" if type(value) is tuple else "list"
            return self._node(value, {"kind": kind, "items": items})
        if isinstance(value, dict) and _holds_trackable(value):
            items = [[k, self.object(v)] for k, v in value.items()
                     if type(k) in (str, int) and _holds_trackable(v)]
            return self._node(value, {"kind": "dict", "items": items})
        return None

    def _node(self, value, node):
        self.objects.append(node)
        return self._remember("object", value, len(self.objects) - 1)

    def _function(self, pf):
        concretes = pf.experimental_get_concrete_functions()
        if not concretes and pf.input_signature is not None:
            concretes = [pf.get_concrete_function()]
        keys = []
        for cf in concretes:
            if any(isinstance(s, IdentitySpec) for s in nest.flatten(cf._specs)):
                logger.warning("A trace of %s takes a Python object argument (matched by "
                               "identity); it cannot be saved and is left out.", pf._name)
                continue
            keys.append(self.concrete(cf))
        signature = pf.input_signature
        return {"kind": "function", "name": pf._name,
                "parameters": self._parameters(pf._binder.params),
                "input_signature": None if signature is None else
                self._specs(tuple(signature), f"function {pf._name!r}"),
                "concrete_functions": keys}


def _holds_trackable(value):
    if isinstance(value, (Variable, PolymorphicFunction, ConcreteFunction) + TRACKABLE):
        return True
    if type(value) is tuple or isinstance(value, list):
        return any(_holds_trackable(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_trackable(v) for v in value.values())
    return False
