"""The ops whose output is their input, Identity and StopGradient (which tapes find no path
through), made together with their public functions by one definition."""

from ... import nest
from ..._export import tf_export
from ...composite import CompositeTensor
from ...context import bind
from ...convert import convert_to_tensor
from ...registry import OpDef, register
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
