"""The public surface, loaded on first use: ``tf.*`` and its namespaces (``tf.math``, ``tf.nn``
...) are re-exports of the ``tf_export`` declarations in the engine modules, and a module is
imported only when one of its names is first used (PEP 562 module ``__getattr__``), so
``import tensortrace`` costs little more than NumPy. ``_table`` (generated from a full import by
``python -m tensortrace.api.generate``) says which module defines each name, op type, gradient
rule and Tensor operator; a name the table lacks loads everything before it is called missing.

Loading goes through ``importlib``, one thread at a time (``_LOCK``: two threads importing
families that import each other would otherwise see each other's half-run modules). What
triggers it is registered into the lower layers, as the layer rule asks: the registry's loader
(an op or gradient rule asked for loads its family), stand-ins for Tensor's operators (``+``
loads the math ops) and tracing's AutoGraph converter (AutoGraph loads on the first converted
function).
"""

import importlib
import importlib.machinery
import os
import sys
import threading
import types

from .._export import _EXPORTS
from . import _table

PACKAGE = __name__.rpartition(".")[0]

NAMESPACES = ("math", "nn", "linalg", "random", "strings", "bitwise", "debugging", "dtypes",
              "image", "sets", "signal", "experimental", "compat", "config",
              "config.experimental", "config.threading", "config.optimizer", "autograph",
              "autograph.experimental", "saved_model", "saved_model.experimental", "data",
              "summary", "summary.experimental",
              "train", "train.experimental", "ragged", "io", "io.gfile",
              "types", "types.experimental", "types.experimental.distributed", "version",
              "sparse", "graph_util", "distribute", "distribute.experimental", "nn.experimental",
              "compat.v1", "lookup", "lookup.experimental", "profiler", "profiler.experimental",
              "raw_ops", "dtypes.experimental", "autodiff", "test")

#: ``tf.<name>`` that are no ``tf_export``: (module, attribute); None is the module itself.
ATTRS = {
    "__version__": ("_version", "VERSION"),  # the TF version followed, as tf.version.VERSION
    "executing_eagerly": ("context", "executing_eagerly"),
    "constant": ("convert", "constant"),
    "convert_to_tensor": ("convert", "convert_to_tensor"),
    "Module": ("module", "Module"),
    "Tensor": ("tensor", "Tensor"),
    "TensorSpec": ("tensor", "TensorSpec"),
    "function": ("tracing.function", "function"),
    "Variable": ("variables", "Variable"),
    "nest": ("nest", None),
    "__internal__": ("api.internal", "NAMESPACE"),
    "keras": ("api.keras_loader", "keras"),  # Keras 3 and TF's aliases of its modules
    "losses": ("api.keras_loader", "losses"),
    "metrics": ("api.keras_loader", "metrics"),
    "optimizers": ("api.keras_loader", "optimizers"),
}

#: Namespace attributes that are engine packages: ``tf.experimental.numpy`` is ``tnp``, also
#: importable as ``tensortrace.experimental.numpy`` (its sub-modules too).
SUBMODULES = {"experimental": {"numpy": "tnp"}}

#: Modules a full load leaves out: the command line (not part of the library) and the table's
#: generator.
NOT_LOADED = ("shim", "__main__", "api.generate")

_MISSING = object()
_namespaces = {}  # "math" -> the tf.math module
_index_cache = {}  # namespace -> {name: (kind, where)}
_loaded_everything = _loading_everything = False
_LOCK = threading.RLock()  # held while a thread loads modules on first use


def load(module):
    """Import ``tensortrace.<module>`` (relative name); returns it."""
    name = f"{PACKAGE}.{module}"
    found = sys.modules.get(name)
    if found is not None and not getattr(found.__spec__, "_initializing", False):
        return found
    with _LOCK:
        return importlib.import_module(name)


def load_everything():
    """Import every module of the package (what ``import tensortrace`` did before deferral):
    every op, gradient rule and public name is then registered. The op families come first, so
    that nothing imported later asks the registry for an op not yet there."""
    with _LOCK:
        _load_everything(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load_everything(root):
    global _loaded_everything, _loading_everything
    if _loaded_everything or _loading_everything:
        return
    _loading_everything = True
    try:
        modules = _package_modules(root)
        for module in sorted(modules, key=lambda m: (m != "ops" and not m.startswith("ops."))):
            if module not in NOT_LOADED:
                load(module)
        _loaded_everything = True
    finally:
        _loading_everything = False


def _package_modules(root):
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if os.path.isfile(os.path.join(folder, d, "__init__.py")))
        rel = os.path.relpath(folder, root).replace(os.sep, ".")
        prefix = "" if rel == "." else rel + "."
        for f in sorted(files):
            if f.endswith(".py") and not (f == "__init__.py" and not prefix):
                stem = f[:-3]
                found.append(prefix[:-1] if stem == "__init__" else prefix + stem)
    return found


# --- names ------------------------------------------------------------------------------------
def _index(ns):
    """{name: (kind, where)} for namespace ``ns`` ("" is tf itself), built from the table on
    first use, later sources overriding earlier ones as they did when everything was imported."""
    index = _index_cache.get(ns)
    if index is None:
        index = {}
        if ns == "":
            index.update((name, ("module", name)) for name in _table.ENGINE.split())
            index.update((name, ("attr", name)) for name in ATTRS)
        index.update((name, ("copy", ns)) for name in _table.COPIES.get(ns, "").split())
        for module, names in _table.EXPORTS.get(ns, {}).items():
            index.update((name, ("export", module)) for name in names.split())
        index.update((name, ("module", module)) for name, module in SUBMODULES.get(ns, {}).items())
        prefix = f"{ns}." if ns else ""
        for sub in NAMESPACES:
            if sub.startswith(prefix) and "." not in sub[len(prefix):]:
                index[sub[len(prefix):]] = ("namespace", sub)
        _index_cache[ns] = index
    return index


def _find(ns, name):
    """The object ``tf.<ns>.<name>``, importing what defines it; _MISSING if there is none."""
    kind, where = _index(ns).get(name, (None, None))
    if kind == "export":
        if where:
            load(where)
        value = _EXPORTS.get(ns, {}).get(name, _MISSING)
        if value is not _MISSING:
            return value
    elif kind == "attr":
        module, attr = ATTRS[name]
        module = load(module)
        return module if attr is None else getattr(module, attr)
    elif kind == "namespace":
        return _namespaces[where] if where in _namespaces else load(where)
    elif kind == "module":
        return load(where)
    elif kind == "copy":  # not through getattr: this is the module's own __getattr__
        value = vars(load(ns)).get(name, _MISSING)
        if value is not _MISSING:
            return value
    if ns == "" and name not in NOT_LOADED:  # a module of the package: ``from . import x``
        try:  # asks the package for x before importing it
            return load(name)
        except ModuleNotFoundError as e:
            if e.name != f"{PACKAGE}.{name}":
                raise
    # else a name the (complete, tested: tests/test_import.py) table does not know is defined
    # nowhere: loading everything would only delay the AttributeError (code probing
    # ``hasattr(tf.experimental, "dtensor")`` would pay the whole package, extras included)
    return _MISSING


def _resolve(module, ns, name, keep=True):
    """``module.__getattr__``: find ``name`` and keep it in the module's dict (later look-ups are
    plain), or raise Python's AttributeError. ``__all__`` is every public name (so that
    ``from tensortrace import *`` loads them all, as TensorFlow's ``__all__`` lists them)."""
    if name == "__all__" and keep:
        return [n for n in _names(module, ns) if not n.startswith("_")]
    private = name.startswith("_") and (ns or name not in ATTRS)  # tf.__version__ is public
    value = _MISSING if private else _find(ns, name)
    if value is _MISSING:
        raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
    if keep:
        module.__dict__[name] = value
    return value


def _names(module, ns, engine=False):
    """``dir()``: the names given so far and those the table promises; an engine module (which
    is also a namespace) shows only its dunder and public names, not its private helpers and
    imports."""
    given = vars(module)
    if engine:
        given = (k for k, v in list(given.items()) if k.startswith("__") or
                 (not k.startswith("_") and not isinstance(v, types.ModuleType)))
    return sorted(set(given) | set(_index(ns)))


def _namespace(ns):
    """The module ``tf.<ns>``, its names loaded on first use."""
    name = f"{PACKAGE}.{ns}"
    module = types.ModuleType(name, f"tf.{ns} namespace")
    module.__getattr__ = lambda attr: _resolve(module, ns, attr)
    module.__dir__ = lambda: _names(module, ns)
    if ns in SUBMODULES:  # ``import tensortrace.experimental.numpy`` needs a package
        module.__path__ = []
    sys.modules[name] = module
    return module


def _is_engine_module(root, ns):
    """Whether ``tensortrace.<ns>`` is a module of the package (tf.sparse is the sparse
    package). The table says so; this asks the files too, so that a table generated before
    such a package existed cannot shadow it while the table is made again."""
    if "." in ns:
        return False
    path = os.path.join(root, ns)
    return os.path.isfile(path + ".py") or os.path.isfile(os.path.join(path, "__init__.py"))


def _adopt(ns):
    """The action after engine module ``tensortrace.<ns>`` (tensortrace.data ...) executes: it
    is the namespace ``tf.<ns>``, so it shows the namespace's names (its public classes and
    functions, the exports to it) and gives the exports it does not define. Nothing is written
    into it (an export such as ``dtypes.complex`` would shadow a builtin there)."""

    def adopt(module):
        module.__getattr__ = lambda attr: _resolve(module, ns, attr, keep=False)
        module.__dir__ = lambda: _names(module, ns, engine=True)

    return adopt


def install(package):
    """Make ``package`` (tensortrace) the public surface; returns its ``__getattr__`` and
    ``__dir__``."""
    _AFTER_IMPORT.install()
    if _ALIASES not in sys.meta_path:
        sys.meta_path.insert(0, _ALIASES)
    module = sys.modules[package]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for ns in NAMESPACES:
        if ns not in _table.COPIES and not _is_engine_module(root, ns):
            _namespaces[ns] = _namespace(ns)
    for ns, made in _namespaces.items():  # nested ones (tf.config.experimental) are found
        if "." not in ns:  # through their parent's __getattr__
            setattr(module, ns, made)

    def __getattr__(name):
        return _resolve(module, "", name)

    def __dir__():
        return _names(module, "")

    return __getattr__, __dir__


# --- registering into the lower layers --------------------------------------------------------
def _inverted(table):
    return {name: module for module, names in table.items() for name in names.split()}


_op_modules = _grad_modules = None


def _load_for_registry(kind, name):
    """The registry's loader: import what registers op ``name`` or its gradient rule."""
    global _op_modules, _grad_modules
    if kind == "op":
        if _op_modules is None:
            _op_modules = _inverted(_table.OPS)
        module = _op_modules.get(name)
    elif kind == "grad":
        if _grad_modules is None:
            _grad_modules = _inverted(_table.GRADS)
        module = _grad_modules.get(name)
    elif kind == "composite":  # a composite type's package ("ragged"), asked for by an op
        module = name
    else:
        module = None
    if module is not None:
        load(module)
    elif kind not in ("op", "grad"):
        load_everything()  # every op ("all")
    # else a name the (complete, tested) table does not know is registered nowhere: loading
    # everything would only delay the caller's "not registered" (a hostile file's op type)


def _install_loader(registry):
    registry.set_loader(_load_for_registry)


def _install_operators(tensor):
    """Stand-ins for the Tensor operators the op families install (``+`` by the math ops,
    ``[]`` by the indexing ops): the first use loads the family, which replaces them."""
    cls = tensor.Tensor
    for module, operators in _table.OPERATORS.items():
        for operator in operators.split():
            if operator not in vars(cls):
                cls._override_operator(operator, _operator_stand_in(operator, module))


def _operator_stand_in(operator, module):
    def stand_in(self, *args):
        load(module)
        method = getattr(type(self), operator)
        if method is stand_in:  # the table is behind the source
            load_everything()
            method = getattr(type(self), operator)
        return NotImplemented if method is stand_in else method(self, *args)

    stand_in.__name__ = stand_in.__qualname__ = operator
    return stand_in


def _convert_on_first_use(fn):
    """Tracing's converter until AutoGraph is loaded; loading it installs its own."""
    return load("autograph").convert(fn)


def _install_converter(trace):
    if trace.converter is None:
        trace.converter = _convert_on_first_use


def _wrap_on_first_use(value):
    """tf.Module's wrapper of list/dict/tuple attributes until the data structures are loaded;
    loading them installs their own."""
    return load("checkpoint.tracking").wrap_or_unwrap(value)


def _install_structure_wrapper(module):
    if module.structure_wrapper[0] is None:
        module.structure_wrapper[0] = _wrap_on_first_use


class _AfterImport:
    """A meta-path finder running an action right after a module executes, whoever imports it:
    the tracing module gets its AutoGraph converter however it is reached."""

    def __init__(self, actions):
        self.actions = actions

    def install(self):
        for name, action in self.actions.items():
            if name in sys.modules:
                action(sys.modules[name])
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)

    def find_spec(self, fullname, path=None, target=None):
        action = self.actions.get(fullname)
        if action is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            execute = spec.loader.exec_module

            def exec_module(module):
                execute(module)
                action(module)

            spec.loader.exec_module = exec_module
        return spec


class _Aliases:
    """A meta-path finder importing ``tensortrace.<ns>.<name>`` (and what lies below it) as the
    engine module SUBMODULES names, so both names give one module object."""

    def __init__(self):
        self.targets = {f"{PACKAGE}.{ns}.{name}": f"{PACKAGE}.{module}"
                        for ns, names in SUBMODULES.items() for name, module in names.items()}

    def _target(self, fullname):
        for alias, target in self.targets.items():
            if fullname == alias or fullname.startswith(alias + "."):
                return target + fullname[len(alias):]
        return None

    def find_spec(self, fullname, path=None, target=None):
        real = self._target(fullname)
        if real is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        real = self._target(spec.name)
        with _LOCK:
            return importlib.import_module(real)

    def exec_module(self, module):
        pass  # the engine module ran when create_module imported it


_ALIASES = _Aliases()


#: What registers into a lower layer, run when that layer is first imported (so importing the
#: package loads neither the registry nor tensors).
_AFTER_IMPORT = _AfterImport({f"{PACKAGE}.registry": _install_loader,
                              f"{PACKAGE}.tensor": _install_operators,
                              f"{PACKAGE}.tracing.trace": _install_converter,
                              f"{PACKAGE}.module": _install_structure_wrapper,
                              **{f"{PACKAGE}.{ns}": _adopt(ns) for ns in _table.COPIES}})
