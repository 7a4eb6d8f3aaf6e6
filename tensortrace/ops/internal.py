"""Ops that only the optimizer creates: cheaper equivalents of TF ops in common shapes. They never
appear in traced graphs (what users inspect and save), only in the optimized graphs that run."""

from ..errors import invalid_argument
from ..registry import define_op
from ..tensor import TensorSpec


@define_op("IndexAxis0", expr="{0}[{1}]")
class IndexAxis0:
    """``x[i]`` for a scalar index: StridedSlice(x, Pack(i), ..., shrink_axis_mask=1). Compiled
    code indexes inline; ``message`` gives NumPy's IndexError TF's wording."""

    def infer(x, i):
        return TensorSpec(x.shape[1:], x.dtype)

    def kernel(x, i):
        try:
            return x[i]
        except IndexError:
            raise invalid_argument(f"slice index {int(i)} of dimension 0 out of bounds.") from None

    def reword(error, op):
        if isinstance(error, IndexError):
            index = str(error).split()[1] if str(error).startswith("index ") else "?"
            return f"slice index {index} of dimension 0 out of bounds."
        return None
