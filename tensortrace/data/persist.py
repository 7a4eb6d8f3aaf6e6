"""``Dataset.save`` and ``Dataset.load``: a dataset's elements written to a directory and read
back as a dataset.

TF writes a snapshot (``dataset_spec.pb``, ``snapshot.metadata`` and shard files of its
undocumented snapshot record format). tensortrace writes its own format instead, which TF cannot
read nor tensortrace TF's: ``dataset.json`` (the element spec, in the SavedModel document's value
encoding, the shard files and the element count) and one ``shard_<k>.npz`` per shard holding each
element's flat components (read with ``allow_pickle=False``; GZIP compresses the members).
"""

import json
import os

import numpy as np

from .. import errors
from ..saving import format as _format
from ..tensor import Tensor
from . import structure
from .dataset import Dataset
from .ops import UNKNOWN

_FORMAT, _VERSION = "tensortrace.dataset", 1
_SPEC_FILE = "dataset.json"
_COMPRESSIONS = (None, "", "GZIP", "NONE")


def _compression(compression):
    if compression not in _COMPRESSIONS:
        raise ValueError(f"Invalid `compression`: {compression!r}; expected None, \"GZIP\" or "
                         f"\"NONE\".")
    return compression == "GZIP"


def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """Write the elements of ``dataset`` under ``path`` (a directory, replaced)."""
    if checkpoint_args is not None:
        raise NotImplementedError("Dataset.save: `checkpoint_args` (checkpointing a save as it "
                                  "runs) is not supported by tensortrace.")
    gzip = _compression(compression)
    path = os.fspath(path.numpy().decode() if isinstance(path, Tensor) else path)
    shards = {}  # shard index -> (npz members, element docs)
    writer_for = {}
    count = 0
    for flat in dataset._iterate({}):
        k = 0
        if shard_func is not None:
            element = structure.wrap_element(dataset.element_spec, flat)
            index = shard_func(element)
            index = np.asarray(index._value if isinstance(index, Tensor) else index)
            if index.ndim or index.dtype.kind not in "iu":
                raise TypeError(f"Dataset.save: `shard_func` must return a scalar integer "
                                f"(a shard index), got {index!r}.")
            k = int(index)
        writer = writer_for.setdefault(k, _format.ArrayWriter())
        docs = shards.setdefault(k, [])
        docs.append([writer.encode(np.asarray(c), to_npz=True) for c in flat])
        count += 1
    os.makedirs(path, exist_ok=True)
    files = []
    for k in sorted(shards):
        name = f"shard_{k}.npz"
        (np.savez_compressed if gzip else np.savez)(os.path.join(path, name),
                                                    **writer_for[k].npz)
        files.append({"file": name, "elements": shards[k]})
    arrays = _format.ArrayWriter()
    doc = {"format": _FORMAT, "version": _VERSION, "compression": "GZIP" if gzip else "",
           "cardinality": count,
           "element_spec": _format.encode(dataset.element_spec, arrays), "shards": files}
    with open(os.path.join(path, _SPEC_FILE), "w", encoding="utf-8") as f:
        json.dump(doc, f)


class _LoadDataset(Dataset):
    """The elements a ``Dataset.save`` wrote (shard after shard)."""

    def __init__(self, path, element_spec=None, compression=None, reader_func=None):
        if reader_func is not None:
            raise NotImplementedError("Dataset.load: `reader_func` is not supported by "
                                      "tensortrace (shards are read in order).")
        _compression(compression)
        path = os.fspath(path.numpy().decode() if isinstance(path, Tensor) else path)
        spec_path = os.path.join(path, _SPEC_FILE)
        if not os.path.exists(spec_path):
            raise errors.NotFoundError(None, None, f"tf.data snapshot element_spec file not "
                                       f"found: {spec_path}.")
        try:
            with open(spec_path, encoding="utf-8") as f:
                doc = json.load(f)
            if doc.get("format") != _FORMAT or doc.get("version") != _VERSION:
                raise _format.FormatError(f"not a {_FORMAT} version {_VERSION} document")
            saved_spec = _format.decode(doc["element_spec"], _format.ArrayReader({}))
            self._shards = [(os.path.join(path, s["file"]), s["elements"])
                            for s in doc["shards"]]
            self._count = int(doc["cardinality"])
        except (ValueError, KeyError, TypeError) as e:
            raise errors.DataLossError(None, None, f"{spec_path}: {e}") from None
        self._path = path
        if element_spec is not None and structure.structure_text(element_spec) != \
                structure.structure_text(saved_spec):
            raise ValueError(f"The `element_spec` {element_spec} does not match the saved "
                             f"dataset's {saved_spec}.")
        super().__init__(saved_spec if element_spec is None else element_spec)

    def _iterate(self, env):
        for file, elements in self._shards:
            try:
                with np.load(file, allow_pickle=False) as npz:
                    reader = _format.ArrayReader({k: npz[k] for k in npz.files})
                    decoded = [tuple(reader.decode(c) for c in e) for e in elements]
            except (OSError, ValueError, _format.FormatError) as e:
                raise errors.DataLossError(None, None, f"{file}: {e}") from None
            for flat in decoded:
                yield tuple(np.asarray(c) if np.ndim(c) == 0 else c for c in flat)

    def _cardinality(self, env=None):
        return self._count if self._count >= 0 else UNKNOWN


def load(path, element_spec=None, compression=None, reader_func=None):
    """The dataset ``Dataset.save`` wrote under ``path``."""
    return _LoadDataset(path, element_spec, compression, reader_func)
