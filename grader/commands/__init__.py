"""Commands: one module a ``grader`` command, each a thin layer over the packages below.

:mod:`grader.cli` parses arguments and calls a ``*_main`` function here; everything a command
does is callable from Python. May import every package; nothing imports a command but the CLI
(and another command that runs it as a step, as ``build`` runs ``validate``; and the student
pytest front end, ``student/conftest.py``, which asks :mod:`~grader.commands.environment` what
this machine lacks).
"""
