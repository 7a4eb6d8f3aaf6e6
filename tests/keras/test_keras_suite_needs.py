"""What Keras' own test suite (layers, trainers, saving ...) found missing or different in TF's
behaviour, pinned on its own (no Keras imported). Expected values are TF 2.21's."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace._tf_internal import modules


class _ArrayLike:
    """An object offering NumPy's array protocol only (as JAX arrays do)."""

    def __array__(self, dtype=None, copy=None):
        return np.arange(3)


def test_values_with_the_array_protocol_convert():
    t = tf.constant(_ArrayLike())
    assert t.dtype == tf.int64 and t.numpy().tolist() == [0, 1, 2]
    t = tf.convert_to_tensor(_ArrayLike(), tf.float32)
    assert t.dtype == tf.float32 and t.numpy().tolist() == [0.0, 1.0, 2.0]
    st = tf.SparseTensor([[0], [1], [2]], _ArrayLike(), [3])
    assert st.values.dtype == tf.int64 and st.values.numpy().tolist() == [0, 1, 2]


def test_trackable_dependency_store_is_listed_by_every_instance():
    """Keras' saving skips the attributes a fresh Layer has; the store of a Trackable's
    dependencies must be among them, or a saved model gains a second copy of its layers."""
    fresh, used = tf.__internal__.tracking.AutoTrackable(), tf.__internal__.tracking.AutoTrackable()
    used.child = tf.__internal__.tracking.AutoTrackable()
    extra = set(dir(used)) - set(dir(fresh))
    assert extra == {"child"}
    assert used._trackable_children() == {"child": used.child}


def test_op_determinism_switch_reads_back():
    """tf.config.experimental.enable_op_determinism and TF's internal disable/is_enabled (Keras
    reads it to turn jit_compile off)."""
    members = modules.framework_config()
    assert members["is_op_determinism_enabled"]() is False
    tf.config.experimental.enable_op_determinism()
    try:
        assert members["is_op_determinism_enabled"]() is True
    finally:
        members["disable_op_determinism"]()
    assert members["is_op_determinism_enabled"]() is False
    assert not hasattr(tf.config, "enable_op_determinism")


def _ncdhw_inputs():
    x = np.arange(2 * 4 * 5 * 4 * 3, dtype=np.float32).reshape(2, 4, 5, 4, 3) / 100
    k = (np.arange(2 * 2 * 3 * 2 * 4, dtype=np.float32).reshape(2, 2, 3, 2, 4) - 20) / 50
    return x, k


def test_convolution_ncdhw_puts_strides_in_the_format_order():
    """tf.nn.convolution of a channels-first 5-D input: the Conv3D's strides and dilations are
    in NCDHW order (TF runs it under XLA only: its CPU kernel is NDHWC-only)."""
    x, k = _ncdhw_inputs()
    fn = tf.function(lambda v: tf.nn.convolution(v, k, [2, 1, 2], "VALID", data_format="NCDHW"))
    graph = fn.get_concrete_function(tf.TensorSpec(x.shape)).graph
    conv, = [op for op in graph.get_operations() if op.type == "Conv3D"]
    assert conv.get_attr("strides") == (1, 1, 2, 1, 2)
    assert conv.get_attr("dilations") == (1, 1, 1, 1, 1)
    assert conv.outputs[0].shape == (2, 4, 2, 3, 1)
    fn = tf.function(lambda v: tf.nn.convolution(v, k, [1, 1, 1], "SAME", data_format="NCDHW",
                                                 dilations=[1, 2, 1]))
    graph = fn.get_concrete_function(tf.TensorSpec(x.shape)).graph
    conv, = [op for op in graph.get_operations() if op.type == "Conv3D"]
    assert conv.get_attr("dilations") == (1, 1, 1, 2, 1)
    assert conv.outputs[0].shape == (2, 4, 5, 4, 3)


def test_raw_ops_image_projective_transform_takes_keywords():
    """tf.raw_ops.ImageProjectiveTransformV3/V2 (Keras' affine_transform calls them): keyword
    arguments only, as TF's raw op functions; a shift by one column, filled with zeros."""
    img = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
    shift = [[1.0, 0, 1, 0, 1, 0, 0, 0]]
    out = tf.raw_ops.ImageProjectiveTransformV3(
        images=img, transforms=shift, output_shape=[4, 4], fill_value=0.0,
        interpolation="NEAREST", fill_mode="CONSTANT")
    expected = [[1, 2, 3, 0], [5, 6, 7, 0], [9, 10, 11, 0], [13, 14, 15, 0]]
    assert out[0, :, :, 0].numpy().tolist() == expected
    out = tf.raw_ops.ImageProjectiveTransformV2(images=img, transforms=shift, output_shape=[4, 4],
                                                interpolation="NEAREST")
    assert out[0, :, :, 0].numpy().tolist() == expected
    with pytest.raises(TypeError):
        tf.raw_ops.ImageProjectiveTransformV3(img, shift, [4, 4], 0.0, "NEAREST")


def test_shape_lists_of_float_scalars_cast_to_int32():
    """TF converts a shape list with its preferred int32 first, casting the list's tensors:
    ``tf.reshape(x, (k[0], k[1], 1, 1))`` with float ``k`` works, truncating (Keras' gaussian
    blur kernel); a float shape tensor itself is still refused."""
    k = tf.constant([3.5, 2.0])
    assert tf.reshape(tf.ones([6]), (k[0], k[1])).shape == (3, 2)
    fn = tf.function(lambda v: tf.reshape(tf.ones([9]), (v[0], v[1], 1, 1)))
    assert fn(tf.constant([3.0, 3.0])).shape == (3, 3, 1, 1)
    graph = fn.get_concrete_function(tf.TensorSpec([2])).graph
    assert [op.type for op in graph.get_operations()].count("Cast") == 2
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'Tshape' of float "
                                                             "is not in the list of allowed "
                                                             "values: int32, int64"):
        tf.reshape(tf.ones([9]), tf.constant([3.0, 3.0]))


def test_lists_of_tensors_cast_to_a_requested_dtype():
    """convert_to_tensor(list, dtype): TF casts the list's tensors of another dtype (Keras'
    convert_to_tensor of a kernel size holding an int tensor, as float32)."""
    fn = tf.function(lambda n: tf.convert_to_tensor([n | 1, n], dtype=tf.float32))
    out = fn(tf.constant(4))
    assert out.dtype == tf.float32 and out.numpy().tolist() == [5.0, 4.0]
    out = tf.convert_to_tensor([tf.constant(3), 2.5], dtype=tf.float32)
    assert out.dtype == tf.float32 and out.numpy().tolist() == [3.0, 2.5]
