"""Reverse-mode differentiation: GradientTape and the backward walk."""
