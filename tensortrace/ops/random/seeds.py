"""TF's global/op seed semantics, and the Philox stream each stateful random kernel draws from.

As in TF, an op's ``seed``/``seed2`` attrs key a Philox generator (``philox.Philox.from_seeds``)
and each call reserves 256 counters per value drawn, so eager values equal TF's for the same seeds.
The same seeds give the same sequence run to run and after ``set_seed``, different op seeds give
different streams, and a stateful op walks its stream one call after another.

How a stateful kernel finds its stream: its attrs ``seed``/``seed2`` (plain ints, as in TF) and
``_stream`` name it. ``_stream`` plays the part of TF's kernel instance: 0 is the eager kernel
cache (every eager call with the same attrs shares one stream), -1 an eager op whose op seed was
drawn from the global seed's counter (used once, so not kept), and a positive id one graph op (each
op of a traced function owns its stream, as each TF graph op owns its kernel). ``set_seed`` drops
every stream, as TF clears its kernel caches.
"""

import itertools
import threading
import random as _pyrandom
import weakref

import numpy as np

from ..._export import tf_export
from ...context import state
from ...errors import invalid_argument
from ...messages import shape_text
from .._args import int_arg
from .philox import SKIP_PER_VALUE, Philox

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
_MASK64 = 2**64 - 1


class _Seeds:
    """The global seed and the generator of eager op seeds (TF's ``context._rng``)."""

    seed = None
    rng = None


_GLOBAL = _Seeds()
_GRAPH_SEEDS = weakref.WeakKeyDictionary()  # graph -> [graph seed, next op seed]
_STREAM_IDS = itertools.count(1)
_STREAMS = {}  # ((op, dtypes), seed, seed2, stream) -> Philox: the kernel's next position
_ENTROPY = np.random.default_rng()  # seed == seed2 == 0: nondeterministic, as in TF
_STREAMS_LOCK = threading.Lock()  # a draw reserves its counters atomically (TF's guarded Philox)


def _graph_entry(graph):
    """[seed, op counter] of a graph; a new graph takes the seed of its outer graph (or the
    global seed), as a FuncGraph does when it is created."""
    entry = _GRAPH_SEEDS.get(graph)
    if entry is None:
        outer = getattr(graph, "outer", None)
        seed = _graph_entry(outer)[0] if outer is not None else _GLOBAL.seed
        entry = _GRAPH_SEEDS[graph] = [seed, 0]
    return entry


def _truncate(seed):
    return int_arg(seed, "seed") % _MAXINT32


def get_seed(op_seed):
    """TF's ``random_seed.get_seed``: the (global, op) seed pair an op should use.

    Returns ``(None, None)`` when neither seed is set (the op is then nondeterministic).
    """
    graph = state.graph
    entry = None if graph is None else _graph_entry(graph)
    global_seed = _GLOBAL.seed if entry is None else entry[0]
    if global_seed is not None:
        if op_seed is None:
            if entry is None:
                op_seed = _GLOBAL.rng.randint(0, _MAXINT32)
            else:
                op_seed = entry[1]
                entry[1] += 1
        seeds = _truncate(global_seed), _truncate(op_seed)
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, _truncate(op_seed)
    else:
        return None, None
    # (0, 0) means "nondeterministic" to the kernels; TF avoids it the same way.
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def seed_attrs(op_seed):
    """The ``seed``/``seed2``/``_stream`` attrs of a stateful op created now."""
    seed, seed2 = get_seed(op_seed)
    if seed is None:
        return {"seed": 0, "seed2": 0}
    if state.graph is not None:
        return {"seed": seed, "seed2": seed2, "_stream": next(_STREAM_IDS)}
    if op_seed is None:  # a fresh op seed from the global counter: a one-shot stream
        return {"seed": seed, "seed2": seed2, "_stream": -1}
    return {"seed": seed, "seed2": seed2}


@tf_export("random.set_seed")
def set_seed(seed):
    """Set the global random seed; restarts every stateful random op's sequence.

    Inside a function being traced, sets the seed of that function's graph only.
    """
    if seed is not None:
        int_arg(seed, "seed")  # refused before anything changes
    if state.graph is not None:
        _graph_entry(state.graph)[0] = seed
        return
    _GLOBAL.seed = seed
    try:
        _GLOBAL.rng = _pyrandom.Random(seed)
    except TypeError:
        _GLOBAL.rng = _pyrandom.Random(int(np.array(seed)))
    _STREAMS.clear()


def stream_draw(kind, seed, seed2, stream, count, counters=None):
    """Where a stateful kernel's draw of ``count`` values starts (see the module docstring);
    the kernel's stream moves on by 256 counters per value (by ``counters`` when given: kernels
    that reserve their own block count). ``kind`` names the op and its dtypes, so ops of one
    seed pair do not share a stream."""
    if seed == 0 and seed2 == 0:  # TF seeds such a kernel from the OS: nondeterministic
        seed, seed2 = (int(w) for w in _ENTROPY.integers(0, 1 << 63, 2))
        stream = -1
    if stream == -1:
        return Philox.from_seeds(seed, seed2)
    key = (kind, seed, seed2, stream)
    with _STREAMS_LOCK:
        start = _STREAMS.get(key) or Philox.from_seeds(seed, seed2)
        _STREAMS[key] = start.skipped(SKIP_PER_VALUE * count if counters is None else counters)
    return start


def stateless_philox(seed):
    """The Philox position a shape-[2] seed determines (the stateless ops)."""
    s = np.asarray(seed)
    if s.shape != (2,):
        raise invalid_argument(f"seed must have shape [2], not {shape_text(s.shape)}")
    return Philox.from_stateless_seed(int(s[0]), int(s[1]))
