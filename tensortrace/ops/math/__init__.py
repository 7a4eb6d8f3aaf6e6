"""Elementwise math ops, their public functions, and the Python operators on tensors."""

from .arithmetic import *  # noqa: F401,F403
from .arithmetic import _erf, _erfc, _sigmoid  # noqa: F401
