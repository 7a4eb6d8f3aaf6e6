"""Neural-network ops: activations, softmax and losses, normalization, dropout, convolutions."""

# Names other modules and tests import from this package's old single-module path.
from ..math.special import _erfc as erfc  # noqa: F401  (nn's gelu uses math's erfc kernel)
from . import activations, conv_transpose, convolution, dropout, normalization, pooling, softmax  # noqa: F401  # noqa: F401
from ._kernels import Blas as _Blas  # noqa: F401
from .activations import relu  # noqa: F401
from .normalization import l2_loss  # noqa: F401
