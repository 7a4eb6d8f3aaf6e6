"""``tf.train.Example`` and its messages: TF's protocol buffers (full names ``tensorflow.Example``
...), built in ``_protos`` from TF's field numbers (the ``tf-formats`` extra)."""

from .. import _protos
from .._export import export_value

_MESSAGES = ("Example", "SequenceExample", "Features", "Feature", "FeatureList", "FeatureLists",
             "BytesList", "FloatList", "Int64List")
for _name in _MESSAGES:
    globals()[_name] = getattr(_protos, _name)
    export_value(globals()[_name], "train." + _name)
