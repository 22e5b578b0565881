"""Shared fixtures: the build tree under test and artifacts made from it.

The build tree is $TESSEL_BUILD_DIR, else build/ at the root of the
repository holding this file; the package finds the runtime and the compiler
there too (this module exports the variable before any test runs).
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("TESSEL_BUILD_DIR") or REPO_ROOT / "build").resolve()
os.environ["TESSEL_BUILD_DIR"] = str(BUILD_DIR)
TINY_CNN = REPO_ROOT / "examples" / "tiny_cnn"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def build_dir() -> Path:
    for needed in ("bin/tessel-compile", "bin/tessel_fixture_seal",
                   "lib/libtessel_runtime.so"):
        if not (BUILD_DIR / needed).is_file():
            pytest.fail(f"{BUILD_DIR / needed} is missing: build Tessel first "
                        "(scripts/build.sh) or set TESSEL_BUILD_DIR")
    return BUILD_DIR


@pytest.fixture(scope="session")
def tiny_cnn_so(build_dir, tmp_path_factory) -> Path:
    """examples/tiny_cnn/model.onnx compiled with tessel.compile."""
    import tessel

    out = tmp_path_factory.mktemp("tiny_cnn") / "model.so"
    assert tessel.compile(TINY_CNN / "model.onnx", out) == str(out)
    return out


def _build_fixture(tmp_path_factory, name, *defines) -> Path:
    cc = shutil.which("cc")
    if cc is None:
        pytest.fail("no C compiler (cc) on PATH to build the fixture artifacts")
    out = tmp_path_factory.mktemp("fixtures") / f"{name}.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-std=c11",
                    f"-I{REPO_ROOT / 'runtime' / 'include'}", *defines,
                    str(FIXTURES / "copy_model.c"), "-o", str(out)], check=True)
    # Sealed as tessel-compile seals what it links (tessel/seal.h), by the
    # runtime tests' fixture tool: the runtime refuses an unsealed .so.
    subprocess.run([str(BUILD_DIR / "bin" / "tessel_fixture_seal"), str(out)], check=True)
    return out


@pytest.fixture(scope="session")
def copy_model_so(build_dir, tmp_path_factory) -> Path:
    """A hand-written artifact copying one input per NumPy dtype."""
    return _build_fixture(tmp_path_factory, "copy_model")


@pytest.fixture(scope="session")
def bfloat16_model_so(build_dir, tmp_path_factory) -> Path:
    """The same with one bfloat16 input and output."""
    return _build_fixture(tmp_path_factory, "copy_bf16", "-DCOPY_MODEL_BFLOAT16")
