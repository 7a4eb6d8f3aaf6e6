"""The optimization pipeline, in order; each pass is ``run(graph) -> (graph, changed)``."""

from ..graph.verify import verify
from . import cse, fold, prune, simplify


def simplify_and_cse(graph):
    """The peephole rewrites, then common subexpressions merged, in one copy of the graph."""
    return cse.run(graph, rewrite=simplify.rewrite)


PASSES = [fold.run, simplify_and_cse, prune.run]

#: Verify the graph before and after every pass (tests turn it on; it costs a re-run of infer).
DEBUG = False


def optimize(graph):
    if DEBUG:
        verify(graph, f"traced graph {graph.name!r}")
    for p in PASSES:
        graph, _ = p(graph)
        if DEBUG:
            name = p.__name__ if p.__name__ != "run" else p.__module__.rsplit(".", 1)[-1]
            verify(graph, f"graph {graph.name!r} after {name}")
    return graph
