"""Compiles the environments' hot modules (``hiddenhand/compiled.py``) with Cython where it can.

Without Cython or a C compiler, or with ``HIDDENHAND_PURE_PYTHON=1``, the package installs as plain
Python: the same modules, the same results, about 1.5x slower. Everything else is in pyproject.toml.
"""

import os
import runpy

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

COMPILED = runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "hiddenhand", "compiled.py"))
DIRECTIVES = {"language_level": 3, "binding": False, "annotation_typing": False}


def extensions() -> list:
    if os.environ.get(COMPILED["PURE_PYTHON"], "") not in ("", "0"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("hiddenhand: Cython is not available; installing the pure-Python modules")
        return []
    modules = [Extension(name, [path]) for path, name in COMPILED["SOURCES"].items()]
    return cythonize(modules, compiler_directives=DIRECTIVES, quiet=True)


class OptionalBuildExt(build_ext):
    """A module that fails to compile (no C compiler, say) stays pure Python."""

    def run(self):
        try:
            super().run()
        except Exception as error:  # noqa: BLE001  (any build failure leaves the sources in use)
            print(f"hiddenhand: compiling failed ({error}); the pure-Python modules are used")

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as error:  # noqa: BLE001
            print(f"hiddenhand: compiling {ext.name} failed ({error}); its pure-Python module is used")


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
