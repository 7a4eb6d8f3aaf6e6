"""``tf.saved_model.Asset``: a file a SavedModel carries. Saving copies it into the model's
``assets/`` directory; loading gives an Asset whose ``asset_path`` names that copy; functions
read the file through ``asset_path``, a string tensor they capture.

    vocab = tf.saved_model.Asset("vocab.txt")
    tf.io.read_file(vocab.asset_path)
"""

from .._export import tf_export
from ..convert import convert_to_tensor
from .. import dtypes as D


@tf_export("saved_model.Asset")
class Asset:
    """A file saved with the model; ``asset_path`` is its path as a string tensor."""

    def __init__(self, path):
        if isinstance(path, Asset):
            path = path.asset_path
        self._path = convert_to_tensor(path, dtype=D.string)  # TF's TypeError for 3

    @property
    def asset_path(self):
        return self._path

    def _checkpoint_children(self):  # trackable: a node of the object graph, holding no value
        return []

    def __repr__(self):
        return f"<tensorflow.python.trackable.asset.Asset object at 0x{id(self):x}>"
