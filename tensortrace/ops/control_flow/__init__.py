"""Control flow: If/Case/While ops over compiled sub-graphs, tf.cond/case/switch_case/while_loop."""

# Re-exports for modules that import from the package path (until they import the submodules).
from ..tensor_array.list_value import shape_attr as _dims  # noqa: F401
from . import codegen, conditionals, loops, records, subgraphs  # noqa: F401
from .conditionals import case, cond, switch_case  # noqa: F401
from .loops import while_loop  # noqa: F401
from .records import ASSERT, CASE, IF, STATELESS_CASE, STATELESS_IF, STATELESS_WHILE, WHILE, Assert  # noqa: F401  # noqa: F401
from .subgraphs import any_stateful as _stateful  # noqa: F401
from .subgraphs import unify_captures as _unify_captures  # noqa: F401
