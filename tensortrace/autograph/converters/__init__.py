"""Converters: each rewrites one construct of a function's AST into code calling the ``ag__``
runtime. ``conversion.py`` runs them in a fixed order."""
