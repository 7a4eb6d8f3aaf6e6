"""Modules to save and load: each entry builds a module, warms it up (traces its functions), and
lists the calls whose results the loaded model must reproduce. No test logic here.

An entry is ``Entry(name, build, warmup, calls, signatures)``: ``build()`` returns the module;
``warmup`` and ``calls`` are (attribute path, args, kwargs) triples (NumPy arrays become
tensors, ``Ref("v")`` is the model's attribute); ``signatures(module)`` gives the ``signatures``
argument of ``save``; call paths ``sig:KEY`` call a signature.
"""

import collections

import numpy as np

import tensortrace as tf

from .runner import Ref

Entry = collections.namedtuple("Entry", "name build warmup calls signatures")
Pair = collections.namedtuple("Pair", "first second")

F32 = np.float32
RNG = np.random.default_rng(3)
A = RNG.normal(size=(3, 4)).astype(F32)
B = RNG.normal(size=(4, 2)).astype(F32)
V = RNG.normal(size=(5,)).astype(F32)
BIG = RNG.normal(size=(40, 40)).astype(F32)  # a constant too large to inline: goes to the .npz


def f32(*values):
    return np.array(values, F32)


def i32(value):
    return np.array(value, np.int32)


# --- math: several traces, Python literal arguments -----------------------------------------------
class MathModule(tf.Module):
    @tf.function
    def dense(self, x, w):
        return tf.nn.relu(tf.matmul(x, w)) + tf.constant([0.5, -0.5])

    @tf.function
    def elementwise(self, x, power=2):
        y = (x * 2.0 - 1.0) / 3.0 + x ** power
        return tf.reduce_sum(y, axis=0), tf.reduce_max(y), tf.math.cumsum(tf.reshape(y, [-1]))

    @tf.function
    def ints(self, i):
        return i // 2, i % 3, tf.where(i > 0, i, -i), tf.cast(i, tf.float64) / 3.0


MATH = Entry(
    "math", MathModule,
    warmup=[("dense", (A, B), {}), ("elementwise", (A,), {}), ("elementwise", (V,), {}),
            ("elementwise", (A,), {"power": 3}), ("ints", (i32([-4, 5, 7]),), {})],
    calls=[("dense", (A * 2, B), {}), ("elementwise", (A + 1,), {}), ("elementwise", (V,), {}),
           ("elementwise", (A,), {"power": 3}), ("ints", (i32([9, -2, 0]),), {})],
    signatures=None)


# --- control flow: tf.cond, tf.while_loop, tf.switch_case, tf.case --------------------------------
@tf.function
def relu_like(x):
    return tf.cond(x > 0, lambda: x, lambda: 0.0 * x)


class ControlFlow(tf.Module):
    def __init__(self):
        super().__init__()
        self.scale = tf.Variable(3.0)

    @tf.function
    def cond(self, x):
        return tf.cond(tf.reduce_sum(x) > 0, lambda: x * self.scale, lambda: tf.square(x))

    @tf.function
    def loop(self, n):
        _, acc = tf.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * 2 + i),
                               (tf.constant(0), tf.constant(1)))
        return acc

    @tf.function
    def switch(self, k, x):
        return tf.switch_case(k, [lambda: x + 1.0, lambda: x * self.scale, lambda: -x])

    @tf.function
    def case(self, x):
        return tf.case([(x < 0, lambda: -x), (x > 10, lambda: x / 10.0)], default=lambda: x)

    @tf.function
    def nested(self, x, n):
        def body(i, y):
            y = tf.cond(i % 2 == 0, lambda: y + x, lambda: y * 2.0)
            return i + 1, y

        return tf.while_loop(lambda i, y: i < n, body, (0, tf.zeros_like(x)))[1]

    @tf.function
    def inlined(self, xs):
        total = 0.0
        for v in xs:  # the loop body inlines relu_like's graph, reusing its cond branches
            total += relu_like(v) * self.scale
        return total


CONTROL_FLOW = Entry(
    "control_flow", ControlFlow,
    warmup=[("cond", (V,), {}), ("loop", (i32(3),), {}), ("switch", (i32(0), F32(2)), {}),
            ("case", (F32(5),), {}), ("nested", (V, i32(3)), {}), ("inlined", (V,), {})],
    calls=[("cond", (V,), {}), ("cond", (-np.abs(V),), {}), ("loop", (i32(10),), {}),
           ("switch", (i32(1), F32(2)), {}), ("switch", (i32(7), F32(2)), {}),
           ("case", (F32(-5),), {}), ("case", (F32(50),), {}), ("nested", (V, i32(5)), {}),
           ("inlined", (V * 3,), {}), ("scale.assign", (F32(-1),), {}), ("cond", (V,), {}),
           ("inlined", (V,), {})],
    signatures=None)


# --- AutoGraph: Python loops and conditions on tensors --------------------------------------------
class Converted(tf.Module):
    @tf.function
    def collatz(self, n):
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    @tf.function
    def sum_until_negative(self, xs):
        s = 0.0
        for v in xs:
            if v < 0:
                break
            s += v
        return s

    @tf.function
    def fizzbuzz(self, n):
        fizz = buzz = both = 0
        for i in tf.range(1, n + 1):
            if i % 15 == 0:
                both += 1
            elif i % 3 == 0:
                fizz += 1
            elif i % 5 == 0:
                buzz += 1
        return fizz, buzz, both

    @tf.function
    def first_square_over(self, n, limit):
        for i in tf.range(n):
            if i * i > limit:
                return i
        return -1


AUTOGRAPH = Entry(
    "autograph", Converted,
    warmup=[("collatz", (i32(6),), {}), ("sum_until_negative", (f32(1, 2, -1, 3),), {}),
            ("sum_until_negative", (f32(1, 2),), {}),
            ("fizzbuzz", (i32(15),), {}), ("first_square_over", (i32(10), i32(10)), {})],
    calls=[("collatz", (i32(27),), {}), ("sum_until_negative", (f32(1, 2.5, -1, 4),), {}),
           ("sum_until_negative", (f32(3, 4),), {}), ("fizzbuzz", (i32(31),), {}),
           ("first_square_over", (i32(10), i32(10)), {}),
           ("first_square_over", (i32(3), i32(10)), {})],
    signatures=None)


# --- TensorArrays ---------------------------------------------------------------------------------
class Arrays(tf.Module):
    @tf.function
    def squares(self, n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(n):
            ta = ta.write(i, tf.cast(i * i, tf.float32))
        return ta.stack()

    @tf.function
    def running_sum(self, x):
        ta = tf.TensorArray(tf.float32, size=tf.shape(x)[0])
        total = tf.constant(0.0)
        for i in tf.range(tf.shape(x)[0]):
            total += x[i]
            ta = ta.write(i, total)
        return ta.stack(), ta.size()

    @tf.function
    def unstack_gather(self, x):
        ta = tf.TensorArray(tf.float32, size=3).unstack(x)
        return ta.gather([2, 0]), ta.read(1)


ARRAYS = Entry(
    "tensor_arrays", Arrays,
    warmup=[("squares", (i32(3),), {}), ("running_sum", (V,), {}),
            ("unstack_gather", (A[:, :3],), {})],
    calls=[("squares", (i32(6),), {}), ("squares", (i32(0),), {}), ("running_sum", (V * 2,), {}),
           ("unstack_gather", (A[:, 1:],), {})],
    signatures=None)


# --- variables: read and assigned, shared between functions, passed as arguments ------------------
class Counter(tf.Module):
    def __init__(self):
        super().__init__()
        self.count = tf.Variable(0, name="count")
        self.total = tf.Variable(0.0, name="total", trainable=False)
        self.history = tf.Variable(tf.zeros([3]), name="history")

    @tf.function
    def add(self, x):
        self.count.assign_add(1)
        self.total.assign_add(tf.reduce_sum(x))
        self.history.assign(tf.concat([self.history[1:], [self.total]], axis=0))
        return self.count.read_value()

    @tf.function
    def read(self):
        return {"count": self.count.read_value(), "total": self.total + 0.0,
                "history": self.history.read_value()}

    @tf.function
    def bump(self, v, by):
        v.assign_add(by)
        return v.read_value()


VARIABLES = Entry(
    "variables", Counter,
    warmup=[("add", (f32(1, 2),), {}), ("add", (f32(5),), {}), ("read", (), {}),
            ("bump", (Ref("total"), F32(1)), {})],
    calls=[("read", (), {}), ("add", (f32(1, 2),), {}), ("add", (f32(3),), {}), ("read", (), {}),
           ("total.assign", (F32(100),), {}), ("add", (f32(1),), {}),
           ("bump", (Ref("total"), F32(0.5)), {}), ("read", (), {}), ("count.numpy", (), {})],
    signatures=None)


# --- nested modules -------------------------------------------------------------------------------
class Dense(tf.Module):
    def __init__(self, n_in, n_out, seed):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.w = tf.Variable(rng.normal(size=(n_in, n_out)).astype(F32), name="w")
        self.b = tf.Variable(np.zeros(n_out, F32), name="b")

    @tf.function
    def __call__(self, x):
        return tf.nn.relu(x @ self.w + self.b)


class MLP(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(4, 8, 1), Dense(8, 2, 2)]
        self.extra = {"head": Dense(2, 1, 3)}
        self.steps = tf.Variable(0, trainable=False)

    @tf.function
    def predict(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.extra["head"](x)

    @tf.function
    def train(self, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self.predict(x) - y))
        variables = self.trainable_variables
        grads = tape.gradient(loss, variables)
        for v, g in zip(variables, grads):
            v.assign_sub(0.1 * g)
        self.steps.assign_add(1)
        return loss


Y = RNG.normal(size=(3, 1)).astype(F32)
NESTED = Entry(
    "nested_modules", MLP,
    warmup=[("predict", (A,), {}), ("train", (A, Y), {}), ("layers.0.__call__", (A,), {}),
            ("extra.head.__call__", (f32(1, 2).reshape(1, 2),), {})],
    calls=[("predict", (A,), {}), ("train", (A, Y), {}), ("train", (A, Y), {}),
           ("predict", (A,), {}), ("layers.0.__call__", (A,), {}), ("layers.1.b.numpy", (), {}),
           ("extra.head.__call__", (f32(1, 2).reshape(1, 2),), {}), ("steps.numpy", (), {})],
    signatures=None)


# --- nested structures in and out -----------------------------------------------------------------
class Structures(tf.Module):
    @tf.function
    def mix(self, d, pair, *rest, scale=2.0):
        return {"sum": d["a"] + d["b"] * scale, "pair": (pair[0], pair[1] * 2),
                "rest": [r * 3.0 for r in rest], "none": None}

    @tf.function
    def named(self, p):
        return Pair(p.second, p.first + 1.0), [p.first]


STRUCTURES = Entry(
    "structures", Structures,
    warmup=[("mix", ({"a": F32(1), "b": F32(2)}, (i32(1), i32(2)), F32(5)), {"scale": 3.0}),
            ("mix", ({"a": V, "b": V}, (i32(1), i32(2))), {}),
            ("named", (Pair(F32(1), i32(2)),), {})],
    calls=[("mix", ({"a": F32(4), "b": F32(-2)}, (i32(3), i32(4)), F32(6)), {"scale": 3.0}),
           ("mix", ({"a": V, "b": V * 2}, (i32(1), i32(5))), {}),
           ("mix", ({"a": 1.0, "b": 2.0}, (1, 2), 5.0), {"scale": 3.0}),
           ("named", (Pair(F32(7), i32(3)),), {})],
    signatures=None)


# --- signatures -----------------------------------------------------------------------------------
class Serving(tf.Module):
    def __init__(self):
        super().__init__()
        self.bias = tf.Variable(f32(1, 2, 3))
        self.single = tf.function(lambda x: x + self.bias,
                                  input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        self.pair = tf.function(lambda x, k: (x * 2.0, k + 1),
                                input_signature=[tf.TensorSpec([3], tf.float32, name="features"),
                                                 tf.TensorSpec([], tf.int64)])
        self.named = tf.function(lambda x: {"total": tf.reduce_sum(x), "max": tf.reduce_max(x)},
                                 input_signature=[tf.TensorSpec([None], tf.float32)])
        self.tuple_out = tf.function(lambda x: Pair(x, -x))

    @tf.function
    def nested_in(self, pair):
        return pair[0] * tf.cast(pair[1], tf.float32)


def _serving_signatures(m):
    return {"serving_default": m.single, "pair": m.pair, "named": m.named,
            "nested": m.nested_in.get_concrete_function(
                (tf.TensorSpec([2], tf.float32), tf.TensorSpec([], tf.int32))),
            "namedtuple": m.tuple_out.get_concrete_function(tf.TensorSpec([], tf.float32))}


SIGNATURES = Entry(
    "signatures", Serving,
    warmup=[],
    calls=[("sig:serving_default", (), {"x": A[:, :3]}), ("sig:serving_default", (A[:2, :3],), {}),
           ("sig:pair", (), {"features": f32(1, 2, 3), "k": np.int64(4)}),
           ("sig:named", (), {"x": V}), ("sig:nested", (), {"pair": f32(1, 2), "pair_1": i32(3)}),
           ("sig:namedtuple", (F32(2),), {}), ("bias.assign", (f32(0, 0, 1),), {}),
           ("sig:serving_default", (), {"x": A[:, :3]}), ("single", (A[:, :3],), {}),
           ("pair", (f32(1, 2, 3), np.int64(4)), {})],
    signatures=_serving_signatures)


# --- dtypes, strings and constants ----------------------------------------------------------------
OUTSIDE = tf.Variable(np.arange(6, dtype=np.int64).reshape(2, 3), name="outside")


class Dtypes(tf.Module):
    def __init__(self):
        super().__init__()
        self.words = tf.Variable([b"alpha", b"", b"gamma\x00"], name="words")
        self.big = tf.constant(BIG)

    @tf.function
    def strings(self, s):
        joined = tf.strings.join([s, self.words[0]], separator=b"-")
        return joined, tf.strings.length(joined), tf.strings.upper(s), self.words.read_value()

    @tf.function
    def constants(self, x):
        special = tf.constant([np.nan, np.inf, -np.inf, -0.0], tf.float64)
        return (tf.reduce_sum(self.big * x), special * 2.0, tf.constant(3 + 4j) * 2,
                tf.constant([True, False]), tf.constant(np.uint8(250)) + 5)

    @tf.function
    def captured(self, i):
        return OUTSIDE * i + tf.cast(tf.reduce_sum(BIG), tf.int64)


DTYPES = Entry(
    "dtypes", Dtypes,
    warmup=[("strings", (np.array(b"ab", object),), {}), ("constants", (F32(1),), {}),
            ("captured", (np.int64(2),), {})],
    calls=[("strings", (np.array(b"xyz", object),), {}), ("constants", (F32(2),), {}),
           ("captured", (np.int64(3),), {}), ("words.numpy", (), {})],
    signatures=None)


# --- input signatures, concrete function attributes, stateless random -----------------------------
class Signatures(tf.Module):
    def __init__(self):
        super().__init__()
        self.norm = tf.function(lambda x: x / tf.norm(x),
                                input_signature=[tf.TensorSpec([None], tf.float32)])
        self.concrete = self.norm.get_concrete_function()
        self.noise = tf.function(lambda shape: tf.random.stateless_normal(shape, seed=[4, 2]))
        self.noise(tf.constant([2, 3]))


SIGNED = Entry(
    "input_signature", Signatures,
    warmup=[],
    calls=[("norm", (V,), {}), ("norm", (f32(3, 4),), {}), ("norm", ([3.0, 4.0],), {}),
           ("concrete", (f32(1, 1),), {}), ("noise", (i32([2, 3]),), {}),
           ("noise", (i32([4, 1]),), {})],
    signatures=None)


ENTRIES = [MATH, CONTROL_FLOW, AUTOGRAPH, ARRAYS, VARIABLES, NESTED, STRUCTURES, SIGNATURES,
           DTYPES, SIGNED]
