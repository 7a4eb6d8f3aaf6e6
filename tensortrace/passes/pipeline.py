"""The optimization pipeline, in order; each pass is ``run(graph) -> (graph, changed)``."""

from . import cse, fold, prune, simplify

PASSES = [fold, simplify, cse, prune]


def optimize(graph):
    for p in PASSES:
        graph, _ = p.run(graph)
    return graph
