"""Gradients of the core, state, random, strings, io, utility and debugging families: the few
ops that pass a gradient on, two whose gradient TF does not define, and the many that pass none
(random draws, strings, graph plumbing, prints)."""

from ...ops.debugging import check_numerics
from ..grad_util import no_gradient, not_differentiable, register_gradients

_NUMERICS_IN_GRADIENT = "Not a number (NaN) or infinity (Inf) values detected in gradient. "


def _identity(op, dy):
    return dy


def _check_numerics(op, dy):
    """The gradient is checked too, its message saying where."""
    return check_numerics(dy, _NUMERICS_IN_GRADIENT + repr(op.attrs["message"].encode()))


register_gradients({
    "ReadVariableOp": _identity,  # to the variable: the tape maps its handle to it
    "EnsureShape":    _identity,
    "CheckNumerics":  _check_numerics,
    "Bitcast":        no_gradient,
    "DenseBincount":  no_gradient,
})

not_differentiable(
    # graph plumbing, variables, the optimizer's own ops (optimized graphs are never
    # differentiated)
    "Const", "Placeholder", "NoOp", "AssignVariableOp", "AssignAddVariableOp",
    "AssignSubVariableOp", "InitializeVariableOnce", "VarIsInitializedOp", "IndexAxis0",
    "ResourceScatterNdUpdate", "ResourceScatterNdAdd", "ResourceScatterNdSub",
    "ResourceScatterNdMax", "ResourceScatterNdMin",
    # random: draws do not depend differentiably on their seeds or shapes; RandomGamma's
    # implicit reparameterisation (TF's RandomGammaGrad) is not implemented
    "RandomUniform", "RandomUniformInt", "RandomStandardNormal", "TruncatedNormal",
    "Multinomial", "RandomShuffle", "RandomGamma", "RandomPoissonV2",
    "StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
    "StatelessRandomUniformInt", "StatelessRandomUniformFullInt", "StatelessMultinomial",
    "RngReadAndSkip",
    # strings
    "StringUpper", "StringLower", "StringStrip", "StringLength", "Substr", "StringJoin",
    "ReduceJoin", "StringSplitV2", "StringBytesSplit", "StaticRegexReplace", "RegexReplace",
    "StaticRegexFullMatch", "RegexFullMatch", "StringToNumber", "AsString",
    # io
    "PrintV2", "EagerPyFunc", "StringFormat",
    # utility
    "Timestamp", "HistogramFixedWidth",
)
