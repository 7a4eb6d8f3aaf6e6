"""tf.function: tracing Python into graphs, the polymorphic cache, concrete functions."""
