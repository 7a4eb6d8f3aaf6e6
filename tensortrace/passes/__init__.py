"""Graph passes: each ``run(graph) -> (graph, changed)`` and never mutates its input."""
