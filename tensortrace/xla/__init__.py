"""``jit_compile=True``: graphs compiled with XLA through JAX (the optional ``xla`` extra).

Nothing here loads at ``import tensortrace``: a jit_compile function imports this package when
it first compiles. Without JAX, compiling raises TF's InvalidArgumentError naming the extra.
"""

import os

from .. import errors

try:
    import jax  # noqa: F401 - the optional dependency
except ImportError:
    jax = None

try:
    from jax._src import xla_bridge  # JAX's one test of "no CPU client made yet"
except ImportError:
    xla_bridge = None

if jax is not None:
    from . import lowerings  # noqa: F401 - fills compiler.LOWERINGS
    from .compiler import XlaCompiledGraph, unsupported


def _synchronous_cpu():
    """Run CPU executables in the calling thread, as TF runs its XLA clusters: every call here
    waits for its result at once, and JAX's asynchronous dispatch only adds a hand-off to
    another thread (half the cost of a small call, more on a busy machine). Only before JAX's
    CPU client exists (the setting is read when it is made), and never against the process's
    own choice (``JAX_CPU_ENABLE_ASYNC_DISPATCH``)."""
    if "JAX_CPU_ENABLE_ASYNC_DISPATCH" in os.environ:
        return
    try:
        if not xla_bridge.backends_are_initialized():
            jax.config.update("jax_cpu_enable_async_dispatch", False)
    except (AttributeError, KeyError):  # another JAX: its default stays
        pass


if jax is not None:
    _synchronous_cpu()

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
