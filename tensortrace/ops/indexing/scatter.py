"""Scattering: ScatterNd (``tf.scatter_nd``, updates added into zeros) and the TensorScatter*
ops (``tf.tensor_scatter_nd_update`` / add / sub / max / min: a copy of a tensor with updates
applied at N-d indices)."""

import numpy as np

from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import c_name, input_dtype_error, shape_text
from ...registry import DtypeCheck, OpDef, define_op, register
from ...tensor import TensorSpec, static_value
from .._base import ALL, INDEX, NUMERIC, REAL, check_dtypes
from ..math.operands import same_dtype_operands
from ._util import INDEX16, nd_bounds, result, to_tensor_like


def _apply_scatter(out, indices, updates, ufunc):
    """Apply ``updates`` at ``indices`` to ``out`` (a fresh array) in place; ``ufunc`` None
    assigns (the last of duplicate indices wins)."""
    depth = indices.shape[-1]
    nd_bounds(indices, out.shape[:depth], lambda at, coords: (
        f"{at} = [{coords}] does not index into shape {shape_text(out.shape)}"))
    n = int(np.prod(indices.shape[:-1], dtype=np.int64))
    if not n or not out.size:
        return out
    flat = indices.reshape(n, depth)
    rows = np.ravel_multi_index(tuple(flat.T), out.shape[:depth]) if depth else np.zeros(n, int)
    inner = int(np.prod(out.shape[depth:], dtype=np.int64))
    target, upd = out.reshape(-1, inner), updates.reshape(n, inner)
    if ufunc is None:
        target[rows] = upd
    else:
        ufunc.at(target, rows, upd)
    return out


@define_op("ScatterNd")
class ScatterNd:
    """A zero tensor of ``shape`` with ``updates`` added at ``indices`` (duplicates add)."""

    check = DtypeCheck("ScatterNd", INDEX16, 1, attr="Tindices")

    def infer(indices, updates, shape):
        check_dtypes("ScatterNd", (indices,), INDEX16, ("indices",))
        shape_v = static_value(shape)
        if shape_v is not None:
            return TensorSpec(shape_v.tolist(), updates.dtype)
        n = shape.shape.dims[0] if shape.shape.rank == 1 else None
        return TensorSpec(None if n is None else [None] * n, updates.dtype)

    def kernel(indices, updates, shape):
        if shape.dtype != indices.dtype:
            raise invalid_argument(
                f"cannot compute ScatterNd as input #2(zero-based) was expected to be a "
                f"{c_name(indices.dtype)} tensor but is a {c_name(shape.dtype)} tensor")
        shape = tuple(shape.tolist())
        updates = np.asarray(updates)
        if indices.ndim == 0:
            raise invalid_argument("Indices shape must have rank at least one. Found:[]")
        outer = indices.ndim - 1
        depth = indices.shape[-1]
        if indices.shape[:-1] != updates.shape[:outer]:
            raise invalid_argument(
                f"Dimensions [0,{outer}) of indices[shape={shape_text(indices.shape)}] must "
                f"match dimensions [0,{outer}) of updates[shape={shape_text(updates.shape)}]")
        if updates.shape[outer:] != shape[depth:]:
            raise invalid_argument(
                f"Dimensions [{depth},{len(shape)}) of input[shape={shape_text(shape)}] must "
                f"match dimensions [{outer},{updates.ndim}) of "
                f"updates[shape={shape_text(updates.shape)}]")
        if updates.dtype == object:
            out = np.full(shape, b"", dtype=object)
        else:
            out = np.zeros(shape, updates.dtype)
        return result(_apply_scatter(out, indices, updates, np.add))


@tf_export("scatter_nd")
def scatter_nd(indices, updates, shape, name=None):
    """``tf.scatter_nd``: scatter ``updates`` into a new zero tensor of ``shape``."""
    indices, shape = same_dtype_operands(indices, shape)
    return bind(ScatterNd, indices, convert_to_tensor(updates), shape)


def _check_scatter_shapes(tensor, indices, updates):
    """TF's shape checks for TensorScatter*: outer dims match, inner dims match the output."""
    if updates.ndim == 0 and indices.ndim:
        raise invalid_argument(f"Updates shape must have rank at least one. Found:"
                               f"{shape_text(updates.shape)}")
    outer = indices.ndim - 1
    depth = indices.shape[-1]
    if indices.shape[:-1] != updates.shape[:outer]:
        raise invalid_argument(f"Outer dimensions of indices and update must match. Indices "
                               f"shape: {shape_text(indices.shape)}, updates shape:"
                               f"{shape_text(updates.shape)}")
    inner = tensor.ndim - depth
    if inner < 0:
        raise invalid_argument(f"Inner dimensions of output shape must match inner dimensions of "
                               f"updates shape. Output: {shape_text(tensor.shape)} updates: "
                               f"{shape_text(updates.shape)}")
    if updates.shape[outer:] != tensor.shape[depth:]:
        raise invalid_argument(f"The inner {inner} dimensions of output.shape="
                               f"{shape_text(tensor.shape)} must match the inner {inner} "
                               f"dimensions of updates.shape={shape_text(updates.shape)}")


def _tensor_scatter(kind, ufunc, kernels):
    """TensorScatter<kind> and ``tf.tensor_scatter_nd_<kind>``: a copy of ``tensor`` with
    ``updates`` applied at ``indices`` by ``ufunc`` (None assigns: the last duplicate wins);
    ``kernels`` are the dtypes it has a kernel for."""
    op_name, public = f"TensorScatter{kind}", f"tensor_scatter_nd_{kind.lower()}"

    def infer(tensor, indices, updates):
        check_dtypes(op_name, (indices,), INDEX, ("indices",))
        check_dtypes(op_name, (tensor, updates), None, ("tensor", "updates"))
        return TensorSpec(tensor.shape, tensor.dtype)

    def kernel(tensor, indices, updates):
        tensor, updates = np.asarray(tensor), np.asarray(updates)
        _check_scatter_shapes(tensor, indices, updates)
        return result(_apply_scatter(tensor.copy(), indices, updates, ufunc))

    no_kernel = DtypeCheck(op_name, ALL, 1, kernels=kernels)

    def same_type(arrays):  # tensor and updates (inputs 0 and 2) share T: not one run of inputs
        if arrays[2].dtype != arrays[0].dtype:
            raise input_dtype_error(op_name, 2, arrays[0].dtype, arrays[2].dtype)
        no_kernel(arrays)

    opdef = register(OpDef(op_name, infer, kernel, check=DtypeCheck(
        op_name, INDEX, 1, first=1, attr="Tindices", then=same_type)))

    def fn(tensor, indices, updates, name=None):
        tensor = convert_to_tensor(tensor)
        return bind(opdef, tensor, convert_to_tensor(indices), to_tensor_like(updates, tensor))

    fn.__name__ = public
    fn.__doc__ = f"``tf.{public}``: a copy of ``tensor`` with ``updates`` applied at ``indices``."
    return tf_export(public)(fn)


tensor_scatter_nd_update = _tensor_scatter("Update", None, ALL)
tensor_scatter_nd_add = _tensor_scatter("Add", np.add, NUMERIC)
tensor_scatter_nd_sub = _tensor_scatter("Sub", np.subtract, NUMERIC)
tensor_scatter_nd_max = _tensor_scatter("Max", np.maximum, REAL)
tensor_scatter_nd_min = _tensor_scatter("Min", np.minimum, REAL)
