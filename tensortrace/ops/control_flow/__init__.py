"""Control flow: If/Case/While ops over compiled sub-graphs, tf.cond/case/switch_case/while_loop."""

from . import codegen, conditionals, loops, records, subgraphs  # noqa: F401  (registers the ops)
