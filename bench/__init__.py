"""Benchmarks: ``python bench/run.py`` (see run.py)."""
