"""Run graphs: the interpreter (reference) and codegen to Python (default)."""
