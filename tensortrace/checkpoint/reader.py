"""Reading checkpoints by key: ``tf.train.load_checkpoint`` / ``CheckpointReader``,
``tf.train.list_variables`` and ``tf.train.load_variable``.

    reader = tf.train.load_checkpoint("/tmp/ckpt-1")
    reader.get_tensor("model/w/.ATTRIBUTES/VARIABLE_VALUE")
    tf.train.list_variables("/tmp")   # [(key, shape)], sorted; a directory means its latest
"""

import os

from .. import messages
from .._export import tf_export
from . import bundle, management


class CheckpointReader:
    """A checkpoint's tensors by key (TF's ``CheckpointReader``)."""

    def __init__(self, filepattern):
        self._bundle = bundle.BundleReader(os.fspath(filepattern))

    def get_tensor(self, tensor_str):
        """The value stored under ``tensor_str``: a NumPy array (scalars: a NumPy scalar, or
        bytes for a string)."""
        value = self._bundle.read(tensor_str)
        return value[()] if value.ndim == 0 else value

    def has_tensor(self, tensor_str):
        return tensor_str in self._bundle

    def get_variable_to_shape_map(self):
        return {k: list(self._bundle.shape(k)) for k in self._bundle.keys()}

    def get_variable_to_dtype_map(self):
        return {k: self._bundle.dtype(k) for k in self._bundle.keys()}

    def debug_string(self):
        """``key (DT_FLOAT) [2,3]`` lines, as bytes."""
        lines = []
        for k in self._bundle.keys():
            dims = ",".join(str(d) for d in self._bundle.shape(k))
            lines.append(f"{k} (DT_{messages.enum_name(self._bundle.dtype(k))}) [{dims}]\n")
        return "".join(lines).encode("utf-8")


def _checkpoint_filename(ckpt_dir_or_file):
    ckpt_dir_or_file = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(ckpt_dir_or_file):
        return management.latest_checkpoint(ckpt_dir_or_file)
    return ckpt_dir_or_file


@tf_export("train.load_checkpoint")
def load_checkpoint(ckpt_dir_or_file):
    """A ``CheckpointReader`` for a checkpoint prefix, or a directory's latest checkpoint."""
    filename = _checkpoint_filename(ckpt_dir_or_file)
    if filename is None:
        raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory "
                         f"{ckpt_dir_or_file}")
    return CheckpointReader(filename)


@tf_export("train.load_variable")
def load_variable(ckpt_dir_or_file, name):
    """The value of one checkpoint key (a trailing ``:0`` is dropped)."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


@tf_export("train.list_variables")
def list_variables(ckpt_dir_or_file):
    """``[(key, shape)]`` of every tensor in the checkpoint, sorted by key."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]
