"""The op-table harness: each family's test module lists ``Case``s; every case checks the
eager kernel against a NumPy reference and the op's ``infer`` (by tracing the same call into a
graph) against the kernel's actual output shape and dtype.

    CASES = [Case(tf.math.add, (F32_23, F32_3), ref=np.add)]
"""

import dataclasses
from typing import Callable, Optional

import numpy as np

import tensortrace as tf
from tensortrace.graph.ir import Graph


@dataclasses.dataclass
class Case:
    fn: Callable                      # the public function (tf.math.add)
    args: tuple                       # NumPy arrays become tensors; other values pass as is
    kwargs: dict = dataclasses.field(default_factory=dict)
    ref: Optional[Callable] = None    # NumPy reference taking the same args (arrays)
    check: Optional[Callable] = None  # custom check(out, args) instead of / besides ref
    rtol: float = 1e-6
    atol: float = 1e-6
    dynamic_shape: bool = False       # output shape depends on values: infer may leave dims None
    id: str = ""

    def __str__(self):
        return self.id or getattr(self.fn, "__name__", "case")


def _to_tensors(a):
    if isinstance(a, np.ndarray):
        return tf.constant(a)
    if isinstance(a, list) and a and all(isinstance(x, np.ndarray) for x in a):
        return [tf.constant(x) for x in a]
    return a


def _to_placeholders(graph, a):
    if isinstance(a, np.ndarray):
        return graph.placeholder(tf.TensorSpec(a.shape, tf.as_dtype(a.dtype)), "x")
    if isinstance(a, list) and a and all(isinstance(x, np.ndarray) for x in a):
        return [_to_placeholders(graph, x) for x in a]
    return a


def _flat(out):
    if isinstance(out, (list, tuple)):
        return [y for x in out for y in _flat(x)]
    if hasattr(out, "_fields"):
        return [y for x in out for y in _flat(x)]
    return [out]


def assert_matches(out, expected, rtol=1e-6, atol=1e-6):
    """``out`` (tensors, nested) equals ``expected`` (arrays, nested) in value, shape, dtype."""
    outs, exps = _flat(out), _flat(expected)
    assert len(outs) == len(exps), f"{len(outs)} outputs, expected {len(exps)}"
    for o, e in zip(outs, exps):
        e = np.asarray(e)
        got = np.asarray(o)
        assert got.shape == e.shape, f"shape {got.shape} != {e.shape}"
        assert got.dtype == e.dtype, f"dtype {got.dtype} != {e.dtype}"
        if e.dtype.kind in "fc":
            np.testing.assert_allclose(got, e, rtol=rtol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(got, e)


def run_eager(case):
    out = case.fn(*[_to_tensors(a) for a in case.args], **case.kwargs)
    if case.ref is not None:
        assert_matches(out, case.ref(*case.args, **case.kwargs), case.rtol, case.atol)
    if case.check is not None:
        case.check(out, *case.args)
    return out


def trace(case):
    """Trace the case's call into a fresh graph; returns (graph, symbolic outputs)."""
    g = Graph()
    with g.as_default():
        out = case.fn(*[_to_placeholders(g, a) for a in case.args], **case.kwargs)
    return g, out


def run_infer(case, eager_out):
    """``infer`` agrees with the kernel: same dtypes, and the same (or compatible) shapes."""
    _, sym = trace(case)
    for s, e in zip(_flat(sym), _flat(eager_out)):
        assert s.dtype == e.dtype, f"infer dtype {s.dtype} != kernel dtype {e.dtype}"
        if case.dynamic_shape:
            assert s.shape.is_compatible_with(e.shape), f"infer {s.shape} vs kernel {e.shape}"
        else:
            assert s.shape == e.shape, f"infer shape {s.shape} != kernel shape {e.shape}"


def run_case(case):
    out = run_eager(case)
    run_infer(case, out)


def op_types(case):
    """The op types a case's call produces when traced (for the coverage test)."""
    g, _ = trace(case)
    return {op.type for op in g.get_operations()}


RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float32, low=-2.0, high=2.0):
    """Reproducible random test data of ``dtype``."""
    if np.dtype(dtype).kind in "iu":
        lo = 0 if np.dtype(dtype).kind == "u" else int(low) - 3
        return RNG.integers(lo, int(high) + 4, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return RNG.random(shape) > 0.5
    if np.dtype(dtype).kind == "c":
        return (RNG.uniform(low, high, shape) + 1j * RNG.uniform(low, high, shape)).astype(dtype)
    return RNG.uniform(low, high, shape).astype(dtype)
