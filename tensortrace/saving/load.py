"""``tf.saved_model.load``: read and check the files, rebuild every graph through the op registry
and verify it, then recreate variables, functions and the object graph. Nothing from the file
runs: a model with unknown ops, a bad version or malformed data fails before any call.

    loaded = tf.saved_model.load("/tmp/model")
    loaded.f(x), loaded.signatures["serving_default"](x=x)
"""

import inspect

import numpy as np

from .. import errors
from ..graph.verify import GraphVerificationError, verify
from ..registry import all_ops
from ..tensor import EagerTensor
from ..tracing.signature import Binder
from ..tracing.trace import FuncGraph
from ..variables import Variable
from . import checks, custom_gradients, io, tf_files, tf_load
from .format import ArrayReader, FormatError, decode, decode_dtype, decode_shape, expect
from .graphs import GraphReader, op_types
from .restored import (
    RestoredConcreteFunction,
    RestoredFunction,
    RestoredSignatureFunction,
    _UserObject,
    set_attribute,
    stub,
)
from .signatures import SignatureFunction, SignatureMap

_P = inspect.Parameter
_KINDS = {k.name: k for k in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD, _P.VAR_POSITIONAL,
                              _P.KEYWORD_ONLY, _P.VAR_KEYWORD)}


def load(export_dir, tags=None, options=None):
    """Load the model saved in ``export_dir``: TF's format (``saved_model.pb``, what ``save``
    writes) or tensortrace's earlier JSON + npz format, told apart by their files.

    Returns:
        An object with the saved attributes: functions callable like the originals, tf.Variables,
        nested objects, and ``signatures``.

    Raises:
        OSError: when the directory holds no model or a file cannot be parsed.
        ValueError: for an unsupported format version, op types that are not registered, or a
            malformed document (naming the function, op and field): any op whose declared
            outputs its inputs and attrs do not give, sub-graphs that do not fit their op, a
            graph whose inputs or outputs do not fit its signature, arrays whose sizes do not
            fit their declared shapes or the file.
    """
    if tf_files.is_tf_format(io.resolve(export_dir)):
        return io.read_whole(export_dir, lambda d: tf_load.load_tf(d, tags, shown=export_dir,
                                                                    options=options),
                             (OSError, FormatError, errors.DataLossError))
    document, npz = io.read(export_dir)
    try:
        return _Loader(document, npz).root()
    except (FormatError, GraphVerificationError) as e:
        raise type(e)(f"Cannot load the SavedModel at {export_dir}: {e}") from None
    except (LookupError, TypeError, AttributeError, ValueError, ArithmeticError, RecursionError,
            MemoryError, NotImplementedError, StopIteration) as e:
        raise FormatError(f"Cannot load the SavedModel at {export_dir}: malformed document "
                          f"({type(e).__name__}: {e})") from None


class _Loader:
    def __init__(self, document, npz):
        self.doc = document
        self.arrays = ArrayReader(npz)

    def root(self):
        functions = expect(self.doc.get("functions"), dict, "functions")
        self._check_op_types(functions)
        variables = [self._variable(i, v) for i, v in
                     enumerate(expect(self.doc.get("variables"), list, "variables"))]
        constants = [EagerTensor._wrap(_value(decode(c, self.arrays)))
                     for c in expect(self.doc.get("constants"), list, "constants")]
        reader = GraphReader(self.arrays, variables, constants)
        self.functions = {key: self._concrete(reader, key, expect(doc, dict, key))
                          for key, doc in functions.items()}
        objects = self._objects(expect(self.doc.get("objects"), list, "objects"), variables)
        root = objects[0] if objects else None
        if not isinstance(root, _UserObject):
            raise FormatError("the root of the object graph is not an object")
        signatures = expect(self.doc.get("signatures"), dict, "signatures")
        root.signatures = SignatureMap({k: self._function(key) for k, key in signatures.items()})
        for key in signatures.values():
            if not isinstance(self.functions[key], SignatureFunction):
                raise FormatError(f"signature function {key!r} is not marked as a signature")
        return root

    def _check_op_types(self, functions):
        registered = all_ops()
        unknown = {}
        for key, doc in functions.items():
            graph = doc.get("graph") if isinstance(doc, dict) else None
            for op_type in op_types(graph, set()):
                if op_type not in registered:
                    unknown.setdefault(str(op_type), []).append(key)
        if unknown:
            listed = "; ".join(f"{t!r} (in {', '.join(sorted(keys))})"
                               for t, keys in sorted(unknown.items()))
            raise FormatError(f"the model uses op types that are not registered: {listed}. It "
                              "was saved by another version of tensortrace, or altered.")

    def _variable(self, i, doc):
        doc = expect(doc, dict, f"variable #{i}")
        name = expect(doc.get("name"), str, f"variable #{i} name")
        value = self.arrays.decode(doc.get("value"))
        dtype = decode_dtype(doc.get("dtype"))
        shape = decode_shape(doc.get("shape"))
        if value.dtype != dtype._np or not shape.is_compatible_with(value.shape):
            raise FormatError(f"variable {name!r} declares {dtype.name} {shape} but holds "
                              f"{value.dtype} {value.shape}")
        v = Variable(value, trainable=expect(doc.get("trainable"), bool, "trainable"),
                     name=name, dtype=dtype, shape=shape)
        v._name = name  # as saved, whatever name scope load() runs in
        return v

    def _concrete(self, reader, key, doc):
        where = f"function {doc.get('function_name')!r} ({key})"
        name = expect(doc.get("function_name"), str, f"{where}: function_name")
        parameters = self._parameters(doc.get("parameters"), where)
        specs = decode(doc.get("specs"), self.arrays)
        if type(specs) is not tuple or len(specs) != len(parameters):
            raise FormatError(f"{where}: {len(parameters)} parameters but specs {specs!r}")
        graph = reader.decode(doc.get("graph"), where, FuncGraph)
        verify(graph, where)
        checks.check_function(graph, specs, where)
        if "custom_gradients" in doc:
            custom_gradients.restore(graph, doc["custom_gradients"], reader, where)
        binder = Binder(stub(name, parameters))
        kind = RestoredSignatureFunction if expect(doc.get("signature"), bool, where) else \
            RestoredConcreteFunction
        return kind(graph, binder, specs, name)

    def _parameters(self, docs, where):
        params = []
        for doc in expect(docs, list, f"{where}: parameters"):
            doc = expect(doc, dict, f"{where}: parameter")
            name = doc.get("name")
            if not isinstance(name, str) or not name.isidentifier():
                raise FormatError(f"{where}: invalid parameter name {name!r}")
            kind = _KINDS.get(doc.get("kind"))
            if kind is None:
                raise FormatError(f"{where}: invalid parameter kind {doc.get('kind')!r}")
            default = decode(doc["default"], self.arrays) if "default" in doc else \
                inspect.Parameter.empty
            params.append(inspect.Parameter(name, kind, default=default))
        inspect.Signature(params)  # raises ValueError for an impossible parameter order
        return params

    def _function(self, key):
        if not isinstance(key, str) or key not in self.functions:
            raise FormatError(f"function {key!r} is not in the function table")
        return self.functions[key]

    def _objects(self, docs, variables):
        """Objects first as empty shells (the graph may have cycles), then their contents."""
        nodes = [expect(d, dict, f"object #{i}") for i, d in enumerate(docs)]
        made = [_UserObject() if n.get("kind") == "object" else None for n in nodes]
        done = [m is not None for m in made]

        def get(i):
            if i is None:
                return None
            if type(i) is not int or not 0 <= i < len(nodes):
                raise FormatError(f"object #{i!r} does not exist")
            if not done[i]:
                done[i] = True  # containers cannot hold themselves: a cycle ends here
                made[i] = self._object(nodes[i], i, get, variables)
            return made[i]

        for i, node in enumerate(nodes):
            get(i)
            if node.get("kind") == "object":
                for pair in expect(node.get("children"), list, f"object #{i} children"):
                    name, child = expect(pair, list, f"object #{i} child")
                    set_attribute(made[i], expect(name, str, "attribute name"), get(child))
        return made

    def _object(self, node, i, get, variables):
        kind = node.get("kind")
        if kind == "variable":
            index = node.get("variable")
            if type(index) is not int or not 0 <= index < len(variables):
                raise FormatError(f"object #{i}: variable #{index!r} does not exist")
            return variables[index]
        if kind == "concrete":
            return self._function(node.get("function"))
        if kind == "function":
            return self._restored(node, i)
        if kind in ("list", "tuple"):
            items = [get(j) for j in expect(node.get("items"), list, f"object #{i} items")]
            return items if kind == "list" else tuple(items)
        if kind == "dict":
            pairs = [expect(p, list, f"object #{i} item")
                     for p in expect(node.get("items"), list, f"object #{i} items")]
            return {k: get(j) for k, j in pairs}
        raise FormatError(f"object #{i} has unknown kind {kind!r}")

    def _restored(self, node, i):
        name = expect(node.get("name"), str, f"object #{i} name")
        where = f"function {name!r}"
        parameters = self._parameters(node.get("parameters"), where)
        signature = node.get("input_signature")
        if signature is not None:
            signature = decode(signature, self.arrays)
        concretes = [self._function(k) for k in
                     expect(node.get("concrete_functions"), list, f"{where}: concrete functions")]
        return RestoredFunction(name, parameters, signature, concretes)


def _value(value):
    """A constant's value as an EagerTensor holds it (an ndarray or a NumPy scalar)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return value
    raise FormatError(f"a captured constant must be an array, got {value!r}")
