"""tf.TensorArray eagerly (a mutable list) and traced (a TensorList value), its TensorList ops,
and the persistent-list representation; errors and messages as TensorFlow 2.21 gives them."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.ops.tensor_array.list_ops import FROM_TENSOR, GET_ITEM, RESERVE, SET_ITEM, STACK
from tensortrace.ops.tensor_array.list_value import TensorList

from .ops.optable import Case, run_case

TA = tf.TensorArray


def traced(fn, *args):
    """Call ``fn`` as a tf.function (no AutoGraph) and return (result, op types of its graph)."""
    f = tf.function(fn, autograph=False)
    out = f(*args)
    return out, [op.type for op in f.get_concrete_function(*args).graph.get_operations()]


def values(x):
    return np.asarray(x)


# --- op table: every TensorList op, eager kernel vs NumPy, infer vs kernel ---------------------
def _stack_written(x):
    return TA(tf.float32, size=3).unstack(x).stack()


def _write_read(x, y):
    return TA(tf.float32, size=2).write(1, x).write(0, y).read(1)


def _scatter_gather(x):
    return TA(tf.float32, size=4).scatter([3, 0, 2, 1], x).gather([0, 1, 3, 3])


def _concat(x, y):
    return TA(tf.float32, size=2, infer_shape=False).write(0, x).write(1, y).concat()


def _split_stack(x):
    return TA(tf.float32, size=2).split(x, [2, 2]).stack()


def _dynamic_size(x):
    return TA(tf.int32, size=0, dynamic_size=True).write(3, x).size()


def _stack_unwritten(x):
    return TA(tf.float32, size=3, element_shape=[2]).write(1, x).stack()


X = np.arange(6, dtype=np.float32).reshape(3, 2)
CASES = [
    Case(_stack_written, (X,), ref=lambda x: x, id="unstack-stack"),
    Case(_write_read, (X[0], X[1]), ref=lambda x, y: x, id="write-read"),
    Case(_scatter_gather, (np.arange(8, dtype=np.float32).reshape(4, 2),),
         ref=lambda x: x[[1, 3, 0, 0]], id="scatter-gather"),
    Case(_concat, (np.ones((2, 3), np.float32), np.zeros((1, 3), np.float32)),
         ref=lambda x, y: np.concatenate([x, y]), dynamic_shape=True, id="concat"),
    Case(_split_stack, (np.arange(4, dtype=np.float32),),
         ref=lambda x: x.reshape(2, 2), dynamic_shape=True, id="split-stack"),
    Case(_dynamic_size, (np.int32(7),), ref=lambda x: np.int32(4), id="dynamic-size"),
    Case(_stack_unwritten, (np.array([1, 2], np.float32),),
         ref=lambda x: np.array([[0, 0], [1, 2], [0, 0]], np.float32), id="unwritten-zeros"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


def test_every_tensor_list_op_is_exercised_by_a_traced_case():
    from .ops.optable import op_types

    seen = set().union(*(op_types(c) for c in CASES))
    ops = {"TensorListReserve", "TensorListFromTensor", "TensorListSetItem", "TensorListGetItem",
           "TensorListStack", "TensorListGather", "TensorListScatterIntoExistingList",
           "TensorListConcatV2", "TensorListSplit", "TensorListLength"}
    assert ops <= seen, ops - seen


@pytest.mark.parametrize("case", CASES, ids=str)
def test_traced_values_equal_eager_values(case):
    args = [tf.constant(a) for a in case.args]
    eager = case.fn(*args)
    graph, _ = traced(case.fn, *args)
    np.testing.assert_array_equal(values(graph), values(eager))
    assert graph.dtype == eager.dtype


# --- eager ----------------------------------------------------------------------------------
def test_eager_write_changes_the_array_in_place_and_returns_it():
    ta = TA(tf.float32, size=2)
    assert ta.write(0, 1.0) is ta
    ta.write(1, 2.0)
    np.testing.assert_array_equal(ta.stack().numpy(), [1.0, 2.0])
    assert ta.size().numpy() == 2 and ta.size().dtype == tf.int32
    assert ta.flow.numpy() == 0 and ta.flow.dtype == tf.int32


def test_eager_element_shape_is_learned_from_writes():
    ta = TA(tf.float32, size=2)
    assert ta.element_shape == tf.TensorShape(None)
    ta.write(0, [1.0, 2.0])
    assert ta.element_shape == tf.TensorShape([2])
    assert ta.dtype == tf.float32 and TA("float32", size=1).dtype == tf.float32


def test_eager_dynamic_size_grows_and_fills_with_zeros():
    ta = TA(tf.float32, size=2, dynamic_size=True).write(4, 1.0)
    np.testing.assert_array_equal(ta.stack().numpy(), [0, 0, 0, 0, 1])
    assert ta.size().numpy() == 5


def test_eager_writing_twice_overwrites():
    np.testing.assert_array_equal(TA(tf.float32, size=2).write(0, 1.).write(0, 2.).stack(),
                                  [2.0, 0.0])


@pytest.mark.parametrize("call, error, message", [
    (lambda: TA(tf.float32, size=2).read(5), tf.errors.OutOfRangeError,
     "Tried to read from index 5 but array size is: 2 "),
    (lambda: TA(tf.float32, size=2).read(-1), tf.errors.OutOfRangeError,
     "Reading from negative indices (index -1) is not allowed."),
    (lambda: TA(tf.float32, size=2).write(2, 1.), tf.errors.OutOfRangeError,
     "Tried to write to index 2 but array is not resizeable and size is: 2 "),
    (lambda: TA(tf.float32, size=2).write(-1, 1.), tf.errors.OutOfRangeError,
     "Writing to negative indices (index -1) is not allowed."),
    (lambda: TA(tf.float32, size=2).write(0, tf.constant(1)), tf.errors.InvalidArgumentError,
     "TensorArray dtype is float32 but Op is trying to write dtype int32 "),
    (lambda: TA(tf.int32, size=2).write(0, 1.5), tf.errors.InvalidArgumentError,
     "TensorArray dtype is int32 but Op is trying to write dtype float32 "),
    (lambda: TA(tf.float32, size=2).write(0, [1.]).write(1, [1., 2.]), ValueError,
     "Incompatible shape for value ((2,)), expected ((1,))"),
    (lambda: TA(tf.float32, size=2, element_shape=[3]).write(0, [1.]), ValueError,
     "Incompatible shape for value ((1,)), expected ((3,))"),
    (lambda: TA(tf.float32, size=2).read(1), ValueError,
     "Cannot convert a partially known TensorShape <unknown> to a Tensor."),
    (lambda: TA(tf.float32, size=2).stack(), ValueError,
     "Cannot convert a partially known TensorShape <unknown> to a Tensor."),
    (lambda: TA(tf.float32), ValueError,
     "Size must be declared for TensorArrays when eager execution is enabled."),
    (lambda: TA(tf.float32, size=2).unstack([[1.], [2.], [3.]]), ValueError,
     "Cannot unstack 3 tensors into a TensorArray of static size 2 "),
    (lambda: TA(tf.float32, size=2).write(0, 1.).write(1, 2.).concat(),
     tf.errors.InvalidArgumentError,
     "Concat saw a scalar shape at index 0 but requires at least vectors."),
    (lambda: TA(tf.float32, size=2, infer_shape=False).write(0, [1.]).write(1, [1., 2.]).stack(),
     tf.errors.InvalidArgumentError, "Shapes of all inputs must match"),
    (lambda: TA(tf.float32, size=3).unstack([1., 2., 3.]).gather([5]), IndexError,
     "list index out of range"),
])
def test_eager_errors_are_tensorflows(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_eager_stack_of_an_empty_array():
    empty = TA(tf.float32, size=0).stack()
    assert empty.shape == (0,) and empty.dtype == tf.float32
    assert TA(tf.float32, size=0, element_shape=[2]).stack().shape == (0, 2)
    assert TA(tf.int32, size=0, dynamic_size=True).stack().dtype == tf.int32


def test_eager_unwritten_elements_read_as_zeros_when_the_shape_is_known():
    ta = TA(tf.float32, size=2, element_shape=[3])
    np.testing.assert_array_equal(ta.read(0).numpy(), [0, 0, 0])
    np.testing.assert_array_equal(TA(tf.float32, size=2).write(0, [1., 2.]).stack().numpy(),
                                  [[1, 2], [0, 0]])


def test_eager_unstack_scatter_gather_concat_split():
    ta = TA(tf.float32, size=3).unstack([[1., 2.], [3., 4.], [5., 6.]])
    np.testing.assert_array_equal(ta.gather([2, 0]).numpy(), [[5, 6], [1, 2]])
    np.testing.assert_array_equal(ta.read(1).numpy(), [3, 4])
    small = TA(tf.float32, size=3).unstack([[1.], [2.]])
    assert small.size().numpy() == 2  # unstack replaces the contents, as TF's does
    sc = TA(tf.float32, size=3).scatter([2, 0], [[1.], [2.]])
    np.testing.assert_array_equal(sc.stack().numpy(), [[2], [0], [1]])
    cat = TA(tf.float32, size=2).write(0, [1., 2.]).write(1, [3., 4.]).concat()
    np.testing.assert_array_equal(cat.numpy(), [1, 2, 3, 4])
    sp = TA(tf.float32, size=2).split([1., 2., 3.], [1, 2])
    np.testing.assert_array_equal(sp.read(1).numpy(), [2, 3])


def test_eager_close_empties_and_identity_is_the_same_array():
    ta = TA(tf.float32, size=2)
    assert ta.identity() is ta
    assert ta.close() is None
    assert ta.size().numpy() == 0


def test_eager_while_loop_carries_a_tensor_array():
    _, out = tf.while_loop(lambda i, t: i < 3,
                           lambda i, t: (i + 1, t.write(i, tf.cast(i, tf.float32))),
                           [0, TA(tf.float32, size=3)])
    np.testing.assert_array_equal(out.stack().numpy(), [0, 1, 2])


# --- traced ---------------------------------------------------------------------------------
def test_traced_write_returns_a_new_array_sharing_the_element_shape():
    seen = {}

    def f(n):
        ta = TA(tf.float32, size=n)
        ta2 = ta.write(0, [1., 2.])
        seen.update(same=ta2 is ta, old=ta.element_shape, new=ta2.element_shape,
                    flow=(ta.flow.dtype, ta.flow.shape), stack=ta2.stack().shape,
                    read=ta2.read(0).shape, gather=ta2.gather([0, 1]).shape,
                    concat=ta2.concat().shape)
        return ta2.stack()

    out, ops = traced(f, tf.constant(2))
    np.testing.assert_array_equal(out.numpy(), [[1, 2], [0, 0]])
    assert not seen["same"]
    assert seen["old"] == seen["new"] == tf.TensorShape([2])  # TF shares it between versions
    assert seen["flow"] == (tf.variant, tf.TensorShape([]))
    assert seen["stack"] == (None, 2) and seen["read"] == (2,)
    assert seen["gather"] == (2, 2) and seen["concat"] == (None,)
    assert ops.count("TensorListReserve") == 1 and ops.count("TensorListSetItem") == 1


def test_traced_static_size_gives_static_stack_shape():
    shapes = {}

    def f():
        ta = TA(tf.float32, size=3).unstack(tf.zeros([3, 4, 5]))
        shapes.update(es=ta.element_shape, stack=ta.stack().shape, concat=ta.concat().shape,
                      dyn=TA(tf.float32, size=3, dynamic_size=True).stack().shape)
        return ta.size()

    out, ops = traced(f)
    assert out.numpy() == 3 and "TensorListLength" not in ops
    assert shapes == {"es": tf.TensorShape([4, 5]), "stack": tf.TensorShape([3, 4, 5]),
                      "concat": tf.TensorShape([None, 5]), "dyn": tf.TensorShape(None)}


def test_traced_dynamic_size_grows_and_size_is_computed():
    out, ops = traced(lambda: (TA(tf.float32, size=2, dynamic_size=True).write(4, 1.).stack(),
                               TA(tf.float32, size=2, dynamic_size=True).write(5, 1.).size()))
    np.testing.assert_array_equal(out[0].numpy(), [0, 0, 0, 0, 1])
    assert out[1].numpy() == 6 and "TensorListLength" in ops


def test_old_versions_keep_their_contents():
    """The graph form is functional: writing a new version never changes an old one."""

    def f(x):
        t0 = TA(tf.float32, size=2, element_shape=[])
        t1 = t0.write(0, x)
        t2 = t1.write(0, x + 1)
        t3 = t1.write(1, x + 2)  # a second branch off t1
        t4 = t2.write(1, x + 3)
        return [t.stack() for t in (t0, t1, t2, t3, t4)] + [t1.read(0), t2.read(0)]

    out, _ = traced(f, tf.constant(10.0))
    got = [o.numpy().tolist() for o in out]
    assert got == [[0, 0], [10, 0], [11, 0], [10, 12], [11, 13], 10, 11]


def test_persistent_list_against_a_reference_under_random_access():
    """Writes to and reads of any version, in any order, match independent copies."""
    rng = np.random.default_rng(1)
    set_item, get_item = SET_ITEM.kernel, GET_ITEM.kernel
    versions = [TensorList([None] * 6, np.dtype(np.int32), ())]
    reference = [[None] * 6]
    for step in range(300):
        k = int(rng.integers(len(versions)))
        if rng.random() < 0.6:
            i = int(rng.integers(8))
            value = np.int32(step)
            resize = i >= len(reference[k])
            versions.append(set_item(versions[k], np.int32(i), value,
                                     resize_if_index_out_of_bounds=resize))
            ref = list(reference[k]) + [None] * max(0, i + 1 - len(reference[k]))
            ref[i] = value
            reference.append(ref)
        else:
            for i, want in enumerate(reference[k]):
                if want is not None:
                    assert get_item(versions[k], np.int32(i), tf.int32, ()) == want
            assert len(versions[k].items) == len(reference[k])


def test_an_old_version_keeps_only_a_bounded_chain_of_newer_ones_alive():
    set_item = SET_ITEM.kernel
    first = TensorList([None] * 4, np.dtype(np.float32), ())
    lst = first
    for step in range(1000):  # overwrite one slot: each old value hangs on a diff
        lst = set_item(lst, np.int32(0), np.float32(step))
    chain, node = 0, first
    while type(node._data) is tuple:
        chain, node = chain + 1, node._data[0]
    assert chain <= 4 + 32 + 1
    assert first.items == [None] * 4 and lst.items[0] == 999


def test_a_list_made_from_a_tensor_keeps_it_until_written():
    arr = np.arange(6, dtype=np.float32).reshape(3, 2)
    lst = FROM_TENSOR.kernel(arr, element_shape=(2,))
    assert lst.items is arr  # no copy: reads index the tensor
    new = SET_ITEM.kernel(lst, np.int32(1), np.zeros(2, np.float32))
    np.testing.assert_array_equal(STACK.kernel(lst, tf.float32, (2,)), arr)
    np.testing.assert_array_equal(STACK.kernel(new, tf.float32, (2,))[1], [0, 0])


def test_string_lists_keep_0d_object_arrays():
    out = GET_ITEM.kernel(FROM_TENSOR.kernel(np.array([b"a", b"b"], object), ()),
                                 np.int32(1), tf.string, ())
    assert isinstance(out, np.ndarray) and out.shape == () and out[()] == b"b"


def test_traced_strings():
    out, _ = traced(lambda: TA(tf.string, size=2).write(0, "a").write(1, "bc").stack())
    assert out.numpy().tolist() == [b"a", b"bc"]


@pytest.mark.parametrize("fn, message", [
    (lambda: TA(tf.float32, size=0).stack(),
     "Tried to stack elements of an empty list with non-fully-defined element_shape: <unknown>"),
    (lambda: TA(tf.float32, size=2).stack(),
     ("Tried to stack list which only contains uninitialized tensors and has a "
      "non-fully-defined element_shape: <unknown>")),
    (lambda: TA(tf.float32, size=2).write(0, 1.).read(5),
     "Trying to access element 5 in a list with 2 elements."),
    (lambda: TA(tf.float32, size=2).write(0, 1.).read(-1),
     "Trying to access element -1 in a list with 2 elements."),
    (lambda: TA(tf.float32, size=2).read(1),
     ("Trying to read an uninitialized tensor but element_shape is not fully defined: <unknown> "
      "and no list element is set.")),
    (lambda: TA(tf.float32, size=2).write(2, 1.).stack(),
     "Trying to modify element 2 in a list with 2 elements."),
    (lambda: TA(tf.float32, size=2).write(0, tf.constant(1)).stack(),
     "Invalid data types; op elements int32 but list elements float"),
    (lambda: TA(tf.float32, size=2).unstack([[1.], [2.], [3.]]).stack(),
     "Operation expected a list with 2 elements but got a list with 3 elements."),
    (lambda: TA(tf.float32, size=3).unstack([1., 2., 3.]).gather([5]),
     "Index 5 out o range; list only has 3 elements."),
    (lambda: TA(tf.float32, size=2).write(0, 1.).write(1, 2.).concat(),
     "Concat saw a scalar shape at index 0 but requires at least vectors."),
    (lambda: TA(tf.float32, size=0).concat(),
     ("All except the first dimension must be fully defined when concating an empty tensor "
      "list. element_shape: <unknown>")),
    (lambda: TA(tf.float32, size=2, infer_shape=False).write(0, [1.]).write(1, [1., 2.]).stack(),
     "PartialTensorShape: Incompatible shapes during merge: [1] vs. [2]"),
    (lambda: TA(tf.float32, size=3).scatter([5], [[1.]]).stack(),
     "Operation expected a list with 3 elements but got a list with 6 elements."),
])
def test_traced_runtime_errors_are_tensorflows(fn, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        traced(fn)
    assert message in str(info.value)


def test_traced_unwritten_elements_are_zeros_of_the_known_shape():
    out, _ = traced(lambda: (TA(tf.float32, size=2).write(0, 1.).read(1),
                             TA(tf.float32, size=0, element_shape=[2]).stack(),
                             TA(tf.float32, size=2, element_shape=[3]).stack()))
    assert out[0].numpy() == 0.0 and out[0].shape == ()
    assert out[1].shape == (0, 2)
    np.testing.assert_array_equal(out[2].numpy(), np.zeros((2, 3)))


@pytest.mark.parametrize("fn, error, message", [
    (lambda: TA(tf.float32, size=2).write(0, [1.]).write(1, [1., 2.]), ValueError,
     "Inconsistent shapes: saw (2,) but expected (1,) "),
    (lambda: TA(tf.float32), ValueError,
     "Argument `size` must be provided if argument `flow` is not provided."),
    (lambda: TA(tf.float32, size=2, flow=tf.constant(0.0)), TypeError,
     "Expected `flow` to be a variant tensor"),
    (lambda: TA(tf.float32, size=2).read(tf.constant(0, tf.int64)), TypeError,
     ("Input 'index' of 'TensorListGetItem' Op has type int64 that does not match expected "
      "type of int32.")),
])
def test_trace_time_errors(fn, error, message):
    with pytest.raises(error) as info:
        traced(fn)
    assert message in str(info.value)


def test_tensor_array_as_a_while_loop_variable():
    shapes = {}

    def f(n):
        def body(i, t):
            return i + 1, t.write(i, tf.fill([2], tf.cast(i, tf.float32)))

        _, t = tf.while_loop(lambda i, t: i < n, body, [0, TA(tf.float32, size=n)])
        shapes.update(es=t.element_shape, stack=t.stack().shape)
        return t.stack()

    out, ops = traced(f, tf.constant(3))
    np.testing.assert_array_equal(out.numpy(), [[0, 0], [1, 1], [2, 2]])
    assert shapes == {"es": tf.TensorShape([2]), "stack": tf.TensorShape([None, 2])}
    assert ops.count("StatelessWhile") == 1


def test_tensor_arrays_in_nested_loops_and_as_captures():
    def f(x):  # x: [3, 4]; out[i] = cumulative sums of row i
        rows = TA(tf.float32, size=3, clear_after_read=False).unstack(x)

        def outer(i, out):
            def inner(j, acc, row_out):
                acc = acc + rows.read(i)[j]
                return j + 1, acc, row_out.write(j, acc)

            _, _, row = tf.while_loop(lambda j, a, r: j < 4, inner,
                                      [0, 0.0, TA(tf.float32, size=4)])
            return i + 1, out.write(i, row.stack())

        _, out = tf.while_loop(lambda i, o: i < 3, outer, [0, TA(tf.float32, size=3)])
        return out.stack()

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    eager = f(tf.constant(x))
    out, ops = traced(f, tf.constant(x))
    np.testing.assert_array_equal(out.numpy(), np.cumsum(x, axis=1))
    np.testing.assert_array_equal(eager.numpy(), np.cumsum(x, axis=1))
    assert ops.count("StatelessWhile") == 1  # the inner loop lives in the outer body


def test_tensor_array_returned_from_cond_branches():
    def f(x):
        ta = TA(tf.float32, size=2)
        ta = tf.cond(x > 0, lambda: ta.write(0, x), lambda: ta.write(1, x))
        return ta.stack()

    for v, want in ((2.0, [2, 0]), (-2.0, [0, -2])):
        out, ops = traced(f, tf.constant(v))
        np.testing.assert_array_equal(out.numpy(), want)
        np.testing.assert_array_equal(f(tf.constant(v)).numpy(), want)
        assert ops.count("StatelessIf") == 1


def test_cond_branches_must_return_tensor_arrays_of_one_dtype():
    def f(x):
        return tf.cond(x > 0, lambda: TA(tf.float32, size=1), lambda: TA(tf.int32, size=1))

    with pytest.raises(TypeError, match="not TensorArrays of one dtype"):
        traced(f, tf.constant(1))


def test_eager_tensor_array_cannot_enter_a_traced_loop():
    eager_ta = TA(tf.float32, size=2)
    with pytest.raises(NotImplementedError, match="eager-mode TensorArray"):
        traced(lambda: tf.while_loop(lambda i, t: i < 2, lambda i, t: (i + 1, t), [0, eager_ta]))


def test_a_variant_flow_makes_a_functional_array_even_eagerly():
    from tensortrace.tensor import EagerTensor

    lst = RESERVE.kernel(np.int32(2), element_shape=None, element_dtype=tf.float32)
    flow = EagerTensor._wrap(lst)
    assert flow.dtype == tf.variant and flow.shape == ()
    ta = TA(tf.float32, flow=flow)
    ta2 = ta.write(0, 1.0).write(1, 2.0)
    assert ta2 is not ta and ta2.flow.dtype == tf.variant
    np.testing.assert_array_equal(ta2.stack().numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(ta.stack().numpy(), [0.0, 0.0])  # the first version: unset


def test_eager_read_clears_the_element_by_default():
    # TF 2.21: a second read raises; stack/gather then see zeros; a rewrite is allowed.
    ta = TA(tf.float32, size=2).write(0, 1.0).write(1, 2.0)
    assert ta.read(0).numpy() == 1.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not read index 0 twice"):
        ta.read(0)
    np.testing.assert_array_equal(ta.stack().numpy(), [0.0, 2.0])
    np.testing.assert_array_equal(ta.gather([0, 1]).numpy(), [0.0, 2.0])
    ta = TA(tf.float32, size=2).write(0, [1.0]).write(1, [2.0])
    ta.read(0)
    np.testing.assert_array_equal(ta.write(0, [3.0]).stack().numpy(), [[3.0], [2.0]])
    kept = TA(tf.float32, size=1, clear_after_read=False).write(0, 5.0)
    assert kept.read(0).numpy() + kept.read(0).numpy() == 10.0
