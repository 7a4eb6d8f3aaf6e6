"""``tf.test``: TF's test case with its assert helpers, ``tf.test.main``, the gradient checker
(``compute_gradient``) and the build queries, answered for a CPU-only build as TF's CPU wheel
answers them."""

import contextlib
import functools
import math
import random
import sys
import tempfile
import unittest

import numpy as np

from . import _logging, nest
from ._export import tf_export
from .autodiff.tape import GradientTape
from .composite import CompositeTensor
from .convert import convert_to_tensor
from .dtypes import as_dtype, bfloat16
from .ops.random.seeds import set_seed
from .tensor import Tensor

DEFAULT_GRAPH_SEED = 87654321  # TF's random_seed.DEFAULT_GRAPH_SEED, which setUp seeds with
_GPU_WARNED = []


@tf_export("test.main")
def main(argv=None):
    """Runs the test cases of ``__main__`` (TF's ``tf.test.main``, unittest's runner)."""
    return unittest.main(argv=argv)


@tf_export("test.is_built_with_cuda")
def is_built_with_cuda():
    return False


@tf_export("test.is_built_with_rocm")
def is_built_with_rocm():
    return False


@tf_export("test.is_built_with_gpu_support")
def is_built_with_gpu_support():
    return is_built_with_cuda() or is_built_with_rocm()


@tf_export("test.is_built_with_xla")
def is_built_with_xla():
    """True, as for TF's wheel: ``jit_compile=True`` functions compile (with the xla extra)."""
    return True


@tf_export("test.gpu_device_name")
def gpu_device_name():
    """The name of a GPU device, '' when there is none (always, here)."""
    return ""


@tf_export("test.is_gpu_available")
def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """Deprecated in TF: whether a GPU is available (never, here)."""
    if not _GPU_WARNED:  # TF's deprecation notice, once per process
        _GPU_WARNED.append(True)
        _logging.logger.warning(
            "From %s: is_gpu_available (from tensorflow.python.framework.test_util) is "
            "deprecated and will be removed in a future version.\nInstructions for updating:\n"
            "Use `tf.config.list_physical_devices('GPU')` instead.", _caller())
    return False


def _caller():
    frame = sys._getframe(2)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


@tf_export("test.disable_with_predicate")
def disable_with_predicate(pred, skip_message):
    """Decorates a test method: skipped with ``skip_message`` when ``pred()`` is true."""
    def decorator(func):
        @functools.wraps(func)
        def wrapper(self, *args, **kwargs):
            if pred():
                self.skipTest(skip_message)
            else:
                return func(self, *args, **kwargs)
        return wrapper
    return decorator


@tf_export("test.with_eager_op_as_function")
def with_eager_op_as_function(cls=None, only_as_function=False):
    """Returns the class unchanged (TF keeps it only for old tests)."""
    return cls if cls is not None else (lambda c: c)


# --- the gradient checker -------------------------------------------------------------------
_GRADIENT_DTYPES = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")


@tf_export("test.compute_gradient")
def compute_gradient(f, x, delta=None):
    """The theoretical (backprop) and numeric (central differences) Jacobians of ``f`` with
    respect to each of the arguments ``x``: two tuples of 2-D arrays, ``y_size`` by ``x_size``.

    Raises:
        ValueError: when ``x`` is no list or tuple, or the result is empty but its gradient is not.
    """
    if not isinstance(x, (list, tuple)):
        raise ValueError("`x` must be a list or tuple of values convertible to a Tensor "
                         f"(arguments to `f`), not a {type(x)}")
    delta = 1.0 / 1024 if delta is None else delta  # exactly representable: less rounding
    xs = [convert_to_tensor(v) for v in x]
    y = f(*xs)
    y_dtype = as_dtype(y.dtype)
    pairs = [_jacobians(f, tuple(y.shape), y_dtype, xs, i, delta) for i in range(len(xs))]
    return tuple(zip(*pairs))


def _jacobians(f, y_shape, y_dtype, xs, param, delta):
    for dtype, what in ((xs[param].dtype, f"argument {param}"), (y_dtype, "y")):
        assert dtype.name in _GRADIENT_DTYPES, \
            f"Cannot compute gradient for unsupported type {dtype.name} of {what}"
    return (_theoretical(f, y_shape, y_dtype, xs, param),
            _numeric(f, int(np.prod(y_shape)), y_dtype, xs, param, delta))


def _theoretical(f, y_shape, y_dtype, xs, param):
    """Row r: the gradient of ``f`` for the one-hot output gradient of element r (real and
    imaginary parts are separate elements of complex values)."""
    x = xs[param]
    x_shape = tuple(x.shape) + ((2,) if x.dtype.is_complex else ())
    y_size = int(np.prod(y_shape)) * (2 if y_dtype.is_complex else 1)
    jacobian = np.zeros((y_size, int(np.prod(x_shape))), dtype=x.dtype.real_dtype.as_numpy_dtype)
    dy = np.zeros(y_shape, dtype=y_dtype.as_numpy_dtype)
    dy_flat = dy.ravel().view(y_dtype.real_dtype.as_numpy_dtype)
    for row in range(y_size):
        dy_flat[row] = 1
        grad = _gradient(f, xs, param, dy)
        if grad is not None:
            jacobian[row, :] = grad.ravel().view(jacobian.dtype)
        dy_flat[row] = 0
    if y_size == 0:
        grad = _gradient(f, xs, param, dy)
        if grad is not None and grad.shape != tuple(x.shape):
            raise ValueError(f"Empty gradient has wrong shape: expected {tuple(x.shape)}, "
                             f"got {grad.shape}")
        if grad is not None and np.any(grad):
            raise ValueError("Empty tensor with nonzero gradients")
    return jacobian


def _gradient(f, xs, param, dy):
    with GradientTape() as tape:
        tape.watch(xs[param])
        y = f(*xs)
    grad = tape.gradient(y, xs[param], output_gradients=convert_to_tensor(dy))
    if grad is None:
        return None
    if hasattr(grad, "indices") and hasattr(grad, "values"):  # IndexedSlices: densified
        dense = np.zeros(tuple(xs[param].shape), dtype=grad.values.dtype.as_numpy_dtype)
        np.add.at(dense, grad.indices.numpy(), grad.values.numpy())
        return dense
    return np.asarray(grad.numpy())


def _numeric(f, y_size, y_dtype, xs, param, delta):
    """Column c: (f(x + delta e_c) - f(x - delta e_c)) / (2 delta)."""
    x_dtype = xs[param].dtype
    x_size = int(np.prod(tuple(xs[param].shape))) * (2 if x_dtype.is_complex else 1)
    y_size *= 2 if y_dtype.is_complex else 1
    x_np = x_dtype.real_dtype.as_numpy_dtype
    y_np = y_dtype.real_dtype.as_numpy_dtype
    values = [np.array(v.numpy()) for v in xs]
    flat = values[param].reshape(-1).view(x_np)  # a view: writes reach values[param]
    scale = np.asarray(2 * delta, dtype=y_np)[()]
    jacobian = np.zeros((y_size, x_size), dtype=x_np)
    for col in range(x_size):
        original = flat[col]
        flat[col] += delta
        y_pos = np.asarray(f(*map(convert_to_tensor, values)).numpy())
        flat[col] = original
        flat[col] -= delta
        y_neg = np.asarray(f(*map(convert_to_tensor, values)).numpy())
        flat[col] = original
        jacobian[:, col] = ((y_pos - y_neg) / scale).ravel().view(y_np)
    return jacobian


# --- the test case --------------------------------------------------------------------------
class _EagerSessionWarner:
    """What ``self.session()`` gives under eager execution: any use of it is an error."""

    def __getattr__(self, attr):
        raise AttributeError(
            "Trying to access properties or call methods on the result of self.session(), "
            "self.cached_session(), etc while eager execution is enabled. If you're porting "
            "this test case to TF 2.0, either adapt the test to work with eager execution or "
            "insert a call to tf.disable_eager_execution() in the main() function of this test "
            "file.")


def _where(cond):
    """The subscripts where ``cond`` holds (NumPy's ``where``, also for 0-d arrays)."""
    return np.where(cond)


@tf_export("test.TestCase")
class TensorFlowTestCase(unittest.TestCase):
    """Base class for tests of TensorFlow programs: seeded set-up and TF's array asserts."""

    def __init__(self, methodName="runTest"):  # noqa: N803 - unittest's name
        super().__init__(methodName)
        self._tempdir = None

    def setUp(self):
        super().setUp()
        random.seed(DEFAULT_GRAPH_SEED)
        np.random.seed(DEFAULT_GRAPH_SEED)
        set_seed(DEFAULT_GRAPH_SEED)
        if self.id().endswith(".test_session"):  # TF's poorly named helper is no test
            self.skipTest("Not a test.")

    def get_temp_dir(self):
        """A temporary directory of this test: the same one on every call during the test."""
        if not self._tempdir:
            self._tempdir = tempfile.mkdtemp()
        return self._tempdir

    # --- evaluation ---------------------------------------------------------------------
    def evaluate(self, tensors):
        """The NumPy values of ``tensors`` (a tensor or a nested structure of them)."""
        if tensors is None:
            return None
        return nest.map_structure(self._eval_tensor, tensors)

    def _eval_tensor(self, tensor):
        if tensor is None:
            return None
        if callable(tensor):
            return self.evaluate(tensor())
        if hasattr(tensor, "numpy") and callable(tensor.numpy):
            return tensor.numpy()
        if isinstance(tensor, CompositeTensor):
            return nest.map_structure(lambda t: t.numpy(), tensor, expand_composites=True)
        raise ValueError(f"Unsupported type {type(tensor).__name__!r}.")

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """Eager execution has no session: yields TF's stand-in that refuses any use."""
        yield _EagerSessionWarner()

    cached_session = session

    # --- asserts ------------------------------------------------------------------------
    def _GetNdArray(self, a):  # noqa: N802 - TF's name
        if isinstance(a, Tensor):
            a = self.evaluate(a)
        if not isinstance(a, np.ndarray):
            try:
                return np.array(a)
            except ValueError as e:
                if "inhomogeneous shape" in str(e):
                    return np.array(a, dtype=object)
                raise
        return a

    def assertNear(self, f1, f2, err, msg=None):  # noqa: N802
        f1, f2 = np.squeeze(f1), np.squeeze(f2)
        if f1 != f2:  # inf == inf
            diff = math.fabs(f1 - f2)
            self.assertTrue(diff <= err, "%f != %f +/- %f (difference: %g)%s" % (
                f1, f2, err, diff, " (%s)" % msg if msg is not None else ""))

    def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):  # noqa: N802
        self.assertTrue(np.linalg.norm(ndarray1 - ndarray2) < err, msg=msg)

    def _assertArrayLikeAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        if a.shape != b.shape and (b.ndim <= 3 or b.size < 500):
            mismatch = "Shape mismatch: expected %s, got %s with contents %s." % (
                a.shape, b.shape, b)
        else:
            mismatch = "Shape mismatch: expected %s, got %s." % (a.shape, b.shape)
        self.assertEqual(a.shape, b.shape, mismatch)
        a_dtype = a.dtype
        # NumPy's allclose cannot promote bfloat16: compared as float32, as TF does
        if a.dtype == bfloat16.as_numpy_dtype:
            a = a.astype(np.float32)
        if b.dtype == bfloat16.as_numpy_dtype:
            b = b.astype(np.float32)
        if np.allclose(a, b, rtol=rtol, atol=atol):
            return
        msgs = [msg]
        cond = np.logical_or(np.abs(a - b) > atol + rtol * np.abs(b), np.isnan(a) != np.isnan(b))
        if a.ndim:
            x, y = a[_where(cond)], b[_where(cond)]
            msgs.append("not close where = {}".format(_where(cond)))
        else:
            x, y = a, b
        msgs.append("not close lhs = {}".format(x))
        msgs.append("not close rhs = {}".format(y))
        msgs.append("not close dif = {}".format(np.abs(x - y)))
        msgs.append("not close tol = {}".format(atol + rtol * np.abs(y)))
        msgs.append("dtype = {}, shape = {}".format(a_dtype, a.shape))
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg="\n".join(map(str, msgs)),
                                   equal_nan=True)

    def _assertAllCloseRecursive(self, a, b, rtol=1e-6, atol=1e-6, path=None,  # noqa: N802
                                 msg=None):
        path = path or []
        where = ("[" + "][".join(str(p) for p in path) + "]") if path else ""
        msg = msg if msg else ""
        a = a._asdict() if hasattr(a, "_asdict") else a
        b = b._asdict() if hasattr(b, "_asdict") else b
        a_is_dict = isinstance(a, dict)
        if a_is_dict != isinstance(b, dict):
            raise ValueError("Can't compare dict to non-dict, a%s vs b%s. %s" % (where, where, msg))
        mismatch = "Mismatched value: a%s is different from b%s. %s" % (where, where, msg)
        if a_is_dict:
            self.assertCountEqual(a.keys(), b.keys(), msg="mismatched keys: a%s has keys %s, but "
                                  "b%s has keys %s. %s" % (where, a.keys(), where, b.keys(), msg))
            for k in a:
                self._assertAllCloseRecursive(a[k], b[k], rtol, atol, path + [k], msg)
        elif isinstance(a, (list, tuple)):
            try:  # as arrays when they are some; else item by item
                self._assertArrayLikeAllClose(self._GetNdArray(a), self._GetNdArray(b), rtol,
                                              atol, mismatch)
            except (ValueError, TypeError, NotImplementedError):
                if len(a) != len(b):
                    raise ValueError("Mismatched length: a%s has %d items, but b%s has %d items. "
                                     "%s" % (where, len(a), where, len(b), msg)) from None
                for i, (a_item, b_item) in enumerate(zip(a, b)):
                    self._assertAllCloseRecursive(a_item, b_item, rtol, atol, path + [str(i)],
                                                  msg)
        else:
            try:
                self._assertArrayLikeAllClose(a, b, rtol, atol, mismatch)
            except TypeError as e:
                e.args = (e.args[0] + " : " + "Error: a%s has %s, but b%s has %s. %s" % (
                    where, type(a), where, type(b), msg),) + e.args[1:]
                raise

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        """``a`` and ``b`` (arrays, tensors, or nested dicts/lists/tuples/namedtuples of them)
        are close: ``|a - b| <= atol + rtol * |b|`` elementwise."""
        self._assertAllCloseRecursive(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6,  # noqa: N802
                                      float_rtol=1e-6, float_atol=1e-6, half_rtol=1e-3,
                                      half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                      msg=None):
        """assertAllClose with the tolerances widened for float32, float16 and bfloat16."""
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        types = {a.dtype, b.dtype}
        if types & {np.dtype(np.float32), np.dtype(np.complex64)}:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if np.dtype(np.float16) in types:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        if np.dtype(bfloat16.as_numpy_dtype) in types:
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise AssertionError("The two values are close at all elements. %s" % (msg or ""))

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        """``a`` and ``b`` (arrays or tensors) have the same shape and values (NaNs equal)."""
        msg = msg if msg else ""
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        if b.ndim <= 3 or b.size < 500:
            self.assertEqual(a.shape, b.shape, "Shape mismatch: expected %s, got %s. Contents: "
                             "%r. \n%s." % (a.shape, b.shape, b, msg))
        else:
            self.assertEqual(a.shape, b.shape, "Shape mismatch: expected %s, got %s. %s" % (
                a.shape, b.shape, msg))
        same = a == b
        if a.dtype.kind in "fc" or a.dtype == bfloat16.as_numpy_dtype:
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if np.all(same):
            return
        msgs = [msg]
        diff = np.logical_not(same)
        if a.ndim:
            x, y = a[_where(diff)], b[_where(diff)]
            msgs.append("not equal where = {}".format(_where(diff)))
        else:
            x, y = a, b
        msgs.append("not equal lhs = %r" % x)
        msgs.append("not equal rhs = %r" % y)
        if a.dtype.kind != b.dtype.kind and {a.dtype.kind, b.dtype.kind} <= {"U", "S", "O"}:
            a = np.array([s.encode("utf-8") if isinstance(s, str) else s for s in a.flat])
            b = np.array([s.encode("utf-8") if isinstance(s, str) else s for s in b.flat])
        np.testing.assert_array_equal(a, b, err_msg="\n".join(msgs))

    def assertNotAllEqual(self, a, b, msg=None):  # noqa: N802
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError("The two values are equal at all elements. %s" % (msg or ""))

    def assertAllGreater(self, a, comparison_target):  # noqa: N802
        self.assertGreater(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLess(self, a, comparison_target):  # noqa: N802
        self.assertLess(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllGreaterEqual(self, a, comparison_target):  # noqa: N802
        self.assertGreaterEqual(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLessEqual(self, a, comparison_target):  # noqa: N802
        self.assertLessEqual(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllInSet(self, target, expected_set):  # noqa: N802
        target = self._GetNdArray(target)
        diff = np.setdiff1d(target.flatten(), list(expected_set))
        if np.size(diff):
            raise AssertionError("%d unique element(s) are not in the set %s: %s" % (
                np.size(diff), expected_set, diff))

    def assertDTypeEqual(self, target, expected_dtype):  # noqa: N802
        self.assertEqual(self._GetNdArray(target).dtype, expected_dtype)

    def assertShapeEqual(self, input_a, input_b, msg=None):  # noqa: N802
        """Same static shapes (``get_shape()`` of tensors, ``shape`` of arrays)."""
        for name, value in (("input_a", input_a), ("input_b", input_b)):
            if not isinstance(value, (np.ndarray, np.generic, Tensor)):
                raise TypeError(f"{name} must be a Numpy ndarray, Numpy scalar, or a Tensor."
                                f"Instead received {type(value)}")
        shape_a = input_a.get_shape().as_list() if isinstance(input_a, Tensor) else input_a.shape
        shape_b = input_b.get_shape().as_list() if isinstance(input_b, Tensor) else input_b.shape
        self.assertAllEqual(shape_a, shape_b, msg=msg)

    def assertStartsWith(self, actual, expected_start, msg=None):  # noqa: N802
        if not actual.startswith(expected_start):
            fail_msg = "%r does not start with %r" % (actual, expected_start)
            fail_msg += " : %r" % msg if msg else ""
            self.fail(fail_msg)
