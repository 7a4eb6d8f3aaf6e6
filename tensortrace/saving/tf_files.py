"""The files of a SavedModel in TensorFlow's format: ``saved_model.pb`` (a ``SavedModel``
message), ``variables/variables.{index,data-*}`` (a tensor bundle) and ``fingerprint.pb``.

    is_tf_format(path)                  # a saved_model.pb is there
    proto = read_saved_model(path)      # parsed, with TF's errors for a missing or bad file
"""

import os

from .. import _protos, errors
from .format import FormatError

SAVED_MODEL = "saved_model.pb"
FINGERPRINT = "fingerprint.pb"
VARIABLES_DIR = "variables"
ASSETS = "assets"
VARIABLES = "variables"  # the bundle's prefix inside VARIABLES_DIR
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
SCHEMA_VERSION = 1
# a saved_model.pb holds graphs, not weights: a larger file is not a model this loader reads
_MAX_BYTES = 1 << 30


def is_tf_format(export_dir):
    """Whether ``export_dir`` holds TF's ``saved_model.pb``."""
    return os.path.isfile(os.path.join(os.fspath(export_dir), SAVED_MODEL))


def variables_prefix(export_dir):
    return os.path.join(os.fspath(export_dir), VARIABLES_DIR, VARIABLES)


def read_saved_model(export_dir):
    """The ``SavedModel`` message in ``export_dir``.

    Raises:
        OSError: when the file is missing, too large or cannot be parsed (TF's messages).
        ValueError: for a schema version other than 1 or a model without meta graphs.
    """
    path = os.path.join(os.fspath(export_dir), SAVED_MODEL)
    try:
        with open(path, "rb") as f:
            data = f.read(_MAX_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError):
        raise OSError(f"SavedModel file does not exist at: {os.fspath(export_dir)}") from None
    if len(data) > _MAX_BYTES:
        raise OSError(f"Cannot parse file {path}: larger than {_MAX_BYTES} bytes.")
    try:
        proto = _protos.parse(_protos.SavedModel, data, path)
    except errors.DataLossError as e:
        raise OSError(f"Cannot parse file {path}: {e.message}") from None
    if proto.saved_model_schema_version not in (0, SCHEMA_VERSION):
        raise FormatError(f"{path} has saved_model_schema_version "
                          f"{proto.saved_model_schema_version}; only 1 is supported.")
    if not proto.meta_graphs:
        raise FormatError(f"{path} holds no MetaGraphDef.")
    return proto


def meta_graph(proto, tags, export_dir):
    """The one MetaGraphDef with an object graph that ``tf.saved_model.load`` reads, checked
    against ``tags`` (None, a tag, a list or a set) as TF checks them.

    Raises:
        ValueError: for a model of several meta graphs or none with an object graph (TF 1
            models), or tags that are not the meta graph's (TF's message).
    """
    if len(proto.meta_graphs) != 1 or not proto.meta_graphs[0].HasField("object_graph_def"):
        raise FormatError(f"The SavedModel at {os.fspath(export_dir)} is a TF 1 model (no "
                          "object graph in one MetaGraphDef): tensortrace loads TF 2 models.")
    mg = proto.meta_graphs[0]
    if tags is not None:
        tags = tags if isinstance(tags, set) else [tags] if isinstance(tags, str) else list(tags)
        if set(tags) != set(mg.meta_info_def.tags):
            raise ValueError(
                f"Got an incompatible argument to `tags`: {tags}. The SavedModel at "
                f"{os.fspath(export_dir)} has one MetaGraph with tags "
                f"{list(mg.meta_info_def.tags)}. You may omit the argument, pass 'None', or "
                "pass matching tags.")
    return mg
