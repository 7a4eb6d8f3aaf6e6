"""Shape and array ops (being split into one module per job)."""

from .reshaping import *  # noqa: F401,F403
from .reshaping import public  # noqa: F401
