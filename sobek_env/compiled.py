"""The optional compiled extensions (built by ``pip install`` from the ``.pyx`` files when Cython and a C
compiler are at hand), each beside a Python reference that serves when it is absent.

Set the environment variable ``SOBEK_PURE_PYTHON=1`` before importing ``sobek_env`` or ``agents`` to force
the Python paths everywhere.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType


def extension(name: str, package: str) -> ModuleType | None:
    """The compiled module ``name`` (relative to ``package``, as ``"._observe"``), or None when
    ``SOBEK_PURE_PYTHON`` asks for the Python paths or it was not built."""
    if os.environ.get("SOBEK_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        return importlib.import_module(name, package)
    except ImportError:  # not built (no compiler at install): the Python path serves
        return None
