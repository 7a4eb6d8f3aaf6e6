"""``tf.function``: a polymorphic function that traces once per input signature and keeps its
concrete functions in a bounded, observable cache.

    @tf.function
    def f(x):
        return x * x + 2

Dispatch rules (TF's, in our words): a call whose key was seen before runs that trace; otherwise
the most specific existing trace whose signature admits the call runs; otherwise, with
``reduce_retracing``, a trace generalized to admit both the call and an earlier trace is made;
otherwise a trace specialized to exactly this call is made.

Threads: a cache hit takes no lock (one dict look-up). A miss takes the function's trace lock,
looks again, and traces at most once per signature; the first trace's variable initializer runs
under the lock before any call can hit its key, so concurrent first calls create and initialize
the variables exactly once.
"""

import functools
import inspect
import threading
import types
import weakref

import numpy as np

from .. import config
from .._logging import logger
from ..composite import CompositeTensor, TypeSpec, flat_components
from ..convert import convert_to_tensor
from ..tensor import TensorSpec
from . import protocols, signature
from .cache import TraceCache
from .concrete import ConcreteFunction
from .trace import trace

# TF's frequent-tracing detector: warn when _RETRACE_THRESHOLD traces fall within the last
# _CALL_HISTORY calls of one Python function (shared by every tf.function wrapping it), at most
# _MAX_WARNINGS times
_RETRACE_THRESHOLD = 5
_CALL_HISTORY = 10
_MAX_WARNINGS = 2

#: Called with each new ConcreteFunction a tf.function traces (registered from above: the
#: graphs tf.summary.trace_on collects)
trace_observers = []

#: While tf.saved_model.save runs, or replicas of a tf.distribute strategy run eagerly
#: (registered from above): a function's stand-in that keeps the traces of that context, or
#: None. TF keys traces by the save options' variable policy, so a save traces each function
#: again, once per signature; and by the device, so each replica traces its own.
context_function = [None]


class _TracingDetector:
    __slots__ = ("calls_per_trace", "recent_calls", "warnings")

    def __init__(self):
        self.calls_per_trace, self.recent_calls, self.warnings = [], 0, 0


_detectors = weakref.WeakKeyDictionary()


def _detector_for(python_function):
    key = getattr(python_function, "__func__", python_function)
    try:
        detector = _detectors.get(key)
        if detector is None:
            detector = _detectors[key] = _TracingDetector()
    except TypeError:  # not weak-referenceable
        detector = _TracingDetector()
    return detector


_NUMPY = (np.ndarray, np.generic)


class _CapturedDefault:
    def __repr__(self):
        return "<captured_default_value>"


_CAPTURED = _CapturedDefault()


class InputSignatureError(TypeError, ValueError):
    """A call that does not fit ``input_signature`` (TF 2.21 raises TypeError; older TFs and the
    guides expect ValueError: this is both). Tracebacks print it as TF's ``TypeError``."""


InputSignatureError.__module__ = "builtins"
InputSignatureError.__name__ = InputSignatureError.__qualname__ = "TypeError"


class PolymorphicFunction:
    """What ``tf.function`` returns: call it like the Python function it wraps."""

    #: With ``tf.config.run_functions_eagerly(True)``, calls run the Python function itself.
    _eager_python = True

    def __init__(self, python_function, name=None, input_signature=None, autograph=True,
                 jit_compile=None, reduce_retracing=False, max_traces=None, _bound_to=None):
        # A method's function holds its instance weakly (TF's too): the instance owns its
        # traces, and dies as soon as its user drops it.
        self._function = python_function
        self._weak_instance = None
        if _bound_to is not None:
            self._weak_instance = weakref.ref(_bound_to)
            python_function = types.MethodType(python_function, _bound_to)
        self._name = name or getattr(python_function, "__name__", "function")
        self._autograph = autograph
        self._jit_compile = jit_compile
        self._reduce_retracing = reduce_retracing
        self._binder = signature.Binder(python_function)
        self._input_signature = None  # per parameter (what traces and calls are matched to)
        self._flat_signature = None  # as the user gave it
        if input_signature is not None:
            self._flat_signature = _check_input_signature(input_signature, self._binder)
            params = self._binder.params
            if _bound_to is None and params and params[0].name in ("self", "cls") and \
                    len(self._flat_signature) < len(params):
                pass  # a method in a class body: the signature applies once bound (__get__)
            else:
                self._input_signature = _per_parameter(self._flat_signature, self._binder)
        self._cache = TraceCache(max_traces)
        self._keys = self._cache.keys  # the exact hits, bound here for the hot path
        self._lock = threading.RLock()  # held to trace, to change the cache, to initialize
        self._tracing_count = 0
        self._created_variables = False  # whether the first trace created variables
        self._detector = _detector_for(python_function)
        self._hits_seen = 0
        self._last_explanation = None
        # The first trace when it created variables: it runs once, on the first call, to
        # initialize them. While it is pending no call key is kept, so the fast path misses.
        self._pending_initializer = None
        self._after_initializer = None  # (key, trace, values): remembered once it has run
        self._instances = {}
        # plain positional signatures take the fast path when every argument is an eager tensor
        self._fast_arity = self._binder.n if self._binder.simple else -1
        functools.update_wrapper(self, self._function, updated=())
        if _bound_to is not None:
            self.__signature__ = self._binder.signature  # the method's, without ``self``

    @property
    def _python_function(self):
        """The Python function (for a method, bound to its instance while it lives)."""
        if self._weak_instance is None:
            return self._function
        instance = self._weak_instance()
        if instance is None:
            raise ReferenceError(f"The instance the tf.function {self._name} was bound to no "
                                 "longer exists.")
        return types.MethodType(self._function, instance)

    max_traces = property(lambda self: self._cache.max_traces,
                          doc="How many traces are kept before the least recently used goes.")

    # --- the call path ----------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if self._fast_arity == len(args) and not kwargs and not config._run_eagerly[0] and \
                context_function[0] is None:
            # the cache-hit hot path: positional tensors, a key of dtypes and shapes, one lookup
            try:
                key = tuple([(a._value.dtype, a._value.shape) for a in args])
            except AttributeError:
                key = None
            if key is not None:
                concrete = self._keys.get(key)
                if concrete is not None:
                    self._cache.hits += 1
                    return concrete._call_values(args)
        return self._call(args, kwargs)

    def _call(self, args, kwargs):
        """Every call the fast path leaves: bind and convert the arguments, key them, then run
        the exact hit or dispatch the miss."""
        if config._run_eagerly[0] and self._eager_python:
            return self._python_function(*args, **kwargs)
        if context_function[0] is not None:
            other = context_function[0](self)
            if other is not None:
                return other._call(args, kwargs)
        values = self._arguments(args, kwargs)
        if self._cache.dead:  # an identity-keyed argument died: its id may be reused now
            with self._lock:
                self._cache.drain()
        key = tuple(map(signature.key_of, values))
        concrete = self._keys.get(key)
        if concrete is None or self._pending_initializer is not None:
            with self._lock:
                concrete = self._keys.get(key)  # another thread may have traced it meanwhile
                if concrete is None or self._pending_initializer is not None:
                    self._cache.misses += 1
                    concrete, values = self._dispatch(key, values, args, kwargs)
                    if concrete is self._pending_initializer:
                        return self._run_initializer(concrete, values)
                else:
                    self._cache.hits += 1
        else:
            self._cache.hits += 1
        return concrete._call_values(values)

    def _run_initializer(self, init, values):
        """Run the first trace, which initializes the variables it created, under the lock;
        only then can calls hit its key. If it fails it stays pending for the next call."""
        result = init._call_values(values)
        self._pending_initializer = None
        key, concrete, values = self._after_initializer
        self._after_initializer = None
        self._cache.remember(key, concrete, values)
        return result

    def _arguments(self, args, kwargs):
        """The parameter values of a call as they are keyed: bound to the parameters, fitted
        to the input_signature, NumPy values as tensors."""
        values = self._bind(args, kwargs)
        if self._input_signature is not None:
            return self._fit_signature(values, args, kwargs)
        if any(isinstance(v, _NUMPY) for v in values):
            return tuple(convert_to_tensor(v) if isinstance(v, _NUMPY) else v for v in values)
        return values

    def _bind(self, args, kwargs):
        try:
            return self._binder.bind(args, kwargs)
        except TypeError as e:
            if self._input_signature is not None:
                raise InputSignatureError(self._binding_message(e, args, kwargs)) from None
            raise self._binding_error(e, args, kwargs) from None

    def _binding_error(self, error, args, kwargs):
        return TypeError(self._binding_message(error, args, kwargs))

    def _dispatch(self, key, values, args, kwargs):
        """A call whose key is not an exact hit: the most specific trace admitting it, else a
        new trace. Returns the trace and the values to run it on."""
        specs = self._specs_of(values)
        concrete = self._cache.find(specs)
        traced = concrete is None
        if traced:
            if self._reduce_retracing:
                specs = self._cache.generalize(specs)
            concrete = self._trace(specs, values)
        self._count_call(traced)
        init = self._pending_initializer
        if init is not None:  # the first trace, which also initializes the variables it made
            if all(signature.is_subtype(s, g) for s, g in zip(specs, init._specs)):
                self._after_initializer = (key, concrete, values)
                return init, values
            self._pending_initializer = None
        self._cache.remember(key, concrete, values)
        return concrete, values

    def _specs_of(self, values):
        if self._input_signature is not None:
            return self._input_signature
        return signature.with_alias_ids(tuple(map(signature.spec_of, values)), values)

    def _trace(self, specs, values=None):
        previous = self._cache.latest()
        first = self._tracing_count == 0
        # TF's two modes: until a trace has created variables, every trace may create them (a
        # later one that does is an error); once one has, traces must create none.
        graph = trace(self._python_function, self._binder, specs, self._name,
                      allow_variable_creation=not self._created_variables,
                      autograph=self._autograph, values=values)
        self._tracing_count += 1
        if graph.created_variables and not first:
            raise ValueError("Creating variables on a non-first call to a function decorated "
                             "with tf.function.")
        jit = self._jit_compile
        if jit is None and config._jit[0]:
            jit = "auto"  # tf.config.optimizer.set_jit: compiled when every op can be
        concrete = ConcreteFunction(graph, self._binder, specs, self._name, jit)
        if graph.created_variables:
            # TF traces again once variables exist; that trace must create none. The first
            # trace still runs once, on the first call, to initialize them.
            self._pending_initializer = concrete
            self._created_variables = True
            self._keys.clear()
            graph = trace(self._python_function, self._binder, specs, self._name,
                          allow_variable_creation=False, autograph=self._autograph,
                          values=values)
            self._tracing_count += 1
            concrete = ConcreteFunction(graph, self._binder, specs, self._name, jit)
        self._last_explanation = _explain(self._binder, previous, specs) if previous else None
        self._cache.add(concrete)
        for observe in trace_observers:
            observe(concrete)
        return concrete

    # --- input_signature --------------------------------------------------------------------
    def _fit_signature(self, values, args, kwargs):
        fitted = []
        for spec, value in zip(self._input_signature, values):
            fitted.append(self._fit(spec, value, args, kwargs))
        return tuple(fitted)

    def _fit(self, spec, value, args, kwargs):
        if isinstance(spec, TensorSpec):
            tensor = signature.as_tensor_for(spec, value)
            if tensor is None:
                value = convert_to_tensor(value)  # raises TF's conversion error
            value = tensor
            if not signature.fits(spec, value):
                got = TensorSpec(value.shape, value.dtype)
                raise InputSignatureError(self._binding_message(
                    f"Can not cast {got!r} to {TensorSpec(spec.shape, spec.dtype)!r}", args,
                    kwargs))
            return value
        if isinstance(spec, (list, tuple)):
            if not isinstance(value, (list, tuple)) or len(value) != len(spec):
                raise InputSignatureError(self._binding_message(
                    f"Can not cast {value!r} to {spec!r}", args, kwargs))
            return type(spec)(self._fit(s, v, args, kwargs) for s, v in zip(spec, value))
        if isinstance(spec, dict):
            return value
        if isinstance(value, CompositeTensor) and type(value._type_spec) is type(spec):
            # TF fits a composite by its components (and names the one that does not fit)
            for part, component in zip(spec._flat_tensor_specs, flat_components(value)):
                self._fit(part, component, args, kwargs)
            return value
        if not signature.is_subtype(signature.spec_of(value), spec):
            raise InputSignatureError(self._binding_message(
                f"Can not cast {value!r} to {signature.describe(spec)}", args, kwargs))
        return value

    def _binding_message(self, reason, args, kwargs):
        if self._input_signature is None:  # TF prints the Python signature, defaults hidden
            params = str(self._binder.signature.replace(parameters=[
                p.replace(default=_CAPTURED, annotation=p.empty) if p.default is not p.empty
                else p.replace(annotation=p.empty) for p in self._binder.params],
                return_annotation=inspect.Signature.empty))[1:-1]
        else:
            params = ", ".join(
                f"{p.name}: {signature.describe(s)}"
                + (f" = {_CAPTURED!r}" if p.default is not p.empty else "")
                for p, s in zip(self._binder.params, self._input_signature))
        return (f"Binding inputs to tf.function failed due to `{reason}`. Received args: {args} "
                f"and kwargs: {kwargs} for signature: ({params}).")

    # --- diagnostics ------------------------------------------------------------------------
    def _count_call(self, traced):
        """TF's frequent-tracing detector; cache hits are counted lazily (the hot path only
        counts them in the cache)."""
        d = self._detector
        calls = d.calls_per_trace
        hits = self._cache.hits
        untraced = hits - self._hits_seen + (not traced)
        self._hits_seen = hits
        if untraced:
            if not calls:
                calls.append(0)
            calls[-1] += untraced
            d.recent_calls += untraced
        if not traced:
            return
        d.recent_calls += 1
        calls.append(1)
        while calls and d.recent_calls - calls[0] > _CALL_HISTORY:
            d.recent_calls -= calls.pop(0)
        if len(calls) >= _RETRACE_THRESHOLD and d.warnings < _MAX_WARNINGS:
            d.warnings += 1
            logger.warning(
                "%d out of the last %d calls to %s triggered tf.function retracing. Tracing is "
                "expensive and the excessive number of tracings could be due to (1) creating "
                "@tf.function repeatedly in a loop, (2) passing tensors with different shapes, "
                "(3) passing Python objects instead of tensors. For (1), please define your "
                "@tf.function outside of the loop. For (2), @tf.function has "
                "reduce_retracing=True option that can avoid unnecessary retracing. For (3), "
                "please refer to https://www.tensorflow.org/guide/function"
                "#controlling_retracing and https://www.tensorflow.org/api_docs/python/tf/"
                "function for  more details.%s", len(calls), d.recent_calls,
                self._python_function,
                " " + self._last_explanation if self._last_explanation else "")

    def explain_retracing(self):
        """Why the most recent trace happened: which argument changed, and what to do.

        Returns:
            A sentence, or None if the function has traced at most once.
        """
        return self._last_explanation

    def experimental_get_tracing_count(self):
        return self._tracing_count

    def cache_info(self):
        """Hits, misses, traces, evictions and the size and bound of the trace cache."""
        return self._cache.info(self._tracing_count)

    def _shadow(self, cls, exclude=()):
        """A copy of this function as ``cls`` with a trace cache of its own: the traces made in
        another context (a save's variable policy, a replica) share the Python function and
        options and count in this one (``_main``). ``exclude``: attributes the copy leaves out
        (the tables holding such copies)."""
        shadow = cls.__new__(cls)
        vars(shadow).update({k: v for k, v in vars(self).items()
                             if k != "_tracing_count" and k not in exclude})
        shadow._main = self
        shadow._cache = TraceCache(self.max_traces)
        shadow._keys = shadow._cache.keys
        shadow._instances = {}
        shadow._pending_initializer = shadow._after_initializer = None
        shadow._last_explanation, shadow._hits_seen = None, 0
        return shadow

    def _traces(self):
        """The live traces, least recently used first (a snapshot)."""
        with self._lock:
            self._cache.drain()
            traces = list(self._cache)
        # the traces tf.distribute's replicas made (TF keeps them in the one cache, by device)
        for _, in_replica in list(self.__dict__.get("_tt_replicas", {}).values()):
            traces += in_replica._traces()
        return traces

    def pretty_printed_concrete_signatures(self, verbose=True):
        return "\n\n".join(cf.pretty_printed_signature(verbose) for cf in self._traces())

    # --- concrete functions -----------------------------------------------------------------
    def get_concrete_function(self, *args, **kwargs):
        """The trace for these arguments (tensors, TensorSpecs or Python values), tracing if
        needed."""
        if context_function[0] is not None:
            other = context_function[0](self)
            if other is not None:
                return other.get_concrete_function(*args, **kwargs)
        values = None
        if self._input_signature is not None:
            specs = self._input_signature
        else:
            try:
                values = self._binder.bind(args, kwargs)
            except TypeError as e:
                raise TypeError(self._binding_message(e, args, kwargs)) from None
            specs = self._specs_of(values)
        with self._lock:
            self._cache.drain()
            concrete = self._cache.find(specs)
            if concrete is None:
                if self._reduce_retracing:
                    specs = self._cache.generalize(specs)
                concrete = self._trace(specs, values)
        return concrete

    def experimental_get_concrete_functions(self):
        return self._traces()

    _list_all_concrete_functions = experimental_get_concrete_functions  # TF's private name

    def _trackable_children(self, save_type="checkpoint", **kwargs):
        """TF's Trackable protocol: a checkpoint holds nothing of a function; a SavedModel its
        traces (``trace_0`` ...)."""
        if save_type == "checkpoint":
            return {}
        return {f"trace_{n}": cf for n, cf in enumerate(self._traces())}

    # --- Python protocol --------------------------------------------------------------------
    python_function = property(lambda self: self._python_function,
                               doc="The Python function this wraps.")
    input_signature = property(lambda self: self._flat_signature,
                               doc="The ``input_signature`` as given (flat TensorSpecs), or None.")
    function_spec = property(lambda self: self._binder.signature,
                             doc="The Python signature of the wrapped function.")

    def __get__(self, instance, owner=None):
        """Methods trace per instance, as TF's do."""
        if instance is None:
            return self
        bound = self._instances.get(id(instance))
        if bound is None:
            with self._lock:  # concurrent first uses share one bound function
                bound = self._instances.get(id(instance))
                if bound is None:
                    bound = self._bind_to(instance)
        return bound

    def _bind_to(self, instance):
        try:
            weakref.finalize(instance, self._instances.pop, id(instance), None)
        except TypeError:  # not weak-referenceable: bound for good, as a plain method would be
            return self._strongly_bound(instance)
        bound = PolymorphicFunction(
            self._function, self._name, self._flat_signature, self._autograph,
            self._jit_compile, self._reduce_retracing, self.max_traces, _bound_to=instance)
        self._instances[id(instance)] = bound
        return bound

    def _strongly_bound(self, instance):
        bound = PolymorphicFunction(
            types.MethodType(self._function, instance), self._name, self._flat_signature,
            self._autograph, self._jit_compile, self._reduce_retracing, self.max_traces)
        self._instances[id(instance)] = bound
        return bound

    def __repr__(self):
        return f"<tensortrace.function {self._name} at 0x{id(self):X}>"


protocols.PolymorphicFunction.register(PolymorphicFunction)


def _check_input_signature(input_signature, binder):
    def plain(spec):  # as TF's trace types: list and dict subclasses (Keras' and TF's
        if isinstance(spec, list):  # trackable wrappers) are lists and dicts
            return [plain(s) for s in spec]
        if isinstance(spec, dict):
            return {k: plain(v) for k, v in spec.items()}
        if isinstance(spec, tuple):
            items = [plain(s) for s in spec]
            return type(spec)(*items) if hasattr(spec, "_fields") else tuple(items)
        return spec

    sig = tuple(plain(s) for s in input_signature)
    invalid = [leaf for s in sig for leaf in signature.leaves(s)
               if not isinstance(leaf, (TensorSpec, TypeSpec))]
    if invalid:
        raise TypeError(f"input_signature must be a possibly nested sequence of TensorSpec "
                        f"objects, got invalid args {invalid} with types "
                        f"{[type(x) for x in invalid]}.")
    if len(sig) > len(binder.params) and not any(
            p.kind == p.VAR_POSITIONAL for p in binder.params):
        raise TypeError(f"input_signature has {len(sig)} entries but the function has only "
                        f"{len(binder.params)} parameters")
    return sig


def _per_parameter(flat, binder):
    """The input_signature as one spec per parameter: ``*args`` takes the remaining entries,
    parameters past the signature keep their defaults (fixed, as TF binds them)."""
    specs, i = [], 0
    for p in binder.params:
        if p.kind == p.VAR_POSITIONAL:
            specs.append(tuple(flat[i:]))
            i = len(flat)
        elif p.kind == p.VAR_KEYWORD:
            specs.append({})
        elif i < len(flat):
            specs.append(flat[i])
            i += 1
        elif p.default is not p.empty:
            specs.append(p.default)
        else:
            raise TypeError(f"input_signature missing type constraint for {p.name}")
    return tuple(specs)


def _explain(binder, previous, specs):
    """A sentence naming what changed between the previous trace and this one."""
    changes = []
    for p, old, new in zip(binder.params, previous._specs, specs):
        if signature.is_subtype(new, old) and signature.is_subtype(old, new):
            continue
        changes.append(f"argument `{p.name}` changed from {signature.describe(old)} to "
                       f"{signature.describe(new)}; {_advice(old, new)}")
    if not changes:
        return "The arguments matched an earlier trace that has since been evicted."
    return "The last retrace happened because " + " and ".join(changes)


def _advice(old, new):
    if isinstance(old, TensorSpec) and isinstance(new, TensorSpec):
        if old.dtype != new.dtype:
            return "a new dtype always traces a new graph: cast to one dtype before the call."
        if old.shape.rank != new.shape.rank:
            return "a new rank traces a new graph: give an input_signature with shape=None."
        return ("a new shape traces a new graph: use reduce_retracing=True or an input_signature "
                "with None for the dimensions that vary.")
    if isinstance(new, (int, float, bool)) and isinstance(old, (int, float, bool)):
        return (f"every new Python {type(new).__name__} value traces a new graph: pass it as a "
                f"tensor (tf.constant({new!r})) if it does not change the graph's structure.")
    if isinstance(new, (list, tuple, dict)):
        return ("a Python structure of different length or contents traces a new graph: pass a "
                "tensor.")
    return ("a different Python object traces a new graph (objects are matched by identity): "
            "reuse the same object, or pass tensors.")


def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_implements=None,
             experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None,
             experimental_follow_type_hints=None, max_traces=None):
    """``tf.function``: compile ``func`` into a callable TensorFlow-style graph.

    Usable as ``@tf.function``, ``@tf.function(...)`` or ``tf.function(f, ...)``.
    """
    relax = reduce_retracing or bool(experimental_relax_shapes)

    def decorate(fn):
        if isinstance(fn, PolymorphicFunction):
            fn = fn.python_function
        jit = experimental_compile if jit_compile is None else jit_compile
        return PolymorphicFunction(fn, input_signature=input_signature, autograph=autograph,
                                   jit_compile=jit, reduce_retracing=relax, max_traces=max_traces)

    if func is not None:
        return decorate(func)
    return decorate
