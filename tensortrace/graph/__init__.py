"""Graph IR: Graph, Operation, SymbolicTensor."""
