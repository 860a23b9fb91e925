"""The suite's own scripts, imported as modules: the known-wrong submissions
(``tests/submissions/variants.py``) and the hostile corpus (``tests/hostile/attacks.py``,
``tests/hostile/notebooks.py``). They are scripts (each writes its submissions with
``python <script> OUTDIR``), not a package, so test files load them by path, through here.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).resolve().parent


def load(relative: str) -> ModuleType:
    """``tests/<relative>`` as a module, imported once a process and registered in
    ``sys.modules`` (its dataclasses look their module up there by name)."""
    name = "suite_" + relative.removesuffix(".py").replace("/", "_")
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, TESTS / relative)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
