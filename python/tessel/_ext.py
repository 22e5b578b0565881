"""Loading the extension module ``tessel._tessel_ext`` (nanobind, over
``libtessel_runtime.so``).

The module is loaded on first use, so ``import tessel`` works without it
(``tessel.compile`` does not need it). It is looked for next to this file
(an installed package or a wheel), else in the build tree's
``python/tessel/`` (``$TESSEL_BUILD_DIR``, default ``build/`` of this source
tree), where CMake builds it. It finds ``libtessel_runtime.so`` by its RPATH;
``$TESSEL_RUNTIME_LIBRARY`` names another copy to load instead.
"""

from __future__ import annotations

import ctypes
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import threading
from pathlib import Path

from . import _locate
from ._errors import NOT_FOUND, TesselError

NAME = "tessel._tessel_ext"

_lock = threading.Lock()
_module = None


def module():
    """The extension module, imported on first call."""
    global _module
    with _lock:
        if _module is None:
            _module = _import()
        return _module


def build_tree_dir() -> Path:
    """Where CMake builds the extension in the build tree."""
    return _locate.build_dir() / "python" / "tessel"


def _import():
    explicit = os.environ.get("TESSEL_RUNTIME_LIBRARY")
    if explicit:
        if not Path(explicit).is_file():
            raise TesselError(
                NOT_FOUND,
                f"$TESSEL_RUNTIME_LIBRARY is '{explicit}', which is not a file")
        # Loaded first, it is the libtessel_runtime.so the extension binds to
        # (the loader matches the extension's dependency by its soname).
        _load(lambda: ctypes.CDLL(explicit, mode=ctypes.RTLD_GLOBAL), explicit)

    package_dir = Path(__file__).resolve().parent
    try:
        return _load(lambda: importlib.import_module(NAME), str(package_dir))
    except ModuleNotFoundError as error:
        if error.name != NAME:
            raise
    in_build = build_tree_dir()
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = in_build / f"_tessel_ext{suffix}"
        if path.is_file():
            return _load(lambda: _import_file(path), str(path))
    raise TesselError(
        NOT_FOUND,
        f"cannot load the Tessel extension module (_tessel_ext): looked in "
        f"{package_dir} and {in_build}. Build it (ninja -C build _tessel_ext), "
        f"set $TESSEL_BUILD_DIR to the build tree, or install the package "
        f"(pip install ./python, or cmake --install)")


def _import_file(path: Path):
    spec = importlib.util.spec_from_file_location(NAME, path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    sys.modules[NAME] = loaded
    return loaded


def _load(load, where: str):
    """Calls ``load``, turning a failure of the dynamic loader into a
    TesselError that says what could not be loaded."""
    try:
        return load()
    except ModuleNotFoundError:
        raise
    except (ImportError, OSError) as error:
        raise TesselError(
            NOT_FOUND,
            f"cannot load the Tessel runtime from {where} ({error}). Set "
            "$TESSEL_RUNTIME_LIBRARY to libtessel_runtime.so or "
            "$TESSEL_BUILD_DIR to the build tree") from None
