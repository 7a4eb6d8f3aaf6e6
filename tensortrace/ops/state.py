"""Variable ops: reads and writes of a variable through its resource handle.

At run time a resource tensor's value is the ``Variable`` object itself, so these kernels read and
replace ``variable._array`` (never mutating an array in place: earlier reads stay valid).
"""

import numpy as np

from .. import dtypes as D
from ..errors import FailedPreconditionError
from ..registry import OpDef, define_op, register
from ..tensor import TensorSpec


def _value_of(var):
    value = var._array
    if value is None:
        raise FailedPreconditionError(
            None, None, f"Could not find variable {var.name}. The variable was created inside a "
            "tf.function whose first call has not run yet, so it is still uninitialized.")
    return value


@define_op("ReadVariableOp", stateful=True)
class ReadVariableOp:
    """The current value of a variable."""

    def infer(resource, dtype, shape):
        return TensorSpec(shape, dtype)

    def kernel(resource, dtype, shape):
        return _value_of(resource)


def _checked(var, value, op_name):
    value = np.asarray(value)
    if value.dtype != var._np_dtype:
        raise TypeError(f"{op_name}: the value has dtype {D.from_numpy(value.dtype).name}, the "
                        f"variable {var.name} has dtype {var.dtype.name}")
    if var._shape_known and value.shape != var._value_shape:
        raise ValueError(f"Cannot assign value to variable ' {var.name}': Shape mismatch.The "
                         f"variable shape {var.shape}, and the assigned value shape "
                         f"{value.shape} are incompatible.")
    return value


def _assign_kernel(update):
    def kernel(resource, value):
        resource._array = _checked(resource, update(_value_of(resource), value), "assign")
        return ()

    return kernel


def _assign_infer(resource, value):
    return ()


for _name, _update in (
    ("AssignVariableOp", lambda old, new: new),
    ("AssignAddVariableOp", lambda old, delta: old + delta),
    ("AssignSubVariableOp", lambda old, delta: old - delta),
):
    register(OpDef(_name, _assign_infer, _assign_kernel(_update), stateful=True))


@define_op("InitializeVariableOnce", stateful=True)
class InitializeVariableOnce:
    """Set a variable created while tracing from a value computed in the graph, the first time
    the graph runs (TF lifts such initializers; the seeds' ``tf.Variable(2.0 * x)``)."""

    def infer(resource, value):
        return ()

    def kernel(resource, value):
        if resource._array is None:
            resource._array = np.asarray(value)
        return ()


@define_op("VarIsInitializedOp", stateful=True)
class VarIsInitializedOp:
    """Whether the variable has a value yet."""

    def infer(resource):
        return TensorSpec((), D.bool)

    def kernel(resource):
        return np.bool_(resource._array is not None)
