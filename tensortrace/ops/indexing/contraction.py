"""Einsum: ``tf.einsum``, the tensor contractions written as equations (``"ij,jk->ik"``)."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...shapes import TensorShape
from ...tensor import TensorSpec
from .._base import ALL, COMPLEX, FLOAT, broadcast_shape, check_dtypes, graph_error
from ._util import result

_EINSUM_TYPES = FLOAT + (D.int32, D.int64) + COMPLEX


def _resolve_equation(equation, n_inputs):
    """Explicit form of an einsum equation (``"ij,jk"`` -> ``"ij,jk->ik"``), validated as TF."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    specs = lhs.split(",")
    if len(specs) != n_inputs:
        raise ValueError(f'Got {n_inputs} inputs for equation "{equation}", expecting '
                         f"{len(specs)}")
    labels = "".join(s.replace("...", "") for s in specs)
    if not arrow:
        once = sorted(c for c in set(labels) if labels.count(c) == 1)
        rhs = ("..." if "..." in lhs else "") + "".join(once)
    for c in rhs.replace("...", ""):
        if c not in labels:
            raise ValueError(f"Output subscripts contain the label {c} not present in the input "
                             f"subscripts.")
    return f"{lhs}->{rhs}", specs, rhs


def _labelled_dims(spec, dims):
    """(label, dim) pairs of one operand and its ellipsis dims (None when there is none)."""
    if "..." not in spec:
        return list(zip(spec, dims)), None
    pre, post = spec.split("...")
    n_ell = len(dims) - len(pre) - len(post)
    pairs = list(zip(pre, dims[:len(pre)])) + list(zip(post, dims[len(dims) - len(post):]))
    return pairs, dims[len(pre):len(pre) + n_ell]


def _label_axes(spec, rank):
    """The axis of each labelled dim of an operand, in ``_labelled_dims`` order."""
    if "..." not in spec:
        return list(range(len(spec)))
    pre, post = spec.split("...")
    return list(range(len(pre))) + list(range(rank - len(post), rank))


@define_op("Einsum")
class Einsum:
    """The contraction of the inputs that ``equation`` (explicit: ``"ij,jk->ik"``) spells."""

    check = DtypeCheck("Einsum", ALL, None, kernels=_EINSUM_TYPES)

    def infer(*inputs, equation):
        check_dtypes("Einsum", inputs, None, [f"inputs_{i}" for i in range(len(inputs))])
        dtype = inputs[0].dtype
        _, specs, rhs = _resolve_equation(equation, len(inputs))
        sizes, ellipsis = {}, TensorShape([])
        for spec, t in zip(specs, inputs):
            if t.shape.rank is None:
                if "..." in spec:
                    ellipsis = TensorShape(None)
                continue
            pairs, ell = _labelled_dims(spec, t.shape.dims)
            if ell is not None:
                ellipsis = broadcast_shape(ellipsis, TensorShape(ell), "Einsum")
            for label, d in pairs:
                known = sizes.get(label)
                if known is not None and d is not None and known != d:
                    raise graph_error("Einsum", f"Dimensions must be equal, but are {known} "
                                      f"and {d}", *(t.shape for t in inputs))
                if known is None:
                    sizes[label] = d
        if "..." in rhs and ellipsis.rank is None:
            return TensorSpec(None, dtype)
        pre, _, post = rhs.partition("...")
        dims = ([sizes.get(c) for c in pre] + (ellipsis.dims if "..." in rhs else [])
                + [sizes.get(c) for c in post])
        return TensorSpec(dims, dtype)

    def kernel(*arrays, equation):
        _, specs, _ = _resolve_equation(equation, len(arrays))
        sizes = {}
        for i, (spec, a) in enumerate(zip(specs, arrays)):
            shape = np.shape(a)
            n_labels = len(spec.replace("...", ""))
            if len(shape) != n_labels and ("..." not in spec or len(shape) < n_labels):
                raise invalid_argument(f"Expected input {i} to have rank {n_labels} but got: "
                                       f"{len(shape)}")
            pairs, _ = _labelled_dims(spec, list(shape))
            positions = _label_axes(spec, len(shape))
            for (label, d), axis in zip(pairs, positions):
                expected = sizes.setdefault(label, d)
                if expected != d:
                    raise invalid_argument(f"Expected dimension {expected} at axis {axis} of "
                                           f"the input shaped {shape_text(shape)} but got "
                                           f"dimension {d}")
        # planning costs ~10us; it pays off (BLAS contractions) beyond tiny operands
        plan = len(arrays) > 2 or sum(np.size(a) for a in arrays) > 256
        dtype = arrays[0].dtype
        if dtype.kind == "V":  # bfloat16: NumPy's einsum has no loop for it; float32 has
            arrays = [a.astype(np.float32) for a in arrays]
        out = np.einsum(equation, *arrays, optimize="greedy" if plan else False)
        return result(np.asarray(out).astype(dtype, copy=False))


@tf_export("einsum", "linalg.einsum")
def einsum(equation, *inputs, **kwargs):
    """``tf.einsum``: the tensor contraction written as an equation (``"ij,jk->ik"``)."""
    unknown = sorted(set(kwargs) - {"name", "optimize"})
    if unknown:
        raise TypeError(f"Invalid keyword arguments for einsum: {', '.join(unknown)}. Valid "
                        f"arguments: name, optimize, greedy.")
    tensors = [convert_to_tensor(x) for x in inputs]
    resolved, _, _ = _resolve_equation(equation, len(tensors))
    return bind(Einsum, *tensors, equation=resolved)
