"""tf.autograph's API and what gets converted: the tracing hook, recursive conversion of user
code (functions, methods, callables, closures, lambdas), library code and do_not_convert
functions called as written, caching, and the user's line numbers in generated code."""

import functools
import inspect

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.autograph import api
from tensortrace.tracing import trace as trace_module


def _graph_types(fn, *args):
    return [op.type for op in tf.function(fn).get_concrete_function(*args).graph.get_operations()]


def relu(x):
    if x > 0:
        return x
    return tf.zeros_like(x)


def test_tracing_hook_is_installed():
    assert trace_module.converter is api.convert
    assert tf.autograph.to_graph is api.to_graph


def test_public_names():
    for name in ("to_code", "to_graph", "set_verbosity", "trace", "experimental"):
        assert hasattr(tf.autograph, name)
    for name in ("do_not_convert", "set_loop_options", "Feature"):
        assert hasattr(tf.autograph.experimental, name)


def test_autograph_false_skips_conversion():
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(relu, autograph=False)(tf.constant(1.0))
    assert tf.function(relu)(tf.constant(-1.0)).numpy() == 0.0


def test_library_code_is_not_converted():
    for fn in (np.sum, tf.reduce_sum, len, print, functools.reduce, inspect.getsource, tf.cond):
        assert api.convert(fn) is fn
    namespace = {}
    # no file to read the source from
    exec("def no_source(x):\n    return x\n", namespace)  # noqa: S102
    assert api.convert(namespace["no_source"]) is namespace["no_source"]


def test_user_functions_called_from_converted_code_are_converted():
    @tf.function
    def f(x):
        return relu(x) + relu(-x)

    assert f(tf.constant(-2.0)).numpy() == 2.0
    assert _graph_types(f.python_function, tf.constant(1.0)).count("StatelessIf") == 2


def test_functions_passed_as_arguments_are_converted():
    def apply(fn, x):
        return fn(x)

    assert tf.function(apply)(relu, tf.constant(-3.0)).numpy() == 0.0
    assert "StatelessIf" in _graph_types(apply, relu, tf.constant(1.0))


class Model:
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, x):
        if x > 0:
            return x * self.scale
        return x

    def method(self, x):
        while x < 10:
            x = x * self.scale
        return x


class Child(Model):
    def method(self, x):
        if x > 100:
            return x
        return super().method(x) + 1


def test_methods_callable_objects_and_super_are_converted():
    m = Model(2.0)
    assert tf.function(m.method)(tf.constant(3.0)).numpy() == 12.0
    assert tf.function(lambda x: m(x))(tf.constant(3.0)).numpy() == 6.0
    assert tf.function(Child(2.0).method)(tf.constant(3.0)).numpy() == 13.0
    assert tf.function(Child(2.0).method)(tf.constant(300.0)).numpy() == 300.0
    assert "StatelessWhile" in _graph_types(m.method, tf.constant(1.0))


def test_partial_and_lambda():
    clipped = functools.partial(Model.method, Model(3.0))
    assert tf.function(clipped)(tf.constant(2.0)).numpy() == 18.0
    f = tf.function(lambda x: x * 2 if x > 0 else -x)
    assert f(tf.constant(-4)).numpy() == 4
    assert "StatelessIf" in _graph_types(f.python_function, tf.constant(1))


def test_closures_share_cells_with_the_original():
    offset = 1.0

    def shifted(x):
        if x > 0:
            return x + offset
        return x

    converted = tf.autograph.to_graph(shifted)
    assert converted(2.0) == 3.0
    offset = 10.0
    assert converted(2.0) == 12.0


def test_defaults_and_keywords_are_kept():
    def f(x, step=1, *, limit=5):
        while x < limit:
            x += step
        return x

    g = tf.autograph.to_graph(f)
    assert g(0) == 5 and g(0, 2) == 6 and g(0, limit=9, step=3) == 9
    assert tf.function(f)(tf.constant(0), limit=tf.constant(7)).numpy() == 7


def test_do_not_convert():
    @tf.autograph.experimental.do_not_convert
    def unconverted(x):
        if x > 0:
            return x
        return -x

    assert api.convert(unconverted) is unconverted
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(unconverted)(tf.constant(1))

    @tf.function
    def caller(x):
        return unconverted(x)

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        caller(tf.constant(1))

    def marked(x):
        return x

    assert tf.autograph.experimental.do_not_convert()(marked) is marked
    assert api.convert(marked) is marked


def test_conversion_is_cached():
    assert api.convert_callable(relu) is api.convert_callable(relu)
    assert api.is_converted(api.convert_callable(relu))
    assert not api.is_converted(relu)
    assert api.convert_callable(api.convert_callable(relu)) is api.convert_callable(relu)


def test_to_graph_runs_eagerly():
    g = tf.autograph.to_graph(relu)
    assert g(tf.constant(-1.0)).numpy() == 0.0
    assert g(3) == 3
    with pytest.raises(ValueError, match="AutoGraph can only convert functions"):
        tf.autograph.to_graph(42)


def test_nested_tf_function_inside_converted_code():
    inner = tf.function(relu)

    @tf.function
    def outer(x):
        total = tf.constant(0.0)
        for v in x:
            total += inner(v)
        return total

    assert outer(tf.constant([1.0, -2.0, 3.0])).numpy() == 4.0


def test_generated_code_keeps_user_line_numbers():
    converted = api.convert_callable(relu)
    assert converted.__code__.co_filename == relu.__code__.co_filename
    lines, first = inspect.getsourcelines(relu)
    user_lines = set(range(first, first + len(lines)))
    code_lines = {line for _, _, line in converted.__code__.co_lines() if line is not None}
    assert code_lines <= user_lines
    assert converted.__name__ == "relu"


def test_set_loop_options_maximum_iterations():
    @tf.function
    def f(x):
        while x < 100:
            tf.autograph.experimental.set_loop_options(maximum_iterations=3)
            x += 1
        return x

    assert f(tf.constant(0)).numpy() == 3
    assert tf.autograph.experimental.set_loop_options(maximum_iterations=3) is None


def test_len_of_tensors():
    @tf.function
    def f(x):
        return len(x)

    assert f(tf.constant([1, 2, 3])) == 3  # a static length
    unknown = f.get_concrete_function(tf.TensorSpec([None], tf.int32))
    assert unknown(tf.constant([1, 2, 3, 4])).numpy() == 4
    with pytest.raises(ValueError, match="len requires a non-scalar tensor"):
        f(tf.constant(1))


def test_for_over_tensor_array():
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.int32, size=3).unstack([1, 2, 3])
        s = 0
        for v in ta:
            s += v * n
        return s

    assert f(tf.constant(2)).numpy() == 12
    assert tf.autograph.to_graph(f.python_function)(tf.constant(2)).numpy() == 12  # eagerly


def test_list_append_on_tensor_array():
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        for i in tf.range(n):
            ta.append(i * i)
        return ta.stack()

    assert f(tf.constant(4)).numpy().tolist() == [0, 1, 4, 9]


def test_for_over_tensor_rows_unpacks_pairs():
    @tf.function
    def f(pairs):
        total = tf.constant(0)
        for a, b in pairs:
            total += a * b
        return total

    assert f(tf.constant([[1, 2], [3, 4]])).numpy() == 14


def test_logical_operators_are_lazy():
    calls = []

    def right():
        calls.append(1)
        return tf.constant(True)

    @tf.function
    def f(x):
        return x > 0 and right(), x > 0 or right()

    both, either = f(tf.constant(1))
    assert bool(both) and bool(either)
    assert len(calls) == 2  # traced once in each graph conditional
    assert "StatelessIf" in _graph_types(f.python_function, tf.constant(1))
    calls.clear()
    both, either = tf.autograph.to_graph(f.python_function)(0)  # Python values: Python rules
    assert both is False and bool(either) and len(calls) == 1


def test_loops_that_only_update_variables():
    v = tf.Variable(0)

    @tf.function
    def f(n):
        while v < n:
            v.assign_add(3)
        for _ in tf.range(2):
            if v > 100:
                v.assign(0)
            else:
                v.assign_add(1)
        return v.read_value()

    assert f(tf.constant(10)).numpy() == 14
    assert f(tf.constant(10)).numpy() == 16
    types = _graph_types(f.python_function, tf.constant(1))
    assert "While" in types  # stateful bodies: the stateful op kinds
