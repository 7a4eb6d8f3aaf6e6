"""``tf.config``: the switches tensortrace honours (or records: threading and placement mean
nothing on NumPy), and the device queries scripts make."""

import collections

from ._export import tf_export

_run_eagerly = [False]


@tf_export("config.run_functions_eagerly")
def run_functions_eagerly(run_eagerly):
    """Make every ``tf.function`` call its Python function directly (for debugging)."""
    _run_eagerly[0] = bool(run_eagerly)


@tf_export("config.functions_run_eagerly")
def functions_run_eagerly():
    return _run_eagerly[0]


tf_export("config.experimental_run_functions_eagerly")(run_functions_eagerly)
tf_export("config.experimental_functions_run_eagerly")(functions_run_eagerly)


# --- XLA: tf.config.optimizer.set_jit turns on auto-clustering: a tf.function whose
# jit_compile is unset compiles with XLA (through JAX) when every op of its graph can ----------
_jit = [False]


def _set_jit(enabled):
    """Configure JIT compilation: ``"autoclustering"`` (or True) compiles functions with XLA
    where every op can be; False or ``""`` turns it off."""
    _jit[0] = bool(enabled)


def _get_jit():
    """``"autoclustering"`` when ``set_jit`` turned auto-clustering on, else ``""``."""
    return "autoclustering" if _jit[0] else ""


_set_jit.__name__ = _set_jit.__qualname__ = "set_jit"
_get_jit.__name__ = _get_jit.__qualname__ = "get_jit"
tf_export("config.optimizer.set_jit")(_set_jit)
tf_export("config.optimizer.get_jit")(_get_jit)


# --- op determinism: every kernel here is deterministic already; the switch is kept so that
# what reads it back (Keras turns jit_compile off under it) sees what the program set ---------
_determinism = [False]


def _set_op_determinism(enabled):
    """TF's internal switch (``tensorflow.python.framework.config``'s enable and disable)."""
    _determinism[0] = bool(enabled)


def _op_determinism_enabled():
    return _determinism[0]


def _enable_op_determinism():
    """Make ops deterministic (they already are here: recorded only)."""
    _set_op_determinism(True)


_enable_op_determinism.__name__ = _enable_op_determinism.__qualname__ = "enable_op_determinism"
tf_export("config.experimental.enable_op_determinism")(_enable_op_determinism)


# --- switches recorded only: every op runs on the CPU, in the calling thread ------------------
_SWITCHES = {}


def _switch(key, default, convert, setter, getter, doc):
    """A recorded switch: the ``tf.config.{setter}`` that stores ``convert(value)`` and the
    ``tf.config.{getter}`` that reads it back."""
    _SWITCHES[key] = default

    def set_switch(value):
        _SWITCHES[key] = convert(value)

    def get_switch():
        return _SWITCHES[key]

    set_switch.__name__ = set_switch.__qualname__ = setter.rpartition(".")[2]
    get_switch.__name__ = get_switch.__qualname__ = getter.rpartition(".")[2]
    set_switch.__doc__ = doc
    return tf_export(f"config.{setter}")(set_switch), tf_export(f"config.{getter}")(get_switch)


set_soft_device_placement, get_soft_device_placement = _switch(
    "soft_device_placement", True, bool, "set_soft_device_placement",
    "get_soft_device_placement", "Recorded only: every op runs on the CPU.")
_switch(  # tf.config.threading's: engine-module names would show in tf.config itself
    "inter_op", 0, int, "threading.set_inter_op_parallelism_threads",
    "threading.get_inter_op_parallelism_threads",
    "Recorded only: ops run one after another in the calling thread.")
_switch(
    "intra_op", 0, int, "threading.set_intra_op_parallelism_threads",
    "threading.get_intra_op_parallelism_threads",
    "Threads a long elementwise run on big arrays may use (0: the cores this process may use).")
_switch(  # read where XLA lowers matmuls and convolutions (NumPy's kernels are full float32)
    "tensor_float_32", True, bool, "experimental.enable_tensor_float_32_execution",
    "experimental.tensor_float_32_execution_enabled",
    "Enable or disable TensorFloat-32 in matmuls and convolutions compiled with XLA on GPUs "
    "that have it (TF's default: enabled).")


# --- devices: the one CPU (NumPy runs there), which set_logical_device_configuration may split
# into several logical CPUs before the runtime starts, as TF's eager context does -------------
_PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
_LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])
_LogicalDeviceConfiguration = collections.namedtuple(
    "LogicalDeviceConfiguration",
    ["memory_limit", "experimental_priority", "experimental_device_ordinal"])


@tf_export("config.PhysicalDevice")
class PhysicalDevice(_PhysicalDevice):
    """A physical device of this machine: here only ``/physical_device:CPU:0``."""

    __slots__ = ()


@tf_export("config.LogicalDevice")
class LogicalDevice(_LogicalDevice):
    """A device ops can be placed on (``tf.device``): the CPU's logical devices."""

    __slots__ = ()


@tf_export("config.LogicalDeviceConfiguration",
           "config.experimental.VirtualDeviceConfiguration")
class LogicalDeviceConfiguration(_LogicalDeviceConfiguration):
    """One logical device carved out of a physical one (CPUs take no options)."""

    __slots__ = ()

    def __new__(cls, memory_limit=None, experimental_priority=None,
                experimental_device_ordinal=None):
        return super().__new__(cls, memory_limit, experimental_priority,
                               experimental_device_ordinal)


_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
_virtual_devices = {}  # physical device -> its list of LogicalDeviceConfiguration
# TF fixes the logical devices when its context starts (the first tensor, tf.device,
# list_logical_devices); convert sets this when it makes the first eager tensor.
_runtime_started = [False]


@tf_export("config.list_physical_devices", "config.experimental.list_physical_devices")
def list_physical_devices(device_type=None):
    """Only the CPU exists: NumPy runs there."""
    return [_CPU] if device_type in (None, "CPU") else []


@tf_export("config.list_logical_devices", "config.experimental.list_logical_devices")
def list_logical_devices(device_type=None):
    """The CPU's logical devices: ``/device:CPU:0``, or one per configured logical CPU."""
    _runtime_started[0] = True
    if device_type not in (None, "CPU"):
        return []
    count = len(_virtual_devices.get(_CPU) or ()) or 1
    return [LogicalDevice(f"/device:CPU:{i}", "CPU") for i in range(count)]


def _check_physical(device):
    if device not in (_CPU,):
        raise ValueError(f"Unrecognized device: {device!r}")


@tf_export("config.get_logical_device_configuration",
           "config.experimental.get_virtual_device_configuration")
def get_logical_device_configuration(device):
    """The logical devices set for the physical ``device``, or None."""
    _check_physical(device)
    return _virtual_devices.get(device)


@tf_export("config.set_logical_device_configuration",
           "config.experimental.set_virtual_device_configuration")
def set_logical_device_configuration(device, logical_devices):
    """Split the physical ``device`` into ``logical_devices`` (LogicalDeviceConfiguration each);
    only before the runtime starts, as in TF."""
    _check_physical(device)
    for vdev in logical_devices:  # TF's checks and texts for CPU devices
        if vdev.memory_limit is not None:
            raise ValueError("Setting memory limit on CPU virtual devices is currently not "
                             "supported")
        if vdev.experimental_priority is not None:
            raise ValueError("Setting experimental_priority on CPU virtual  devices is "
                             "currently not supported")
        if vdev.experimental_device_ordinal is not None:
            raise ValueError("Setting experimental_device_ordinal on CPU virtual  devices is "
                             "currently not supported")
    if _virtual_devices.get(device) == logical_devices:
        return
    if _runtime_started[0]:
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    _virtual_devices[device] = logical_devices
