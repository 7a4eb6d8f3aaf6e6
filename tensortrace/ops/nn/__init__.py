"""Neural-network ops: activations, softmax and losses, normalization, dropout, convolutions."""

from . import activations, conv_transpose, convolution, dropout, normalization  # noqa: F401
from . import pooling, softmax  # noqa: F401

# Names other modules and tests import from this package's old single-module path.
from ..math import _erfc as erfc  # noqa: F401  (nn's gelu uses math's erfc kernel)
from ._kernels import Blas as _Blas  # noqa: F401
from .activations import relu  # noqa: F401
from .normalization import l2_loss  # noqa: F401
