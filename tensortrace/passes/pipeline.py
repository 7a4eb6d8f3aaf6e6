"""The optimization pipeline, in order; each pass is ``run(graph) -> (graph, changed)``."""

from . import prune

PASSES = [prune]


def optimize(graph):
    for p in PASSES:
        graph, _ = p.run(graph)
    return graph
