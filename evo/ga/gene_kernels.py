"""Deprecated since 0.2.0, removed in 0.3.0: moved to :mod:`evo.ga.kernels.genes` (a DeprecationWarning
names the new path)."""

from evo.ga._moved import moved_module

__getattr__ = moved_module("evo.ga.gene_kernels", "evo.ga.kernels.genes")
