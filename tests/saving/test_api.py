"""What ``tf.saved_model.load`` returns, pinned to TF 2.21: loaded objects and their attributes,
restored functions' dispatch and errors, signatures' calling convention, gradients, random
streams, and loaded functions used inside new functions."""

import collections
import os

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.tracing.concrete import ConcreteFunction

Point = collections.namedtuple("Point", "x y")


def roundtrip(obj, path, signatures=None):
    tf.saved_model.save(obj, str(path), signatures=signatures)
    return tf.saved_model.load(str(path))


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(2.0, name="v")
        self.frozen = tf.Variable([1, 2], name="frozen", trainable=False)
        self.sub = tf.Module()
        self.sub.w = tf.Variable(3.0, name="w")
        self.sub.times_w = tf.function(lambda x: x * self.sub.w)
        self.items = [1, self.v, "text", self.frozen]
        self.table = {"w": self.sub.w, "n": 3}
        self.count = 3
        self.label = "model"
        self.tensor = tf.constant(1.0)

    @tf.function
    def scale(self, x):
        return x * self.v

    @tf.function
    def point(self, x, offset=1):
        return Point(x + offset, x - offset)

    @tf.function
    def untraced(self, x):
        return x


@pytest.fixture
def model_and_loaded(tmp_path):
    m = Model()
    m.scale(tf.constant(1.0))
    m.scale(tf.constant([1.0, 2.0]))
    m.point(tf.constant(1.0))
    m.point(tf.constant(1.0), 3)
    m.sub.times_w(tf.constant(2.0))
    return m, roundtrip(m, tmp_path / "m")


def test_files_and_contains_saved_model(tmp_path, model_and_loaded):
    path = tmp_path / "m"
    assert sorted(os.listdir(path)) == ["assets", "fingerprint.pb", "saved_model.pb",
                                        "variables"]
    assert sorted(os.listdir(path / "variables")) == ["variables.data-00000-of-00001",
                                                      "variables.index"]
    assert tf.saved_model.contains_saved_model(str(path))
    assert not tf.saved_model.contains_saved_model(str(tmp_path / "nothing"))


def test_loaded_object_holds_trackable_attributes_only(model_and_loaded):
    _, loaded = model_and_loaded
    assert not isinstance(loaded, tf.Module)  # TF restores a plain trackable (_UserObject)
    assert type(loaded).__name__ == "_UserObject"
    for name in ("count", "label", "tensor"):  # Python values and eager tensors: not saved
        assert not hasattr(loaded, name)
    assert isinstance(loaded.v, tf.Variable) and isinstance(loaded.sub.w, tf.Variable)
    assert loaded.items[0] is None and loaded.items[2] is None  # TF's ListWrapper keeps slots
    assert loaded.items[1] is loaded.v and loaded.items[3] is loaded.frozen
    assert loaded.table == {"w": loaded.sub.w}
    assert list(loaded.signatures) == []


def test_loaded_variables_keep_name_dtype_shape_trainable_and_value(model_and_loaded):
    _, loaded = model_and_loaded
    assert loaded.v.name == "v:0" and loaded.v.dtype == tf.float32 and loaded.v.trainable
    assert loaded.frozen.name == "frozen:0" and loaded.frozen.shape == (2,)
    assert not loaded.frozen.trainable
    np.testing.assert_array_equal(loaded.frozen.numpy(), [1, 2])
    assert loaded.v.numpy() == 2.0


def test_variables_are_shared_and_mutable(model_and_loaded):
    m, loaded = model_and_loaded
    loaded.v.assign(10.0)
    assert loaded.scale(tf.constant(1.5)).numpy() == 15.0
    assert m.scale(tf.constant(1.5)).numpy() == 3.0  # the original is independent
    loaded.sub.w.assign_add(1.0)
    assert loaded.sub.times_w(tf.constant(2.0)).numpy() == 8.0
    assert loaded.table["w"].numpy() == 4.0


def test_dispatch_over_saved_traces(model_and_loaded):
    _, loaded = model_and_loaded
    assert loaded.scale(tf.constant(3.0)).numpy() == 6.0
    np.testing.assert_array_equal(loaded.scale(tf.constant([1.0, 3.0])).numpy(), [2.0, 6.0])
    assert loaded.scale(3.0).numpy() == 6.0  # converted to the trace's dtype, as TF does
    assert loaded.scale(3).numpy() == 6.0
    p = loaded.point(tf.constant(5.0), 3)
    assert type(p).__name__ == "Point" and p._fields == ("x", "y")
    assert (p.x.numpy(), p.y.numpy()) == (8.0, 2.0)
    assert loaded.point(x=tf.constant(5.0)).x.numpy() == 6.0
    assert len(loaded.scale.concrete_functions) == 2
    cf = loaded.scale.get_concrete_function(tf.TensorSpec([], tf.float32))
    assert isinstance(cf, ConcreteFunction) and cf(tf.constant(2.0)).numpy() == 4.0


def test_no_matching_trace_is_tf_value_error(model_and_loaded):
    _, loaded = model_and_loaded
    with pytest.raises(ValueError) as info:
        loaded.point(tf.constant(1.0), 4)
    text = str(info.value)
    assert text.startswith("Could not find matching concrete function to call loaded from the "
                           "SavedModel. Got:\n  Positional arguments (2 total):\n")
    assert "\n    * 4\n  Keyword arguments: {}\n\n Expected these arguments to match one of the "\
           "following 2 option(s):\n\nOption 1:\n  Positional arguments (2 total):\n    * " \
           "TensorSpec(shape=(), dtype=tf.float32, name='x')" in text
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded.scale(tf.constant([[1.0]]))
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded.scale(tf.constant(1))


def test_function_without_traces_raises_when_called(model_and_loaded):
    _, loaded = model_and_loaded
    with pytest.raises(ValueError, match="^Found zero restored functions for caller function.$"):
        loaded.untraced(tf.constant(1.0))


def test_input_signature_function_keeps_tf_binding_errors(tmp_path):
    m = tf.Module()
    m.f = tf.function(lambda x: x * 2.0, input_signature=[tf.TensorSpec([None], tf.float32)])
    loaded = roundtrip(m, tmp_path / "m")  # traced at save time: it has an input_signature
    assert loaded.f.input_signature == (tf.TensorSpec([None], tf.float32),)
    np.testing.assert_array_equal(loaded.f([1.0, 2.0]).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(loaded.f([1.0, 2.0]).numpy(), [2.0, 4.0])  # cache hit
    np.testing.assert_array_equal(loaded.f(x=tf.constant([3.0])).numpy(), [6.0])
    with pytest.raises(TypeError) as info:
        loaded.f(tf.constant([1, 2]))
    assert str(info.value).startswith(
        "Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(2,), "
        "dtype=tf.int32, name=None) to TensorSpec(shape=(None,), dtype=tf.float32, name=None)`.")


def test_concrete_function_attribute_is_a_concrete_function(tmp_path):
    m = tf.Module()
    m.f = tf.function(lambda x, y: x + y)
    m.cf = m.f.get_concrete_function(tf.TensorSpec([None], tf.float32),
                                     tf.TensorSpec([], tf.float32))
    loaded = roundtrip(m, tmp_path / "m")
    assert isinstance(loaded.cf, ConcreteFunction)
    np.testing.assert_array_equal(loaded.cf(tf.constant([1.0]), tf.constant(2.0)).numpy(), [3.0])
    # TF 2.21 saves f's traces as traced again in the save context: m.cf (traced before) is
    # another function of the library, not f's trace
    [saved] = loaded.f.concrete_functions
    assert saved is not loaded.cf and saved.name != loaded.cf.name
    np.testing.assert_array_equal(loaded.f(tf.constant([1.0]), tf.constant(2.0)).numpy(), [3.0])


def test_callable_module_stays_callable(tmp_path):
    class Square(tf.Module):
        @tf.function
        def __call__(self, x):
            return x * x

    m = Square()
    m(tf.constant(3.0))
    loaded = roundtrip(m, tmp_path / "m")
    assert loaded(tf.constant(4.0)).numpy() == 16.0


def test_gradients_through_loaded_functions(model_and_loaded):
    m, loaded = model_and_loaded
    x = tf.constant([1.0, 2.0])
    for obj in (m, loaded):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(obj.scale(x) ** 2)
        dx, dv = tape.gradient(y, [x, obj.v])
        np.testing.assert_allclose(dx.numpy(), [8.0, 16.0])
        assert dv.numpy() == 20.0


def test_gradients_through_loaded_control_flow(tmp_path):
    m = tf.Module()
    m.w = tf.Variable(1.5)

    def f(x):
        return tf.cond(x > 0, lambda: x * m.w, lambda: x * x)

    m.f = tf.function(f)
    m.f(tf.constant(1.0))
    loaded = roundtrip(m, tmp_path / "m")

    def grads(obj, x):
        x = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = obj.f(x)
        return [None if g is None else g.numpy() for g in tape.gradient(y, [x, obj.w])]

    assert grads(m, 2.0) == grads(loaded, 2.0) == [1.5, 2.0]
    assert grads(m, -3.0) == grads(loaded, -3.0)
    assert grads(loaded, -3.0)[0] == -6.0


def test_loaded_function_inside_a_new_function_and_saved_again(tmp_path, model_and_loaded):
    _, loaded = model_and_loaded

    @tf.function
    def twice(x):
        return loaded.scale(x) + loaded.sub.times_w(x)

    assert twice(tf.constant(1.0)).numpy() == 5.0
    wrapper = tf.Module()
    wrapper.twice = twice
    wrapper.inner = loaded
    again = roundtrip(wrapper, tmp_path / "again")
    assert again.twice(tf.constant(2.0)).numpy() == 10.0
    again.inner.v.assign(0.0)  # the variable the new function reads is the saved one
    assert again.twice(tf.constant(2.0)).numpy() == 6.0


def test_variable_arguments(tmp_path):
    m = tf.Module()
    m.v = tf.Variable(1.0)
    m.bump = tf.function(lambda var, by: var.assign_add(by))
    m.bump(m.v, tf.constant(2.0))
    loaded = roundtrip(m, tmp_path / "m")
    loaded.bump(loaded.v, tf.constant(3.0))
    assert loaded.v.numpy() == 6.0


def test_captured_variable_not_attached_is_saved_by_value(tmp_path):
    # TF 2.21 refuses this (KeyError: "... not reachable from root"); the variable is saved by
    # value here, reachable only through the function.
    outside = tf.Variable(5.0)
    m = tf.Module()
    m.f = tf.function(lambda x: x * outside)
    m.g = tf.function(lambda: outside.assign_add(1.0))
    m.f(tf.constant(1.0))
    m.g()
    loaded = roundtrip(m, tmp_path / "m")
    assert loaded.f(tf.constant(1.0)).numpy() == 6.0
    loaded.g()
    assert loaded.f(tf.constant(1.0)).numpy() == 7.0  # one variable, shared by both functions
    assert outside.numpy() == 6.0


def test_stateful_random_restarts_its_stream_on_load(tmp_path):
    tf.random.set_seed(11)
    m = tf.Module()
    m.r = tf.function(lambda: tf.random.uniform([3], seed=5), input_signature=[])
    first, second = m.r().numpy(), m.r().numpy()
    assert not np.array_equal(first, second)
    path = tmp_path / "r"
    tf.saved_model.save(m, str(path))
    a, b = tf.saved_model.load(str(path)), tf.saved_model.load(str(path))
    np.testing.assert_array_equal(a.r().numpy(), first)  # a loaded kernel starts anew (TF)
    np.testing.assert_array_equal(a.r().numpy(), second)
    np.testing.assert_array_equal(b.r().numpy(), first)  # each load owns its stream


@tf.custom_gradient
def clipped(x):
    return tf.identity(x), lambda dy: tf.clip_by_value(dy, -0.1, 0.1)


@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)  # the gradient function reads a forward tensor
    return tf.math.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))


class CustomGradients(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(2.0)

        @tf.custom_gradient
        def scaled(x):
            def grad(dy, variables=None):
                return dy * 10.0, [dy * 100.0]

            return x * self.w, grad

        self.clip = tf.function(lambda x: clipped(x) * 3.0,
                                input_signature=[tf.TensorSpec([], tf.float32)])
        self.softplus = tf.function(log1pexp, input_signature=[tf.TensorSpec([], tf.float32)])
        self.scaled = tf.function(scaled, input_signature=[tf.TensorSpec([], tf.float32)])


def test_custom_gradients_are_saved(tmp_path):
    m = CustomGradients()
    loaded = roundtrip(m, tmp_path / "m")
    for name, x in (("clip", 2.0), ("softplus", 100.0), ("softplus", -1.0), ("scaled", 3.0)):
        results = []
        for obj in (m, loaded):
            x_t = tf.constant(x)
            with tf.GradientTape() as tape:
                tape.watch(x_t)
                y = getattr(obj, name)(x_t)
            results.append([y.numpy()] + [None if g is None else g.numpy()
                                          for g in tape.gradient(y, [x_t, obj.w])])
        assert results[0] == results[1], name
    assert results[1] == [6.0, 10.0, 100.0]
    x = tf.constant(100.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = loaded.softplus(x)
    assert tape.gradient(y, x).numpy() == 1.0  # the custom rule: no inf/inf


# --- signatures ---------------------------------------------------------------------------------
class Serving(tf.Module):
    def __init__(self):
        super().__init__()
        self.one = tf.function(lambda x: x * 2.0, input_signature=[tf.TensorSpec([], tf.float32)])
        self.two = tf.function(lambda x, y: (x, x + y),
                               input_signature=[tf.TensorSpec([], tf.float32, name="inp"),
                                                tf.TensorSpec([2], tf.float32)])
        self.named = tf.function(lambda x: {"z": x, "a": x + 1.0},
                                 input_signature=[tf.TensorSpec([], tf.float32)])
        self.point = tf.function(lambda x: Point(x, -x),
                                 input_signature=[tf.TensorSpec([], tf.float32)])


@pytest.fixture
def signatures(tmp_path):
    m = Serving()
    sigs = {"one": m.one, "two": m.two, "named": m.named, "point": m.point,
            "concrete": m.one.get_concrete_function()}
    return roundtrip(m, tmp_path / "s", signatures=sigs).signatures


def test_signature_outputs_are_dicts(signatures):
    assert sorted(signatures) == ["concrete", "named", "one", "point", "two"]
    assert signatures["one"](x=tf.constant(2.0))["output_0"].numpy() == 4.0
    out = signatures["two"](inp=tf.constant(1.0), y=tf.constant([1.0, 2.0]))
    assert sorted(out) == ["output_0", "output_1"]
    np.testing.assert_array_equal(out["output_1"].numpy(), [2.0, 3.0])
    assert {k: v.numpy() for k, v in signatures["named"](x=tf.constant(1.0)).items()} == \
        {"z": 1.0, "a": 2.0}
    assert {k: v.numpy() for k, v in signatures["point"](x=tf.constant(1.0)).items()} == \
        {"x": 1.0, "y": -1.0}
    assert signatures["one"](x=3.0)["output_0"].numpy() == 6.0


def test_signature_inputs_are_keywords(signatures):
    two = signatures["two"]
    assert two.structured_input_signature == (
        (), {"inp": tf.TensorSpec([], tf.float32, name="inp"),
             "y": tf.TensorSpec([2], tf.float32, name="y")})
    assert [t.name for t in two.inputs] == ["inp:0", "y:0"]
    assert repr(two).startswith("<ConcreteFunction (*, inp: TensorSpec(shape=(), "
                                "dtype=tf.float32, name='inp'), y: ")


def test_one_input_signature_accepts_a_positional_argument(signatures):
    assert signatures["one"](tf.constant(5.0))["output_0"].numpy() == 10.0


def test_signature_binding_errors_are_tf_type_errors(signatures):
    two = signatures["two"]
    x, y = tf.constant(1.0), tf.constant([1.0, 2.0])
    with pytest.raises(TypeError) as info:
        two(x, y)
    assert str(info.value).startswith(
        "Binding inputs to tf.function failed due to `too many positional arguments`. Received "
        "args: (")
    assert str(info.value).endswith(
        "Fallback to flat signature also failed due to: signature_wrapper_<lambda>(inp, y) takes "
        "0 positional arguments, got 2.")
    with pytest.raises(TypeError, match="failed due to `missing a required argument: 'y'`"):
        two(inp=x)
    with pytest.raises(TypeError, match="failed due to `got an unexpected keyword argument 'z'`"):
        two(inp=x, y=y, z=x)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="expected to be a float tensor but is a int32 tensor"):
        signatures["one"](x=tf.constant(1))


def test_single_input_signature_function_becomes_serving_default(tmp_path):
    m = tf.Module()
    m.f = tf.function(lambda x: x + 1.0, input_signature=[tf.TensorSpec([], tf.float32)])
    m.g = tf.function(lambda x: x)  # no input_signature: not a candidate
    loaded = roundtrip(m, tmp_path / "a")
    assert list(loaded.signatures) == ["serving_default"]
    assert loaded.signatures["serving_default"](x=tf.constant(1.0))["output_0"].numpy() == 2.0
    m.h = tf.function(lambda x: x * 2.0, input_signature=[tf.TensorSpec([], tf.float32)])
    assert list(roundtrip(m, tmp_path / "b").signatures) == []  # two candidates: none


def test_signature_map_is_read_only_and_not_saved_again(signatures, tmp_path):
    assert repr(signatures).startswith("_SignatureMap({")
    with pytest.raises(TypeError):
        signatures["new"] = None
    holder = tf.Module()
    holder.signatures = signatures
    assert list(roundtrip(holder, tmp_path / "again").signatures) == []


def test_invalid_signatures_are_tf_value_errors(tmp_path):
    m = Serving()
    with pytest.raises(ValueError, match="^Expected a TensorFlow function for which to generate a "
                       "signature, but got .*Only `tf.functions` with an input signature or "
                       "concrete functions can be used as a signature.$"):
        tf.saved_model.save(m, str(tmp_path / "a"), signatures=tf.function(lambda x: x))
    with pytest.raises(ValueError, match="Expected a TensorFlow function"):
        tf.saved_model.save(m, str(tmp_path / "a"), signatures=lambda x: x)
    nested = tf.function(lambda x: {"z": {"q": x}}, input_signature=[tf.TensorSpec([])])
    with pytest.raises(ValueError, match="^Got a non-Tensor value {'q': .*} for key 'z' in the "
                       "output of the function .* used to generate the SavedModel signature "
                       "'serving_default'. Outputs for functions used as signatures must be a "
                       "single Tensor, a sequence of Tensors, or a dictionary from string to "
                       "Tensor.$"):
        tf.saved_model.save(m, str(tmp_path / "a"), signatures=nested)
    v = tf.Variable(1.0)
    reads = tf.function(lambda var: var.read_value()).get_concrete_function(v)
    with pytest.raises(ValueError, match="with tf.Variable input. Functions that expect "
                       "tf.Variable inputs cannot be exported as signatures."):
        tf.saved_model.save(m, str(tmp_path / "a"), signatures=reads)
    assert not os.path.exists(tmp_path / "a")
