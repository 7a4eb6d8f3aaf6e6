"""The ops whose output is their input: Identity and StopGradient (which tapes find no path
through), made together with their public functions by one definition, and TF 1's
PlaceholderWithDefault (a graph input that is its input when not fed)."""

from ... import nest
from ..._export import tf_export
from ...composite import CompositeTensor
from ...context import bind
from ...convert import convert_to_tensor
from ...messages import enum_name, merge_error_text, node_error, shape_text
from ...registry import OpDef, define_op, never_static, register
from ...shapes import TensorShape
from ...tensor import TensorSpec


def _same_spec(input):
    return TensorSpec(input.shape, input.dtype)


def _same_array(input):
    return input


def _pass_through(op_name, public_name, doc):
    """Register an op that returns its input array itself (``{0}`` in generated code), and
    export its public function ``tf.<public_name>(input, name=None)``."""
    opdef = register(OpDef(op_name, _same_spec, _same_array, expr="{0}", doc=doc))

    def apply(input, name=None):
        if isinstance(input, CompositeTensor):  # TF maps a composite's components
            return nest.map_structure(apply, input, expand_composites=True)
        return bind(opdef, convert_to_tensor(input))

    apply.__name__ = apply.__qualname__ = public_name
    apply.__doc__ = doc
    return opdef, tf_export(public_name)(apply)


IDENTITY, identity = _pass_through(
    "Identity", "identity", "A tensor with the same value as ``input``.")
STOP_GRADIENT, stop_gradient = _pass_through(
    "StopGradient", "stop_gradient", "``input``, treated as a constant by gradients.")


@define_op("PlaceholderWithDefault", static=never_static, expr="{0}")
class PlaceholderWithDefault:
    """``input`` unless the output is fed; its static shape is the ``shape`` attr (possibly less
    precise than the input's), and its value is never known while tracing (it may be fed)."""

    def infer(input, dtype, shape):
        shape = TensorShape(shape)
        if not input.shape.is_compatible_with(shape):  # TF's shape function merges the two
            attrs = f"dtype=DT_{enum_name(dtype)}, shape={shape_text(shape)}"
            source = getattr(input, "op", None)
            raise node_error(merge_error_text(input.shape, shape), "PlaceholderWithDefault",
                             [shape_text(input.shape)], attrs,
                             source.name if source is not None else "input")
        return TensorSpec(shape, dtype)

    def kernel(input, dtype, shape):
        return input  # eagerly TF checks nothing either
