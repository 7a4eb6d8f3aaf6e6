"""``jit_compile=True``: graphs compiled with XLA through JAX (the optional ``xla`` extra).

Nothing here loads at ``import tensortrace``: a jit_compile function imports this package when
it first compiles. Without JAX, compiling raises TF's InvalidArgumentError naming the extra.
"""

from .. import errors

try:
    import jax  # noqa: F401 - the optional dependency
except ImportError:
    jax = None

if jax is not None:
    from . import lowerings  # noqa: F401 - fills compiler.LOWERINGS
    from .compiler import XlaCompiledGraph, unsupported

INSTALL = "pip install 'tensortrace[xla]'"


def compile_graph(graph, name):
    """``graph`` compiled with XLA: TF's must-compile semantics (an op without a lowering
    raises InvalidArgumentError naming it)."""
    if jax is None:
        raise errors.InvalidArgumentError(None, None, (
            f"jit_compile=True compiles {name} with XLA, which tensortrace runs through JAX; "
            f"JAX is not installed: {INSTALL}"))
    return XlaCompiledGraph(graph, name)


def compilable(graph, name):
    """Whether ``graph`` can compile with XLA (auto-clustering's test under ``set_jit``)."""
    return jax is not None and not unsupported(graph, name)
