"""Every op's gradient rule, or its declaration as not differentiable: one module per op family,
each a table in HIPS autograd's style, registered into the ops' records on import
(``grad_util.register_gradients`` fills ``OpDef.grad``).

A rule is ``rule(op, dy)`` (``rule(op, *dys)`` for ops of several outputs): ``op`` is the
recorded application (``inputs``, ``outputs``, ``attrs``, ``skip_input_indices``) and ``dy`` the
gradient flowing into its output; it returns one ``dx`` (or None) per input, written with the
public ops, so it runs eagerly, while tracing, and under outer tapes (higher orders).

A family's table loads on the first gradient asked of one of its ops (``OpDef.grad`` asks the
registry's loader), so importing this package alone registers nothing.
"""
