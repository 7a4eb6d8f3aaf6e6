"""User functions of tf.data (``map``, ``filter`` ...) traced once into a graph, as TF does, and
then run compiled on each element's NumPy components."""

import itertools

from .. import nest
from ..autograph.api import convert
from ..composite import CompositeTensor
from ..context import state
from ..convert import convert_to_tensor
from ..executor.compiled import compile_graph
from ..graph.ir import Graph
from ..tensor import EagerTensor, Tensor, TensorSpec
from . import structure

_uid = itertools.count(1)


def _output(graph, x):
    if x is None:  # a None component (NoneTensorSpec): no tensor
        return None
    if isinstance(x, CompositeTensor):  # a ragged result: its components are the outputs
        return nest.map_structure(lambda c: _output(graph, c), x, expand_composites=True)
    if isinstance(x, Tensor):
        return x if getattr(x, "graph", None) is graph else graph.capture(x)
    return convert_to_tensor(x)


def normalize_result(result):
    """A function's result as a tf.data element: a top-level list is a tuple (as in TF)."""
    if isinstance(result, list):
        result = tuple(result)
    return result


class TracedFunction:
    """``fn`` traced on placeholders described by ``input_spec``; ``self(env, *flat)`` runs it.

    A tuple element is passed as separate arguments (TF's rule), anything else as one. Tensors
    of an enclosing trace that ``fn`` captures are ``symbolic_inputs``, fed from ``env``.
    """

    def __init__(self, fn, input_spec, kind="map", unpack=True):
        self.graph = graph = Graph(f"{kind}_fn_{next(_uid)}", outer=state.graph)
        converted = convert(fn)  # AutoGraph, whatever the caller's setting (as TF)
        with graph.as_default():
            placeholders = [graph.placeholder(s, f"args_{i}")
                            for i, s in enumerate(structure.flatten(input_spec))]
            graph.inputs = placeholders
            args = structure.pack(input_spec, placeholders)
            if unpack and type(args) is tuple:
                result = converted(*args)
            else:
                result = converted(args)
            result = normalize_result(result)
            result = structure.map_structure(lambda x: _output(graph, x), result)
        graph.outputs = structure.flatten(result)
        graph.structured_outputs = result
        self.output_spec = structure.spec_of(result)
        self._compiled = None
        self._feeds = None

    def symbolic_inputs(self):
        return [v for v, _ in self.graph.captures if not isinstance(v, EagerTensor)]

    def _executable(self):
        if self._compiled is None:
            self._compiled = compile_graph(self.graph, self.graph.name)
        return self._compiled

    def bind(self, env):
        """A function of the flat input components returning the flat output components."""
        exe = self._executable()
        feeds = [v._value if isinstance(v, EagerTensor) else env[id(v)]
                 for v, _ in self.graph.captures]
        return lambda flat: exe(*flat, *feeds)


def check_predicate(fn):
    """TF's check that a filter predicate returns a scalar bool tensor."""
    spec = fn.output_spec
    if not (isinstance(spec, TensorSpec) and spec.dtype.name == "bool" and spec.shape.rank == 0):
        raise ValueError("Invalid `predicate`. `predicate` must return a `tf.bool` scalar "
                         f"tensor, but its return type is {structure.structure_text(spec)}.")

