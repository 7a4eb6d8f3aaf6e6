"""TensorFlow's checkpoints: the tensor bundle files, the object graph, ``tf.train.Checkpoint``
and ``tf.train.CheckpointManager`` (the tf-formats extra; loaded on first use)."""
