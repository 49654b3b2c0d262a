"""Builds the optional compiled parts: the observation encoders (sobek_env/<game>/_observe.pyx), the Sobek
heuristic's hand valuation (agents/sobek/_points.pyx) and Sobek's native engine (sobek_env/sobek/_native.pyx,
C++ under sobek_env/sobek/native/); everything else is in pyproject.toml.

Every extension is optional: without Cython or a compiler the install still succeeds (with a warning)
and the Python paths serve.
"""

from setuptools import Extension, setup

GAMES = ("sobek", "kleopatra")  # each game's package holds an optional compiled encoder, _observe.pyx
CXX_FLAGS = ["-O2", "-std=c++17"]
# A Cython module that cimports sobek_env.sobek._native (its .pxd) compiles with these include dirs too.
NATIVE_INCLUDE = ["sobek_env/sobek"]

try:
    from Cython.Build import cythonize
except ImportError:  # no Cython: nothing to compile, the pure-Python encoder serves
    ext_modules = []
else:
    ext_modules = cythonize(
        [Extension(f"sobek_env.{game}._observe", [f"sobek_env/{game}/_observe.pyx"]) for game in GAMES]
        + [Extension("agents.sobek._points", ["agents/sobek/_points.pyx"])]
        + [Extension("sobek_env.sobek._native", ["sobek_env/sobek/_native.pyx"], language="c++",
                     include_dirs=NATIVE_INCLUDE, extra_compile_args=CXX_FLAGS)],
        compiler_directives={"language_level": 3},
    )
    for extension in ext_modules:
        extension.optional = True  # cythonize does not carry the flag over from the Extension it is given

setup(ext_modules=ext_modules)
