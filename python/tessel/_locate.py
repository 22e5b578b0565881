"""Finding the Tessel build tree and its compiler."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ._errors import NOT_FOUND, TesselError

COMPILER = "tessel-compile"


def build_dir() -> Path:
    """The Tessel build tree this package uses: ``$TESSEL_BUILD_DIR``, else
    ``build/`` of the source tree the package sits in (``python/tessel`` ->
    ``build``). It may not exist (an installed package outside a checkout)."""
    configured = os.environ.get("TESSEL_BUILD_DIR")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parent.parent.parent / "build"


def compiler() -> str:
    """The ``tessel-compile`` to run: ``$TESSEL_COMPILE`` when set (it must
    exist), else ``<build dir>/bin/tessel-compile`` when it exists, else the
    one on ``PATH``."""
    explicit = os.environ.get("TESSEL_COMPILE")
    if explicit:
        if not Path(explicit).is_file():
            raise TesselError(
                NOT_FOUND, f"$TESSEL_COMPILE is '{explicit}', which is not a file")
        return explicit
    in_build = build_dir() / "bin" / COMPILER
    if in_build.is_file():
        return str(in_build)
    on_path = shutil.which(COMPILER)
    if on_path:
        return on_path
    raise TesselError(
        NOT_FOUND,
        f"cannot find {COMPILER}: looked at {in_build} and on PATH; set "
        "$TESSEL_COMPILE to the executable or $TESSEL_BUILD_DIR to the build tree")
