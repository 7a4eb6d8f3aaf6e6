"""The parse ops: ``ParseExampleV2`` and ``ParseSequenceExampleV2`` with NumPy kernels over the
protos (``_protos.Example``), giving TF's values and error texts.

Unlike TF's ops (sparse, dense and ragged keys as inputs, composites built in Python), ours take
the feature dict as one ``features`` attr and return every feature's final components: a sparse
feature's indices, values and dense shape, a dense feature's tensor, a ragged feature's flat
values and row splits (its partitions already applied), so graphs, ``tf.function`` and
``Dataset.map`` run one op. A scalar ``serialized`` parses one proto (no batch dimension).

Feature tuples (the ``features`` attr; dtypes by name):
``("sparse", key, dtype)``, ``("dense", key, dtype, shape, sequence)`` (a dense feature's
default is the op input at its position), ``("ragged", value_key, dtype, splits_dtype,
partitions)`` with partitions ``(kind, key or length)``, ``("sparse_feature", index_keys,
value_key, dtype, size, already_sorted)``.
"""

import numpy as np

from .. import _protos, dtypes as D
from ..errors import invalid_argument
from ..messages import shape_text
from ..registry import define_op
from ..shapes import TensorShape
from ..tensor import TensorSpec

_KIND_DTYPE = {"bytes_list": "string", "float_list": "float32", "int64_list": "int64"}
_TYPE_TEXT = {"string": "string", "float32": "float", "int64": "int64"}  # TF's DataTypeString
_COUNT_TEXT = {"string": "bytes", "float32": "float", "int64": "int64"}
_NP = {"string": object, "float32": np.float32, "int64": np.int64, "int32": np.int32}


def _decode(cls, data, what):
    try:
        return cls.FromString(data)
    except Exception:  # protobuf's DecodeError and friends
        raise invalid_argument(f"Could not parse {what} input, value: "
                               f"'{data.decode('utf-8', 'replace')}'") from None


def _array(values, dtype):
    if dtype == "string":
        out = np.empty(len(values), object)
        out[:] = [bytes(v) for v in values]
        return out
    return np.asarray(values, _NP[dtype]).reshape(-1)


class _Where:
    """An example's place in error texts: its name (``<unknown>``), its index (a frame's, in a
    feature list), and the part of a SequenceExample parsed (``"context"``, ``"list"``: TF
    words their errors apart)."""

    def __init__(self, name, index, part=None):
        self.name, self.index, self.part = name, index, part

    def within(self, part, index=None):
        return _Where(self.name, self.index if index is None else index, part)


def _feature_values(feature_map, key, dtype, where, *, varlen):
    """The values of ``key`` as an array of ``dtype``, or None when missing (or kind-less)."""
    if key not in feature_map:
        return None
    feature = feature_map[key]
    kind = feature.WhichOneof("kind")
    if kind is None:
        return None
    actual = _KIND_DTYPE[kind]
    if actual != dtype:
        if where.part == "list":
            raise invalid_argument(f"Name: {where.name}, Feature list: {key}, Index: "
                                   f"{where.index}.  Data types don't match. Expected type: "
                                   f"{_TYPE_TEXT[dtype]}")
        if where.part == "context":
            raise invalid_argument(f"Name: {where.name}, Context feature: {key}.  Data types "
                                   f"don't match. Expected type: {_TYPE_TEXT[dtype]}")
        prefix = f"Name: {where.name}, Key: {key}, Index: {where.index}.  Data types don't match."
        if varlen:
            raise invalid_argument(f"{prefix} Expected type: {_TYPE_TEXT[dtype]}, Actual type: "
                                   f"{_TYPE_TEXT[actual]}")
        raise invalid_argument(f"{prefix} Data type: {_TYPE_TEXT[actual]} but expected type: "
                               f"{_TYPE_TEXT[dtype]}")
    return _array(getattr(feature, kind).value, dtype)


# --- features of one proto, batched ------------------------------------------------------------
def _sparse(maps, wheres, key, dtype, batched):
    rows = [_feature_values(m, key, dtype, w, varlen=True) for m, w in zip(maps, wheres)]
    rows = [_array([], dtype) if r is None else r for r in rows]
    lengths = [len(r) for r in rows]
    width = max(lengths, default=0)
    inner = np.concatenate([np.arange(n, dtype=np.int64) for n in lengths]) if rows else \
        np.zeros(0, np.int64)
    values = np.concatenate(rows) if rows else _array([], dtype)
    if batched:
        batch = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
        return (np.stack([batch, inner], 1).reshape(-1, 2), values,
                np.array([len(rows), width], np.int64))
    return inner.reshape(-1, 1), values, np.array([width], np.int64)


def _dense(maps, wheres, key, dtype, shape, sequence, default):
    size = int(np.prod(shape))
    rows = []
    for m, w in zip(maps, wheres):
        values = _feature_values(m, key, dtype, w, varlen=False)
        if sequence:
            if values is None:
                values = _array([], dtype)
            if size and len(values) % size:
                raise invalid_argument(
                    f"Name: {w.name}, Key: {key}, Index: {w.index}.  Number of "
                    f"{_COUNT_TEXT[dtype]} values is not a multiple of stride length. Saw "
                    f"{len(values)} values but output shape is: {_seq_shape_text(shape)}")
            rows.append(values.reshape((-1,) + tuple(shape)) if size else
                        values.reshape((0,) + tuple(shape)))
            continue
        if values is None:
            if default.size == 0:
                raise invalid_argument(f"Name: {w.name}, Feature: {key} (data type: "
                                       f"{_TYPE_TEXT[dtype]}) is required but could not be "
                                       "found.")
            rows.append(np.asarray(default, _NP[dtype]).reshape(shape))
            continue
        if len(values) != size:
            raise invalid_argument(
                f"Name: {w.name}, Key: {key}, Index: {w.index}.  Number of "
                f"{_COUNT_TEXT[dtype]} values != expected.  Values size: {len(values)} but "
                f"output shape: {shape_text(shape)}")
        rows.append(values.reshape(shape))
    if not sequence:
        return np.stack(rows) if rows else np.zeros((0,) + tuple(shape), _NP[dtype])
    longest = max((len(r) for r in rows), default=0)
    out = np.empty((len(rows), longest) + tuple(shape), _NP[dtype])
    out[...] = np.asarray(default).reshape(()).item() if default.size else \
        (b"" if dtype == "string" else 0)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out


def _seq_shape_text(shape):
    return "[" + ",".join(["?"] + [str(d) for d in shape]) + "]"


def _partitioned(values, parts, splits_np):
    """One example's values split by its partitions (innermost first, as TF applies them):
    (values, nested splits outer to inner)."""
    splits = []
    for kind, arg in reversed(parts):
        nrows = len(values) if not splits else len(splits[0]) - 1
        if kind == "UniformRowLength":
            if not splits:
                if arg <= 0 or len(values) % arg:
                    raise invalid_argument(f"Input to reshape is a tensor with {values.size} "
                                           f"values, but the requested shape requires a "
                                           f"multiple of {max(arg, 1) * values[0:1].size}")
                values = values.reshape((-1, arg) + values.shape[1:])
                continue
            new = np.arange(0, nrows + 1, arg, dtype=np.int64)
        elif kind == "RowSplits":
            new = arg
        elif kind == "RowLengths":
            new = np.concatenate([[0], np.cumsum(arg)])
        elif kind == "RowStarts":
            new = np.concatenate([arg, [nrows]])
        elif kind == "RowLimits":
            new = np.concatenate([[0], arg])
        else:  # ValueRowIds
            count = int(arg.max()) + 1 if len(arg) else 0
            new = np.concatenate([[0], np.cumsum(np.bincount(arg, minlength=count))])
        new = np.asarray(new, np.int64)
        if len(new) == 0 or new[0] != 0 or new[-1] != nrows or np.any(np.diff(new) < 0):
            raise invalid_argument(f"Ragged partition {kind} does not fit the {nrows} rows it "
                                   f"partitions: {new.tolist()}")
        splits.insert(0, new)
    return values, [s.astype(splits_np) for s in splits]


def _ragged(maps, wheres, value_key, dtype, splits_dtype, parts, batched):
    splits_np = _NP[splits_dtype]
    per_example = []
    for m, w in zip(maps, wheres):
        values = _feature_values(m, value_key, dtype, w, varlen=True)
        resolved = []
        for kind, arg in parts:
            if kind != "UniformRowLength":
                arg = _feature_values(m, arg, "int64", w, varlen=True)
                arg = np.zeros(0, np.int64) if arg is None else arg
            resolved.append((kind, arg))
        values = _array([], dtype) if values is None else values
        per_example.append(_partitioned(values, resolved, splits_np))
    if not batched:
        values, splits = per_example[0]
        return (values,) + tuple(splits)
    counts = [len(v) if not s else len(s[0]) - 1 for v, s in per_example]
    nested = [np.concatenate([[0], np.cumsum(counts)]).astype(splits_np)]
    for level in range(_depth(parts)):
        pieces, offset = [np.zeros(1, splits_np)], 0
        for _, s in per_example:
            pieces.append(s[level][1:] + offset)
            offset += int(s[level][-1])
        nested.append(np.concatenate(pieces).astype(splits_np))
    values = np.concatenate([v for v, _ in per_example]) if per_example else \
        _array([], dtype).reshape((0,) + _trailing_dims(parts))
    return (values,) + tuple(nested)


def _depth(parts):
    """How many row-split levels partitions make (trailing uniform lengths reshape instead)."""
    kinds = [k for k, _ in parts]
    while kinds and kinds[-1] == "UniformRowLength":
        kinds.pop()
    return len(kinds)


def _trailing_dims(parts):
    dims = []
    for kind, arg in reversed(parts):
        if kind != "UniformRowLength":
            break
        dims.insert(0, arg)
    return tuple(dims)


def _sparse_feature(maps, wheres, index_keys, value_key, dtype, size, already_sorted, batched):
    """A SparseFeature: ``index_keys``' values index ``value_key``'s (TF's sparse_merge)."""
    values_rows, id_rows = [], []
    for m, w in zip(maps, wheres):
        v = _feature_values(m, value_key, dtype, w, varlen=True)
        values_rows.append(_array([], dtype) if v is None else v)
        ids = [_feature_values(m, k, "int64", w, varlen=True) for k in index_keys]
        id_rows.append([np.zeros(0, np.int64) if i is None else i for i in ids])
    for k in range(len(index_keys)):  # TF's sparse_merge compares the batch's static shapes
        total_ids, total_values = sum(len(r[k]) for r in id_rows), sum(map(len, values_rows))
        if total_ids != total_values:
            raise ValueError(f"Dimensions {total_ids} and {total_values} are not compatible")
    index_rows = []
    for b, (ids, v, w) in enumerate(zip(id_rows, values_rows, wheres)):
        if any(len(i) != len(v) for i in ids):
            raise invalid_argument(f"Name: {w.name}, Index: {w.index}.  SparseFeature index "
                                   f"keys {list(index_keys)} have {[len(i) for i in ids]} values "
                                   f"but value key {value_key} has {len(v)}")
        index = np.stack(ids, 1) if ids else np.zeros((len(v), 0), np.int64)
        if not already_sorted and len(v):
            order = np.lexsort(index.T[::-1])
            index, values_rows[b] = index[order], v[order]
        index_rows.append(index)
    if batched:
        index_rows = [np.concatenate([np.full((len(ix), 1), b, np.int64), ix], 1)
                      for b, ix in enumerate(index_rows)]
        shape = [len(maps)] + list(size)
    else:
        shape = list(size)
    indices = np.concatenate(index_rows).reshape(-1, len(shape))
    return indices, np.concatenate(values_rows), np.array(shape, np.int64)


def parse_features(maps, wheres, features, defaults, batched):
    """Every feature's output arrays, in the order of ``features``."""
    out, d = [], iter(defaults)
    for f in features:
        kind = f[0]
        if kind == "sparse":
            out.extend(_sparse(maps, wheres, f[1], f[2], batched))
        elif kind == "dense":
            value = _dense(maps, wheres, f[1], f[2], f[3], f[4], np.asarray(next(d)))
            out.append(value if batched else value[0, ...])
        elif kind == "ragged":
            out.extend(_ragged(maps, wheres, f[1], f[2], f[3], f[4], batched))
        else:
            out.extend(_sparse_feature(maps, wheres, *f[1:], batched))
    return tuple(out)


def feature_specs(features, defaults, batch):
    """The TensorSpecs of ``parse_features``' outputs (``batch``: None for one proto, else the
    batch size or None)."""
    lead = [] if batch is False else [batch]
    specs, d = [], iter(defaults)
    for f in features:
        kind = f[0]
        if kind == "sparse":
            rank = 1 + len(lead)
            specs += [TensorSpec([None, rank], D.int64), TensorSpec([None], D.as_dtype(f[2])),
                      TensorSpec([rank], D.int64)]
        elif kind == "dense":
            next(d)
            shape = lead + ([None] if f[4] else []) + list(f[3])
            specs.append(TensorSpec(TensorShape(shape), D.as_dtype(f[2])))
        elif kind == "ragged":
            depth = _depth(f[4]) + len(lead)
            specs.append(TensorSpec(TensorShape([None] + list(_trailing_dims(f[4]))),
                                    D.as_dtype(f[2])))
            specs += [TensorSpec([None], D.as_dtype(f[3])) for _ in range(depth)]
        else:
            rank = len(lead) + len(f[1])
            specs += [TensorSpec([None, rank], D.int64), TensorSpec([None], D.as_dtype(f[3])),
                      TensorSpec([rank], D.int64)]
    return specs


def _serialized_rows(serialized, names):
    a = np.asarray(serialized)
    if a.ndim > 1:
        raise invalid_argument(f"Expected serialized to be a scalar or vector, got shape: "
                               f"{shape_text(a.shape)}")
    rows = a.reshape(-1).tolist()
    names = np.asarray(names, object).reshape(-1).tolist()
    wheres = [_Where(names[i].decode("utf-8", "replace") if i < len(names) else "<unknown>", i)
              for i in range(len(rows))]
    return rows, wheres, a.ndim == 1


def _batch_of(serialized):
    if serialized.shape.rank == 0:
        return False
    return serialized.shape[0] if serialized.shape.rank == 1 else None


@define_op("ParseExampleV2")
class ParseExampleV2:
    """Parse serialized ``tf.train.Example`` protos into each feature's component tensors."""

    def infer(serialized, names, *dense_defaults, features):
        if serialized.shape.rank is not None and serialized.shape.rank > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {serialized.shape.rank} "
                             "for '{{node ParseExampleV2}}'")
        return tuple(feature_specs(features, dense_defaults, _batch_of(serialized)))

    def kernel(serialized, names, *dense_defaults, features):
        rows, wheres, batched = _serialized_rows(serialized, names)
        maps = [_decode(_protos.Example, r, "example").features.feature for r in rows]
        return parse_features(maps, wheres, features, dense_defaults, batched)


# --- sequence examples -------------------------------------------------------------------------
def _frames(seqs, key):
    return [list(s.feature_lists.feature_list[key].feature)
            if key in s.feature_lists.feature_list else None for s in seqs]


def _frame_values(frame, key, dtype, where, index):
    kind = frame.WhichOneof("kind")
    if kind is None:
        return _array([], dtype)
    actual = _KIND_DTYPE[kind]
    if actual != dtype:
        raise invalid_argument(f"Name: {where.name}, Feature list: {key}, Index: {index}.  Data "
                               f"types don't match. Expected type: {_TYPE_TEXT[dtype]}")
    return _array(getattr(frame, kind).value, dtype)


def _list_sparse(seqs, wheres, key, dtype, batched):
    indices, values, frames_max, width = [], [], 0, 0
    for b, (frames, w) in enumerate(zip(_frames(seqs, key), wheres)):
        frames = frames or []
        frames_max = max(frames_max, len(frames))
        for t, frame in enumerate(frames):
            v = _frame_values(frame, key, dtype, w, t)
            width = max(width, len(v))
            for j in range(len(v)):
                indices.append([b, t, j] if batched else [t, j])
            values.append(v)
    rank = 3 if batched else 2
    shape = ([len(seqs)] if batched else []) + [frames_max, width]
    return (np.array(indices, np.int64).reshape(-1, rank),
            np.concatenate(values) if values else _array([], dtype), np.array(shape, np.int64))


def _list_dense(seqs, wheres, key, dtype, shape, missing_ok, batched):
    size = int(np.prod(shape))
    rows = []
    for frames, w in zip(_frames(seqs, key), wheres):
        if frames is None:
            if not missing_ok:
                raise invalid_argument(
                    f"Name: {w.name}, Feature list '{key}' is required but could not be found.  "
                    "Did you mean to include it in feature_list_dense_missing_assumed_empty or "
                    "feature_list_dense_defaults?")
            frames = []
        values = [_frame_values(f, key, dtype, w, t) for t, f in enumerate(frames)]
        total = sum(len(v) for v in values)
        if not batched and (total % size if size else total):
            raise invalid_argument(f"Feature list '{key}' has an unexpected number of values.  "
                                   f"Total values size: {total} is not consistent with output "
                                   f"shape: {_seq_shape_text(shape)}")
        for t, v in enumerate(values):
            if len(v) != size and batched:
                raise invalid_argument(f"Name: {w.name}, Key: {key}, Index: {t}.  Number of "
                                       f"values != expected.  values size: {len(v)} but output "
                                       f"shape: {shape_text(shape)}")
        flat = np.concatenate(values) if values else _array([], dtype)
        rows.append(flat.reshape((-1,) + tuple(shape)) if size else
                    flat.reshape((len(frames),) + tuple(shape)))
    lengths = np.array([len(r) for r in rows], np.int64)
    if not batched:
        return rows[0], lengths[0]
    longest = max(lengths, default=0)
    out = np.zeros((len(rows), longest) + tuple(shape), _NP[dtype])
    if dtype == "string":
        out[...] = b""
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out, lengths


def _list_ragged(seqs, wheres, key, dtype, splits_dtype, parts, batched):
    """A ragged feature list: each frame's values (split by the partition feature lists' values
    of the same frame, as TF partitions frames); frames, then (batched) examples, as rows."""
    frame_maps, frame_wheres, counts = [], [], []
    lists = [key] + [arg for kind, arg in parts if kind != "UniformRowLength"]
    by_key = {k: _frames(seqs, k) for k in lists}
    for b, w in enumerate(wheres):
        frames = by_key[key][b] or []
        counts.append(len(frames))
        for t in range(len(frames)):
            frame_maps.append({k: by_key[k][b][t] for k in lists
                               if by_key[k][b] is not None and t < len(by_key[k][b])})
            frame_wheres.append(w.within("list", t))
    out = _ragged(frame_maps, frame_wheres, key, dtype, splits_dtype, parts, True)
    if not batched:
        return out
    outer = np.concatenate([[0], np.cumsum(counts)]).astype(_NP[splits_dtype])
    return (out[0], outer) + out[1:]


@define_op("ParseSequenceExampleV2")
class ParseSequenceExampleV2:
    """Parse serialized ``tf.train.SequenceExample`` protos: the context features (as
    ``ParseExampleV2``'s), then each feature list's components (a dense one's lengths last)."""

    def infer(serialized, names, *context_defaults, context, feature_lists):
        batch = _batch_of(serialized)
        specs = feature_specs(context, context_defaults, batch)
        lead = [] if batch is False else [batch]
        lengths = []
        for f in feature_lists:
            kind = f[0]
            if kind == "sparse":
                rank = 2 + len(lead)
                specs += [TensorSpec([None, rank], D.int64), TensorSpec([None], D.as_dtype(f[2])),
                          TensorSpec([rank], D.int64)]
            elif kind == "dense":
                specs.append(TensorSpec(TensorShape(lead + [None] + list(f[3])),
                                        D.as_dtype(f[2])))
                lengths.append(TensorSpec(lead, D.int64))
            else:
                specs.append(TensorSpec(TensorShape([None] + list(_trailing_dims(f[4]))),
                                        D.as_dtype(f[2])))
                specs += [TensorSpec([None], D.as_dtype(f[3]))
                          for _ in range(1 + len(lead) + _depth(f[4]))]
        return tuple(specs + lengths)

    def kernel(serialized, names, *context_defaults, context, feature_lists):
        rows, wheres, batched = _serialized_rows(serialized, names)
        seqs = []
        for r, w in zip(rows, wheres):
            try:
                seqs.append(_protos.SequenceExample.FromString(r))
            except Exception:  # protobuf's DecodeError and friends
                raise invalid_argument(f"Invalid protocol message input, example id: "
                                       f"{w.name}") from None
        out = list(parse_features([s.context.feature for s in seqs],
                                  [w.within("context") for w in wheres], context,
                                  context_defaults, batched))
        lengths = []
        for f in feature_lists:
            kind = f[0]
            if kind == "sparse":
                out.extend(_list_sparse(seqs, wheres, f[1], f[2], batched))
            elif kind == "dense":
                value, length = _list_dense(seqs, wheres, f[1], f[2], f[3], f[4], batched)
                out.append(value)
                lengths.append(length)
            else:
                out.extend(_list_ragged(seqs, wheres, f[1], f[2], f[3], f[4], batched))
        return tuple(out + lengths)
