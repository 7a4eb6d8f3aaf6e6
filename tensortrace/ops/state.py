"""Variable ops: reads and writes of a variable through its resource handle.

At run time a resource tensor's value is the ``Variable`` object itself, so these kernels read and
replace ``variable._array`` (never mutating an array in place: earlier reads stay valid). An
update's read-modify-write holds the variable's ``_lock``, as TF's kernels hold the variable's
mutex: concurrent ``assign_add`` calls from many threads lose no update.
"""

import numpy as np

from .. import dtypes as D
from ..errors import FailedPreconditionError, invalid_argument
from ..messages import enum_name, merge_error_text, node_error, shape_text
from ..registry import OpDef, define_op, get, register
from ..tensor import TensorSpec
from .indexing import scatter  # noqa: F401 - registers the TensorScatter ops used below


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


_UPDATES = {"AssignAddVariableOp": np.add, "AssignSubVariableOp": np.subtract}


def update(var, op_name, value, tag_op=True):
    """``var`` assigned (``AssignVariableOp``) or updated by ``value`` under its lock; an update
    needs a value of the variable's exact shape (TF's kernels do not broadcast). ``tag_op``:
    the error ends in ``[Op:name]``, as eager errors do. ``value``: an ndarray or NumPy
    scalar."""
    with var._lock:
        if op_name == "AssignVariableOp":
            new = value
        else:
            old = _value_of(var)
            if old.shape != value.shape:
                raise invalid_argument(
                    f"Cannot update variable with shape {shape_text(old.shape)} using a Tensor "
                    f"with shape {shape_text(value.shape)}, shapes must be equal.",
                    op_name if tag_op else None)
            new = _UPDATES[op_name](old, value)
        var._array = _checked(var, new, "assign")


def check_update_shape(var, handle, value, op_name):
    """TF's graph-time shape function of AssignAdd/SubVariableOp: the variable's static shape
    merges with the value's, else the node's ValueError (raised before the op is added)."""
    if not var.shape.is_compatible_with(value.shape):
        names = ", ".join(getattr(getattr(t, "op", None), "name", "Placeholder")
                          for t in (handle, value))
        raise node_error(merge_error_text(var.shape, value.shape), op_name,
                         ["[]", shape_text(value.shape)], f"dtype=DT_{enum_name(var.dtype)}",
                         names)


def _assign_kernel(op_name):
    def kernel(resource, value):
        update(resource, op_name, value, tag_op=False)
        return ()

    return kernel


def _assign_infer(resource, value):
    return ()


for _name in ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"):
    register(OpDef(_name, _assign_infer, _assign_kernel(_name), stateful=True))


def _resource_scatter(kind):
    """ResourceScatterNd<kind>: TensorScatter<kind> applied to the variable in place, its read,
    scatter and write under the variable's lock (TF's kernel holds the variable's mutex).
    ``dtype``/``shape``: the variable's, for the shape function (as ReadVariableOp has)."""
    tensor_op = get(f"TensorScatter{kind}")

    def infer(resource, indices, updates, dtype, shape):
        tensor_op.infer(TensorSpec(shape, dtype), indices, updates)  # TF's graph-time checks
        return ()

    def kernel(resource, indices, updates, dtype, shape):
        with resource._lock:
            old = _value_of(resource)
            if tensor_op.check is not None:
                tensor_op.check((old, indices, updates))
            resource._array = tensor_op.kernel(old, indices, updates)
        return ()

    return register(OpDef(f"ResourceScatterNd{kind}", infer, kernel, stateful=True))


RESOURCE_SCATTER = {kind.lower(): _resource_scatter(kind)
                    for kind in ("Update", "Add", "Sub", "Max", "Min")}


@define_op("InitializeVariableOnce", stateful=True)
class InitializeVariableOnce:
    """Set a variable created while tracing from a value computed in the graph, the first time
    the graph runs (TF lifts such initializers; the seeds' ``tf.Variable(2.0 * x)``)."""

    def infer(resource, value):
        return ()

    def kernel(resource, value):
        with resource._lock:  # concurrent first runs initialize it once
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


@define_op("DestroyResourceOp", stateful=True)
class DestroyResourceOp:
    """Free a resource: nothing to do here (Python frees it with its last reference); TF's
    ``_destroy_resource`` functions of saved resources call it."""

    def infer(resource, ignore_lookup_error=True):
        return ()

    def kernel(resource, ignore_lookup_error=True):
        return ()
