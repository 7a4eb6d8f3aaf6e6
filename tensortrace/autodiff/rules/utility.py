"""Gradients of the core, state, random, strings, io, utility and debugging families: the few
ops that pass a gradient on, two whose gradient TF does not define, and the many that pass none
(random draws, strings, graph plumbing, prints)."""

from ...context import state
from ...ops import io
from ...ops.array.creation import zeros_like
from ...ops.debugging import check_numerics
from ..grad_util import no_gradient, not_differentiable, register_gradients
from ..tape import GradientTape

_NUMERICS_IN_GRADIENT = "Not a number (NaN) or infinity (Inf) values detected in gradient. "


def _identity(op, dy):
    return dy


def _check_numerics(op, dy):
    """The gradient is checked too, its message saying where."""
    return check_numerics(dy, _NUMERICS_IN_GRADIENT + repr(op.attrs["message"].encode()))


def _run_body(func, args):
    """Run a py_function's body under its own tape, watching its trainable (float) inputs, as
    TF's EagerFunc does when a gradient may be asked."""
    with GradientTape() as tape:
        for t in args:
            if t.dtype.is_floating or t.dtype.is_complex:
                tape.watch(t)
        result = func(*args)
    return tape, result


io._body_tape[:] = [_run_body]


def _eager_py_func(op, *dys):
    """TF's EagerPyFunc gradient: another py_function that differentiates the body's run (its
    kept tape). In a trace, the forward op's later runs are told to keep their tapes."""
    call = op.attrs["func"]
    if state.graph is not None:
        call.graph_gradient = True
    dys = [zeros_like(y) if dy is None else dy for y, dy in zip(op.outputs, dys)]
    n = len(op.inputs)
    return io.py_function(lambda *args: call.gradient(n, *args), [*op.inputs, *dys],
                          Tout=[t.dtype for t in op.inputs])


register_gradients({
    "EagerPyFunc":    _eager_py_func,
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
    # random: draws do not depend differentiably on their seeds or shapes (RandomGamma's
    # implicit reparameterisation in alpha: rules/random.py)
    "RandomUniform", "RandomUniformInt", "RandomStandardNormal", "TruncatedNormal",
    "Multinomial", "RandomShuffle", "RandomPoissonV2",
    "StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
    "StatelessRandomUniformInt", "StatelessRandomUniformFullInt", "StatelessMultinomial",
    "StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2",
    "StatelessRandomUniformIntV2", "StatelessRandomUniformFullIntV2",
    "StatelessRandomGetKeyCounter", "RngReadAndSkip",
    # strings
    "StringUpper", "StringLower", "StringStrip", "StringLength", "Substr", "StringJoin",
    "ReduceJoin", "StringSplitV2", "StringBytesSplit", "StaticRegexReplace", "RegexReplace",
    "StaticRegexFullMatch", "RegexFullMatch", "StringToNumber", "AsString",
    "UnicodeDecode", "UnicodeDecodeWithOffsets", "UnicodeEncode", "UnicodeTranscode",
    "UnicodeScript", "StringNGrams", "UnsortedSegmentJoin", "StringToHashBucketFast",
    "StringToHashBucket", "StringToHashBucketStrong", "Fingerprint",
    # io
    "PrintV2", "StringFormat", "DecodeRaw", "DecodePaddedRaw", "EncodeBase64", "DecodeBase64",
    "SerializeTensor", "ParseTensor", "DecodeCSV", "ReadFile", "WriteFile", "ParseExampleV2",
    "ParseSequenceExampleV2",
    # utility
    "Timestamp", "HistogramFixedWidth",
    # lookup tables (TF's lookup_grad.py; the rest take and give no differentiable values)
    "HashTableV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2", "MutableDenseHashTableV2",
    "LookupTableFindV2", "LookupTableInsertV2", "LookupTableRemoveV2", "LookupTableSizeV2",
    "LookupTableExportV2", "LookupTableImportV2", "InitializeTableV2",
    "InitializeTableFromTextFileV2", "AnonymousHashTable", "AnonymousMutableHashTable",
    "InitializeTableFromDataset", "DestroyResourceOp",
)
