"""The optimization pipeline, in order; each pass is ``run(graph) -> (graph, changed)``."""

from ..graph.verify import verify
from . import cse, fold, prune, simplify

PASSES = [fold, simplify, cse, prune]

#: Verify the graph before and after every pass (tests turn it on; it costs a re-run of infer).
DEBUG = False


def optimize(graph):
    if DEBUG:
        verify(graph, f"traced graph {graph.name!r}")
    for p in PASSES:
        graph, _ = p.run(graph)
        if DEBUG:
            verify(graph, f"graph {graph.name!r} after {p.__name__.rsplit('.', 1)[-1]}")
    return graph
