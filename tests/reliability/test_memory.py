"""Bounded memory under ever-new signatures: the trace cache keeps at most ``max_traces`` traces,
and an evicted trace takes everything it made with it (the generated source registered in
``linecache`` for tracebacks included). Runs in a subprocess, so the process's RSS is this
soak's alone, under a timeout.
"""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SOAK = r"""
import gc, json, linecache, sys, tracemalloc
import tensortrace as tf

def rss_mb():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096 / 2**20

def generated_sources():
    return sum(1 for name in list(linecache.cache) if name.startswith("<tensortrace "))

class Obj:
    def __init__(self, k):
        self.k = k

@tf.function(autograph=False)
def by_shape(x):
    return x * 2.0 + 1.0

@tf.function(autograph=False)
def by_object(x, obj):
    return x + obj.k

warm, shapes, objects = (int(a) for a in sys.argv[1:4])
x = tf.constant(1.0)
made = [0]

def soak(n_shapes, n_objects):
    for _ in range(n_shapes):
        made[0] += 1
        by_shape(tf.zeros([made[0]]))
    for i in range(n_objects):
        assert by_object(x, Obj(i)).numpy() == 1.0 + i
    by_object(x, Obj(0))  # a safe point: the queued dead keys are drained
    gc.collect()

soak(warm, warm)  # fills both caches: from here on every new trace evicts one
rss = rss_mb()
tracemalloc.start()
soak(shapes // 2, objects // 2)
half = tracemalloc.get_traced_memory()[0]
soak(shapes // 2, objects // 2)
print(json.dumps({
    "second_half_growth_kb": (tracemalloc.get_traced_memory()[0] - half) / 1024,
    "rss_growth_mb": rss_mb() - rss,
    "sources": generated_sources(),
    "live_traces": by_shape.cache_info().size + by_object.cache_info().size,
    "traces_made": by_shape.cache_info().traces + by_object.cache_info().traces,
}))
"""


def test_soak_of_new_shapes_and_objects_stays_bounded():
    warm, shapes, objects = 140, 400, 160
    out = subprocess.run([sys.executable, "-c", SOAK, str(warm), str(shapes), str(objects)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    traces = warm + shapes + warm + objects + 3  # by_object's safe-point calls trace too
    assert report["traces_made"] == traces, report
    assert report["live_traces"] <= 128 + 1, report  # by_shape keeps 128, by_object 1 live
    # one generated source per live trace (a trace compiles once), none left by evicted ones
    assert report["sources"] <= report["live_traces"], report
    # the second half's 280 traces leave (almost) nothing behind: before, each left ~1 KB of
    # source lines for good (~290 KB here, growing without bound)
    assert report["second_half_growth_kb"] < 120, report
    assert report["rss_growth_mb"] < 24, report  # allocator noise only (before: 1.4 KB/trace)
