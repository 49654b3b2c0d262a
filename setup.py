"""Builds the optional compiled observation encoders (sobek_env/<game>/_observe.pyx), the Sobek heuristic's
hand valuation (agents/sobek/_points.pyx) and Kleopatra's native baselines (agents/kleopatra/_baselines.pyx, C++
in agents/kleopatra/native/); everything else is in pyproject.toml.

The extension is optional: without Cython or a C compiler the install still succeeds (with a warning)
and ``Observer`` uses its pure-Python path.
"""

from setuptools import Extension, setup

GAMES = ("sobek", "kleopatra")  # each game's package holds an optional compiled encoder, _observe.pyx

try:
    from Cython.Build import cythonize
except ImportError:  # no Cython: nothing to compile, the pure-Python encoder serves
    ext_modules = []
else:
    ext_modules = cythonize(
        [Extension(f"sobek_env.{game}._observe", [f"sobek_env/{game}/_observe.pyx"]) for game in GAMES]
        + [Extension("agents.sobek._points", ["agents/sobek/_points.pyx"]),
           Extension("agents.kleopatra._baselines",
                     ["agents/kleopatra/_baselines.pyx", "agents/kleopatra/native/baselines.cpp"],
                     language="c++", extra_compile_args=["-O2", "-std=c++17", "-ffp-contract=off"], include_dirs=["."],
                     depends=["agents/kleopatra/native/baselines.hpp", "agents/kleopatra/native/heuristic.inc"])],
        compiler_directives={"language_level": 3},
    )
    for extension in ext_modules:
        extension.optional = True  # cythonize does not carry the flag over from the Extension it is given

setup(ext_modules=ext_modules)
