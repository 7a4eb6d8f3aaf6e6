"""Runs the blocks of a long elementwise run (``buffers.Block``) on several threads: NumPy
releases the GIL inside its ufunc loops, so blocks on disjoint slices run at once, as TF's
intra-op thread pool runs the shards of one kernel. One small pool per process, made on first
use; the calling thread works too, and each thread keeps its own scratch buffers for all the
blocks it takes. Every element is computed by the same ufunc loop whatever thread runs its
block, so results are bit-identical to a sequential run, and a failure raises the error of the
first failing block, as the sequential loop would.

    def run_block(block, scratch):          # generated: one block of the run
        ...
    _blocks(run_block, 1048576, 32768, _s12_scratch)
"""

import contextvars
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from .. import config

#: Most threads one run uses (ufunc loops on big arrays soon saturate memory bandwidth).
MAX_THREADS = 8

_pool = [None]
_pool_lock = threading.Lock()


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


_CORES = _cores()


def threads():
    """Threads a run may use: ``tf.config.threading.set_intra_op_parallelism_threads``'s number
    when set, else the cores this process may run on; at most ``MAX_THREADS``."""
    wanted = config._SWITCHES["intra_op"]
    return max(1, min(wanted if wanted > 0 else _CORES, MAX_THREADS))


def _get_pool():
    with _pool_lock:
        if _pool[0] is None:  # workers start as runs need them; interpreter exit joins them
            _pool[0] = ThreadPoolExecutor(MAX_THREADS - 1, "tensortrace-blocks")
        return _pool[0]


def _forget_pool():
    _pool[0] = None  # a forked child has none of the parent's threads


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def run_blocks(block_fn, rows, step, scratch):
    """``block_fn(start, buffers)`` for every ``start`` in ``range(0, rows, step)``, on up to
    ``threads()`` threads. ``scratch``: (shape, dtype) of each scratch buffer of a block;
    ``buffers`` are a thread's own, cut to the block's rows for a shorter last block."""
    starts = range(0, rows, step)
    helpers = min(threads(), len(starts)) - 1
    if helpers <= 0:  # inline, as a loop would
        buffers = [np.empty(shape, dtype) for shape, dtype in scratch]
        for start in starts:
            block_fn(start, _fit(buffers, rows - start, step))
        return
    run = _Run(block_fn, rows, step, scratch)
    pool, pending = _get_pool(), []
    for _ in range(helpers):
        try:  # the worker runs in a copy of our context: NumPy's error state included
            pending.append(pool.submit(contextvars.copy_context().run, run.work))
        except RuntimeError:  # the interpreter is shutting down: this thread does it all
            break
    try:
        run.work()
    finally:
        run.stop = True
        # A helper that has not started yet finds nothing left: it is dropped, not waited for.
        wait([f for f in pending if not f.cancel()])
    if run.failed:
        error = min(run.failed, key=lambda failure: failure[0])[1]
        run.failed = None
        try:
            raise error  # its traceback still runs through the block's generated line
        finally:
            error = None


def _fit(buffers, left, step):
    return buffers if left >= step else [b[:left] for b in buffers]


class _Run:
    """The blocks of one run, handed out in order to the threads that work on it."""

    def __init__(self, block_fn, rows, step, scratch):
        self.block_fn, self.rows, self.step, self.scratch = block_fn, rows, step, scratch
        self.starts = iter(range(0, rows, step))
        self.lock = threading.Lock()
        self.stop = False
        self.failed = []  # (start, exception) of the blocks that raised

    def work(self):
        """Take blocks until none is left or one has failed (a later block's error is not
        the one the sequential loop raises; every earlier block was taken already)."""
        buffers = [np.empty(shape, dtype) for shape, dtype in self.scratch]
        while not self.stop:
            with self.lock:
                start = next(self.starts, None)
            if start is None:
                return
            try:
                self.block_fn(start, _fit(buffers, self.rows - start, self.step))
            except Exception as e:  # noqa: BLE001 - raised in the calling thread by run_blocks
                self.failed.append((start, e))
                self.stop = True
