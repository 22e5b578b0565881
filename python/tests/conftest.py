"""Shared fixtures: the build tree under test and artifacts made from it.

The build tree is $TESSEL_BUILD_DIR, else build/ at the root of the
repository holding this file; the package finds the runtime and the compiler
there too (this module exports the variable before any test runs).
"""

import os
import shutil
import struct
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
    for needed in ("bin/tessel-compile", "lib/libtessel_runtime.so"):
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


_P1, _P2, _P3, _P4, _P5 = (11400714785074694791, 14029467366897019727,
                           1609587929392839161, 9650029242287828579,
                           2870177450012600261)
_MASK = (1 << 64) - 1


def _xxh64(data: bytes) -> int:
    """XXH64 with seed 0, as runtime/include/tessel/seal.h computes it."""
    rotl = lambda x, r: ((x << r) | (x >> (64 - r))) & _MASK
    rnd = lambda acc, w: rotl((acc + w * _P2) & _MASK, 31) * _P1 & _MASK
    n, p = len(data), 0
    if n >= 32:
        v = [(_P1 + _P2) & _MASK, _P2, 0, (-_P1) & _MASK]
        while p + 32 <= n:
            for i, w in enumerate(struct.unpack_from("<4Q", data, p)):
                v[i] = rnd(v[i], w)
            p += 32
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & _MASK
        for lane in v:
            h = ((h ^ rnd(0, lane)) * _P1 + _P4) & _MASK
    else:
        h = _P5
    h = (h + n) & _MASK
    while p + 8 <= n:
        h ^= rnd(0, struct.unpack_from("<Q", data, p)[0])
        h = (rotl(h, 27) * _P1 + _P4) & _MASK
        p += 8
    if p + 4 <= n:
        h ^= struct.unpack_from("<I", data, p)[0] * _P1 & _MASK
        h = (rotl(h, 23) * _P2 + _P3) & _MASK
        p += 4
    for byte in data[p:]:
        h ^= byte * _P5 & _MASK
        h = rotl(h, 11) * _P1 & _MASK
    h = (h ^ (h >> 33)) * _P2 & _MASK
    h = (h ^ (h >> 29)) * _P3 & _MASK
    return h ^ (h >> 32)


def _seal(path: Path) -> None:
    """Appends the seal tessel-compile writes after linking (tessel/seal.h),
    which the runtime checks before it loads an artifact."""
    image = path.read_bytes()
    path.write_bytes(image + b"TSLSEAL1" + struct.pack("<IIQQ", 1, 0, len(image),
                                                       _xxh64(image)))


def _build_fixture(tmp_path_factory, name, *defines) -> Path:
    cc = shutil.which("cc")
    if cc is None:
        pytest.fail("no C compiler (cc) on PATH to build the fixture artifacts")
    out = tmp_path_factory.mktemp("fixtures") / f"{name}.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-std=c11",
                    f"-I{REPO_ROOT / 'runtime' / 'include'}", *defines,
                    str(FIXTURES / "copy_model.c"), "-o", str(out)], check=True)
    _seal(out)
    return out


@pytest.fixture(scope="session")
def copy_model_so(build_dir, tmp_path_factory) -> Path:
    """A hand-written artifact copying one input per NumPy dtype."""
    return _build_fixture(tmp_path_factory, "copy_model")


@pytest.fixture(scope="session")
def bfloat16_model_so(build_dir, tmp_path_factory) -> Path:
    """The same with one bfloat16 input and output."""
    return _build_fixture(tmp_path_factory, "copy_bf16", "-DCOPY_MODEL_BFLOAT16")
