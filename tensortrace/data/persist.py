"""``Dataset.save`` and ``Dataset.load``: a dataset's elements written to a directory and read
back as a dataset.

TF writes a snapshot (``dataset_spec.pb``, ``snapshot.metadata`` and shard files of its
undocumented snapshot record format). tensortrace writes its own format instead, which TF cannot
read nor tensortrace TF's: ``dataset.json`` (the element spec, in the SavedModel document's value
encoding, the shard files and the element count) and one ``shard_<k>.npz`` per shard holding each
element's flat components (read with ``allow_pickle=False``; GZIP compresses the members).
"""

import collections
import json
import os

import numpy as np

from .. import dtypes as D
from .. import errors
from ..composite import TypeSpec, spec_class, spec_key
from ..shapes import TensorShape
from ..tensor import Tensor, TensorSpec
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


class FormatError(ValueError):
    """A saved dataset's files do not hold what they should."""


def _encode(x):
    """An element spec as JSON: specs, dtypes, shapes and the containers holding them."""
    t = type(x)
    if x is None or t in (bool, int, str, float):
        return x
    if isinstance(x, TensorSpec):
        return {"tensor": [_encode(x.shape), x.dtype.name, x.name]}
    if isinstance(x, TypeSpec):
        return {"spec": [*spec_key(x), _encode(tuple(x._serialize()))]}
    if isinstance(x, D.DType):
        return {"dtype": x.name}
    if isinstance(x, TensorShape):
        return {"shape": None if x.rank is None else x.as_list()}
    if t in (tuple, list):
        return {t.__name__: [_encode(v) for v in x]}
    if isinstance(x, dict):
        return {"dict": [[k, _encode(v)] for k, v in x.items()],
                "ordered": t is collections.OrderedDict}
    raise ValueError(f"Dataset.save: cannot save an element spec holding {x!r}.")


def _decode(doc):
    if not isinstance(doc, dict):
        if isinstance(doc, list):
            raise FormatError("a bare list in the element spec")
        return doc
    (kind, value), = [(k, v) for k, v in doc.items() if k != "ordered"]
    if kind == "tensor":
        return TensorSpec(_decode(value[0]), D.as_dtype(value[1]), value[2])
    if kind == "spec":
        cls = spec_class(value[0], value[1])
        if cls is None:
            raise FormatError(f"unknown spec {value[0]}.{value[1]}")
        return cls._deserialize(_decode(value[2]))
    if kind == "dtype":
        return D.as_dtype(value)
    if kind == "shape":
        return TensorShape(value)
    if kind in ("tuple", "list"):
        items = [_decode(v) for v in value]
        return tuple(items) if kind == "tuple" else items
    if kind == "dict":
        kind = collections.OrderedDict if doc.get("ordered") else dict
        return kind((k, _decode(v)) for k, v in value)
    raise FormatError(f"unknown entry {kind!r} in the element spec")


def _arrays(prefix, value, members):
    """Put one component into ``members`` (npz names -> arrays); its JSON description."""
    arr = np.asarray(value)
    if arr.dtype == object:  # strings: their bytes and offsets
        items = [bytes(b) for b in arr.reshape(-1)]
        members[prefix + ".data"] = np.frombuffer(b"".join(items), np.uint8)
        members[prefix + ".offsets"] = np.cumsum([0] + [len(b) for b in items], dtype=np.int64)
        return {"name": prefix, "strings": list(arr.shape)}
    members[prefix] = arr
    return {"name": prefix}


def _component(doc, npz):
    name = doc["name"]
    if "strings" not in doc:
        return npz[name]
    data, offsets = npz[name + ".data"].tobytes(), npz[name + ".offsets"].tolist()
    shape = tuple(doc["strings"])
    if len(offsets) != int(np.prod(shape)) + 1 or offsets[-1] != len(data):
        raise FormatError(f"string component {name!r} is malformed")
    out = np.empty(len(offsets) - 1, dtype=object)
    out[:] = [data[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
    return out.reshape(shape)


def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """Write the elements of ``dataset`` under ``path`` (a directory, replaced)."""
    if checkpoint_args is not None:
        raise NotImplementedError("Dataset.save: `checkpoint_args` (checkpointing a save as it "
                                  "runs) is not supported by tensortrace.")
    gzip = _compression(compression)
    path = os.fspath(path.numpy().decode() if isinstance(path, Tensor) else path)
    shards = {}  # shard index -> element docs
    members_of = {}  # shard index -> npz members
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
        members = members_of.setdefault(k, {})
        docs = shards.setdefault(k, [])
        docs.append([_arrays(f"e{len(docs)}_{j}", c, members) for j, c in enumerate(flat)])
        count += 1
    os.makedirs(path, exist_ok=True)
    files = []
    for k in sorted(shards):
        name = f"shard_{k}.npz"
        (np.savez_compressed if gzip else np.savez)(os.path.join(path, name),
                                                    **members_of[k])
        files.append({"file": name, "elements": shards[k]})
    doc = {"format": _FORMAT, "version": _VERSION, "compression": "GZIP" if gzip else "",
           "cardinality": count, "element_spec": _encode(dataset.element_spec), "shards": files}
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
                raise FormatError(f"not a {_FORMAT} version {_VERSION} document")
            saved_spec = _decode(doc["element_spec"])
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
                    decoded = [tuple(_component(c, npz) for c in e) for e in elements]
            except (OSError, ValueError, KeyError, TypeError) as e:
                raise errors.DataLossError(None, None, f"{file}: {e}") from None
            for flat in decoded:
                yield tuple(np.asarray(c) if np.ndim(c) == 0 else c for c in flat)

    def _cardinality(self, env=None):
        return self._count if self._count >= 0 else UNKNOWN


def load(path, element_spec=None, compression=None, reader_func=None):
    """The dataset ``Dataset.save`` wrote under ``path``."""
    return _LoadDataset(path, element_spec, compression, reader_func)
