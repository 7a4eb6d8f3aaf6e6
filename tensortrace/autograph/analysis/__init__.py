"""Static analyses over a function's AST: which names statements bind and read (activity),
and which are live or defined at each control-flow statement (liveness)."""
