"""``tf.summary``: TensorBoard event files written as TF 2 writes them (the ``tf-formats``
extra), eagerly and from inside ``tf.function``s.

    writer = tf.summary.create_file_writer("logs")
    with writer.as_default(step=1):
        tf.summary.scalar("loss", 0.25)
"""

from . import ops, writer, summaries, graphs  # noqa: F401  (each registers its exports)
