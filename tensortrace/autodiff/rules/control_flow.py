"""Gradients of functional control flow, built by ``autodiff.control_flow_grad``: an If/Case's
gradient is an If/Case of the branches' backward graphs, a While's a While running the body's
backward graph over the saved iterations, in reverse."""

from ...context import bind
from ...ops.control_flow.records import CASE, IF, STATELESS_CASE, STATELESS_IF
from ...ops.control_flow.subgraphs import any_stateful
from ..control_flow_grad import cond_grad, while_grad
from ..grad_util import not_differentiable, register_gradients


def _make_if(pred, graphs, captured, tout, shapes):
    opdef = IF if any_stateful(graphs) else STATELESS_IF
    return bind(opdef, pred, *captured, then_branch=graphs[0], else_branch=graphs[1], Tout=tout,
                output_shapes=shapes)


def _make_case(index, graphs, captured, tout, shapes):
    opdef = CASE if any_stateful(graphs) else STATELESS_CASE
    return bind(opdef, index, *captured, branches=tuple(graphs), Tout=tout, output_shapes=shapes)


def _if(op, *dys):
    return cond_grad(op, dys, (op.attrs["then_branch"], op.attrs["else_branch"]), _make_if)


def _case(op, *dys):
    return cond_grad(op, dys, op.attrs["branches"], _make_case)


def _while(op, *dys):
    return while_grad(op, dys)


register_gradients({
    "If":             _if,
    "StatelessIf":    _if,
    "Case":           _case,
    "StatelessCase":  _case,
    "While":          _while,
    "StatelessWhile": _while,
})

not_differentiable("Assert")
