"""Random ops (``tf.random.*``), being split by kind: for now one module, re-exported here."""

from .stateful import (  # noqa: F401
    _GLOBAL,
    _STREAM_IDS,
    _STREAMS,
    DEFAULT_GRAPH_SEED,
    _generator,
    _seed_attrs,
    categorical,
    gamma,
    get_seed,
    normal,
    poisson,
    set_seed,
    shape_tensor,
    shuffle,
    stateless_categorical,
    stateless_normal,
    stateless_truncated_normal,
    stateless_uniform,
    truncated_normal,
    uniform,
)
