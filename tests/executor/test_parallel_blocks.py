"""Blocked runs shared out among threads: values bit-identical to the interpreter, a worker's
failure reported as the failing op's (the first failing block's, as a loop would), concurrent
callers of one function, the intra-op setting, and a process that exits promptly after."""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.executor import buffers, parallel
from .test_buffer_reuse import RNG, _assert_identical, _both, _random_chain


@pytest.fixture
def two_threads(monkeypatch):
    """Every blocked run on two threads, in blocks of 2 rows of 6."""
    monkeypatch.setattr(buffers, "MIN_BYTES", 1)
    monkeypatch.setattr(buffers, "BLOCK_ELEMENTS", 12)
    monkeypatch.setattr(buffers, "PARALLEL_MIN_WORK", 1)
    tf.config.threading.set_intra_op_parallelism_threads(2)
    yield
    tf.config.threading.set_intra_op_parallelism_threads(0)


def _blocked_fn(chain):
    @tf.function
    def f(x, row, col):
        base = tf.tanh(x * col + 1.0) * 2.0 - col  # col [rows, 1] is cut into blocks too
        results = chain(base, row)
        return results + [tf.reduce_sum(results[0]) * results[0] - col]

    return f


@pytest.mark.parametrize("seed", range(4))
def test_random_chains_on_threads_match_the_interpreter(seed, two_threads):
    x = tf.constant(RNG.uniform(-2, 2, (15, 6)).astype(np.float32))
    row = tf.constant(RNG.uniform(-2, 2, (6,)).astype(np.float32))  # broadcast whole
    col = tf.constant(RNG.uniform(-2, 2, (15, 1)).astype(np.float32))
    got, want, code = _both(lambda: _blocked_fn(_random_chain(seed, 40)), x, row, col)
    _assert_identical(got, want)
    assert "def run_block(block, scratch):" in code and "out=scratch[0])" in code
    assert "_blocks(run_block, 15, 2, _s" in code and "for block in" not in code


class _Spy:
    """The generated code's ``np``, with ufuncs that record their thread (and may fail)."""

    def __init__(self, **fail):
        self.threads = set()
        self.fail = fail  # ufunc name -> check(first argument, start of the block)
        self.block = threading.local()

    def __getattr__(self, name):
        real = getattr(np, name)
        if not isinstance(real, np.ufunc):
            return real

        def ufunc(*args, **kwargs):
            self.threads.add(threading.current_thread().name)
            if name in self.fail:
                self.fail[name](args[0], getattr(self.block, "start", None))
            return real(*args, **kwargs)

        return ufunc


def _spied(f, *args, **fail):
    """``f``'s compiled graph for ``args``, its generated code calling ufuncs through a spy."""
    names = f.get_concrete_function(*args)._executable().fn.__globals__
    spy = names["np"] = _Spy(**fail)
    run_blocks = names["_blocks"]

    def blocks(block_fn, *rest):
        def one_block(start, scratch):
            spy.block.start = start
            return block_fn(start, scratch)

        return run_blocks(one_block, *rest)

    names["_blocks"] = blocks
    return spy


def _chain(x):
    y = tf.tanh(x * 1.5 + 0.25) - x / 3.0
    return tf.exp(tf.sqrt(tf.abs(y))) * 0.5


def test_blocks_run_on_a_worker_and_in_the_caller(two_threads):
    f = tf.function(_chain)
    x = tf.constant(RNG.uniform(-1, 1, (40, 6)).astype(np.float32))
    worker_took_a_block = threading.Event()

    def tanh(a, start):  # the caller waits until a worker has taken a block
        if threading.current_thread() is threading.main_thread():
            assert worker_took_a_block.wait(30)
        else:
            worker_took_a_block.set()

    spy = _spied(f, x, tanh=tanh)
    np.testing.assert_array_equal(f(x).numpy(), _chain(x).numpy())
    assert "MainThread" in spy.threads
    assert any(name.startswith("tensortrace-blocks") for name in spy.threads)


def test_one_intra_op_thread_runs_inline(two_threads):
    tf.config.threading.set_intra_op_parallelism_threads(1)
    assert parallel.threads() == 1
    f = tf.function(_chain)
    x = tf.constant(RNG.uniform(-1, 1, (40, 6)).astype(np.float32))
    spy = _spied(f, x)
    np.testing.assert_array_equal(f(x).numpy(), _chain(x).numpy())
    assert spy.threads == {threading.current_thread().name}


def test_pool_size_follows_the_cores_and_the_setting():
    if hasattr(os, "sched_getaffinity"):
        assert parallel._CORES == len(os.sched_getaffinity(0))
    assert parallel.threads() == min(parallel._CORES, parallel.MAX_THREADS)
    tf.config.threading.set_intra_op_parallelism_threads(3)
    try:
        assert parallel.threads() == 3
    finally:
        tf.config.threading.set_intra_op_parallelism_threads(0)


def test_an_error_in_a_worker_names_its_op(two_threads):
    f = tf.function(_chain)
    x = tf.constant(RNG.uniform(-1, 1, (40, 6)).astype(np.float32))
    worker_failed = threading.Event()

    def tanh(a, start):
        if threading.current_thread() is threading.main_thread():
            assert worker_failed.wait(30)  # the caller's block goes on; the worker's fails
        else:
            worker_failed.set()
            raise ValueError("bad block")

    _spied(f, x, tanh=tanh)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(x)
    text = str(info.value)
    assert "Detected at node Tanh defined at (most recent call last):" in text
    assert "bad block" in text
    assert "[[{{node Tanh}}]]" in text


def test_the_first_failing_block_gives_the_error(two_threads):
    """A later block fails first, at an earlier op (Tanh); block 0 fails afterwards, at Exp,
    on the other thread: a loop over the blocks would have raised block 0's error."""
    f = tf.function(_chain)
    x = tf.constant(RNG.uniform(-1, 1, (40, 6)).astype(np.float32))
    later_failed = threading.Event()

    def tanh(a, start):
        if start != 0:
            later_failed.set()
            raise ValueError("later block")

    def exp(a, start):
        assert later_failed.wait(30)  # only block 0 gets here
        raise FloatingPointError("first block")

    _spied(f, x, tanh=tanh, exp=exp)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(x)
    text = str(info.value)
    assert "Detected at node Exp defined at (most recent call last):" in text
    assert "FloatingPointError: first block" in text


def test_two_callers_at_once_get_their_own_values(two_threads):
    f = _blocked_fn(_random_chain(3, 30))
    inputs = [(tf.constant(RNG.uniform(-2, 2, (15, 6)).astype(np.float32)),
               tf.constant(RNG.uniform(-2, 2, (6,)).astype(np.float32)),
               tf.constant(RNG.uniform(-2, 2, (15, 1)).astype(np.float32))) for _ in range(2)]
    want = [[t.numpy() for t in f(*args)] for args in inputs]
    assert "_blocks(" in f.get_concrete_function(*inputs[0]).code
    barrier, failures = threading.Barrier(2), []

    def call(i):
        try:
            barrier.wait(30)
            for _ in range(200):
                _assert_identical([t.numpy() for t in f(*inputs[i])], want[i])
        except Exception as e:  # noqa: BLE001 - asserted on below
            failures.append(e)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads) and failures == []


def test_the_pool_lets_the_interpreter_exit():
    script = textwrap.dedent("""
        import threading
        import numpy as np
        import tensortrace as tf
        from tensortrace.executor import buffers
        buffers.PARALLEL_MIN_WORK = 1
        tf.config.threading.set_intra_op_parallelism_threads(2)
        f = tf.function(lambda x: tf.exp(tf.tanh(x * 2.0 + 1.0) - x) * 3.0)
        x = tf.constant(np.linspace(-1, 1, 1 << 17, dtype=np.float32))
        assert "_blocks(" in f.get_concrete_function(x).code
        for _ in range(20):
            f(x)
        # a daemon thread still calling the function when the interpreter exits
        threading.Thread(target=lambda: [f(x) for _ in range(10 ** 6)], daemon=True).start()
        print("done")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "done\n"
