"""``tf.required_space_to_batch_paddings``: the paddings (and crops) that make a block shape
divide an input shape, as space-to-batch convolutions and Keras' sequence padding use them."""

from ... import dtypes as D
from ..._export import tf_export
from ...convert import convert_to_tensor
from ..array.creation import zeros
from ..array.joining import stack
from ..math.arithmetic import add, floormod, subtract


@tf_export("required_space_to_batch_paddings")
def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """``(paddings, crops)``, int32 [N, 2]: ``paddings[i] = [base[i, 0], base[i, 1] + extra]``
    with ``extra`` in [0, block_shape[i]) making ``input_shape[i] + paddings[i].sum()`` a
    multiple of ``block_shape[i]``; ``crops[i] = [0, extra]``.

    Raises:
        ValueError: ``block_shape`` not a fully known vector, or the shapes disagree.
    """
    input_shape = convert_to_tensor(input_shape, D.int32)
    block_shape = convert_to_tensor(block_shape, D.int32)
    block_shape.shape.assert_is_fully_defined()
    if block_shape.shape.rank != 1:
        raise ValueError(f"Shape {block_shape.shape} must have rank 1")
    n = block_shape.shape.dims[0]
    if n == 0:
        return zeros([0, 2], D.int32), zeros([0, 2], D.int32)
    input_shape.shape.assert_is_compatible_with([n])
    if base_paddings is not None:
        base_paddings = convert_to_tensor(base_paddings, D.int32)
        base_paddings.shape.assert_is_compatible_with([n, 2])
    else:
        base_paddings = zeros([n, 2], D.int32)
    pad_start, orig_pad_end = base_paddings[:, 0], base_paddings[:, 1]
    full = add(add(input_shape, pad_start), orig_pad_end)
    extra = floormod(subtract(block_shape, floormod(full, block_shape)), block_shape)
    pad_end = add(orig_pad_end, extra)
    paddings = stack([stack([pad_start[i], pad_end[i]]) for i in range(n)])
    crops = stack([stack([convert_to_tensor(0, D.int32), extra[i]]) for i in range(n)])
    return paddings, crops
