"""Command-line commands: one module per ``python -m evo`` sub-command (see :mod:`evo.cli`)."""
