"""Op definitions by family. Importing this package registers every op."""

from . import core, math  # noqa: F401  (registration happens at import)
