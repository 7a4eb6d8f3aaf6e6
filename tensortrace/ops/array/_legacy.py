"""``public("math.exp")``, a public function looked up by its exported name, kept only for the
indexing and reduce families (through ``ops.array``) until they import directly."""

from ..._export import exports

_PUBLIC = {}


def public(name):
    """A public function another op module exports (``"math.exp"``), looked up when first used
    so the op modules need not import one another in a fixed order."""
    fn = _PUBLIC.get(name)
    if fn is None:
        namespace, _, short = name.rpartition(".")
        fn = exports(namespace).get(short)
        if fn is None:
            raise NotImplementedError(f"tf.{name} is not available in tensortrace yet")
        _PUBLIC[name] = fn
    return fn
