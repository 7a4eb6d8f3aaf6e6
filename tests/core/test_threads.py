"""The execution context is per thread: tracing in one thread does not capture another
thread's eager ops, and functions are callable from many threads."""

import threading

import numpy as np

import tensortrace as tf


def test_tracing_in_one_thread_leaves_other_threads_eager():
    started, release = threading.Event(), threading.Event()
    seen = {}

    @tf.function
    def slow(x):
        started.set()
        release.wait(5)
        return x + 1

    def trace():
        seen["traced"] = slow(tf.constant(1)).numpy()

    t = threading.Thread(target=trace)
    t.start()
    started.wait(5)
    eager = tf.constant(2) * 3  # runs while the other thread is inside a trace
    seen["eager_is_eager"] = tf.executing_eagerly() and eager.numpy() == 6
    release.set()
    t.join()
    assert seen == {"traced": 2, "eager_is_eager": True}


def test_concurrent_calls_agree():
    f = tf.function(lambda x: tf.reduce_sum(x * x))
    x = tf.constant(np.arange(10.0))
    results = []

    def worker():
        for _ in range(50):
            results.append(float(f(x)))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [285.0] * 200
