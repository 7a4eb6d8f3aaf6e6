"""SavedModel: save tf.Module/tf.function graphs to disk and load them without the Python source (being written)."""
