"""tf.lookup: lookup tables (static, vocabulary, mutable, dense) and their initializers."""
