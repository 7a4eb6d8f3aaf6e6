"""Batch inference on Ray Data (the optional ``ray`` extra), as Ray's batch-inference guide does
it: a callable class loads a SavedModel once per worker, and ``Dataset.map_batches`` runs a pool
of such workers (actors), each mapping NumPy batches through one of the model's signatures.

    predictions = predict_batches(ray.data.read_parquet(...), "/models/mlp", num_workers=2)
    # or, for full control of map_batches:
    ds.map_batches(SavedModelPredictor, fn_constructor_args=("/models/mlp",),
                   compute=ray.data.ActorPoolStrategy(size=2), batch_size=4096,
                   batch_format="numpy", zero_copy_batch=True)

A batch's columns feed the signature's inputs of the same name (``input_columns`` maps others);
the signature's outputs become the result's columns, with any ``keep_columns`` passed through.
SavedModels written by TF and by tensortrace both load.

Where the time goes (1M rows through a 64-256-256-10 MLP): the signature call runs at the
speed of the NumPy kernels it is made of (the graph is compiled once; a partial last batch
reuses it), and a zero-copy batch (a read-only view of the Arrow block) is fed to it without a
copy. Ray's own costs are per actor (a worker process importing Ray Data and tensortrace: a few
CPU seconds, once) and per block (scheduling, serializing the output block: milliseconds), so
each actor takes one CPU and a single-threaded BLAS (Ray sets ``OMP_NUM_THREADS`` to the
actor's ``num_cpus``), and more actors than free cores only add contention.
"""

import os

import numpy as np

from .. import dtypes
from ..saving import io as _io
from ..saving.load import load
from ..tensor import EagerTensor

try:
    import ray  # noqa: F401 - the optional dependency
    import ray.data
except ImportError:
    ray = None

INSTALL = "pip install 'tensortrace[ray]'"
_MAX_FITTING = 64  # column shapes remembered as checked, per predictor


def _require_ray():
    if ray is None:
        raise ImportError(f"Batch inference on Ray Data needs Ray Data: {INSTALL}")


class SavedModelPredictor:
    """``map_batches``' callable class: the SavedModel at ``saved_model_dir`` loaded once (in
    each worker), then ``predictor(batch)`` maps a batch (``{column: ndarray}``) through the
    signature named ``signature`` and returns ``{output name: ndarray}``.

    Args:
        saved_model_dir: a SavedModel directory (TF's or tensortrace's).
        signature: the signature's key (``saved_model_cli show`` lists them).
        input_columns: ``{signature input: column}`` for inputs whose column is named otherwise.
        keep_columns: columns copied into the result unchanged (ids, labels).
    """

    def __init__(self, saved_model_dir, signature="serving_default", input_columns=None,
                 keep_columns=()):
        self._where = os.fspath(saved_model_dir)
        self._name = signature
        self._columns = _input_columns(input_columns)
        self._keep = _keep_columns(keep_columns)
        model = load(self._where)
        signatures = getattr(model, "signatures", {})
        if signature not in signatures:
            raise ValueError(f"The SavedModel at {self._where} has no signature {signature!r}; "
                             f"its signatures: {sorted(signatures)}")
        self._fn = signatures[signature]
        self._specs = dict(self._fn.structured_input_signature[1])
        unknown = sorted(set(self._columns) - set(self._specs))
        if unknown:
            raise ValueError(f"input_columns names {unknown}, which signature {signature!r} of "
                             f"the SavedModel at {self._where} does not take; its inputs: "
                             f"{_describe(self._specs)}")
        clash = sorted(set(self._keep) & set(_output_names(self._fn)))
        if clash:
            raise ValueError(f"keep_columns names {clash}, which signature {signature!r} also "
                             "outputs")
        self._model = model  # keeps the variables the signature reads alive
        # (input, dtype, shape) of columns already checked to feed the input as they are: a
        # run's batches have one or two shapes (full batches and the last, partial one)
        self._fitting = set()

    @property
    def input_specs(self):
        """The signature's inputs: ``{name: TensorSpec}``."""
        return dict(self._specs)

    def __call__(self, batch):
        if not isinstance(batch, dict):
            raise TypeError("SavedModelPredictor takes NumPy batches ({column: ndarray}): pass "
                            "batch_format='numpy' to map_batches; got "
                            f"{type(batch).__name__}")
        feeds = {name: self._feed(name, spec, batch) for name, spec in self._specs.items()}
        self._check_keep(batch)
        outputs = self._fn(**feeds)
        if not isinstance(outputs, dict):
            outputs = {"output_0": outputs}
        # .numpy() copies: an output may be a variable's value or a constant of the model
        result = {name: np.asarray(value.numpy()) for name, value in outputs.items()}
        for column in self._keep:
            result[column] = batch[column]
        return result

    def _column(self, name, columns):
        """The column that feeds input ``name``; ValueError if ``columns`` lack it."""
        column = self._columns.get(name, name)
        if column not in columns:
            mapped = f" (mapped to column {column!r})" if column != name else ""
            raise ValueError(f"Signature {self._name!r} of the SavedModel at {self._where} "
                             f"takes input {name!r}{mapped}, which the data lacks; its "
                             f"columns: {sorted(columns)}. Map inputs to columns with "
                             "input_columns={input: column}.")
        return column

    def _check_keep(self, columns):
        missing = [c for c in self._keep if c not in columns]
        if missing:
            raise ValueError(f"keep_columns names {missing}, which the data lacks; its "
                             f"columns: {sorted(columns)}")

    def _feed(self, name, spec, batch):
        """The batch's column for input ``name``, as the input's dtype: a read-only array of
        that dtype (Ray's zero-copy batch) as a tensor sharing its memory (graph feeds are never
        written), any other array as it is (the call converts, copying it)."""
        value = batch.get(self._columns.get(name, name))
        if type(value) is np.ndarray and (name, value.dtype, value.shape) in self._fitting:
            return value if value.flags.writeable else EagerTensor._wrap(value)
        return self._checked_feed(name, spec, batch)

    def _checked_feed(self, name, spec, batch):
        column = self._column(name, batch)
        value = batch[column]
        if not isinstance(value, np.ndarray) or value.dtype == object:
            value = np.asarray(list(value) if isinstance(value, np.ndarray) else value)
        target = spec.dtype
        if target == dtypes.string:
            return value
        want = np.dtype(target.as_numpy_dtype)
        if value.dtype != want:
            if not np.can_cast(value.dtype, want, casting="same_kind"):
                raise TypeError(f"Column {column!r} holds {value.dtype}, which input {name!r} "
                                f"of signature {self._name!r} ({target.name}) does not take")
            value = value.astype(want)
        if not spec.shape.is_compatible_with(value.shape):
            raise ValueError(f"A batch of column {column!r} has shape {value.shape}, which "
                             f"input {name!r} of signature {self._name!r} (shape "
                             f"{spec.shape}) does not take")
        if value is batch[column]:  # later batches of this dtype and shape skip the checks
            if len(self._fitting) >= _MAX_FITTING:
                self._fitting.clear()
            self._fitting.add((name, value.dtype, value.shape))
            if not value.flags.writeable:
                return EagerTensor._wrap(value)
        return value


def predict_batches(dataset, saved_model_dir, signature="serving_default", *, num_workers=1,
                    batch_size=4096, input_columns=None, keep_columns=(), num_cpus=1):
    """``dataset`` mapped through a SavedModel's signature on ``num_workers`` Ray actors, each
    loading the model once (a lazy ``ray.data.Dataset`` of the outputs, plus ``keep_columns``).

    Args:
        dataset: a ``ray.data.Dataset`` whose columns feed the signature's inputs.
        saved_model_dir: the SavedModel's directory (TF's or tensortrace's).
        signature: the signature's key.
        num_workers: the actors, a fixed pool (each one model in memory).
        batch_size: rows per call of the signature (a block's last batch may be smaller).
        input_columns: ``{signature input: column}`` where the names differ.
        keep_columns: columns passed through (ids, labels).
        num_cpus: CPUs reserved per actor; Ray gives the actor as many BLAS threads (its
            ``OMP_NUM_THREADS``, unless set), so the default, 1, keeps actors sharing the
            cores from oversubscribing them.
    """
    _require_ray()
    if not isinstance(dataset, ray.data.Dataset):
        raise TypeError(f"predict_batches takes a ray.data.Dataset; got {type(dataset).__name__}")
    where = os.fspath(saved_model_dir)
    if not _io.contains_saved_model(where):
        raise OSError(f"SavedModel file does not exist at: {where}")
    for arg, value in (("num_workers", num_workers), ("batch_size", batch_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"`{arg}` must be a positive integer; got {value!r}")
    if isinstance(num_cpus, bool) or not isinstance(num_cpus, (int, float)) or not num_cpus > 0:
        raise ValueError(f"`num_cpus` must be a positive number; got {num_cpus!r}")
    # The driver loads the model once to check the signature and the columns, so that a
    # mistake fails here, at once, rather than as a dead actor or a failed task in a worker.
    predictor = SavedModelPredictor(where, signature, input_columns, keep_columns)
    schema = dataset.schema(fetch_if_missing=False)
    if schema is not None:
        columns = list(schema.names)
        for name in predictor.input_specs:
            predictor._column(name, columns)
        predictor._check_keep(columns)
    # NumPy batches that are read-only views of the Arrow blocks (the predictor never writes
    # them), on a fixed pool of actors: each loads the model once and takes batch after batch
    return dataset.map_batches(
        SavedModelPredictor, batch_size=batch_size, batch_format="numpy", zero_copy_batch=True,
        fn_constructor_args=(os.path.abspath(where), signature, input_columns,
                             tuple(keep_columns)),
        compute=ray.data.ActorPoolStrategy(size=num_workers), num_cpus=num_cpus)


def _input_columns(input_columns):
    if input_columns is None:
        return {}
    if not isinstance(input_columns, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in input_columns.items()):
        raise TypeError("`input_columns` must map signature input names to column names "
                        f"(str to str); got {input_columns!r}")
    return dict(input_columns)


def _keep_columns(keep_columns):
    if isinstance(keep_columns, str) or not all(isinstance(c, str) for c in keep_columns):
        raise TypeError(f"`keep_columns` must be a sequence of column names; got "
                        f"{keep_columns!r}")
    return tuple(keep_columns)


def _describe(specs):
    return ", ".join(f"{n!r} ({s.dtype.name}, shape {s.shape})" for n, s in sorted(specs.items()))


def _output_names(fn):
    outputs = fn.structured_outputs
    return list(outputs) if isinstance(outputs, dict) else ["output_0"]
