"""Behaviours pinned against TensorFlow 2.21 in a differential sweep: cache keys, printed
signatures, the retracing warning, Module traversal order, and datasets as arguments."""

import collections
import logging
import re

import numpy as np
import pytest

import tensortrace as tf

P = collections.namedtuple("P", "x y")


def test_python_numbers_are_keyed_by_value_alone():
    traced = []

    @tf.function
    def f(x):
        traced.append(x)
        return tf.identity(tf.constant(x))

    # TF: 1, 1.0 and True compare equal, so they share the trace made for 1 (an int32 result)
    assert [f(v).numpy().item() for v in (1, 1.0, True)] == [1, 1, 1]
    assert f(1.0).dtype == tf.int32
    assert f(2.0).dtype == tf.float32 and f(2).dtype == tf.float32
    assert f(False).dtype == tf.bool and f(0).dtype == tf.bool
    assert traced == [1, 2.0, False]
    assert f.experimental_get_tracing_count() == 3


def test_literal_concrete_argument_accepts_an_equal_number():
    @tf.function
    def f(x, n):
        return x * n

    cf = f.get_concrete_function(tf.TensorSpec([], tf.int32), 2)
    assert cf(tf.constant(3), 2.0).numpy() == 6
    with pytest.raises(TypeError, match="Can not cast 3 to Literal\\[2\\]"):
        cf(tf.constant(3), 3)


def test_namedtuple_and_dict_specs_print_as_tf():
    @tf.function
    def f(p, d):
        return P(p.x * p.y + d["a"], p.x)

    spec = tf.TensorSpec([], tf.float32)
    cf = f.get_concrete_function(P(spec, spec), {"a": spec})
    p_text = ("P[['x', TensorSpec(shape=(), dtype=tf.float32, name=None)], "
              "['y', TensorSpec(shape=(), dtype=tf.float32, name=None)]]")
    d_text = "Dict[['a', TensorSpec(shape=(), dtype=tf.float32, name=None)]]"
    assert str(cf.function_type) == f"(p: {p_text}, d: {d_text}) -> {p_text}"
    assert cf.pretty_printed_signature() == (
        f"Input Parameters:\n  p (POSITIONAL_OR_KEYWORD): {p_text}\n"
        f"  d (POSITIONAL_OR_KEYWORD): {d_text}\nOutput Type:\n  {p_text}\nCaptures:\n  None")
    # TF's FunctionType: repr is the multi-line form, str the one-line one
    assert repr(cf.function_type) == cf.pretty_printed_signature()
    out = cf(P(tf.constant(2.0), tf.constant(3.0)), {"a": tf.constant(1.0)})
    assert isinstance(out, P) and out.x.numpy() == 7.0


def test_structured_input_signature_names_nested_specs_by_path():
    @tf.function
    def f(xs, d, p, *args, k=None, **kw):
        return xs[0]

    s = tf.TensorSpec([], tf.float32)
    cf = f.get_concrete_function([s, s], {"b": s, "a": s}, P(s, s), s, k=s, z=s)
    args, kwargs = cf.structured_input_signature
    assert [t.name for t in args[0]] == ["xs_0", "xs_1"]
    assert {k: t.name for k, t in args[1].items()} == {"b": "d_b", "a": "d_a"}
    assert (args[2].x.name, args[2].y.name) == ("p_x", "p_y")
    assert args[3].name == "args_0"
    assert {k: t.name for k, t in kwargs.items()} == {"k": "k", "z": "z"}

    @tf.function(input_signature=[(tf.TensorSpec([None], tf.float32),
                                   tf.TensorSpec([], tf.int32))])
    def g(pair):
        return pair[0]

    (pair,), _ = g.get_concrete_function().structured_input_signature
    assert [t.name for t in pair] == ["pair_0", "pair_1"]


def test_frequent_retracing_warning_counts_calls_like_tf(caplog):
    @tf.function
    def f(x):
        return x + 1

    with caplog.at_level(logging.WARNING, logger="tensortrace"):
        for v in (1, 1, 2, 1.0, True, tf.constant(1), tf.constant(2), tf.constant([1, 2])):
            f(v)
        assert not caplog.records  # 4 traces in 8 calls
        f(tf.constant([1, 2, 3]))
        f(tf.constant(1.0))
        f(tf.constant(2.0))
        f(tf.constant([1.0]))
    messages = [r.getMessage() for r in caplog.records]
    # TF: 5 traces within the last 10 calls warn, at most twice per Python function
    assert len(messages) == 2
    assert messages[0].startswith("5 out of the last 9 calls to <function ")
    assert messages[1].startswith("6 out of the last 10 calls to <function ")
    assert "reduce_retracing=True option that can avoid unnecessary retracing" in messages[0]


def test_retracing_warning_counts_tf_functions_recreated_in_a_loop(caplog):
    def step(x):
        return x * 2

    with caplog.at_level(logging.WARNING, logger="tensortrace"):
        for _ in range(5):
            tf.function(step)(tf.constant(1.0))
    assert caplog.records[-1].getMessage().startswith("5 out of the last 5 calls to <function")


def test_module_lists_its_own_variables_before_its_submodules():
    class Dense(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(1.0, name="w")
            self.b = tf.Variable(0.0, name="b")

    class Seq(tf.Module):
        def __init__(self):
            super().__init__()
            self.d1, self.d2 = Dense(), Dense()
            self.extra = [tf.Variable(1.0, trainable=False)]
            self.table = {"z": tf.Variable(2.0, name="z"), "a": tf.Variable(3.0, name="a")}

    m = Seq()
    assert [v.name for v in m.variables] == ["Variable:0", "a:0", "z:0", "b:0", "w:0", "b:0",
                                             "w:0"]
    assert [v.name for v in m.trainable_variables] == ["a:0", "z:0", "b:0", "w:0", "b:0",
                                                       "w:0"]
    assert m.submodules == (m.d1, m.d2)
    assert repr(m).startswith("<tests.tracing.test_tf_parity."
                              "test_module_lists_its_own_variables_before_its_submodules."
                              "<locals>.Seq object at 0x")


def test_symbolic_tensor_as_bool_gives_tfs_message():
    @tf.function(autograph=False)
    def f(x):
        return x if x > 0 else -x

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError) as e:
        f(tf.constant(1.0))
    assert str(e.value).startswith(
        "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt the "
        "following resolutions to the problem: If you are running in Graph mode, use Eager")

    @tf.function(autograph=False)
    def g(x):
        return [v for v in x]

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError,
                       match="^Iterating over a symbolic `tf.Tensor` is not allowed. You can"):
        g(tf.constant([1.0]))


def _total(ds):
    s = tf.constant(0, tf.int64)
    for x in ds:
        s += x
    return s


def test_datasets_trace_by_element_spec():
    total = tf.function(_total)
    a, b = tf.data.Dataset.range(5), tf.data.Dataset.range(10)
    assert [total(d).numpy() for d in (a, b, a.map(lambda x: x * 2))] == [10, 45, 20]
    assert total.experimental_get_tracing_count() == 1
    c = tf.data.Dataset.from_tensor_slices(tf.constant([1, 2, 3], tf.int64))
    assert total(c).numpy() == 6 and total.experimental_get_tracing_count() == 1
    d = tf.data.Dataset.from_tensor_slices(tf.constant([[1, 2], [3, 4]], tf.int64))
    assert total(d).numpy().tolist() == [4, 6] and total.experimental_get_tracing_count() == 2
    assert total(b.batch(3)).numpy().tolist() == [18, 21, 24]
    assert total.experimental_get_tracing_count() == 3
    # a (3,) element spec is a subtype of (None,): the batch(3) trace serves it
    assert total(b.batch(3, drop_remainder=True)).numpy().tolist() == [9, 12, 15]
    assert total.experimental_get_tracing_count() == 3


def test_dataset_argument_signature_and_concrete_function():
    total = tf.function(_total)
    a, b = tf.data.Dataset.range(5), tf.data.Dataset.range(10)
    cf = total.get_concrete_function(a)
    text = "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))"
    assert repr(cf.structured_input_signature) == f"(({text},), {{}})"
    assert f"ds (POSITIONAL_OR_KEYWORD): {text}" in total.pretty_printed_concrete_signatures()
    assert cf(b).numpy() == 45  # the concrete function reads the dataset it is given


def test_dataset_arguments_in_graph_transformations_and_nested_functions():
    @tf.function
    def red(ds):
        return (ds.map(lambda x: x + 1).batch(2).reduce(
            tf.constant(0, tf.int64), lambda s, x: s + tf.reduce_sum(x)), ds.cardinality())

    assert [t.numpy() for t in red(tf.data.Dataset.range(5))] == [15, 5]
    assert [t.numpy() for t in red(tf.data.Dataset.range(10))] == [55, 10]
    assert red.experimental_get_tracing_count() == 1

    @tf.function
    def inner(ds):
        return ds.reduce(tf.constant(0, tf.int64), lambda s, x: s + x["a"])

    @tf.function
    def outer(ds, k):
        return inner(ds.map(lambda x: {"a": x * k})) + inner(ds.map(lambda x: {"a": x}))

    k = tf.constant(3, tf.int64)
    assert outer(tf.data.Dataset.range(4), k).numpy() == 24
    assert outer(tf.data.Dataset.range(5), k).numpy() == 40
    assert (outer.experimental_get_tracing_count(), inner.experimental_get_tracing_count()) == \
        (1, 1)

    @tf.function
    def zipped(pair):
        return tf.data.Dataset.zip(tuple(pair)).reduce(
            tf.constant(0, tf.int64), lambda s, x: s + x[0] * x[1])

    assert zipped([tf.data.Dataset.range(3), tf.data.Dataset.range(1, 4)]).numpy() == 8
    assert zipped([tf.data.Dataset.range(5), tf.data.Dataset.range(1, 4)]).numpy() == 8
    assert zipped.experimental_get_tracing_count() == 1


def test_concrete_function_binding_error_adds_the_flat_signature_fallback():
    @tf.function
    def f(x, y):
        return x + y

    spec = tf.TensorSpec([None], tf.float32)
    cf = f.get_concrete_function(spec, spec)
    with pytest.raises(TypeError) as e:
        cf(tf.constant([1.0]))
    assert str(e.value).startswith("Binding inputs to tf.function failed due to `missing a "
                                   "required argument: 'y'`. Received args: ")
    assert str(e.value).endswith("\nFallback to flat signature also failed due to: f(x, y) "
                                 "missing required arguments: y.")

    @tf.function
    def g(x, n):
        return x * n

    cf = g.get_concrete_function(tf.TensorSpec([], tf.int32), 2)
    with pytest.raises(TypeError, match="Can not cast 3 to Literal\\[2\\](.|\n)*\nFallback to "
                                        "flat signature also failed due to: g\\(x\\) takes 1 "
                                        "positional arguments, got 2.$"):
        cf(tf.constant(3), 3)


def test_eager_assign_returns_an_unread_variable():
    v = tf.Variable(1.0, name="vv")
    r = v.assign(2.0)
    assert type(r).__name__ == "_UnreadVariable" and r is not v
    assert isinstance(r, tf.Variable) and r.name == "UnreadVariable" and r.trainable
    assert repr(r) == "<tf.Variable 'UnreadVariable' shape=() dtype=float32, numpy=2.0>"
    r2 = r.assign_add(1.0)  # writes through to v
    assert (v.numpy(), r.numpy(), r2.numpy()) == (3.0, 3.0, 3.0)
    assert (r + 1).numpy() == 4.0 and r.read_value().numpy() == 3.0
    assert v.assign(5.0, read_value=False) is None
    assert str(r) == "<tf.Variable 'UnreadVariable' shape=() dtype=float32, numpy=5.0>"
    assert v.name == "vv:0"


def test_sliced_variable_assign():
    w = tf.Variable([1, 2, 3])
    assert repr(w[0].assign(9)) == ("<tf.Variable 'UnreadVariable' shape=(3,) dtype=int32, "
                                    "numpy=array([9, 2, 3], dtype=int32)>")
    w[1:].assign([7, 8])
    assert w.numpy().tolist() == [9, 7, 8]
    m = tf.Variable(tf.reshape(tf.range(12.0), [3, 4]))
    m[1:, ::2].assign(tf.zeros([2, 2]))
    m[0].assign(5.0)  # broadcast to the slice
    assert m.numpy().tolist() == [[5.0] * 4, [0.0, 5.0, 0.0, 7.0], [0.0, 9.0, 0.0, 11.0]]
    with pytest.raises((ValueError, tf.errors.InvalidArgumentError)):
        m[0].assign([1.0, 2.0])

    @tf.function
    def f():
        w[0].assign(100)
        return w.read_value()

    assert f().numpy().tolist() == [100, 7, 8]


def test_sliced_variable_reads_still_differentiate():
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = v[1] * 3 + v[0:2] ** 2
    assert tape.gradient(y, v).numpy().tolist() == [2.0, 10.0, 0.0]

    @tf.function
    def g():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(v[1:] * v[1:])
        v[0].assign(7.0)
        return tape.gradient(y, v), v[0] + 1

    grad, first = g()
    assert grad.numpy().tolist() == [0.0, 4.0, 6.0] and first.numpy() == 8.0


def test_nest_rebuilds_dicts_in_their_own_key_order():
    s = {"b": [1, (2, 3)], "a": P(4, 5)}
    assert tf.nest.flatten(s) == [4, 5, 1, 2, 3]
    out = tf.nest.map_structure(lambda x: x * 2, s)
    assert list(out) == ["b", "a"] and out == {"b": [2, (4, 6)], "a": P(8, 10)}
    assert list(tf.nest.pack_sequence_as(s, list(range(10, 15)))) == ["b", "a"]
    d = collections.defaultdict(list)
    d["b"], d["a"] = 1, 2
    out = tf.nest.map_structure(lambda x: x + 1, d)
    assert type(out) is collections.defaultdict and out.default_factory is list
    assert list(out.items()) == [("b", 2), ("a", 3)]
    od = collections.OrderedDict([("b", 1), ("a", 2)])
    assert tf.nest.flatten(od) == [2, 1]
    assert list(tf.nest.map_structure(lambda x: x, od).items()) == [("b", 1), ("a", 2)]
    tf.nest.assert_same_structure({"a": 1}, collections.OrderedDict(a=1))  # mappings match
    assert tf.nest.map_structure(lambda x, y: (x, y), [1, (2,)], [3, [4]],
                                 check_types=False) == [(1, 3), ((2, 4),)]


def test_nest_error_messages():
    def message(a, b):
        with pytest.raises((ValueError, TypeError)) as e:
            tf.nest.assert_same_structure(a, b)
        return type(e.value), str(e.value)

    assert message([[1]], [2]) == (ValueError, (
        "The two structures don't have the same nested structure.\n\nFirst structure: "
        "type=list str=[[1]]\n\nSecond structure: type=list str=[2]\n\nMore specifically: "
        "Substructure \"type=list str=[1]\" is a sequence, while substructure \"type=int str=2\" "
        "is not\nEntire first structure:\n[[.]]\nEntire second structure:\n[.]"))
    assert message((1, 2), [1, 2]) == (TypeError, (
        "The two structures don't have the same nested structure.\n\nFirst structure: "
        "type=tuple str=(1, 2)\n\nSecond structure: type=list str=[1, 2]\n\nMore specifically: "
        "The two namedtuples don't have the same sequence type. First structure type=tuple "
        "str=(1, 2) has type tuple, while second structure type=list str=[1, 2] has type list\n"
        "Entire first structure:\n(., .)\nEntire second structure:\n[., .]"))
    assert message({"a": 1}, {"b": 1})[1].split("More specifically: ")[1] == (
        "The two dictionaries don't have the same set of keys. First structure has keys "
        "type=list str=['a'], while second structure has keys type=list str=['b']\n"
        "Entire first structure:\n{'a': .}\nEntire second structure:\n{'b': .}")
    assert message([1, 2], [1])[1].split("More specifically: ")[1].startswith(
        "The two structures don't have the same number of elements. First structure: "
        "type=list str=[1, 2]. Second structure: type=list str=[1]\n")
    with pytest.raises(ValueError, match="^Could not pack sequence. Structure had 2 atoms, but "
                                         "flat_sequence had 3 items.  Structure: \\[1, 2\\], "
                                         "flat_sequence: \\[1, 2, 3\\].$"):
        tf.nest.pack_sequence_as([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="^The target structure is of type `<class 'int'>`\n  1\n"
                                         "However the input is a sequence"):
        tf.nest.pack_sequence_as(1, [1, 2])
    with pytest.raises(ValueError, match="^Only valid keyword arguments are `check_types` and "
                                         "`expand_composites`, not: `foo`$"):
        tf.nest.map_structure(lambda x: x, 1, foo=1)


def test_input_signature_errors_match_tf():
    with pytest.raises(TypeError, match="^input_signature missing type constraint for b$"):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def g(a, b):
            return a

        g(tf.constant(1.0), tf.constant(2.0))
    with pytest.raises(TypeError, match="^input_signature must be a possibly nested sequence of "
                                        "TensorSpec objects, got invalid args \\[1\\] with types "
                                        "\\[<class 'int'>\\].$"):
        tf.function(lambda a: a, input_signature=[1])(1)


def _reshape7(x):
    return tf.reshape(x, [7])


def _branch_calls_helper(x):
    if x[0] > 0:
        y = _reshape7(x)
    else:
        y = x
    return y


def _loop_calls_helper(n):
    s = tf.constant(0.0)
    for i in tf.range(n):
        if i > 1:
            s = s + _reshape7(tf.constant([1.0]))
    return s


def _line_of(text):
    import inspect

    lines, start = inspect.getsourcelines(inspect.getmodule(_line_of))
    return next(i for i, line in enumerate(lines, 1) if line.strip() == text)


def test_user_code_lists_the_innermost_run_of_user_frames_without_blank_lines():
    for fn, arg, text in ((_branch_calls_helper, tf.constant([1, 2]), "y = _reshape7(x)"),
                          (_loop_calls_helper, tf.constant(3),
                           "s = s + _reshape7(tf.constant([1.0]))")):
        with pytest.raises(ValueError) as e:
            tf.function(fn)(arg)
        # TF: the if / for header is not listed (library frames end the run of user frames)
        assert str(e.value).startswith(
            f'in user code:\n\n    File "{__file__}", line {_line_of(text)}, in {fn.__name__}  *\n'
            f'        {text}\n    File "{__file__}", line {_line_of("return tf.reshape(x, [7])")}'
            f', in _reshape7  *\n        return tf.reshape(x, [7])\n\n    ValueError: Cannot '
            f'reshape a tensor with')


def test_python_loop_turned_tensor_errors_point_to_the_limitations_page():
    @tf.function
    def f(xs):
        for i in range(3):
            if xs[i] > 0:
                break
        return xs

    with pytest.raises(NotImplementedError) as e:
        f(tf.constant([1, 2, 3]))
    assert str(e.value).endswith(
        "NotImplementedError: break and return statements which depend on a TF condition are not "
        "supported in Python for loops. Did you intend to make it a TF loop?\n    See https://"
        "github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/"
        "limitations.md#consistency-of-control-flow-types for more info.\n")


def test_numpy_scalars_are_passed_as_tensors():
    traced = []

    @tf.function
    def h(x):
        traced.append(type(x).__name__)
        return x * 2

    assert [h(np.float32(v)).numpy() for v in (1.0, 2.0)] == [2.0, 4.0]
    assert h(np.int64(3)).dtype == tf.int64 and h(np.array(5)).numpy() == 10
    assert h.experimental_get_tracing_count() == 2 and set(traced) == {"SymbolicTensor"}
    assert "x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.float32, name=None)" in \
        h.pretty_printed_concrete_signatures()


def test_binding_errors_without_input_signature_print_the_python_signature():
    @tf.function
    def f(x, y=None, *args, z=3, **kw):
        return x

    sig = "(x, y=<captured_default_value>, *args, z=<captured_default_value>, **kw)"
    for call in (f, f.get_concrete_function):
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == ("Binding inputs to tf.function failed due to `missing a required "
                                f"argument: 'x'`. Received args: () and kwargs: {{}} for "
                                f"signature: {sig}.")

    @tf.function
    def g(x, y):
        return x

    with pytest.raises(TypeError, match="^Binding inputs to tf.function failed due to `too many "
                                        "positional arguments`. Received args: \\(1, 2, 3\\) and "
                                        "kwargs: {} for signature: \\(x, y\\).$"):
        g(1, 2, 3)


Sparse = tf.IndexedSlices  # (values, indices); TF's scatter methods take only IndexedSlices


def test_variable_sparse_reads_and_scatter_updates():
    v = tf.Variable([1.0, 2.0, 3.0])
    assert v.scatter_add(Sparse(tf.constant([1.0, 1.0]), tf.constant([0, 2]))).numpy().tolist() \
        == [2.0, 2.0, 4.0]
    assert v.scatter_sub(Sparse(tf.constant(1.0), tf.constant(1))).numpy().tolist() == \
        [2.0, 1.0, 4.0]
    v.scatter_max(Sparse(tf.constant([10.0]), tf.constant([1])))
    v.scatter_min(Sparse(tf.constant([0.0]), tf.constant([2])))
    r = v.scatter_nd_add([[0]], [5.0])
    assert repr(r) == ("<tf.Variable 'UnreadVariable' shape=(3,) dtype=float32, "
                       "numpy=array([ 7., 10.,  0.], dtype=float32)>")
    v.scatter_nd_sub([[0]], [1.0])
    assert v.numpy().tolist() == [6.0, 10.0, 0.0]
    m = tf.Variable([[1, 2], [3, 4]])
    assert m.sparse_read([1]).numpy().tolist() == [[3, 4]]
    assert m.gather_nd([[0, 1]]).numpy().tolist() == [2]
    m.scatter_update(Sparse(tf.constant([[7, 7]]), tf.constant([0])))
    m.scatter_nd_update([[1, 1]], [0])
    assert m.numpy().tolist() == [[7, 7], [3, 0]]

    @tf.function
    def f():
        m.scatter_nd_update([[0, 0]], [100])
        return m.sparse_read([0])

    assert f().numpy().tolist() == [[100, 7]]


def test_variable_synchronization_aggregation_and_errors():
    assert [e.value for e in tf.VariableSynchronization] == [0, 1, 2, 3]
    assert repr(tf.VariableAggregation.MEAN) == "<VariableAggregationV2.MEAN: 2>"
    v = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ,
                    aggregation=tf.VariableAggregation.SUM)
    assert (str(v.synchronization), str(v.aggregation)) == ("VariableSynchronization.ON_READ",
                                                            "VariableAggregationV2.SUM")
    w = tf.Variable(1.0)
    assert (w.synchronization, w.aggregation) == (tf.VariableSynchronization.AUTO,
                                                  tf.VariableAggregation.NONE)
    with pytest.raises(RuntimeError, match="^This property is not supported when eager "
                                           "execution is enabled.$"):
        w.initial_value
    with pytest.raises(ValueError, match="^The `initial_value` arg to `tf.Variable` must be "
                                         "specified except when you are not providing a "
                                         "`variable_def`. You provided neither.$"):
        tf.Variable(None)


def test_objects_keyed_by_identity_print_as_tf_weakrefs():
    class Cfg:
        k = 2

    @tf.function
    def f(x, c):
        return x * c.k

    cfg = Cfg()
    cf = f.get_concrete_function(tf.constant(1), cfg)
    line = cf.pretty_printed_signature().splitlines()[2]
    assert line.startswith("  c (POSITIONAL_OR_KEYWORD): Weakref[<weakref at 0x")
    assert line.endswith(f"; to 'Cfg' at {hex(id(cfg))}>])")


def test_input_signature_fixed_default_mismatch_message():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
    def s(x, scale=2):
        return x * scale

    assert s(tf.constant([1])).numpy().tolist() == [2]
    with pytest.raises(TypeError) as e:
        s(tf.constant([1]), 3)
    assert str(e.value).startswith("Binding inputs to tf.function failed due to `Can not cast 3 "
                                   "to Literal[2]`. Received args: (")
    assert str(e.value).endswith(
        "for signature: (x: TensorSpec(shape=(None,), dtype=tf.int32, name=None), scale: "
        "Literal[2] = <captured_default_value>).")


def test_generators_are_left_alone_without_a_warning(caplog):
    def gen(n):
        for i in range(n):
            yield i * 2

    @tf.function
    def f(x):
        return x + sum(gen(3))

    with caplog.at_level(logging.WARNING, logger="tensortrace"):
        assert f(tf.constant(1)).numpy() == 7
    assert not caplog.records


def test_concrete_function_output_shapes_and_dtypes():
    @tf.function
    def f(x, y):
        return {"s": x + y, "p": x * y}

    spec = tf.TensorSpec([None, 2], tf.float32)
    cf = f.get_concrete_function(tf.TensorSpec([None, 2], tf.float32, name="a"), spec)
    assert cf.output_shapes == {"s": tf.TensorShape([None, 2]), "p": tf.TensorShape([None, 2])}
    assert cf.output_dtypes == {"s": tf.float32, "p": tf.float32}
    assert [t.name for t in cf.inputs] == ["a:0", "y:0"]
    # outputs flatten in sorted-key order: "p" gets the first Identity
    assert cf.structured_outputs["p"].name == "Identity:0"
    assert cf.structured_outputs["s"].name == "Identity_1:0"


def test_autograph_could_not_transform_warning_has_tfs_three_lines(caplog):
    pair = (lambda x: x + 1, lambda x: x + 2)  # one line: AutoGraph cannot tell them apart

    with caplog.at_level(logging.WARNING, logger="tensortrace"):
        assert tf.function(pair[1])(tf.constant(1)).numpy() == 3
    message = caplog.records[-1].getMessage()
    assert message.startswith("AutoGraph could not transform <function ")
    lines = message.split("\n")
    assert lines[0].endswith(" and will run it as-is.") and lines[1].startswith("Cause: ")
    assert lines[2] == ("To silence this warning, decorate the function with "
                        "@tf.autograph.experimental.do_not_convert")


def test_variable_arguments_trace_by_aliasing():
    @tf.function
    def f(u, w):
        return u + w

    a, b, c = tf.Variable(1.0), tf.Variable(2.0), tf.Variable(3.0)
    assert f(a, b).numpy() == 3.0 and f(b, c).numpy() == 5.0
    assert f.experimental_get_tracing_count() == 1
    assert f(a, a).numpy() == 2.0 and f(b, b).numpy() == 4.0  # one variable twice: a new trace
    assert f.experimental_get_tracing_count() == 2
    spec = "VariableSpec(shape=(), dtype=tf.float32, trainable=True, alias_id={})"
    text = f.pretty_printed_concrete_signatures()
    assert f"u (POSITIONAL_OR_KEYWORD): {spec.format(0)}\n  w (POSITIONAL_OR_KEYWORD): " \
           f"{spec.format(1)}" in text
    assert f"w (POSITIONAL_OR_KEYWORD): {spec.format(0)}" in text
    assert repr(f.get_concrete_function(a, b).structured_input_signature) == \
        f"(({spec.format(0)}, {spec.format(1)}), {{}})"
    assert f(a.assign(5.0), b).numpy() == 7.0  # an UnreadVariable is its variable


def test_assign_add_and_sub_need_the_variable_shape_exactly():
    # TF's AssignAdd/SubVariableOp never broadcast: the kernel raises InvalidArgumentError
    # eagerly, the shape function a ValueError while a function is traced; the value is kept
    v = tf.Variable([1.0, 2.0, 3.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(
            "Cannot update variable with shape [3] using a Tensor with shape [], shapes must be "
            "equal. [Op:AssignAddVariableOp]")):
        v.assign_add(1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(
            "Cannot update variable with shape [3] using a Tensor with shape [1], shapes must "
            "be equal. [Op:AssignSubVariableOp]")):
        v.assign_sub([1.0])
    assert v.numpy().tolist() == [1.0, 2.0, 3.0]

    @tf.function
    def add(d):
        v.assign_add(d)

    with pytest.raises(ValueError, match=re.escape(
            "Shapes must be equal rank, but are 1 and 0 for '{{node AssignAddVariableOp}} = "
            "AssignAddVariableOp[dtype=DT_FLOAT](Placeholder, d)' with input shapes: [], [].")):
        add(tf.constant(1.0))
    with pytest.raises(ValueError, match=re.escape(
            "Dimension 0 in both shapes must be equal, but are 3 and 2. Shapes are [3] and [2]. "
            "for '{{node AssignAddVariableOp}} = AssignAddVariableOp[dtype=DT_FLOAT]")):
        add(tf.constant([1.0, 1.0]))
    add(tf.constant([1.0, 1.0, 1.0]))
    assert v.numpy().tolist() == [2.0, 3.0, 4.0]
    # a variable of unknown shape is checked when the update runs, against its current value
    u = tf.Variable([1.0, 2.0], shape=tf.TensorShape(None))
    grow = tf.function(lambda d: u.assign_add(d, read_value=False))
    grow(tf.constant([1.0, 1.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(
            "Cannot update variable with shape [2] using a Tensor with shape [3], shapes must be "
            "equal.")):
        grow(tf.constant([1.0, 1.0, 1.0]))
    assert u.numpy().tolist() == [2.0, 3.0]


def test_variable_shape_argument_must_fit_the_initial_value():
    with pytest.raises(ValueError, match=re.escape(
            "In this `tf.Variable` creation, the initial value's shape ((2,)) is not compatible "
            "with the explicitly supplied `shape` argument ((3,)).")):
        tf.Variable([1.0, 2.0], shape=[3])
    assert tf.Variable([1.0, 2.0], shape=[None]).shape.as_list() == [None]
