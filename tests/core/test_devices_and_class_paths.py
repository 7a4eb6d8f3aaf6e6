"""tf.config's logical devices (TF 2.21's values, checks and messages) and, under the runner,
TF's class paths (``print(type(x))`` as TF 2.21 prints it). Device configuration is per
process, as TF's context is, so each case runs in a fresh interpreter."""

import os
import subprocess
import sys
import textwrap

import pytest

import tensortrace as tf
from tensortrace import config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_NO_OPTS = "memory_limit=None, experimental_priority=None, experimental_device_ordinal=None"


def _run(source, runner=False, tmp_path=None):
    env = dict(os.environ, PYTHONPATH=ROOT)
    if runner:  # python -m tensortrace SCRIPT
        script = tmp_path / "prog.py"
        script.write_text(textwrap.dedent(source))
        head, source = [sys.executable, "-m", "tensortrace", str(script)], ""
    else:
        head = [sys.executable, "-"]
    out = subprocess.run(head, input=textwrap.dedent(source), env=env, cwd=ROOT, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    return out.stdout


def test_logical_devices_default_and_reprs():
    assert repr(tf.config.list_logical_devices()) == \
        "[LogicalDevice(name='/device:CPU:0', device_type='CPU')]"
    assert repr(tf.config.list_physical_devices()) == \
        "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]"
    assert tf.config.list_logical_devices("GPU") == []
    assert repr(tf.config.LogicalDeviceConfiguration()) == \
        f"LogicalDeviceConfiguration({_NO_OPTS})"
    assert tf.config.experimental.VirtualDeviceConfiguration is \
        tf.config.LogicalDeviceConfiguration
    device = tf.config.list_logical_devices()[0]
    assert (device.name, device.device_type) == ("/device:CPU:0", "CPU")  # a namedtuple


def test_carving_the_cpu_into_logical_devices():
    out = _run("""\
        import tensortrace as tf
        cpu = tf.config.list_physical_devices("CPU")[0]
        print(tf.config.get_logical_device_configuration(cpu))
        for bad in ["CPU:0", cpu]:
            try:
                opts = [tf.config.LogicalDeviceConfiguration(memory_limit=5)]
                tf.config.set_logical_device_configuration(bad, opts)
            except ValueError as e:
                print("ValueError", e)
        c = tf.config.experimental.VirtualDeviceConfiguration()
        tf.config.experimental.set_virtual_device_configuration(cpu, [c, c])
        tf.config.set_logical_device_configuration(cpu, [c, c, c])   # before the runtime
        print(len(tf.config.experimental.get_virtual_device_configuration(cpu)))
        print(tf.config.list_logical_devices())
        tf.config.set_logical_device_configuration(cpu, [c, c, c])   # the same: no error
        try:
            tf.config.set_logical_device_configuration(cpu, [c])
        except RuntimeError as e:
            print("RuntimeError", e)
        with tf.device("/cpu:2"):
            print(tf.constant(1) + 1)
    """)
    assert out == (
        "None\n"
        "ValueError Unrecognized device: 'CPU:0'\n"
        "ValueError Setting memory limit on CPU virtual devices is currently not supported\n"
        "3\n"
        "[LogicalDevice(name='/device:CPU:0', device_type='CPU'), LogicalDevice(name="
        "'/device:CPU:1', device_type='CPU'), LogicalDevice(name='/device:CPU:2', "
        "device_type='CPU')]\n"
        "RuntimeError Virtual devices cannot be modified after being initialized\n"
        "tf.Tensor(2, shape=(), dtype=int32)\n")


@pytest.mark.parametrize("start", [lambda: tf.constant(1.0), lambda: tf.Variable(1.0),
                                   tf.config.list_logical_devices,
                                   lambda: tf.data.Dataset.range(3), lambda: tf.device("/cpu:0")])
def test_the_runtime_starts_with_the_first_tensor(start):
    """What starts TF's context (checked in TF 2.21); TensorShape and tf.function do not."""
    started = config._runtime_started
    was = started[0]
    try:
        started[0] = False
        tf.TensorShape([1])
        tf.function(lambda: 1)
        assert not started[0]
        start()
        assert started[0]
    finally:
        started[0] = was


# TF 2.21: print(type(x)) for each kind of value users see
_TF_TYPES = """\
tensorflow.python.framework.ops.EagerTensor
tensorflow.python.framework.sparse_tensor.SparseTensor
tensorflow.python.ops.ragged.ragged_tensor.RaggedTensor
tensorflow.python.ops.resource_variable_ops.ResourceVariable
tensorflow.python.framework.tensor_shape.TensorShape
tensorflow.python.framework.dtypes.DType
tensorflow.python.framework.tensor.TensorSpec
tensorflow.python.framework.indexed_slices.IndexedSlices
tensorflow.python.module.module.Module
tensorflow.python.eager.backprop.GradientTape
tensorflow.python.ops.stateful_random_ops.Generator
tensorflow.python.eager.polymorphic_function.polymorphic_function.Function
tensorflow.python.checkpoint.checkpoint.Checkpoint
tensorflow.python.eager.context.LogicalDevice
tensorflow.python.data.ops.iterator_ops.OwnedIterator
tensorflow.python.data.ops.dataset_ops.NumpyIterator
tensorflow.python.data.ops.range_op._RangeDataset
tensorflow.python.data.ops.from_tensor_slices_op._TensorSliceDataset
tensorflow.python.data.ops.map_op._MapDataset
tensorflow.python.data.ops.filter_op._FilterDataset
tensorflow.python.data.ops.batch_op._BatchDataset
tensorflow.python.data.ops.shuffle_op._ShuffleDataset
tensorflow.python.data.ops.repeat_op._RepeatDataset
tensorflow.python.data.ops.zip_op._ZipDataset
tensorflow.python.data.ops.concatenate_op._ConcatenateDataset
tensorflow.python.data.ops.prefetch_op._PrefetchDataset
tensorflow.python.data.experimental.ops.readers.CsvDatasetV2
tensorflow.python.framework.errors_impl.InvalidArgumentError
tensorflow.python.framework.errors_impl.OutOfRangeError
"""


def test_runner_gives_classes_tf_paths(tmp_path):
    (tmp_path / "a.csv").write_text("1\n")
    out = _run(f"""\
        import tensorflow as tf
        x = tf.constant(1.0)
        ds = tf.data.Dataset.range(4)
        values = [x, tf.sparse.from_dense([[1, 0]]), tf.ragged.constant([[1], [2, 3]]),
                  tf.Variable(1.0), tf.TensorShape([1]), tf.float32, tf.TensorSpec([1]),
                  tf.IndexedSlices(x, x), tf.Module(), tf.GradientTape(),
                  tf.random.Generator.from_seed(1), tf.function(lambda: 1.0),
                  tf.train.Checkpoint(), tf.config.list_logical_devices()[0], iter(ds),
                  ds.as_numpy_iterator(), ds, tf.data.Dataset.from_tensor_slices([1]),
                  ds.map(lambda v: v), ds.filter(lambda w: True), ds.batch(2), ds.shuffle(2),
                  ds.repeat(), tf.data.Dataset.zip((ds, ds)), ds.concatenate(ds),
                  ds.prefetch(1),
                  tf.data.experimental.CsvDataset({str(tmp_path / "a.csv")!r}, [0])]
        for v in values:
            print(type(v).__module__ + "." + type(v).__qualname__)
        for error in [tf.errors.InvalidArgumentError, tf.errors.OutOfRangeError]:
            print(str(error)[8:-2])
    """, runner=True, tmp_path=tmp_path)
    assert out == _TF_TYPES


def test_renamed_classes_keep_what_the_package_installs_when_they_load(tmp_path):
    # Tensor's operators are installed when its module first runs: under the runner, which
    # also names its classes as TF's then, both must happen
    out = _run("""\
        import tensorflow as tf
        x = tf.constant([1.0, 2.0])
        print(type(x).__module__, (x + x)[1].numpy(), ((2 * x)[None] @ tf.ones([2, 1])).numpy().tolist())
    """, runner=True, tmp_path=tmp_path)
    assert out == "tensorflow.python.framework.ops 4.0 [[6.0]]\n"


def test_import_tensortrace_keeps_its_own_paths():
    assert type(tf.constant(1.0)).__module__ == "tensortrace.tensor"
    assert tf.errors.InvalidArgumentError.__module__ == "tensortrace.errors"
    assert type(tf.data.Dataset.range(2)).__qualname__ == "_RangeDataset"
