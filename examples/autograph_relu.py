"""AutoGraph converts Python ``if``/``else`` on a tensor into a graph conditional.

From the "Introduction to graphs and tf.function" guide (seeds/002). The guide printed the
generated code and the whole GraphDef, whose exact text is an implementation detail; this
script prints a summary of both instead.
"""

import tensorflow as tf


def simple_relu(x):
    if tf.greater(x, 0):
        return x
    else:
        return 0


# Using `tf.function` makes `tf_simple_relu` a `PolymorphicFunction` that wraps
# `simple_relu`.
tf_simple_relu = tf.function(simple_relu)

print("First branch, with graph:", tf_simple_relu(tf.constant(1)).numpy())
print("Second branch, with graph:", tf_simple_relu(tf.constant(-1)).numpy())

# This is the graph-generating output of AutoGraph.
code = tf.autograph.to_code(simple_relu)
print(code.splitlines()[0])
print("uses ag__.if_stmt:", "ag__.if_stmt" in code)

# This is the graph itself.
graph_def = tf_simple_relu.get_concrete_function(tf.constant(1)).graph.as_graph_def()
ops = [node.op for node in graph_def.node]
print("has a Placeholder:", "Placeholder" in ops)
print("has a conditional:", any(op in ("If", "StatelessIf") for op in ops))
