"""Control flow: If/Case/While ops over compiled sub-graphs, tf.cond/case/switch_case/while_loop."""

from .records import (  # noqa: F401
    ASSERT, STATELESS_WHILE, WHILE, Assert, _dims, _stateful, _unify_captures, case, cond,
    switch_case, while_loop)
