"""tensortrace's fused ops that TF builds from several ops, written out as TF's ops for a GraphDef.

TF has no Gelu, Silu, Moments, L2Normalize, BatchNormalization, Norm, MatrixTranspose or
HistogramSummaryBuckets op: its Python functions compose them (tf.nn.gelu, tf.nn.moments, tf.norm,
tf.summary.histogram ...). A GraphDef TF can load holds that composition, so export expands each
into the ops TF's function builds, in TF's order of operations. ``expand(body, op)`` returns the
references of the op's outputs, or None when the op has no expansion here (a SavedModel then
refuses an op TF lacks; a lenient GraphDef view keeps it under its own type).
"""

import math

import numpy as np

from .. import dtypes
from . import tf_attrs
from .tf_attrs import EXTRA_PREFIX


def register(op_type, rule):
    """An upper layer's rule writing its own op as TF's nodes (tf.data's pipelines):
    ``rule(emit, op, *inputs, **attrs)`` -> the outputs' references, or None."""
    _RULES[op_type] = rule


def has_rule(op_type):
    return op_type in _RULES


def expand(body, op):
    rule = _RULES.get(op.type)
    if rule is None:
        return None
    return rule(_Emit(body, op), op, *op.inputs, **op.attrs)


class _Emit:
    """Emits TF nodes named under the op's name: ``node(type, ins, **attrs)`` -> output refs."""

    def __init__(self, body, op):
        self.body, self.base = body, op.name

    def ref(self, t):
        return (self.body.ref(t), t.dtype)

    def const(self, value, dtype, name="Const"):
        return (self.body.const(f"{self.base}/{name}", np.asarray(value, dtype.as_numpy_dtype),
                                dtype), dtype)

    def node(self, op_type, ins, name=None, **attrs):
        """One TF node of ``op_type`` on ``ins`` ((ref, dtype) pairs); its output (ref, dtype)
        pairs (dtype of the first input)."""
        sig = tf_attrs.signature(op_type)
        values, bound = {}, {}
        spare = len(ins) - (len(sig.inputs) - 1)  # what a list argument (N*T) takes
        pos = 0
        for arg in sig.inputs:
            n = spare if arg.number_attr else 1
            group = ins[pos:pos + n]
            pos += n
            if arg.number_attr:
                values[arg.number_attr] = tf_attrs.encode(n)
            if group and arg.type_attr and arg.type_attr not in values:
                values[arg.type_attr] = tf_attrs.encode(group[0][1])
                bound[arg.type_attr] = group[0][1]
        for k, v in attrs.items():
            if k in sig.attrs:
                values[k] = tf_attrs.encode(v, sig.attrs[k][0])
            else:  # ours only (a random op's stream): under the underscore name TF ignores
                values[EXTRA_PREFIX + k] = tf_attrs.encode(v)
        for k, (kind, has, _) in sig.attrs.items():
            if k not in values and has:
                values[k] = tf_attrs.encode(tf_attrs.default(sig, k), kind)
        node_name = self.body.fresh(f"{self.base}/{name or op_type}")
        node = self.body.add_node(node_name, op_type, [r for r, _ in ins], values)
        return [(self.body.out_ref(node_name, op_type, node.attr, i),
                 arg.dtype or bound.get(arg.type_attr, ins[0][1] if ins else None))
                for i, arg in enumerate(sig.outputs)]

    def one(self, op_type, *ins, name=None, **attrs):
        return self.node(op_type, list(ins), name=name, **attrs)[0]

    def reduce(self, op_type, x, axes, keep_dims):
        idx = self.const(np.asarray(axes, np.int32).reshape(-1), dtypes.int32,
                         f"{op_type}/reduction_indices")
        return self.one(op_type, x, idx, keep_dims=bool(keep_dims))


def _scalar(e, value, like):
    return e.const(value, like[1])


def _gelu(e, op, x, approximate=False):
    x = e.ref(x)
    half = e.one("Mul", _scalar(e, 0.5, x), x)
    if approximate:  # 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x ** 3)))
        cube = e.one("Pow", x, _scalar(e, 3.0, x))
        inner = e.one("AddV2", x, e.one("Mul", _scalar(e, 0.044715, x), cube))
        t = e.one("Tanh", e.one("Mul", _scalar(e, 0.7978845608028654, x), inner))
        return [e.one("Mul", half, e.one("AddV2", _scalar(e, 1.0, x), t))[0]]
    erf = e.one("Erf", e.one("RealDiv", x, _scalar(e, math.sqrt(2.0), x)))
    return [e.one("Mul", half, e.one("AddV2", _scalar(e, 1.0, x), erf))[0]]


def _silu(e, op, x, beta=1.0):
    x = e.ref(x)
    scaled = x if beta == 1.0 else e.one("Mul", _scalar(e, beta, x), x)
    return [e.one("Mul", x, e.one("Sigmoid", scaled))[0]]


def _sigmoid_ce(e, op, logits, labels):
    # TF: relu_logits - logits * labels + log1p(exp(neg_abs_logits)), by selects on logits >= 0
    x, z = e.ref(logits), e.ref(labels)
    zeros = e.one("ZerosLike", x)
    cond = e.one("GreaterEqual", x, zeros)
    relu = e.one("SelectV2", cond, x, zeros)
    neg_abs = e.one("SelectV2", cond, e.one("Neg", x), x)
    diff = e.one("Sub", relu, e.one("Mul", x, z))
    return [e.one("AddV2", diff, e.one("Log1p", e.one("Exp", neg_abs)))[0]]


def _all_axes(op, axis):
    if axis is None:
        rank = op.inputs[0].shape.rank
        return None if rank is None else tuple(range(rank))
    return (axis,) if isinstance(axis, int) else tuple(axis)


def _rank_range(e, ref, name):
    """Every axis of a tensor of unknown rank, as TF computes it: Range(0, Rank(x), 1)."""
    rank = e.one("Rank", ref, name=f"{name}/Rank")
    start = e.const(np.int32(0), dtypes.int32, f"{name}/start")
    delta = e.const(np.int32(1), dtypes.int32, f"{name}/delta")
    return e.one("Range", start, rank, delta, name=name)


def _sum_over(e, op_type, x, axes, keep_dims=True):
    """A reduction over ``axes`` (ints), or over every axis of ``x`` when None."""
    if axes is None:
        return e.one(op_type, x, _rank_range(e, x, "range"), keep_dims=keep_dims)
    return e.reduce(op_type, x, axes, keep_dims)


def _l2_normalize(e, op, x, axis, epsilon):
    axes = _all_axes(op, axis)
    xr = e.ref(x)
    if x.dtype.is_complex:  # TF: the real and imaginary parts scaled apart, then Complex
        real_t = x.dtype.real_dtype
        re_ = (e.one("Real", xr, Tout=real_t)[0], real_t)
        im_ = (e.one("Imag", xr, Tout=real_t)[0], real_t)
        total = _sum_over(e, "Sum", e.one("AddV2", e.one("Square", re_), e.one("Square", im_)),
                          axes)
        inv = e.one("Rsqrt", e.one("Maximum", total, _scalar(e, epsilon, re_)))
        out = e.one("Complex", e.one("Mul", re_, inv), e.one("Mul", im_, inv), Tout=x.dtype)
        return [out[0]]
    total = _sum_over(e, "Sum", e.one("Square", xr), axes)
    inv = e.one("Rsqrt", e.one("Maximum", total, _scalar(e, epsilon, xr)))
    return [e.one("Mul", xr, inv)[0]]


def _moments(e, op, x, axes, keepdims=False):
    x = e.ref(x)
    mean = e.reduce("Mean", x, axes, True)
    sq = e.one("SquaredDifference", x, e.one("StopGradient", mean))
    variance = e.reduce("Mean", sq, axes, True)
    if not keepdims:
        rank = op.inputs[0].shape.rank
        dims = [a % rank for a in axes] if rank is not None else list(axes)
        mean = e.one("Squeeze", mean, squeeze_dims=tuple(dims))
        variance = e.one("Squeeze", variance, squeeze_dims=tuple(dims))
    return [mean[0], variance[0]]


def _batch_norm(e, op, x, mean, variance, *rest, variance_epsilon, has_offset, has_scale):
    x, mean, variance = e.ref(x), e.ref(mean), e.ref(variance)
    offset = e.ref(rest[0]) if has_offset else None
    scale = e.ref(rest[-1]) if has_scale else None
    inv = e.one("Rsqrt", e.one("AddV2", variance, _scalar(e, variance_epsilon, variance)))
    if scale is not None:
        inv = e.one("Mul", inv, scale)
    shift = e.one("Mul", mean, inv)
    shift = e.one("Sub", offset, shift) if offset is not None else e.one("Neg", shift)
    return [e.one("AddV2", e.one("Mul", x, inv), shift)[0]]


def _noise_shape(e, x, xr, noise_shape):
    """The mask's shape: x's shape, or ``noise_shape`` with its None dims taken from x's (TF
    fills them from x's static shape; dims known only at run time come from Shape(x))."""
    if noise_shape is None:
        return (e.one("Shape", xr, out_type=dtypes.int32)[0], dtypes.int32)
    dims = x.shape.dims
    filled = [d if d is not None else (dims[i] if dims is not None else None)
              for i, d in enumerate(noise_shape)]
    if None not in filled:
        return e.const(np.array(filled, np.int32), dtypes.int32, "noise_shape")
    known = e.const(np.array([-1 if d is None else d for d in filled], np.int32), dtypes.int32,
                    "noise_shape")
    pick = e.const(np.array([d is None for d in filled]), dtypes.bool, "noise_shape/unknown")
    shape = (e.one("Shape", xr, out_type=dtypes.int32)[0], dtypes.int32)
    return (e.one("SelectV2", pick, shape, known, name="noise_shape/SelectV2")[0], dtypes.int32)


def _dropout(e, op, x, rate, noise_shape=None, scale=None, seed=0, seed2=0, _stream=0):
    # TF: keep = random_uniform(noise_shape) >= rate; where(keep, x * scale, zeros)
    xr, rr = e.ref(x), e.ref(rate)
    shape = _noise_shape(e, x, xr, noise_shape)
    draw = e.one("RandomUniform", shape, dtype=x.dtype, seed=int(seed), seed2=int(seed2),
                 _stream=_stream)
    keep = e.one("GreaterEqual", (draw[0], x.dtype), rr)
    if scale is None:
        one = _scalar(e, 1.0, xr)
        factor = e.one("RealDiv", one, e.one("Sub", one, rr))
    else:
        factor = _scalar(e, scale, xr)
    kept = e.one("Mul", xr, factor)
    return [e.one("SelectV2", keep, kept, e.one("ZerosLike", xr))[0]]


def _trace(e, op, x):
    # TF: reduce_sum(matrix_diag_part(x), -1)
    xr = e.ref(x)
    zero_k = e.const(np.int32(0), dtypes.int32, "k")
    pad = _scalar(e, 0, xr)
    diag = e.one("MatrixDiagPartV3", xr, zero_k, pad, align="RIGHT_LEFT")
    return [e.reduce("Sum", diag, (-1,), False)[0]]


def _matrix_transpose(e, op, x, conjugate=False):
    rank = op.inputs[0].shape.rank
    if rank is not None and rank < 2:
        return None  # our op's own error stands (TF's Transpose would fail the same way)
    xr = e.ref(x)
    if rank is not None:
        perm = list(range(rank - 2)) + [rank - 1, rank - 2]
        p = e.const(np.array(perm, np.int32), dtypes.int32, "perm")
    else:  # TF's: concat([range(rank - 2), [rank - 1, rank - 2]])
        r = e.one("Rank", xr)
        two = e.const(np.int32(2), dtypes.int32, "sub/y")
        lead = e.one("Range", e.const(np.int32(0), dtypes.int32, "Range/start"),
                     e.one("Sub", r, two), e.const(np.int32(1), dtypes.int32, "Range/delta"))
        last = e.one("Sub", r, e.const(np.int32(1), dtypes.int32, "sub_1/y"))
        tail = e.one("Pack", last, e.one("Sub", r, two), axis=0)
        p = e.one("ConcatV2", lead, tail, e.const(np.int32(0), dtypes.int32, "concat/axis"))
    return [e.one("ConjugateTranspose" if conjugate else "Transpose", xr, p)[0]]


def _abs(e, x, xr):
    """|x| in x's real dtype (TF's ComplexAbs for complex tensors)."""
    if x.dtype.is_complex:
        real_t = x.dtype.real_dtype
        return (e.one("ComplexAbs", xr, Tout=real_t)[0], real_t)
    return e.one("Abs", xr)


def _spectral(e, op, x, xr, axes):
    """The matrix 2-norm: the largest singular value of the matrices over ``axes`` (moved
    last, as TF transposes them), kept in place as a size-1 dim."""
    rank = x.shape.rank
    ax = [a % rank for a in axes]
    perm = [i for i in range(rank) if i not in ax] + ax
    moved = e.one("Transpose", xr, _int_const(e, perm, dtypes.int32, "perm"))
    s = e.node("Svd", [moved], compute_uv=False, full_matrices=False)[0]
    top = e.reduce("Max", _abs(e, x, s), (-1,), True)
    back = e.one("ExpandDims", top, e.const(np.int32(-1), dtypes.int32, "ExpandDims/dim"))
    inverse = [int(i) for i in np.argsort(perm)]
    return e.one("Transpose", back, _int_const(e, inverse, dtypes.int32, "perm_1"))


def _last_two_spectral(e, x, xr):
    """The matrix 2-norm over the last two axes: TF's Svd, the largest |singular value|, kept
    as a size-1 dim."""
    s = e.node("Svd", [xr], compute_uv=False, full_matrices=False)[0]
    top = e.reduce("Max", _abs(e, x, s), (-1,), True)
    return e.one("ExpandDims", top, e.const(np.int32(-1), dtypes.int32, "ExpandDims/dim"))


def _norm(e, op, x, ord, axis, keepdims, is_matrix):
    # TF's tf.norm: sqrt(sum(x * conj(x))) for the euclidean norms, sums and maxima of |x| for
    # 1 and inf, Svd for the matrix 2-norm, pow(sum(pow(|x|, p)), 1 / p) for other p
    axes = _all_axes(op, axis)
    rank = x.shape.rank
    xr = e.ref(x)
    if ord in ("euclidean", "fro") or (ord == 2 and not is_matrix):
        other = e.one("Conj", xr) if x.dtype.is_complex else xr
        out = e.one("Sqrt", _sum_over(e, "Sum", e.one("Mul", xr, other), axes))
    elif is_matrix and ord == 2:
        if rank is not None:
            out = _spectral(e, op, x, xr, axes)
        elif set(axes) == {-2, -1}:  # TF's perm is then the identity (the 2-norm of a matrix
            out = _last_two_spectral(e, x, xr)  # and of its transpose are the same)
        else:
            return None  # a perm computed when the graph runs: no TF form here
    elif ord == 1 or ord == np.inf:
        magnitude = _abs(e, x, xr)
        if is_matrix:
            sum_axis, max_axis = (axes[0], axes[1]) if ord == 1 else (axes[1], axes[0])
            out = e.reduce("Max", e.reduce("Sum", magnitude, (sum_axis,), True), (max_axis,), True)
        else:
            out = _sum_over(e, "Sum" if ord == 1 else "Max", magnitude, axes)
    else:
        magnitude = _abs(e, x, xr)
        powered = e.one("Pow", magnitude, _scalar(e, ord, magnitude))
        out = e.one("Pow", _sum_over(e, "Sum", powered, axes), _scalar(e, 1.0 / ord, magnitude))
    if not keepdims:
        dims = () if axes is None else tuple(a % rank if rank is not None else a for a in axes)
        out = e.one("Squeeze", out, squeeze_dims=dims)
    return [out[0]]


def _int_const(e, values, dtype, name):
    return e.const(np.asarray(values, dtype.as_numpy_dtype).reshape(-1), dtype, name)


def _dims_of(e, ref, shape, idx, name):
    """The dims ``idx`` of a tensor: constants when known, else gathered from its Shape."""
    dims = [shape[i] for i in idx]
    if None not in dims:
        return None, dims
    s = e.one("Shape", ref, name=f"{name}/Shape", out_type=dtypes.int32)
    s = (s[0], dtypes.int32)
    axis = e.const(np.int32(0), dtypes.int32, f"{name}/axis")
    picked = e.one("GatherV2", s, _int_const(e, idx, dtypes.int32, f"{name}/indices"), axis,
                   name=f"{name}/GatherV2", batch_dims=0)
    return (picked[0], dtypes.int32), dims


def _product(e, part, name):
    """The product of dims as a 1-element int32 vector (a constant when they are known)."""
    gathered, known = part
    if gathered is None:
        return _int_const(e, [int(np.prod(known, dtype=np.int64))], dtypes.int32, name)
    prod = e.reduce("Prod", gathered, (0,), True)
    return (prod[0], dtypes.int32)


def _tensordot(e, op, a, b, axes_a, axes_b):
    # TF's tensordot: each operand transposed and reshaped to a matrix, MatMul, reshaped back
    sa, sb = a.shape.dims, b.shape.dims
    if sa is None or sb is None:
        return None
    ra, rb = len(sa), len(sb)
    axes_a = [i % ra for i in axes_a]
    axes_b = [i % rb for i in axes_b]
    free_a = [i for i in range(ra) if i not in axes_a]
    free_b = [i for i in range(rb) if i not in axes_b]
    ar, br = e.ref(a), e.ref(b)
    parts = {}
    for key, ref, shape, idx in (("fa", ar, sa, free_a), ("ka", ar, sa, axes_a),
                                 ("fb", br, sb, free_b), ("kb", br, sb, axes_b)):
        parts[key] = _dims_of(e, ref, shape, idx, f"tensordot/{key}")
    matrices = []
    for ref, shape, first, second, name, perm in (
            (ar, sa, "fa", "ka", "a", free_a + axes_a), (br, sb, "kb", "fb", "b", axes_b + free_b)):
        if perm != list(range(len(shape))):
            ref = e.one("Transpose", ref, _int_const(e, perm, dtypes.int32, f"perm_{name}"),
                        name=f"transpose_{name}")
        size = e.one("ConcatV2", _product(e, parts[first], f"{first}/prod"),
                     _product(e, parts[second], f"{second}/prod"),
                     e.const(np.int32(0), dtypes.int32, f"concat_{name}/axis"),
                     name=f"shape_{name}")
        matrices.append(e.one("Reshape", ref, (size[0], dtypes.int32),
                              name=f"reshape_{name}"))
    product = e.one("MatMul", matrices[0], matrices[1], transpose_a=False, transpose_b=False)
    out = []
    for key in ("fa", "fb"):
        gathered, known = parts[key]
        out.append(_int_const(e, known, dtypes.int32, f"{key}/dims") if gathered is None
                   else gathered)
    final = e.one("ConcatV2", out[0], out[1],
                  e.const(np.int32(0), dtypes.int32, "concat/axis"), name="output_shape")
    return [e.one("Reshape", product, (final[0], dtypes.int32))[0]]


def _sum_to_shape(e, op, x, shape):
    # TF's unbroadcast: BroadcastGradientArgs(Shape(x), shape) -> Sum over r1, Reshape
    xr, sr = e.ref(x), e.ref(shape)
    s = e.one("Shape", xr, out_type=shape.dtype)
    s = (s[0], shape.dtype)
    r1 = e.node("BroadcastGradientArgs", [s, sr])[1]
    total = e.one("Sum", xr, (r1[0], shape.dtype), keep_dims=False)
    return [e.one("Reshape", total, sr)[0]]


def _bytes_split(e, op, x):
    # TF's bytes_split of a scalar: StringSplit of [x] on "", the one row's values
    xr = e.ref(x)
    row = e.one("Pack", xr, axis=0)
    empty = e.const(np.array(b"", object), dtypes.string, "delimiter")
    parts = e.node("StringSplit", [row, empty], skip_empty=False)
    return [parts[1][0]]


def _split_v2(e, op, x, sep, maxsplit=-1):
    # TF's StringSplitV2 takes a vector; tf.strings.split stacks a scalar into one ([x])
    if x.shape.rank != 0:
        return None
    row = e.one("Pack", e.ref(x), axis=0)
    parts = e.node("StringSplitV2", [row, e.ref(sep)], maxsplit=int(maxsplit))
    return [ref for ref, _ in parts]


def _last_dim(e, ref, known, name):
    """A tensor's last dim as an int32 scalar: a constant when known, else Shape(x)[-1]."""
    if known is not None:
        return e.const(np.int32(known), dtypes.int32, f"{name}/size")
    shape = (e.one("Shape", ref, name=f"{name}/Shape", out_type=dtypes.int32)[0], dtypes.int32)
    begin, end, step = ([-1], [0], [1])
    return e.one("StridedSlice", shape, *[_int_const(e, v, dtypes.int32, f"{name}/{k}")
                                          for k, v in (("begin", begin), ("end", end),
                                                       ("strides", step))],
                 name=f"{name}/strided_slice", begin_mask=0, end_mask=1, ellipsis_mask=0,
                 new_axis_mask=0, shrink_axis_mask=1)


def _bound(e, op, seq, values, out_type):
    # TF's tf.searchsorted: both reshaped to rows of their last dim, LowerBound/UpperBound on
    # the matrices, the result reshaped to the values' shape
    if seq.shape.rank == 2 and values.shape.rank == 2:
        return None
    seq_r, val_r = e.ref(seq), e.ref(values)
    rows = []
    for ref, t, name in ((seq_r, seq, "seq"), (val_r, values, "values")):
        dims = t.shape.dims
        size = _last_dim(e, ref, dims[-1] if dims else None, name)
        shape = e.one("Pack", e.const(np.int32(-1), dtypes.int32, f"{name}/rows"), size,
                      name=f"{name}/shape", axis=0)
        rows.append(e.one("Reshape", ref, shape, name=f"{name}_2d"))
    found = e.one(op.type, rows[0], rows[1], out_type=out_type)
    found = (found[0], out_type)
    shape = e.one("Shape", val_r, out_type=dtypes.int32)
    return [e.one("Reshape", found, (shape[0], dtypes.int32))[0]]


def _grouped(features, lists=False):
    """Parse features by kind ({"sparse": [...], "dense": [...], "ragged": [...]}), or None
    for kinds TF composes from more ops (SparseFeature, partitioned RaggedFeature)."""
    groups = {"sparse": [], "dense": [], "ragged": []}
    for f in features:
        if f[0] not in groups or (f[0] == "ragged" and f[4]):
            return None
        groups[f[0]].append(f)
    return groups


def _key_inputs(e, groups, prefix=""):
    return [e.const(np.array([f[1].encode("utf-8") for f in groups[kind]], object),
                    dtypes.string, f"{prefix}{kind}_keys")[0]
            for kind in ("sparse", "dense", "ragged")]


def _types(fs, i=2):
    return tf_attrs.encode(tuple(dtypes.as_dtype(f[i]) for f in fs), "list(type)")


def _shapes(fs):
    return tf_attrs.encode([tuple(f[3]) for f in fs], "list(shape)")


def _picks(features, groups, start, batched, list_splits=False):
    """Where each of our outputs (each feature's tensors in turn) is among TF's grouped ones,
    which begin at ``start``: sparse indices, values, shapes; dense values (feature lists:
    then their lengths); ragged values and splits (feature lists: outer, then inner)."""
    ns, nd, nr = (len(groups[k]) for k in ("sparse", "dense", "ragged"))
    dense_at = start + 3 * ns
    ragged_at = dense_at + nd * (2 if list_splits else 1)
    picks, lengths, seen = [], [], {"sparse": 0, "dense": 0, "ragged": 0}
    for f in features:
        k = seen[f[0]]
        seen[f[0]] += 1
        if f[0] == "sparse":
            picks += [start + k, start + ns + k, start + 2 * ns + k]
        elif f[0] == "dense":
            picks.append(dense_at + k)
            lengths.append(dense_at + nd + k)
        elif list_splits:  # values, the outer splits (batched only), the inner splits
            picks += [ragged_at + k] + ([ragged_at + nr + k] if batched else []) + \
                [ragged_at + 2 * nr + k]
        else:
            picks += [ragged_at + k] + ([ragged_at + nr + k] if batched else [])
    return picks, lengths, ragged_at + nr * (3 if list_splits else 2)


def _parse_example(e, op, serialized, names, *defaults, features):
    # TF's ParseExampleV2 takes the keys as string inputs and returns its outputs grouped (the
    # sparse indices, values and shapes, the dense values, the ragged values and row splits);
    # ours holds the features as an attr and returns each feature's tensors in turn
    groups = _grouped(features)
    if groups is None:
        return None
    sparse, dense, ragged = groups["sparse"], groups["dense"], groups["ragged"]
    ins = [e.body.ref(serialized), e.body.ref(names), *_key_inputs(e, groups)]
    ins += [e.body.ref(t) for t in defaults]
    attrs = {"Tdense": _types(dense), "num_sparse": tf_attrs.encode(len(sparse)),
             "sparse_types": _types(sparse), "ragged_value_types": _types(ragged),
             "ragged_split_types": _types(ragged, 3),
             "dense_shapes": tf_attrs.encode([((None,) if f[4] else ()) + tuple(f[3])
                                              for f in dense], "list(shape)")}
    name = e.body.fresh(f"{e.base}/ParseExampleV2")
    node = e.body.add_node(name, "ParseExampleV2", ins, attrs)
    picks, _, _ = _picks(features, groups, 0, serialized.shape.rank != 0)
    return [e.body.out_ref(name, "ParseExampleV2", node.attr, i) for i in picks]


def _parse_sequence_example(e, op, serialized, names, *defaults, context, feature_lists):
    # TF's ParseSequenceExampleV2: the context's keys and outputs as ParseExampleV2's, then the
    # feature lists' (dense lengths after the dense values, ragged outer and inner splits)
    cg, lg = _grouped(context), _grouped(feature_lists)
    if cg is None or lg is None:
        return None
    ins = [e.body.ref(serialized), e.body.ref(names), *_key_inputs(e, cg, "context_"),
           *_key_inputs(e, lg, "feature_list_")]
    ins.append(e.const(np.array([bool(f[4]) for f in lg["dense"]], bool), dtypes.bool,
                       "feature_list_dense_missing_assumed_empty")[0])
    ins += [e.body.ref(t) for t in defaults]
    attrs = {"Ncontext_sparse": tf_attrs.encode(len(cg["sparse"])),
             "Tcontext_dense": _types(cg["dense"]),
             "context_sparse_types": _types(cg["sparse"]),
             "context_ragged_value_types": _types(cg["ragged"]),
             "context_ragged_split_types": _types(cg["ragged"], 3),
             "context_dense_shapes": _shapes(cg["dense"]),
             "Nfeature_list_sparse": tf_attrs.encode(len(lg["sparse"])),
             "Nfeature_list_dense": tf_attrs.encode(len(lg["dense"])),
             "feature_list_dense_types": _types(lg["dense"]),
             "feature_list_sparse_types": _types(lg["sparse"]),
             "feature_list_ragged_value_types": _types(lg["ragged"]),
             "feature_list_ragged_split_types": _types(lg["ragged"], 3),
             "feature_list_dense_shapes": _shapes(lg["dense"])}
    name = e.body.fresh(f"{e.base}/ParseSequenceExampleV2")
    node = e.body.add_node(name, "ParseSequenceExampleV2", ins, attrs)
    batched = serialized.shape.rank != 0
    picks, _, end = _picks(context, cg, 0, batched)
    more, lengths, _ = _picks(feature_lists, lg, end, batched, list_splits=True)
    return [e.body.out_ref(name, "ParseSequenceExampleV2", node.attr, i)
            for i in picks + more + lengths]


def _cast(e, x, dtype):
    return (e.one("Cast", x, DstT=dtype, Truncate=False)[0], dtype)


def _histogram_buckets(e, op, data, bucket_count):
    """tf.summary.histogram's buckets as TensorBoard's ``_buckets`` computes them, its two
    conds as selects (every path is an op TF runs on any input): zeros when there is no data
    or no bucket, the count in the last bucket when all values are equal, else equal-width
    buckets from min to max (one_hot sums; linspace edges, the last exactly max)."""
    f64, i32 = dtypes.float64, dtypes.int32

    def c(value, dtype, name):
        return e.const(np.asarray(value, dtype.as_numpy_dtype), dtype, name)

    d = e.one("Reshape", e.ref(data), c([-1], i32, "Reshape/shape"))
    if data.dtype != f64:
        d = _cast(e, d, f64)
    k = e.one("Maximum", c(0, i32, "Maximum/x"), e.ref(bucket_count))
    n = (e.one("Size", d, out_type=i32)[0], i32)
    empty = e.one("LogicalOr", e.one("Equal", n, c(0, i32, "Equal/y")),
                  e.one("LessEqual", k, c(0, i32, "LessEqual/y")))
    low, high = e.reduce("Min", d, (0,), False), e.reduce("Max", d, (0,), False)
    span = e.one("Sub", high, low)
    single = e.one("Equal", span, c(0.0, f64, "Equal_1/y"))
    last = e.one("Sub", k, c(1, i32, "sub/y"))
    width = e.one("RealDiv", span, _cast(e, k, f64))
    index = _cast(e, e.one("Floor", e.one("RealDiv", e.one("Sub", d, low), width)), i32)
    hots = e.node("OneHot", [e.one("Minimum", index, last), k, c(1.0, f64, "one_hot/on_value"),
                             c(0.0, f64, "one_hot/off_value")], axis=-1)[0]
    hots = (hots[0], f64)
    counts = e.reduce("Sum", hots, (0,), False)
    k1 = e.one("Reshape", k, c([1], i32, "Reshape_1/shape"))
    lin = e.one("LinSpace", low, high, e.one("AddV2", k, c(1, i32, "add/y")))
    edges = e.one("ConcatV2", e.one("Slice", lin, c([0], i32, "Slice/begin"), k1),
                  e.one("Reshape", high, c([1], i32, "Reshape_2/shape")),
                  c(0, i32, "concat/axis"))
    left = e.one("Slice", edges, c([0], i32, "Slice_1/begin"), k1)
    right = e.one("Slice", edges, c([1], i32, "Slice_2/begin"), k1)
    perm = c([1, 0], i32, "transpose/perm")
    several = e.one("Transpose", e.one("Pack", left, right, counts, axis=0), perm)
    same = e.one("Fill", k1, high)
    at_last = _cast(e, e.one("Equal", e.one("Range", c(0, i32, "range/start"), k,
                                            c(1, i32, "range/delta")), last), f64)
    one_value = e.one("Transpose", e.one("Pack", same, same, e.one(
        "Mul", at_last, _cast(e, n, f64)), axis=0), perm)
    zeros = e.one("Fill", e.one("Pack", k, c(3, i32, "zeros/d"), axis=0), c(0.0, f64, "zeros/v"))
    out = e.one("SelectV2", single, one_value, several)
    return [e.one("SelectV2", empty, zeros, out)[0]]


def _index_axis0(e, op, x, i):
    # x[i], as TF's __getitem__ writes it: StridedSlice shrinking axis 0
    i32 = dtypes.int32
    at = e.ref(i)
    if i.dtype != i32:
        at = _cast(e, at, i32)
    begin = e.one("Pack", at, axis=0)
    end = e.one("Pack", e.one("AddV2", at, e.const(np.int32(1), i32, "add/y")), axis=0)
    strides = e.const(np.array([1], np.int32), i32, "strides")
    return [e.one("StridedSlice", e.ref(x), begin, end, strides, shrink_axis_mask=1)[0]]


def _initialize_once(e, op, resource, value):
    # TF lifts a variable's first-call initializer out of the function: a saved function holds
    # none (the variable comes restored); what waits on the op waits on a NoOp of its name
    return []


_RULES = {"InitializeVariableOnce": _initialize_once,
          "Gelu": _gelu, "Silu": _silu, "SigmoidCrossEntropyWithLogits": _sigmoid_ce,
          "L2Normalize": _l2_normalize, "Moments": _moments, "BatchNormalization": _batch_norm,
          "MatrixTranspose": _matrix_transpose, "Norm": _norm, "Dropout": _dropout,
          "Trace": _trace, "Tensordot": _tensordot, "SumToShape": _sum_to_shape,
          "StringBytesSplit": _bytes_split, "StringSplitV2": _split_v2,
          "LowerBound": _bound, "UpperBound": _bound,
          "ParseExampleV2": _parse_example, "ParseSequenceExampleV2": _parse_sequence_example,
          "HistogramSummaryBuckets": _histogram_buckets, "IndexAxis0": _index_axis0}
