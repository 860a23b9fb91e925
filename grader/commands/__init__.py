"""Commands: one module a ``grader`` command, each a thin layer over the packages below.

:mod:`grader.cli` parses arguments and calls a ``*_main`` function here; everything a command
does is callable from Python. May import every package; nothing imports a command but the CLI
(and another command that runs it as a step, as ``build`` runs ``validate``).
"""
