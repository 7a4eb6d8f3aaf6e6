"""Functions building and running tf.data pipelines inside a saved tf.function, written against
the TF API: ``module(tf)`` builds one tf.Module holding them all. The tests save it with
tensortrace and load it back, and load the SavedModel TF 2.21 wrote of the same module
(``tests/fixtures/tf/make_datasets.py`` records TF's outputs of both). ``args()`` are the
inputs each function is called with."""

import numpy as np

X = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
N = np.array([1, 2, 3, 4, 5, 6], np.int64)


def args():
    return {"map_batch_sum": [X], "reduce_filter": [N], "shuffle_batch": [],
            "iterate": [X], "scan_take_while": [X], "zip_concat": [X], "for_break": [X],
            "captured_map": [X, np.float32(3.0)]}


def flat(tf, result):
    if isinstance(result, (tuple, list)):
        return [np.asarray(r) for r in result]
    if isinstance(result, dict):
        return [np.asarray(result[k]) for k in sorted(result)]
    return [np.asarray(result)]


def module(tf):
    vec = tf.TensorSpec([None], tf.float32)

    class Pipelines(tf.Module):
        @tf.function(input_signature=[vec])
        def map_batch_sum(self, x):
            ds = tf.data.Dataset.from_tensor_slices(x).map(lambda v: v * 2.0).batch(2)
            total = tf.constant(0.0)
            for b in ds:
                total += tf.reduce_sum(b)
            return total

        @tf.function(input_signature=[tf.TensorSpec([None], tf.int64)])
        def reduce_filter(self, x):
            ds = tf.data.Dataset.from_tensor_slices(x).filter(lambda v: v % 2 == 0)
            ds = ds.repeat(2).take(5).skip(1)
            return ds.reduce(tf.constant(0, tf.int64), lambda a, b: a + b)

        @tf.function(input_signature=[])
        def shuffle_batch(self):
            ds = tf.data.Dataset.range(10).shuffle(4, seed=1).batch(3)
            return ds.reduce(tf.constant(0, tf.int64), lambda a, b: a + tf.reduce_sum(b)), \
                ds.reduce(tf.constant(0, tf.int64), lambda a, b: a + 1)

        @tf.function(input_signature=[vec])
        def iterate(self, x):
            it = iter(tf.data.Dataset.from_tensors(x).map(lambda v: (v, v + 1.0)))
            a, b = next(it)
            return a + b, tf.data.Dataset.range(2, 9, 3).cardinality()

        @tf.function(input_signature=[vec])
        def scan_take_while(self, x):
            ds = tf.data.Dataset.from_tensor_slices(x).prefetch(2)
            ds = ds.scan(tf.constant(0.0), lambda s, v: (s + v, s + v))
            ds = ds.take_while(lambda v: v < 8.0)
            return ds.reduce((tf.constant(0.0), tf.constant(0, tf.int64)),
                             lambda s, v: (s[0] + v, s[1] + 1))

        @tf.function(input_signature=[vec])
        def zip_concat(self, x):
            a = tf.data.Dataset.from_tensor_slices(x)
            b = tf.data.Dataset.range(5)
            z = tf.data.Dataset.zip((a, b)).map(lambda u, v: u * tf.cast(v, tf.float32))
            c = z.concatenate(tf.data.Dataset.from_tensors(tf.constant(100.0)))
            return c.batch(4).unbatch().reduce(tf.constant(0.0), lambda s, v: s + v)

        @tf.function(input_signature=[vec])
        def for_break(self, x):
            total = tf.constant(0.0)
            for v in tf.data.Dataset.from_tensor_slices(x):
                if v > 3.5:
                    break
                total += v
            return total

        @tf.function(input_signature=[vec, tf.TensorSpec([], tf.float32)])
        def captured_map(self, x, k):
            ds = tf.data.Dataset.from_tensor_slices(x).map(lambda v: v * k + 1.0)
            return ds.reduce(tf.constant(0.0), lambda s, v: s + v)

    return Pipelines()


TABLE_KEYS = ["a", "c", "x", "p", "z"]


def tables_module(tf):
    """Tables a saved function reads: filled by a DatasetInitializer of a tracked dataset, and
    anonymous ones (``experimental_is_anonymous``: TF's AnonymousHashTable ops)."""

    class Tables(tf.Module):
        def __init__(self):
            keys = tf.data.Dataset.from_tensor_slices(tf.constant(["a", "b", "c"]))
            values = tf.data.Dataset.range(3).map(lambda v: v * 10)
            self.ds = tf.data.Dataset.zip((keys, values))
            self.t = tf.lookup.StaticHashTable(
                tf.data.experimental.DatasetInitializer(self.ds), -1)
            self.a = tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(["x", "y"], [1, 2]), -5,
                experimental_is_anonymous=True)
            self.m = tf.lookup.experimental.MutableHashTable(
                tf.string, tf.int64, -7, experimental_is_anonymous=True)
            self.m.insert(tf.constant(["p"]), tf.constant([70], tf.int64))

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def f(self, k):
            return self.t.lookup(k), self.a.lookup(k), self.m.lookup(k), self.m.size()

    return Tables()


def resource_module(tf):
    """A generic TrackableResource: ``_create_resource`` makes a variable by handle
    (VarHandleOp), ``_initialize`` assigns it, ``_destroy_resource`` frees it; ``step`` updates
    and reads it through the handle."""

    class Counter(tf.saved_model.experimental.TrackableResource):
        def __init__(self, start):
            super().__init__()
            self._start = start

        def _create_resource(self):
            return tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[], shared_name="")

        def _initialize(self):
            tf.raw_ops.AssignVariableOp(resource=self.resource_handle, value=self._start)

        def _destroy_resource(self):
            tf.raw_ops.DestroyResourceOp(resource=self.resource_handle)

    class Model(tf.Module):
        def __init__(self):
            self.counter = Counter(tf.constant(3.0))
            self.counter._initialize()

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def step(self, x):
            tf.raw_ops.AssignAddVariableOp(resource=self.counter.resource_handle, value=x)
            return x * tf.raw_ops.ReadVariableOp(resource=self.counter.resource_handle,
                                                 dtype=tf.float32)

    return Model()
