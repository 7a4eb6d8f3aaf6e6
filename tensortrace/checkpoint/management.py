"""Checkpoint directories: the ``checkpoint`` state file (a text-format ``CheckpointState``),
``tf.train.latest_checkpoint`` / ``get_checkpoint_state``, and ``tf.train.CheckpointManager``,
which numbers checkpoints and deletes the old ones.

The state file is replaced in one rename, so a reader sees the old state or the new one.
"""

import collections
import glob
import os
import time
import uuid

from .. import _logging, _protos, errors
from .._export import tf_export
from . import bundle

STATE_FILENAME = "checkpoint"


def _text_format():
    return _protos._require("google.protobuf.text_format")


def _state_path(save_dir, latest_filename=None):
    return os.path.join(save_dir, latest_filename or STATE_FILENAME)


def generate_checkpoint_state_proto(save_dir, model_checkpoint_path,
                                    all_model_checkpoint_paths=None,
                                    all_model_checkpoint_timestamps=None,
                                    last_preserved_timestamp=None):
    """The ``CheckpointState`` naming ``model_checkpoint_path`` as the latest (TF's rules:
    the latest is last in the list; paths relative to a relative ``save_dir``)."""
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    if (last_preserved_timestamp and all_model_checkpoint_timestamps
            and len(all_model_checkpoint_timestamps) != len(paths)):
        raise ValueError(f"Checkpoint timestamps, if provided, must match checkpoint paths (got "
                         f"paths {paths} and timestamps {all_model_checkpoint_timestamps})")
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    return _protos.CheckpointState(
        model_checkpoint_path=model_checkpoint_path, all_model_checkpoint_paths=paths,
        all_model_checkpoint_timestamps=list(all_model_checkpoint_timestamps or []),
        last_preserved_timestamp=last_preserved_timestamp or 0.0)


def update_checkpoint_state_internal(save_dir, model_checkpoint_path,
                                     all_model_checkpoint_paths=None, latest_filename=None,
                                     save_relative_paths=False,
                                     all_model_checkpoint_timestamps=None,
                                     last_preserved_timestamp=None):
    """Write the directory's state file (atomically: a temporary renamed over it)."""
    state_file = _state_path(save_dir, latest_filename)
    paths = list(all_model_checkpoint_paths or [])
    if save_relative_paths:
        if os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [os.path.relpath(p, save_dir) if os.path.isabs(p) else p for p in paths]
    state = generate_checkpoint_state_proto(
        save_dir, model_checkpoint_path, all_model_checkpoint_paths=paths,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp)
    if state_file == state.model_checkpoint_path:
        raise RuntimeError(f"Save path '{model_checkpoint_path}' conflicts with path used for "
                           f"checkpoint state.  Please use a different save path.")
    text = _text_format().MessageToString(state)
    tmp = f"{state_file}.tmp{uuid.uuid4().hex}"
    try:
        with open(tmp, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, state_file)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


@tf_export("train.get_checkpoint_state")
def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The directory's ``CheckpointState`` (paths made absolute-or-joined with the directory),
    or None when it has no readable state file."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    path = _state_path(checkpoint_dir, latest_filename)
    if not os.path.isfile(path):
        return None
    text_format = _text_format()
    try:
        with open(path, encoding="utf-8") as f:
            content = f.read()
        state = _protos.CheckpointState()
        text_format.Merge(content, state)
    except (OSError, UnicodeDecodeError, text_format.ParseError) as e:
        _logging.logger.warning("%s: %s", type(e).__name__, e)
        _logging.logger.warning("%s: Checkpoint ignored", path)
        return None
    if not state.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, p in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return state


@tf_export("train.latest_checkpoint")
def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the directory's latest checkpoint, or None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path:
        if os.path.exists(bundle.index_filename(state.model_checkpoint_path)):
            return state.model_checkpoint_path
        _logging.logger.error("Couldn't match files for checkpoint %s",
                              state.model_checkpoint_path)
    return None


def _delete_checkpoint_files(prefix):
    for path in [bundle.index_filename(prefix)] + glob.glob(
            glob.escape(prefix) + ".data-?????-of-?????"):
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


def _int_value(value):
    return int(value.numpy()) if hasattr(value, "numpy") else int(value)


@tf_export("train.CheckpointManager")
class CheckpointManager:
    """Saves numbered checkpoints of a ``Checkpoint`` into a directory, keeping the newest
    ``max_to_keep`` (and one every ``keep_checkpoint_every_n_hours``)."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None):
        self._checkpoint = checkpoint
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got "
                             f"{max_to_keep}.")
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        if isinstance(directory, os.PathLike):
            directory = os.fspath(directory)
        self._directory = directory
        self._checkpoint_prefix = os.path.join(directory, checkpoint_name)
        self._init_fn = init_fn
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not "
                             "None.")
        self._step_counter = step_counter
        self._last_checkpoint_step = None
        self._checkpoint_interval = checkpoint_interval
        recovered = get_checkpoint_state(directory)
        now = time.time()
        self._maybe_delete = collections.OrderedDict()
        if recovered is None:
            self._latest_checkpoint = None
            # a second back: a manager re-created at once keeps what the last one saved
            self._last_preserved_timestamp = now - 1.0
        else:
            self._latest_checkpoint = recovered.model_checkpoint_path
            self._last_preserved_timestamp = recovered.last_preserved_timestamp
            if now < self._last_preserved_timestamp:
                _logging.logger.warning(
                    "time.time() returned a value %f seconds behind the last preserved "
                    "checkpoint timestamp.", self._last_preserved_timestamp - now)
                self._last_preserved_timestamp = now
            paths = list(recovered.all_model_checkpoint_paths)
            stamps = list(recovered.all_model_checkpoint_timestamps) or \
                [self._last_preserved_timestamp] * len(paths)
            for path, stamp in zip(paths, stamps):
                stamp = min(stamp, now)
                if stamp > self._last_preserved_timestamp:
                    self._maybe_delete[path] = stamp

    directory = property(lambda self: self._directory)
    checkpoint_interval = property(lambda self: self._checkpoint_interval)
    latest_checkpoint = property(lambda self: self._latest_checkpoint,
                                 doc="The prefix of the newest checkpoint, or None.")

    @property
    def checkpoints(self):
        """The prefixes of the checkpoints kept, oldest first."""
        return list(self._maybe_delete)

    def _sweep(self):
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            if (self._keep_checkpoint_every_n_hours and
                    stamp - self._keep_checkpoint_every_n_hours * 3600.0
                    >= self._last_preserved_timestamp):
                self._last_preserved_timestamp = stamp
                continue
            _delete_checkpoint_files(path)

    def _record_state(self):
        paths, stamps = list(self._maybe_delete), list(self._maybe_delete.values())
        update_checkpoint_state_internal(
            self._directory, model_checkpoint_path=self._latest_checkpoint,
            all_model_checkpoint_paths=paths, all_model_checkpoint_timestamps=stamps,
            last_preserved_timestamp=self._last_preserved_timestamp, save_relative_paths=True)

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Save a checkpoint numbered ``checkpoint_number`` (default: the incremented save
        counter), record it and delete the ones no longer kept; returns its prefix, or None
        when the step counter has not moved (or not by ``checkpoint_interval``) since the
        last save."""
        if self._checkpoint_interval is not None:
            step = _int_value(self._step_counter)
            last = self._last_checkpoint_step
            if last is not None and (step == last or (
                    check_interval and step < last + self._checkpoint_interval)):
                return None
            self._last_checkpoint_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        if checkpoint_number is None:
            checkpoint_number = counter
        if hasattr(checkpoint_number, "numpy"):
            checkpoint_number = checkpoint_number.numpy()
        try:
            checkpoint_number = int(checkpoint_number)
        except (TypeError, ValueError):
            raise errors.InvalidArgumentError(
                None, None, f"`checkpoint_number` must be an integer, got "
                f"{checkpoint_number!r}") from None
        prefix = f"{self._checkpoint_prefix}-{checkpoint_number}"
        path = self._checkpoint.write(prefix, options)
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = time.time()
        self._latest_checkpoint = path
        # the new checkpoint is recorded before anything is deleted, and again after
        self._record_state()
        self._sweep()
        self._record_state()
        return path

    def restore_or_initialize(self):
        """Restore the latest checkpoint (returning its prefix), else run ``init_fn``."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = _int_value(self._step_counter)
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
            _logging.logger.info("Customized initialization is done through the passed "
                                 "`init_fn`.")
        return None


def _wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1,
                             timeout=None):
    """The directory's latest checkpoint once it differs from ``last_checkpoint``; None when
    ``timeout`` seconds pass first."""
    _logging.logger.info("Waiting for new checkpoint at %s", checkpoint_dir)
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is None or path == last_checkpoint:
            if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
                return None
            time.sleep(seconds_to_sleep)
        else:
            _logging.logger.info("Found new checkpoint at %s", path)
            return path


@tf_export("train.checkpoints_iterator")
def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yield each new checkpoint of ``checkpoint_dir`` as it appears (at most one every
    ``min_interval_secs``); stop after ``timeout`` seconds without one, unless ``timeout_fn``
    returns False."""
    path = None
    while True:
        new_path = _wait_for_new_checkpoint(checkpoint_dir, path, timeout=timeout)
        if new_path is None:
            if not timeout_fn:
                _logging.logger.info("Timed-out waiting for a checkpoint.")
                return
            if timeout_fn():
                _logging.logger.info("Timeout function returned true. Exiting.")
                return
            continue
        start = time.time()
        path = new_path
        yield path
        wait = start + min_interval_secs - time.time()
        if wait > 0:
            time.sleep(wait)
