"""String hashing: ``tf.strings.to_hash_bucket_fast`` (FarmHash), ``to_hash_bucket_strong``
(SipHash-2-4 under a key), ``to_hash_bucket`` (TF's legacy Hash64) and ``tf.fingerprint``."""

import functools

import numpy as np

from ... import _farmhash, dtypes as D
from ..._export import tf_export
from ...composite import CompositeTensor, map_values
from ...context import bind, executing_eagerly
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_fn_error
from ...registry import DtypeCheck, OpDef, define_op, register
from ...shapes import TensorShape
from ...tensor import TensorSpec
from .._args import int_arg
from ._common import infer_strings, strings

_FINGERPRINT_SIZE = 8


def _check_num_buckets(op_name, num_buckets):
    """``num_buckets`` is an int attr with TF's minimum of 1."""
    if num_buckets < 1:
        if executing_eagerly():
            raise invalid_argument(f"Value for attr 'num_buckets' of {num_buckets} must be at "
                                   f"least minimum 1\n\t; NodeDef: {{{{node {op_name}}}}}; "
                                   f"Op<name={op_name}; signature=input:string -> output:int64; "
                                   f"attr=num_buckets:int,min=1>", op_name)
        raise ValueError(f"Attr 'num_buckets' of '{op_name}' Op passed {num_buckets} less than "
                         "minimum 1.")


def _buckets(hashes, num_buckets, shape):
    """``hash mod num_buckets`` as int64 of ``shape`` (unsigned modulo, as TF's kernels)."""
    out = (hashes % np.uint64(num_buckets)).astype(np.int64).reshape(shape)
    return out[()] if out.ndim == 0 else out


def _bucket_op(name, hash_fn, doc, extra_attrs=()):
    """Register a string -> int64 bucket op whose kernel hashes every string with ``hash_fn``."""

    def infer(input, *, num_buckets, **attrs):
        infer_strings(name, (input, "input"))
        _check_num_buckets(name, num_buckets)
        return TensorSpec(input.shape, D.int64)

    def kernel(input, *, num_buckets, **attrs):
        a = np.asarray(input)
        return _buckets(hash_fn(a.ravel().tolist(), **attrs), num_buckets, a.shape)

    return register(OpDef(name, infer, kernel, check=DtypeCheck(name, same=1, fixed=D.string),
                          doc=doc))


def _strong_hash(strings_, key):
    if len(key) != 2:
        raise invalid_argument("Key must have 2 elements")
    return _farmhash.siphash24(strings_, key[0], key[1])


StringToHashBucketFast = _bucket_op("StringToHashBucketFast", _farmhash.fingerprint64,
                                    "FarmHash Fingerprint64 of each string, modulo num_buckets.")
StringToHashBucket = _bucket_op("StringToHashBucket", _farmhash.legacy_hash64,
                                "TF's legacy Hash64 of each string, modulo num_buckets.")
StringToHashBucketStrong = _bucket_op("StringToHashBucketStrong", _strong_hash,
                                      "SipHash-2-4 of each string under `key`, modulo "
                                      "num_buckets.")


def _buckets_call(fn, op, input, num_buckets, **attrs):
    if isinstance(input, CompositeTensor):  # ragged: its values
        return map_values(fn, input, num_buckets=num_buckets, **attrs)
    num_buckets = int_arg(num_buckets, "num_buckets")
    _check_num_buckets(op.name, num_buckets)
    return bind(op, strings(input), num_buckets=num_buckets, **attrs)


@tf_export("strings.to_hash_bucket_fast", "string_to_hash_bucket_fast")
def to_hash_bucket_fast(input, num_buckets, name=None):
    """Each string's FarmHash ``Fingerprint64`` modulo ``num_buckets`` (int64)."""
    return _buckets_call(to_hash_bucket_fast, StringToHashBucketFast, input, num_buckets)


@tf_export("strings.to_hash_bucket", "string_to_hash_bucket")
def to_hash_bucket(input, num_buckets, name=None):
    """Each string's legacy ``Hash64`` (deprecated in TF: prefer the fast or strong form) modulo
    ``num_buckets``."""
    return _buckets_call(to_hash_bucket, StringToHashBucket, input, num_buckets)


@tf_export("strings.to_hash_bucket_strong", "string_to_hash_bucket_strong")
def to_hash_bucket_strong(input, num_buckets, key, name=None):
    """Each string's keyed SipHash-2-4 (``key``: two ints) modulo ``num_buckets``."""
    if isinstance(input, CompositeTensor):  # the key is an attr, not an operand to broadcast
        return map_values(functools.partial(to_hash_bucket_strong, num_buckets=num_buckets,
                                            key=key), input)
    key = _key_attr(key)
    return _buckets_call(to_hash_bucket_strong, StringToHashBucketStrong, input, num_buckets,
                         key=key)


def _key_attr(key):
    """``key``: a list of ints (TF's ``list(int)`` attr; its length is checked by the kernel)."""
    if not isinstance(key, (list, tuple)):
        raise TypeError(f"Expected list for 'key' argument to 'string_to_hash_bucket_strong' Op, "
                        f"not {key!r}.")
    out = []
    for k in key:
        if type(k) is int and not -2**63 <= k < 2**63:  # the attr holds int64s
            raise OverflowError("int too big to convert")
        out.append(int_arg(k, "key"))
    return tuple(out)


# --- fingerprint ---------------------------------------------------------------------------------
def _row_bytes(a):
    """The rows of a non-string array as bytes (little-endian, as TF's bit cast)."""
    flat = np.ascontiguousarray(a.reshape(a.shape[0], -1))
    if flat.dtype.byteorder == ">":
        flat = flat.astype(flat.dtype.newbyteorder("<"))
    raw = flat.view(np.uint8).reshape(a.shape[0], -1)
    return [r.tobytes() for r in raw]


def _fingerprints(data):
    """TF's Fingerprint kernel: one 8-byte FarmHash fingerprint per row of ``data``. A string
    row of several strings is the fingerprint of its strings' fingerprints."""
    a = np.asarray(data)
    dim0 = a.shape[0]
    dim1 = a.size // dim0 if dim0 else 0
    if dim0 == 0:
        return np.zeros((0, _FINGERPRINT_SIZE), np.uint8)
    if a.dtype != object:
        hashes = _farmhash.fingerprint64(_row_bytes(a))
    elif dim1 > 1:
        each = _farmhash.fingerprint64(a.ravel().tolist()).astype("<u8")
        rows = each.reshape(dim0, dim1).view(np.uint8).reshape(dim0, -1)
        hashes = _farmhash.fingerprint64([r.tobytes() for r in rows])
    elif dim1 == 1:
        hashes = _farmhash.fingerprint64(a.ravel().tolist())
    else:
        hashes = np.zeros(dim0, np.uint64)  # rows of no strings: TF leaves them unwritten
    return hashes.astype("<u8").view(np.uint8).reshape(dim0, _FINGERPRINT_SIZE)


@define_op("Fingerprint")
class Fingerprint:
    """FarmHash fingerprints of ``data``'s rows: uint8 of shape ``[data.shape[0], 8]``."""

    def infer(data, method):
        # TF names the node's inputs: the data's producer and the method constant it makes
        names = (getattr(getattr(data, "op", None), "name", "data"), "Fingerprint/method")
        if data.shape.rank == 0:
            raise shape_fn_error("Fingerprint", "Shape must be at least rank 1 but is rank 0",
                                 data.dtype, {}, (data, method), names)
        if method.shape.rank not in (None, 0):
            raise shape_fn_error("Fingerprint", f"Shape must be rank 0 but is rank "
                                 f"{method.shape.rank}", data.dtype, {}, (data, method), names)
        dim0 = data.shape[0] if data.shape.rank is not None else None
        return TensorSpec(TensorShape([dim0, _FINGERPRINT_SIZE]), D.uint8)

    def kernel(data, method):
        a = np.asarray(data)
        if a.ndim == 0:
            raise invalid_argument(f"`data` should have at least one dimension: "
                                   f"{list(a.shape)}")
        m = np.asarray(method)
        if m.ndim != 0:
            raise invalid_argument(f"`method` should be a scalar string: {list(m.shape)}")
        text = m.item()
        if text != b"farmhash64":
            raise invalid_argument("Unsupported fingerprint method: "
                                   f"{text.decode('utf-8', 'replace')}")
        return _fingerprints(a)


@tf_export("fingerprint")
def fingerprint(data, method="farmhash64", name=None):
    """FarmHash64 fingerprints of ``data``'s rows (along its first axis): ``uint8`` of shape
    ``[data.shape[0], 8]``; rows with equal content (and dtype) get equal fingerprints."""
    data = convert_to_tensor(data)
    return bind(Fingerprint, data, convert_to_tensor(method, D.string))
