"""Shared fixtures: the build tree under test and artifacts made from it.

The build tree is $TESSEL_BUILD_DIR, else build/ at the root of the
repository holding this file; the package finds its extension module and the
compiler there too (this module exports the variable before any test runs).
$TESSEL_COMPILE, when set, names the compiler instead (a build tree without
the compiler: -DTESSEL_BUILD_COMPILER=OFF, or only the Python targets built).
"""

import ctypes
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
RUNTIME_FIXTURES = REPO_ROOT / "unittests" / "runtime" / "fixtures"


@pytest.fixture(scope="session")
def build_dir() -> Path:
    """The build tree, with the runtime, the extension module and the
    fixture seal tool built (ninja tessel_runtime _tessel_ext
    tessel_fixture_seal)."""
    for needed in ("bin/tessel_fixture_seal", "lib/libtessel_runtime.so"):
        if not (BUILD_DIR / needed).is_file():
            pytest.fail(f"{BUILD_DIR / needed} is missing: build Tessel first "
                        "(scripts/build.sh) or set TESSEL_BUILD_DIR")
    if not list((BUILD_DIR / "python" / "tessel").glob("_tessel_ext*.so")):
        pytest.fail(f"{BUILD_DIR}/python/tessel has no _tessel_ext module: build "
                    "it (ninja _tessel_ext; CMake option TESSEL_BUILD_PYTHON)")
    return BUILD_DIR


@pytest.fixture(scope="session")
def compiler(build_dir) -> str:
    """The tessel-compile that tessel.compile runs."""
    from tessel import TesselError, _locate

    try:
        return _locate.compiler()
    except TesselError as error:
        pytest.fail(f"{error}: build the compiler or set TESSEL_COMPILE")


@pytest.fixture(scope="session")
def tiny_cnn_so(compiler, tmp_path_factory) -> Path:
    """examples/tiny_cnn/model.onnx compiled with tessel.compile."""
    import tessel

    out = tmp_path_factory.mktemp("tiny_cnn") / "model.so"
    assert tessel.compile(TINY_CNN / "model.onnx", out) == str(out)
    return out


def _build_fixture(tmp_path_factory, name, *defines,
                   source=FIXTURES / "copy_model.c") -> Path:
    cc = shutil.which("cc")
    if cc is None:
        pytest.fail("no C compiler (cc) on PATH to build the fixture artifacts")
    out = tmp_path_factory.mktemp("fixtures") / f"{name}.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-std=c11", "-pthread",
                    f"-I{REPO_ROOT / 'runtime' / 'include'}", *defines,
                    str(source), "-o", str(out)], check=True)
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


# How long a gate artifact's run waits for its gate before failing.
DEADLINE_MS = 10000
@pytest.fixture(scope="session")
def block_model_so(build_dir, tmp_path_factory) -> Path:
    """The runtime tests' gate artifact (unittests/runtime/fixtures/
    block_model.c): int32[1] "tag" -> int32[1] "seq"; each run blocks until
    the test opens the gate, or fails with code 3 at a deadline."""
    return _build_fixture(tmp_path_factory, "block_model",
                          source=RUNTIME_FIXTURES / "block_model.c")


@pytest.fixture(scope="session")
def failing_model_so(build_dir, tmp_path_factory) -> Path:
    """The runtime tests' add artifact (float32[2,3] "a", "b" -> "y") built
    so that its entry returns 7: every run fails with a runtime error."""
    return _build_fixture(tmp_path_factory, "add_fails", "-DFIXTURE_ENTRY_FAILS",
                          source=RUNTIME_FIXTURES / "add_model.c")


@pytest.fixture(scope="session")
def add_model_so(build_dir, tmp_path_factory) -> Path:
    """The runtime tests' add artifact: float32[2,3] "a" + "b" -> "y"."""
    return _build_fixture(tmp_path_factory, "add", source=RUNTIME_FIXTURES / "add_model.c")


@pytest.fixture(scope="session")
def nondeterministic_model_so(build_dir, tmp_path_factory) -> Path:
    """The same, its descriptor flagged TESSEL_MODEL_NONDETERMINISTIC."""
    return _build_fixture(tmp_path_factory, "add_nondeterministic",
                          "-DFIXTURE_NONDETERMINISTIC",
                          source=RUNTIME_FIXTURES / "add_model.c")


@pytest.fixture(scope="session")
def dynamic_model_so(build_dir, tmp_path_factory) -> Path:
    """The runtime tests' dynamic-batch artifact (unittests/runtime/
    fixtures/dynamic_batch_model.c): x float32[N,3], bias float32[N,1] ->
    y = x + bias, and "batch" int32[N,1], the batch of the entry that ran
    each row; N in 1..16, entries for batch 1, 4 and 8."""
    return _build_fixture(tmp_path_factory, "dynamic",
                          source=RUNTIME_FIXTURES / "dynamic_batch_model.c")


@pytest.fixture(scope="session")
def padded_model_so(build_dir, tmp_path_factory) -> Path:
    """The runtime tests' padded-dimension artifact (unittests/runtime/
    fixtures/padded_model.c): x float32[1,S,2], w float32[1,S] -> y = x +
    w + the sum of x[0,:,0], and "length" int32[1,1], the length of the
    entry that ran; S in 1..8, entries for lengths 4 and 8."""
    return _build_fixture(tmp_path_factory, "padded",
                          source=RUNTIME_FIXTURES / "padded_model.c")


@pytest.fixture
def gate(block_model_so):
    """The gate artifact's hooks: closed at the start, open at the end."""
    hooks = ctypes.CDLL(str(block_model_so))  # the same copy the runtime loads
    hooks.block_fixture_reset(0, DEADLINE_MS)
    hooks.block_fixture_set_gate(0)
    yield hooks
    hooks.block_fixture_set_gate(1)


def log(hooks):
    """The gate artifact's log: 2*tag when a run starts, 2*tag+1 when it ends."""
    entries = (ctypes.c_int * 64)()
    return list(entries[:hooks.block_fixture_log(entries, 64)])
