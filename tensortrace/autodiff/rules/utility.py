"""Gradients of the core, state, random, strings, io, utility and debugging families: most of
their ops pass no gradient (random draws, strings, graph plumbing, prints)."""

from ..grad_util import not_differentiable

not_differentiable(
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
)
