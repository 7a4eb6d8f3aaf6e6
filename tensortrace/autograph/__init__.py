"""AutoGraph: converts Python control flow on tensors into graph control flow (being written)."""
