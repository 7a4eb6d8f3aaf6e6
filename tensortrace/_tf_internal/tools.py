"""The members of the internal modules Keras' tests and utilities import (not Keras' import
itself): tensor predicates, TensorBoard's ``Event`` messages, and TF's TFRecord reader."""

from .. import _protos
from ..composite import CompositeTensor
from ..ops.io_records import compression_name, read_records
from ..ops.utility.basic import get_static_value, is_tensor
from ..tensor import Tensor
from ..variables import Variable


def _is_tf_type(x):
    return isinstance(x, (Tensor, Variable, CompositeTensor))


def tensor_util():
    return {"is_tf_type": _is_tf_type, "is_tensor": is_tensor, "constant_value": get_static_value}


def event_pb2():
    """TF's compiled ``Event`` messages (TensorBoard's copy; the ``tf-formats`` extra)."""
    module = _protos.event_pb2
    return {k: v for k, v in vars(module).items() if not k.startswith("__")}


def tf_record_iterator(path, options=None):
    """An iterator over the records (bytes) of the TFRecord file at ``path``, read as
    ``options`` (a ``tf.io.TFRecordOptions`` or a compression name) say, CRCs checked; a bad
    compression name or a missing file fails here, as in TF."""
    return iter(list(read_records(path, compression_name(options))))


def tf_record():
    return {"tf_record_iterator": tf_record_iterator}
