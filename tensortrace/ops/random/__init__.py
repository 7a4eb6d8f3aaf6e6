"""Random ops (``tf.random.*``): seeds, the stateful ops and the stateless ones."""

from . import seeds, stateful, stateless  # noqa: F401
from ._common import shape_tensor  # noqa: F401
from .seeds import (  # noqa: F401
    _GLOBAL,
    _STREAM_IDS,
    _STREAMS,
    DEFAULT_GRAPH_SEED,
    get_seed,
    set_seed,
)
from .seeds import seed_attrs as _seed_attrs  # noqa: F401  (nn's dropout looks these two up)
from .seeds import stream_generator as _generator  # noqa: F401
from .stateful import (  # noqa: F401
    categorical,
    gamma,
    normal,
    poisson,
    shuffle,
    truncated_normal,
    uniform,
)
from .stateless import (  # noqa: F401
    stateless_categorical,
    stateless_normal,
    stateless_truncated_normal,
    stateless_uniform,
)
