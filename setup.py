"""Builds the optional compiled parts; everything else is in pyproject.toml:

- the observation encoders and decoders (``sobek_env/<game>/_observe.pyx``);
- each game's native engine (``sobek_env/<game>/_native.pyx`` over the C++ in ``sobek_env/<game>/native/``,
  with the generator both share in ``sobek_env/native/``);
- each game's native baselines (``agents/<game>/_baselines.pyx`` over ``agents/<game>/native/``, what every
  game's decide shares in ``agents/search/native/decide.*``) and the
  Sobek heuristic's hand valuation (``agents/sobek/_points.pyx``);
- each game's whole playouts (``agents/<game>/_playouts.pyx``: the engine and the baselines in one loop, the
  loop shared in ``agents/search/native/``).
- train.py's games stepped natively with the pool's native opponents (``agents/training/_batch.pyx`` over
  ``agents/training/native/``, both games' engines and baselines).

Every extension is optional: without Cython or a compiler the install still succeeds (with a warning) and
the Python paths serve. C++ headers are given from the project root (``include_dirs=["."]``), so one
Cython module may cimport several games' engines.
"""

import os
from pathlib import Path

from setuptools import Extension, setup

GAMES = ("sobek", "kleopatra")
# -O3: the decoders' loops over an observation vectorize (a third faster playouts than -O2; IEEE rounding is
# kept, as no -ffast-math is given); no fused multiply-adds where the source has none: the native twins round as
# the Python references do
CXX_FLAGS = ["-O3", "-std=c++17", "-ffp-contract=off"]
# the cores this process may use: the extensions are translated and compiled side by side (on 2 cores a build
# takes 75 s instead of 135)
CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
SHARED_HEADERS = sorted(str(p) for p in Path("sobek_env/native").glob("*") if p.suffix in (".hpp", ".pxi"))


def cxx(name: str, sources: list[str], native: str, extra: tuple[str, ...] = ()) -> Extension:
    """A C++ extension whose headers (rebuilt on change, shipped in the sdist) are those of ``native`` (and of
    the ``extra`` folders)."""
    depends = sorted(str(p) for folder in (native, *extra) for p in Path(folder).glob("*")
                     if p.suffix in (".hpp", ".inc", ".pxi")) + SHARED_HEADERS
    return Extension(name, sources, language="c++", include_dirs=["."], extra_compile_args=CXX_FLAGS,
                     depends=depends)


try:
    from Cython.Build import cythonize
except ImportError:  # no Cython: nothing to compile, the Python paths serve
    ext_modules = []
else:
    ext_modules = cythonize(
        [Extension(f"sobek_env.{game}._observe", [f"sobek_env/{game}/_observe.pyx"]) for game in GAMES]
        + [cxx(f"sobek_env.{game}._native", [f"sobek_env/{game}/_native.pyx"], f"sobek_env/{game}/native")
           for game in GAMES]
        + [cxx(f"agents.{game}._baselines", [f"agents/{game}/_baselines.pyx", f"agents/{game}/native/baselines.cpp"],
               f"agents/{game}/native", extra=("agents/search/native",)) for game in GAMES]
        + [cxx(f"agents.{game}._playouts", [f"agents/{game}/_playouts.pyx", f"agents/{game}/native/baselines.cpp"],
               f"agents/{game}/native", extra=("agents/search/native",)) for game in GAMES]
        + [Extension("agents.sobek._points", ["agents/sobek/_points.pyx"])]
        + [cxx("agents.training._batch", ["agents/training/_batch.pyx",
                                          *(f"agents/{game}/native/baselines.cpp" for game in GAMES)],
               "agents/training/native",
               extra=("agents/search/native", *(f"{root}/{game}/native" for root in ("agents", "sobek_env")
                                                for game in GAMES)))],
        compiler_directives={"language_level": 3}, nthreads=CORES,
    )
    for extension in ext_modules:
        extension.optional = True  # cythonize does not carry the flag over from the Extension it is given

setup(ext_modules=ext_modules, options={"build_ext": {"parallel": CORES}})
