"""Lookup tables: the run-time table resources and the ops that create, fill and read them."""
