"""Builds the optional compiled observation encoders (sobek_env/<game>/_observe.pyx), the Sobek heuristic's
hand valuation (agents/sobek/_points.pyx) and Kleopatra's native engine (sobek_env/kleopatra/_native.pyx, C++);
everything else is in pyproject.toml.

The extension is optional: without Cython or a C compiler the install still succeeds (with a warning)
and ``Observer`` uses its pure-Python path.
"""

from setuptools import Extension, setup

GAMES = ("sobek", "kleopatra")  # each game's package holds an optional compiled encoder, _observe.pyx
# the C++ a native engine includes: rebuilt when they change, and shipped in the source distribution
NATIVE_HEADERS = {"kleopatra": [f"sobek_env/kleopatra/native/{name}.hpp" for name in ("engine", "observe", "resample")]
                  + ["sobek_env/native/pyrandom.hpp"]}

try:
    from Cython.Build import cythonize
except ImportError:  # no Cython: nothing to compile, the pure-Python encoder serves
    ext_modules = []
else:
    ext_modules = cythonize(
        [Extension(f"sobek_env.{game}._observe", [f"sobek_env/{game}/_observe.pyx"]) for game in GAMES]
        + [Extension("agents.sobek._points", ["agents/sobek/_points.pyx"])]
        + [Extension("sobek_env.kleopatra._native", ["sobek_env/kleopatra/_native.pyx"], language="c++",
                     extra_compile_args=["-O2", "-std=c++17"], include_dirs=["."],
                     depends=NATIVE_HEADERS["kleopatra"])],
        compiler_directives={"language_level": 3},
    )
    for extension in ext_modules:
        extension.optional = True  # cythonize does not carry the flag over from the Extension it is given

setup(ext_modules=ext_modules)
