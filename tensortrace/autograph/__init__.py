"""AutoGraph: converts Python control flow on tensors into graph control flow.

    @tf.function
    def f(x):
        while tf.reduce_sum(x) > 1:    # a tensor condition: becomes a graph while loop
            x = tf.tanh(x)
        return x

Importing this package installs ``api.convert`` as the tracing hook, so every ``tf.function``
(unless ``autograph=False``) traces the converted function. The public names
(``tf.autograph.to_code`` ...) are declared with ``tf_export`` in ``api.py``.
"""

from ..tracing import trace as _trace
from .api import convert

_trace.converter = convert
