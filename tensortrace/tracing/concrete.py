"""ConcreteFunction: one traced graph, its captures, and its compiled executable.

    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    cf(tf.constant([1.0]))      # checked against the signature, then run compiled
"""

import itertools

import numpy as np

from .. import errors, nest
from ..autodiff.replay import replay
from ..composite import CompositeTensor
from ..context import record, state
from ..convert import convert_to_tensor
from ..executor.compiled import compile_graph
from ..messages import c_name
from ..tensor import EagerTensor, Tensor, TensorSpec
from ..variables import ResourceHandle, Variable, VariableSpec
from . import function_grad, protocols, signature

_uid = itertools.count(1)
_wrap = EagerTensor._wrap


class ConcreteFunction:
    """A function specialized to one input signature, backed by one graph."""

    def __init__(self, graph, binder, specs, function_name, jit_compile=False):
        self.graph = graph
        self._jit_compile = jit_compile  # True: XLA must compile it; "auto": when it can
        self._binder = binder
        self._specs = tuple(specs)
        self._function_name = function_name
        self.name = f"__inference_{function_name}_{next(_uid)}"
        self._compiled = None
        self._runner = self._first_run  # replaced by the compiled graph's runner on first use
        # a tape's record of a call, and (backward function, connected inputs): function_grad
        self._call_opdef = self._backward = None
        self._capture_feeds = [v._value if isinstance(v, EagerTensor) else v
                               for v, _ in graph.captures]
        self._simple_inputs = all(type(s) is TensorSpec for s in self._specs)
        outputs = graph.structured_outputs
        if isinstance(outputs, Tensor):
            self._pack = lambda values: values[0]
        else:
            self._pack = lambda values: _pack(outputs, values)

    # --- introspection ----------------------------------------------------------------------
    @property
    def inputs(self):
        """The graph's placeholders: the arguments', then the captures'."""
        return list(self.graph.inputs) + [ph for _, ph in self.graph.captures]

    outputs = property(lambda self: list(self.graph.outputs), doc="The output tensors, flat.")
    structured_outputs = property(lambda self: self.graph.structured_outputs,
                                  doc="What the Python function returned (graph tensors).")
    _show_captures = True  # a loaded tf.function's traces print none, as TF's

    @property
    def output_shapes(self):
        """The outputs' TensorShapes, in the structure of ``structured_outputs``."""
        return nest.map_structure(lambda t: t.shape if isinstance(t, Tensor) else None,
                                  self.graph.structured_outputs)

    @property
    def output_dtypes(self):
        """The outputs' dtypes, in the structure of ``structured_outputs``."""
        return nest.map_structure(lambda t: t.dtype if isinstance(t, Tensor) else None,
                                  self.graph.structured_outputs)

    @property
    def captured_inputs(self):
        """The values fed to the capture placeholders (variables as their handles)."""
        return [v.handle if isinstance(v, Variable) else v for v, _ in self.graph.captures]

    @property
    def variables(self):
        """The variables the graph captures."""
        return [h._value for h, _ in self.graph.captures if isinstance(h, ResourceHandle)]

    trainable_variables = property(lambda self: [v for v in self.variables if v.trainable])

    @property
    def structured_input_signature(self):
        """``(args, kwargs)`` of specs, tensors named after their parameters (TF's form)."""
        args, kwargs = [], {}
        for p, spec in zip(self._binder.params, self._specs):
            named = _named(spec, p.name)
            if p.kind == p.VAR_POSITIONAL:
                args.extend(_named(s, f"{p.name}_{i}") for i, s in enumerate(spec))
            elif p.kind == p.KEYWORD_ONLY:
                kwargs[p.name] = named
            elif p.kind == p.VAR_KEYWORD:  # sorted, as TF's monomorphic type unbundles them
                kwargs.update({k: _named(spec[k], k) for k in sorted(spec)})
            else:
                args.append(named)
        return tuple(args), kwargs

    @property
    def function_type(self):
        return _FunctionType(self)

    @property
    def inference_fn(self):
        """TF's AtomicFunction of this trace: the graph called with its flat tensors."""
        atomic = self.__dict__.get("_atomic")
        if atomic is None:
            atomic = self.__dict__["_atomic"] = AtomicFunction(self)
        return atomic

    @property
    def optimized_graph(self):
        """The graph after constant folding, CSE and pruning: what actually runs."""
        return self._executable().graph

    @property
    def code(self):
        """The Python source the graph compiled to."""
        return self._executable().code

    def _monomorphic_params(self):
        """TF's monomorphic FunctionType of this trace: ``*args`` unbundled into positional-only
        ``args_0``, ``args_1`` ... (the parameters before it positional-only too), ``**kwargs``
        into keyword-only parameters in sorted order. Parameters annotated by their specs."""
        has_var_positional = any(p.kind == p.VAR_POSITIONAL for p in self._binder.params)
        params = []
        for p, spec in zip(self._binder.params, self._specs):
            if p.kind == p.VAR_POSITIONAL:
                params.extend(p.replace(name=f"{p.name}_{i}", kind=p.POSITIONAL_ONLY,
                                        annotation=s, default=p.empty)
                              for i, s in enumerate(spec))
            elif p.kind == p.VAR_KEYWORD:
                params.extend(p.replace(name=k, kind=p.KEYWORD_ONLY, annotation=spec[k],
                                        default=p.empty) for k in sorted(spec))
            else:
                kind = (p.POSITIONAL_ONLY if has_var_positional
                        and p.kind == p.POSITIONAL_OR_KEYWORD else p.kind)
                params.append(p.replace(kind=kind, annotation=spec, default=p.empty))
        return params

    def pretty_printed_signature(self, verbose=True):
        if not verbose:  # TF's str(function_type)
            return self._function_type_text()
        lines = ["Input Parameters:"]
        for p in self._monomorphic_params():
            lines.append(f"  {p.name} ({p.kind.name}): {signature.describe(p.annotation)}")
        lines.append("Output Type:")
        lines.append(f"  {_describe_output(self.structured_outputs)}")
        lines.append("Captures:")
        if self.graph.captures and self._show_captures:
            for value, ph in self.graph.captures:
                lines.append(f"  {id(value)}: {TensorSpec(ph.shape, ph.dtype)!r}")
        else:
            lines.append("  None")
        return "\n".join(lines)

    def __repr__(self):
        return f"<ConcreteFunction {self._function_type_text()} at 0x{id(self):X}>"

    def __str__(self):
        return f"ConcreteFunction {self.pretty_printed_signature()}"

    def _function_type_text(self):
        parts, star = [], True
        params = self._monomorphic_params()
        for i, p in enumerate(params):
            if star and p.kind == p.KEYWORD_ONLY:  # keyword-only parameters follow a bare *
                parts.append("*")
                star = False
            parts.append(f"{p.name}: {signature.describe(p.annotation)}")
            if p.kind == p.POSITIONAL_ONLY and (
                    i + 1 == len(params) or params[i + 1].kind != p.POSITIONAL_ONLY):
                parts.append("/")  # as inspect.Signature prints positional-only parameters
        params = ", ".join(parts)
        return f"({params}) -> {_describe_output(self.structured_outputs)}"

    # --- calling ----------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        """Call with tensors (or values convertible to the traced dtypes), by the Python
        signature or, as TF falls back to, by the flat one (the graph's inputs, positionally).

        Raises:
            TypeError: when the arguments bind to neither signature (TF's message names both).
            InvalidArgumentError: when a tensor's dtype or shape does not fit its input.
        """
        try:
            values = self._call_binder().bind(args, kwargs)
            flat = []
            for spec, value in zip(self._specs, values):
                self._flat_checked(spec, value, flat)
        except TypeError as e:  # Python's binding errors and _BindingError
            structured = (
                f"Binding inputs to tf.function failed due to `{e}`. Received args: {args} and "
                f"kwargs: {kwargs} for signature: {self._function_type_text()}.")
            try:
                flat = self._flat_signature_inputs(args, kwargs)
            except TypeError as flat_error:
                raise TypeError(f"{structured}\nFallback to flat signature also failed due to: "
                                f"{flat_error}") from None
        return self._call_flat(flat)

    def _flat_signature_inputs(self, args, kwargs):
        """TF's flat calling convention: one tensor per graph input, named as the input.

        Raises:
            TypeError: with TF's text, when the arguments do not fit it.
        """
        keywords = [ph.op.name for ph in self.graph.inputs]
        summary = f"{self._function_name}({', '.join(keywords)})"
        if len(args) > len(keywords):
            raise TypeError(f"{summary} takes {len(keywords)} positional arguments, got "
                            f"{len(args)}.")
        args, kwargs = list(args), dict(kwargs)
        for keyword in keywords[len(args):]:
            if keyword not in kwargs:
                missing = sorted(set(keywords) - set(keywords[:len(args)]) - set(kwargs))
                raise TypeError(f"{summary} missing required arguments: {', '.join(missing)}.")
            args.append(kwargs.pop(keyword))
        if kwargs:
            for key in kwargs:
                if key in keywords[:len(args)]:
                    raise TypeError(f"{summary} got two values for '{key}'.")
            raise TypeError(f"{summary} got unexpected keyword arguments: "
                            f"{', '.join(sorted(kwargs))}.")
        for i, arg in enumerate(args):
            if not isinstance(arg, (Tensor, Variable)):
                raise TypeError(f"{summary}: expected argument #{i}(zero-based) to be a Tensor; "
                                f"got {type(arg).__name__} ({arg}).")
        for i, (arg, ph) in enumerate(zip(args, self.graph.inputs)):
            if isinstance(arg, Tensor) and arg.dtype != ph.dtype:
                raise self._input_error(i, ph, f"expected to be a {c_name(ph.dtype)} tensor but "
                                        f"is a {c_name(arg.dtype)} tensor")
        return args

    def _call_binder(self):
        """The Python binder, with the traced Python literals as defaults (optional args)."""
        binder = self.__dict__.get("_literal_binder")
        if binder is None:
            literals = {p.name: spec for p, spec in zip(self._binder.params, self._specs)
                        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
                        and isinstance(spec, signature._LITERALS)}
            binder = self._literal_binder = self._binder.with_defaults(literals)
        return binder

    def _flat_checked(self, spec, value, out):
        if isinstance(spec, VariableSpec):
            out.append(value)
        elif signature.is_trace_type(spec):
            if protocols.TraceType in type(spec).__mro__:  # a user's TraceType casts the value
                try:
                    value = spec.cast(value, protocols.CastContext())
                except AssertionError as e:
                    raise _BindingError(str(e)) from None
            elif not signature.is_subtype(signature.spec_of(value), spec):
                raise _BindingError(f"Can not cast {value!r} to {spec!r}")
            out.extend(spec.to_tensors(value))
        elif isinstance(spec, TensorSpec):
            index = len(out)
            if not isinstance(value, Tensor):
                try:
                    value = convert_to_tensor(value, dtype=spec.dtype)
                except (TypeError, ValueError) as e:
                    raise _BindingError(str(e)) from None
                if not spec.shape.is_compatible_with(value.shape):
                    raise _BindingError(f"Can not cast {TensorSpec(value.shape, value.dtype)!r} "
                                        f"to {TensorSpec(spec.shape, spec.dtype)!r}")
            if value.dtype != spec.dtype:
                raise self._input_error(
                    index, spec, f"expected to be a {c_name(spec.dtype)} tensor but is a "
                    f"{c_name(value.dtype)} tensor")
            if not spec.shape.is_compatible_with(value.shape):
                raise self._input_error(
                    index, spec, f"expected to have shape {spec.shape} but has shape "
                    f"{value.shape}")
            out.append(value)
        elif type(spec) in (list, tuple) or isinstance(spec, tuple):
            if not isinstance(value, (list, tuple)) or len(value) != len(spec):
                raise TypeError(f"{self.name}: expected a structure like {spec}, got {value!r}")
            for s, v in zip(spec, value):
                self._flat_checked(s, v, out)
        elif type(spec) is dict:
            for k in sorted(spec, key=repr):
                self._flat_checked(spec[k], value[k], out)
        elif isinstance(spec, signature._LITERALS) and not (
                signature._same_kind(value, spec) and value == spec):
            raise _BindingError(f"Can not cast {value!r} to {signature.describe(spec)}")

    def _input_error(self, index, spec, detail):
        return errors.InvalidArgumentError(
            None, None, f"cannot compute {self.name} as input #{index}(zero-based) was {detail} "
            f"[Op:{self.name}]")

    def _executable(self):
        if self._compiled is None:
            if self._jit_compile:
                from .. import xla  # reason: JAX loads only when a jit_compile function compiles
                if self._jit_compile is True or xla.compilable(self.graph, self.name):
                    self._compiled = xla.compile_graph(self.graph, self.name)
                    return self._compiled
            self._compiled = compile_graph(self.graph, self.name)
        return self._compiled

    def _call_flat(self, flat):
        """Run on flat inputs (tensors, variables, NumPy values): inlined when another trace is
        running, recorded as one op when tapes are active, else run compiled."""
        if state.graph is not None:
            return self._inline(flat)
        inputs = [_eager_input(x) for x in flat]
        if state.tapes:
            return self._call_recorded(inputs)
        runner = self._runner
        return runner(inputs)

    def _call_values(self, values):
        """The hot path from PolymorphicFunction: ``values`` already match this trace."""
        if self._simple_inputs and state.graph is None and not state.tapes:
            runner = self._runner  # a local call: faster than calling the attribute itself
            return runner(values)
        flat = []
        for v in values:
            signature.flat_inputs(v, flat)
        return self._call_flat([convert_to_tensor(x) if isinstance(x, np.ndarray) else x
                                for x in flat])

    def _first_run(self, inputs):
        runner = self._runner = self._make_runner()
        return runner(inputs)

    def _make_runner(self):
        """The one eager run of the compiled graph: eager tensors in (resource handles for
        variables), the structured outputs out. As lean as it gets: this is the cache-hit path
        of every tf.function call."""
        compiled = self._executable()
        fn, fail, captures, pack = compiled.fn, compiled.runtime_error, self._capture_feeds, \
            self._pack
        new, eager = object.__new__, EagerTensor
        if compiled.single and isinstance(self.graph.structured_outputs, Tensor):
            def run(values):
                try:
                    out = fn(*[v._value for v in values], *captures)
                except Exception as e:  # noqa: BLE001 - mapped to TF's error for the op
                    raise fail(e) from None
                t = new(eager)
                t._value = out
                return t
        else:
            single = compiled.single

            def run(values):
                try:
                    outs = fn(*[v._value for v in values], *captures)
                except Exception as e:  # noqa: BLE001
                    raise fail(e) from None
                return pack([_wrap(v) for v in ((outs,) if single else outs)])
        return run

    def _call_recorded(self, inputs):
        """Run compiled, and record the whole call as one op on the active tapes (its gradient
        is the backward function of ``function_grad``)."""
        inputs += [v.handle if isinstance(v, Variable) else v for v, _ in self.graph.captures]
        outs = tuple(_wrap(v) for v in self._executable()(*[x._value for x in inputs]))
        record(function_grad.call_opdef(self), inputs, {}, outs)
        return self._pack(list(outs))

    def _inline(self, flat):
        inputs = [x.handle if isinstance(x, Variable) else x for x in flat]
        captures = [v.handle if isinstance(v, Variable) else v for v, _ in self.graph.captures]
        if self._jit_compile is True:  # its own XLA cluster, as TF runs it: one call op
            return self._pack(function_grad.call_in_graph(self, inputs + captures))
        outs, _ = replay(self.graph, inputs + captures)
        return self._pack(outs)


def _eager_input(x):
    """A flat input as the eager tensor fed to the graph (a variable as its resource handle)."""
    if isinstance(x, Variable):
        return x.handle
    return x if isinstance(x, Tensor) else convert_to_tensor(x)


class _BindingError(TypeError):
    pass


def _pack(structure, values):
    """The structured outputs with their tensors replaced by ``values``; composites are rebuilt
    from their components."""
    it = iter(values)
    flat = [next(it) if isinstance(x, Tensor) else x
            for x in nest.flatten(structure, expand_composites=True)]
    if nest.is_nested(structure) or isinstance(structure, CompositeTensor):
        return nest.pack_sequence_as(structure, flat, expand_composites=True)
    return flat[0]


def _named(spec, name):
    """``spec`` with its TensorSpecs named by their path, as TF names them (``xs_0``, ``d_a``)."""
    if isinstance(spec, VariableSpec):
        return spec
    if isinstance(spec, TensorSpec):
        return TensorSpec(spec.shape, spec.dtype, spec.name or name)
    if type(spec) in (list, tuple):
        return type(spec)(_named(s, f"{name}_{i}") for i, s in enumerate(spec))
    if isinstance(spec, tuple) and hasattr(spec, "_fields"):
        return type(spec)(*(_named(s, f"{name}_{f}") for f, s in zip(spec._fields, spec)))
    if type(spec) is dict:
        return {k: _named(v, f"{name}_{k}") for k, v in spec.items()}
    return spec


def _describe_output(structure):
    if isinstance(structure, Tensor):
        return repr(TensorSpec(structure.shape, structure.dtype))
    if isinstance(structure, CompositeTensor):
        return repr(structure._type_spec)
    if structure is None:
        return "Literal[None]"
    if nest.is_nested(structure):
        return signature.describe(nest.map_structure(
            lambda t: TensorSpec(t.shape, t.dtype) if isinstance(t, Tensor)
            else t._type_spec if isinstance(t, CompositeTensor) else t, structure))
    return signature.describe(structure)


class AtomicFunction:
    """TF's ``AtomicFunction`` (``ConcreteFunction.inference_fn``): the traced graph alone, called
    with its inputs' tensors; a graph with captures is called with them, ``call_with_captures``."""

    def __init__(self, cf):
        self._cf = cf
        self.name = cf.name.encode()
        self.graph = cf.graph

    @property
    def function_type(self):
        return self._cf.function_type

    def __call__(self, *args, **kwargs):
        if self.graph.captures:
            raise ValueError("The FunctionType defines captured inputs. Use call_with_captures "
                             "instead.")
        return self._cf(*args, **kwargs)

    def call_with_captures(self, args, kwargs, captures):
        """Call with ``captures`` fed for the graph's captured inputs, in their order."""
        if len(captures) != len(self.graph.captures):
            raise ValueError(f"Expected {len(self.graph.captures)} captured inputs, got "
                             f"{len(captures)}.")
        flat = []
        for v in (*args, *kwargs.values()):
            signature.flat_inputs(v, flat)
        values = [_eager_input(x if isinstance(x, (Tensor, Variable)) else convert_to_tensor(x))
                  for x in list(flat) + list(captures)]
        outs = self._cf._executable()(*[x._value for x in values])
        return self._cf._pack([_wrap(v) for v in outs])

    def __repr__(self):
        return f"<AtomicFunction {self.name.decode()}>"


class _FunctionType(protocols.FunctionType):
    """TF's FunctionType: the Python signature with each parameter annotated by its trace type;
    prints as ``(a: TensorSpec(...)) -> TensorSpec(...)``."""

    def __init__(self, cf):
        super().__init__(cf._monomorphic_params(), return_annotation=cf.graph.structured_outputs,
                         __validate_parameters__=False)
        self._cf = cf

    def __repr__(self):
        return self._cf.pretty_printed_signature()

    def __str__(self):
        return self._cf._function_type_text()


protocols.ConcreteFunction.register(ConcreteFunction)
protocols.AtomicFunction.register(AtomicFunction)
