"""Running tessel-compile."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence

from . import _locate
from ._errors import COMPILE_ERROR, INVALID_ARGUMENT, IO_ERROR, TesselError


def compile_model(model_path: str | os.PathLike, output_path: str | os.PathLike,
                  *, target: str | None = None, target_cpu: str | None = None,
                  opt_level: int = 2,
                  input_shapes: Mapping[str, Sequence[int]] | None = None,
                  preprocess: str | None = None,
                  report: str | os.PathLike | None = None,
                  dim_range: str | Sequence[str] | None = None,
                  specialize: str | Sequence[str] | None = None) -> str:
    """Compiles the ONNX model at ``model_path`` into the artifact
    ``output_path`` and returns ``output_path``.

    ``target`` is what to compile for (``"cpu"``, the default and so far the
    only one); ``target_cpu`` is an LLVM CPU name (default: the host's);
    ``opt_level`` 0 to 3; ``input_shapes`` fixes the shapes of graph inputs
    (``{"x": (1, 3, 224, 224)}``), which a model with dynamic dimensions
    needs (``"?"`` as dimension 0: the dynamic batch of ``dim_range``);
    ``preprocess`` is a ``--preprocess`` SPEC that compiles an image's
    preprocessing into the model, so that the artifact takes raw pixels
    (``"input=uint8,hwc,resize=256,crop=224,scale=1/255,mean=0.485:0.456:0.406,
    std=0.229:0.224:0.225"``; docs/compiler.md, "Preprocessing"); ``report``
    is a path for the compiler's JSON report. ``dim_range`` (``"N=1..64"``,
    ``--dim-range``) compiles the inputs' dynamic dimension 0 as a batch
    that one artifact runs at any size in the range (``Model.batch_range``),
    with code for the sizes ``specialize`` lists (``"N=1,4,8"``,
    ``--specialize``; default: the compiler's). A list of two ranges
    (``["N=1..8", "S=1..128"]``) also gives a padded dimension, a sequence
    length that one artifact runs at any length in its range
    (``Model.padded_range``; docs/compiler.md, "A padded dimension");
    ``specialize`` may be a list too.

    Runs ``$TESSEL_COMPILE``, else ``bin/tessel-compile`` of the build tree
    (``$TESSEL_BUILD_DIR``), else the ``tessel-compile`` on PATH. Raises
    ``TesselError`` with the compiler's stderr: ``"compile error"`` when the
    model cannot be compiled, ``"invalid argument"`` for bad options.
    """
    if isinstance(opt_level, bool) or opt_level not in (0, 1, 2, 3):
        raise TesselError(INVALID_ARGUMENT,
                          f"opt_level must be 0, 1, 2 or 3, not {opt_level!r}")
    output_path = os.fspath(output_path)
    command = [_locate.compiler(), os.fspath(model_path), "-o", output_path,
               f"-O{opt_level}"]
    if target is not None:
        command.append(f"--target={target}")
    if target_cpu is not None:
        command.append(f"--target-cpu={target_cpu}")
    for name, shape in (input_shapes or {}).items():
        extents = "x".join("?" if extent == "?" else str(int(extent))
                           for extent in shape)
        command.append(f"--input-shape={name}={extents}")
    if preprocess is not None:
        command.append(f"--preprocess={preprocess}")
    if report is not None:
        command.append(f"--report={os.fspath(report)}")
    def each(value):
        return [value] if isinstance(value, str) else list(value or [])

    for spec in each(dim_range):
        command.append(f"--dim-range={spec}")
    for spec in each(specialize):
        command.append(f"--specialize={spec}")

    try:
        result = subprocess.run(command, capture_output=True, text=True,
                                errors="replace", check=False)
    except OSError as error:  # not executable, or vanished since found
        raise TesselError(IO_ERROR, f"cannot run {command[0]}: {error}") from None
    if result.returncode != 0:
        # tessel-compile: 1 = the model cannot be compiled, 2 = bad usage.
        code = INVALID_ARGUMENT if result.returncode == 2 else COMPILE_ERROR
        message = result.stderr.strip() or (
            f"{command[0]} exited with status {result.returncode}")
        raise TesselError(code, message)
    return output_path
