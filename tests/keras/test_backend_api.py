"""What Keras' TensorFlow backend asks of TF, on its own (no Keras imported): the default
tf.distribute strategy, tf.__internal__, TF's internal modules through the shim, stateless
dropout, conversions, variables acting as resource variables, tensors with attributes, and the
tf.keras entry point's errors. Expected values are TF 2.21's."""

import sys
import types

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import shim
from tensortrace._tf_internal import keras as keras_binding
from tensortrace.api import keras_loader


# --- tf.distribute: the default strategy ------------------------------------------------------
def test_default_strategy_runs_and_reduces_as_one_replica():
    s = tf.distribute.get_strategy()
    assert s.num_replicas_in_sync == 1
    assert not tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context()
    assert float(s.run(lambda a: a * 2, args=(tf.constant(3.0),))) == 6.0
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert s.reduce("SUM", x, axis=0).numpy().tolist() == [4.0, 6.0]
    assert s.reduce("sum", x, axis=None) is x
    assert s.reduce(tf.distribute.ReduceOp.MEAN, x, axis=1).numpy().tolist() == [1.5, 3.5]
    with pytest.raises(ValueError, match="'MAX' is not a valid ReduceOp"):
        s.reduce("MAX", x, axis=None)
    with s.scope():
        assert tf.distribute.get_strategy() is s and not tf.distribute.has_strategy()
        assert not tf.distribute.in_cross_replica_context()
    assert [op.value for op in tf.distribute.ReduceOp] == ["SUM", "MEAN"]


def test_replica_context_merge_call_update_and_datasets():
    s = tf.distribute.get_strategy()
    ctx = tf.distribute.get_replica_context()
    assert (ctx.num_replicas_in_sync, ctx.replica_id_in_sync_group) == (1, 0)
    assert ctx.all_reduce("SUM", tf.constant([1.0, 2.0])).numpy().tolist() == [1.0, 2.0]
    # TF's default strategy hands IndexedSlices back as they are (Keras' sparse optimizer tests
    # build them from Python tuples, which have no type spec to flatten with)
    grad = tf.IndexedSlices(values=tf.ones([2, 3]), indices=(0, 2), dense_shape=(5, 3))
    assert ctx.all_reduce("SUM", [grad])[0] is grad
    seen = ctx.merge_call(lambda st, x: (st is s, tf.distribute.in_cross_replica_context(), x),
                          args=(5,))
    assert seen == (True, True, 5)
    assert tf.distribute.get_replica_context() is ctx  # back in the replica context
    v = tf.Variable(1.0)
    s.extended.update(v, lambda var, d: var.assign_add(d), args=(2.0,))
    assert float(v.numpy()) == 3.0
    ds = tf.data.Dataset.range(3)
    assert s.experimental_distribute_dataset(ds) is ds
    assert s.experimental_local_results(4) == (4,)
    got = s.distribute_datasets_from_function(
        lambda c: (c.num_input_pipelines, c.input_pipeline_id, c.num_replicas_in_sync,
                   c.get_per_replica_batch_size(8)))
    assert got == (1, 0, 1, 8)
    assert not isinstance(s, tf.distribute.TPUStrategy)
    with pytest.raises(NotImplementedError, match="tf.distribute.TPUStrategy"):
        tf.distribute.TPUStrategy()  # MirroredStrategy exists now (tests/distribute/)
    internal = tf.__internal__.distribute
    assert internal.strategy_supports_no_merge_call()
    assert internal.interim.maybe_merge_call(lambda st, a: (st is s, a), s, 7) == (True, 7)


# --- tf.__internal__ ----------------------------------------------------------------------------
def test_internal_types_and_tracking():
    t, v = tf.constant(1.0), tf.Variable(1.0)
    assert isinstance(t, tf.__internal__.types.Tensor)
    assert isinstance(v, tf.__internal__.types.Tensor)
    assert isinstance(v, tf.__internal__.tracking.Trackable)
    assert tf.__internal__.EagerTensor is type(t)

    class Owner(tf.__internal__.tracking.AutoTrackable):
        @tf.__internal__.tracking.no_automatic_dependency_tracking
        def quietly(self, value):
            self.hidden = value

    o = Owner()
    o.w = v
    o.plain = 3
    o.quietly(tf.Variable(2.0))
    assert o._trackable_children() == {"w": v}
    with pytest.raises(ValueError, match="already declared as a dependency"):
        o._track_trackable(tf.Variable(0.0), "w")

    class TensorLike(tf.__internal__.types.Tensor):
        pass

    assert tf.is_tensor(TensorLike()) and not tf.is_tensor(np.ones(2))
    # TF 2.21: its native composites are tensors to is_tensor, Optional and specs are not
    assert [tf.is_tensor(v) for v in (
        tf.sparse.from_dense([[1, 0]]), tf.ragged.constant([[1], [2, 3]]),
        tf.IndexedSlices(tf.ones([1]), tf.constant([0])), tf.experimental.Optional.from_value(1),
        tf.TensorSpec([1]))] == [True, True, True, False, False]
    assert tf.get_static_value(tf.sparse.from_dense([[1, 0]])) is None


def test_smart_cond_and_func_graph():
    smart_cond = tf.__internal__.smart_cond.smart_cond
    calls = []
    assert smart_cond(tf.constant(True), lambda: calls.append("t") or 1,
                      lambda: calls.append("f") or 2) == 1
    assert calls == ["t"]  # a known predicate runs one branch, eagerly
    assert smart_cond(0, lambda: 1, lambda: 2) == 2
    with pytest.raises(TypeError, match="Argument `pred` must be a Tensor"):
        smart_cond("yes", lambda: 1, lambda: 2)

    @tf.function
    def pick(p):
        return smart_cond(p, lambda: tf.constant(1.0), lambda: tf.constant(2.0))

    assert float(pick(tf.constant(False))) == 2.0
    with tf.__internal__.FuncGraph("scratch").as_default():
        assert not tf.executing_eagerly()
        p = tf.compat.v1.placeholder(shape=(None, 3), dtype="float32")
        assert p.shape.as_list() == [None, 3] and p.name == "Placeholder:0"
        y = tf.matmul(p, tf.ones([3, 2]))
        assert y.shape.as_list() == [None, 2]
        with pytest.raises(AssertionError, match="to clear nested graphs"):
            tf.compat.v1.reset_default_graph()
    with pytest.raises(RuntimeError, match="not compatible with eager execution"):
        tf.compat.v1.placeholder(tf.float32)
    assert tf.compat.v1.reset_default_graph() is None
    assert tf.__internal__.tf2.enabled()


# --- TF's internal modules through the shim ---------------------------------------------------
def test_internal_modules_under_the_shim():
    saved = {k: v for k, v in sys.modules.items()
             if k == "tensorflow" or k.startswith("tensorflow.")}
    try:
        shim.install(tf)
        import tensorflow.python.ops.linalg.sparse.sparse_csr_matrix_ops as csr
        from tensorflow.compiler.tf2xla.python.xla import dynamic_update_slice
        from tensorflow.python.eager import context
        from tensorflow.python.ops.math_ops import is_nan
        from tensorflow.python.trackable.data_structures import ListWrapper, _DictWrapper

        x = tf.reshape(tf.range(20.0), [4, 5])
        got = dynamic_update_slice(x, tf.ones([2, 2]), [3, -1]).numpy()
        want = x.numpy().copy()
        want[2:4, 0:2] = 1  # starts clamped so that the update fits, as XLA
        np.testing.assert_array_equal(got, want)
        assert context.context().executing_eagerly()
        assert is_nan(tf.constant([np.nan])).numpy().tolist() == [True]
        assert isinstance(ListWrapper([1]), list) and isinstance(_DictWrapper({}), dict)
        assert callable(csr.sparse_matrix_sparse_mat_mul)
        with pytest.raises(shim.MissingAPIError, match="sparse_csr_matrix_ops.sparse_matrix_add"):
            _ = csr.sparse_matrix_add
        with pytest.raises(shim.MissingModuleError, match="tensorflow.python.ops.nn_ops"):
            import tensorflow.python.ops.nn_ops
        import tensorflow
        assert tensorflow.__internal__ is tf.__internal__
        assert tensorflow.keras is tf.keras  # Keras itself loads on first use
    finally:
        for k in [k for k in sys.modules if k == "tensorflow" or k.startswith("tensorflow.")]:
            del sys.modules[k]
        sys.modules.update(saved)


# --- ops and conversions Keras calls ----------------------------------------------------------
def test_stateless_dropout_matches_tf():
    x = tf.reshape(tf.range(12.0), [3, 4])
    got = tf.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2])
    assert got.numpy().tolist() == [[0, 0, 4, 0], [0, 10, 0, 0], [0, 0, 0, 0]]  # TF 2.21's
    got = tf.nn.experimental.stateless_dropout(x, 0.5, seed=tf.constant([3, 4]),
                                               noise_shape=[3, 1])
    assert got.numpy().tolist() == [[0, 0, 0, 0], [8, 10, 12, 14], [0, 0, 0, 0]]
    with pytest.raises(ValueError, match="in the range"):
        tf.nn.experimental.stateless_dropout(x, 1.0, seed=[1, 2])


def test_conversions_tensorshape_and_tf_tensor_protocol():
    assert tf.convert_to_tensor(tf.TensorShape([2, 3])).dtype == tf.int32
    big = tf.convert_to_tensor(tf.TensorShape([2 ** 33]))
    assert big.dtype == tf.int64 and big.numpy().tolist() == [2 ** 33]
    with pytest.raises(ValueError, match=r"partially known TensorShape \(None, 3\)"):
        tf.convert_to_tensor(tf.TensorShape([None, 3]))
    with pytest.raises(TypeError, match="Allowed dtypes are tf.int32 and tf.int64"):
        tf.convert_to_tensor(tf.TensorShape([2]), tf.float32)

    class Protocol:
        def __tf_tensor__(self, dtype=None, name=None):
            return tf.constant([1.0, 2.0])

    assert tf.add(Protocol(), 1.0).numpy().tolist() == [2.0, 3.0]
    assert repr(tf.data.experimental.AutoShardPolicy.DATA) == "<AutoShardPolicy.DATA: 2>"
    assert tf.data.experimental.ExternalStatePolicy.IGNORE.value == 1
    assert type(tf.data.Dataset.range(1)).__mro__[-2].__module__.startswith("tensorflow.python")


def test_variables_acting_as_resource_variables_and_tensor_attributes():
    class Acting:  # Keras' variables: a tf.Variable inside, its handle offered
        _should_act_as_resource_variable = True

        def __init__(self, value):
            self.value = tf.Variable(value)

        @property
        def handle(self):
            return self.value.handle

    a = Acting(3.0)
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = a.value * a.value
    assert float(tape.gradient(y, a)) == 6.0
    v, w = tf.Variable(1.0, name="a/b"), tf.Variable(1.0, name="a/b")
    assert v._shared_name == "a/b" and v._unique_id != w._unique_id
    assert v._unique_id.startswith("a/b_")
    t = tf.constant(1.0)
    t._keras_mask = "mask"
    assert t._keras_mask == "mask"

    @tf.function
    def marked(x):
        y = x * 2
        y._keras_logits = x
        return y._keras_logits is x

    assert marked(t)


# --- the tf.keras entry point -----------------------------------------------------------------
def test_tf_keras_without_keras_names_the_extra(monkeypatch):
    monkeypatch.setattr(keras_binding, "keras_dir", lambda: None)
    before = sys.modules.get("tensorflow")
    loader = keras_loader.KerasLazyLoader()
    with pytest.raises(ImportError, match=r"pip install 'tensortrace\[keras\]'"):
        _ = loader.Sequential
    assert sys.modules.get("tensorflow") is before  # nothing installed on the way


def test_tf_keras_refuses_a_real_tensorflow_already_imported(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorflow", types.ModuleType("tensorflow"))
    with pytest.raises(ImportError, match="TensorFlow itself is already imported"):
        _ = keras_loader.KerasLazyLoader().layers


# --- variables made in Keras' scratch graph (compute_output_spec) -----------------------------
def test_a_scratch_func_graph_refuses_variables_from_its_tensors():
    # Keras builds a subclassed model by calling it in a bare FuncGraph; TF refuses a variable
    # whose initial value was computed there, and Keras then builds the layers eagerly
    with tf.__internal__.FuncGraph("scratch_graph").as_default():
        with pytest.raises(ValueError) as raised:
            tf.Variable(tf.zeros([3]), name="b")
        assert str(raised.value) == (
            "Argument `initial_value` (Tensor(\"zeros:0\", shape=(3,), dtype=float32)) could "
            "not be lifted out of a `tf.function`. (Tried to create variable with name='b'). "
            "To avoid this error, when constructing `tf.Variable`s inside of `tf.function` you "
            "can create the `initial_value` tensor in a `tf.init_scope` or pass a callable "
            "`initial_value` (e.g., `tf.Variable(lambda : tf.truncated_normal([10, 40]))`). "
            "Please file a feature request if this restriction inconveniences you.")
        assert tf.Variable(1.5).dtype == tf.float32  # a Python value is no graph tensor

    made = []

    @tf.function
    def first_call_creates():  # a trace lifts it: created on the first call, as TF's
        if not made:
            made.append(tf.Variable(tf.zeros([2]) + 1.0))
        return made[0].read_value()

    assert first_call_creates().numpy().tolist() == [1.0, 1.0]
