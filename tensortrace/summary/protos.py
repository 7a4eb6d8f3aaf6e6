"""TF's summary messages under ``tf.compat.v1`` (``SummaryMetadata``, ``Summary``, ``Event``):
TensorBoard's compiled classes, which Keras' TensorBoard callback builds its model summary with.
Without the ``tf-formats`` extra each name raises the error naming it."""

from .. import _protos
from .._export import export_value


def _message(module, name):
    try:
        return getattr(getattr(_protos, module), name)
    except ImportError as e:
        missing = str(e)

        def unavailable(*args, **kwargs):
            raise ImportError(missing)

        unavailable.__name__ = unavailable.__qualname__ = name
        return unavailable


export_value(_message("summary_pb2", "SummaryMetadata"), "compat.v1.SummaryMetadata")
export_value(_message("summary_pb2", "Summary"), "compat.v1.Summary")
export_value(_message("event_pb2", "Event"), "compat.v1.Event")
