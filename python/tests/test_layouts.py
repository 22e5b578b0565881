"""The package imported from each place it is installed to: the build tree
(every other test), `cmake --install`, and a wheel (`pip install ./python`).

The wheel test builds the runtime and the extension again (about half a
minute on two cores), so it runs only with TESSEL_TEST_WHEEL=1
(scripts/test.sh sets it). It builds without network when scikit-build-core
and nanobind are installed (scripts/setup.sh), else pip fetches them.
"""

import importlib.util
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]

# Imports tessel, prints where the package, the extension and the runtime
# came from, and runs the copy artifact synchronously and asynchronously.
CHECK = """
import sys
import numpy as np
import tessel
from tessel import _ext

print(tessel.__file__)
print(_ext.module().__file__)
print([line.split()[-1] for line in open("/proc/self/maps")
       if "libtessel_runtime" in line][0])
with tessel.load(sys.argv[1]) as model, model.session() as session:
    inputs = [np.full(info.shape, 3, info.dtype) for info in model.inputs]
    outputs = session.run(inputs)
    with tessel.Stream() as stream:
        later = session.run_async(inputs, stream).result(timeout=60)
    for got, want in zip(list(outputs.values()) + list(later.values()), inputs * 2):
        np.testing.assert_array_equal(got, want)
print("ok")
"""


def run_check(python, artifact, cwd, site=None):
    """Runs CHECK with ``python`` outside the source tree, with no TESSEL_
    variable (and PYTHONPATH=``site`` when given); returns its output lines."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("TESSEL_") and key not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return subprocess.run([str(python), "-c", CHECK, str(artifact)], env=env, cwd=cwd,
                          capture_output=True, text=True, check=True).stdout.split("\n")


def test_cmake_install(build_dir, copy_model_so, tmp_path):
    prefix = tmp_path / "prefix"
    # The runtime and the package only: this build tree may lack the compiler.
    for component in ("runtime", "python"):
        subprocess.run(["cmake", "--install", str(build_dir), "--prefix", str(prefix),
                        "--component", component], check=True, capture_output=True)
    [init] = prefix.glob("lib*/**/site-packages/tessel/__init__.py")
    site = init.parent.parent
    package, extension, runtime, ok, _ = run_check(sys.executable, copy_model_so, tmp_path,
                                                   site)
    assert Path(package) == site / "tessel" / "__init__.py"
    assert Path(extension).parent == site / "tessel"
    assert Path(runtime).parent.parent == prefix and Path(runtime).parent.name.startswith("lib")
    assert ok == "ok"


@pytest.mark.skipif(os.environ.get("TESSEL_TEST_WHEEL") != "1",
                    reason="builds a wheel (slow): set TESSEL_TEST_WHEEL=1")
def test_pip_install_wheel(copy_model_so, tmp_path):
    venv = tmp_path / "venv"
    # The system's site-packages for numpy (and, if present, the build tools).
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    python = venv / "bin" / "python"
    offline = all(importlib.util.find_spec(name) for name in ("scikit_build_core", "nanobind"))
    command = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if offline:
        command.append("--no-build-isolation")
    result = subprocess.run(command + [str(PYTHON_DIR)], cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    package, extension, runtime, ok, _ = run_check(python, copy_model_so, tmp_path)
    site = Path(package).parent.parent
    assert site.is_relative_to(venv)
    assert Path(extension).parent == site / "tessel"
    assert Path(runtime) == site / "tessel" / "libtessel_runtime.so"
    assert ok == "ok"


@pytest.mark.skipif(os.environ.get("TESSEL_TEST_WHEEL") != "1",
                    reason="builds an sdist and a wheel (slow): set TESSEL_TEST_WHEEL=1")
@pytest.mark.skipif(not all(importlib.util.find_spec(name)
                            for name in ("scikit_build_core", "nanobind")),
                    reason="scripts/python-dist.sh builds offline with scikit-build-core "
                           "and nanobind: run scripts/setup.sh")
def test_sdist_builds_a_wheel(copy_model_so, tmp_path):
    """scripts/python-dist.sh: an sdist that carries the runtime's sources,
    and a wheel built from it (not from this checkout) that runs a model."""
    dist = tmp_path / "dist"
    subprocess.run([str(PYTHON_DIR.parent / "scripts" / "python-dist.sh"), str(dist)],
                   check=True, capture_output=True, text=True)
    [sdist] = dist.glob("tessel-*.tar.gz")
    [wheel] = dist.glob("tessel-*.whl")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    root = sdist.name[:-len(".tar.gz")]
    for needed in ("pyproject.toml", "runtime/CMakeLists.txt", "runtime/src/core/session.cpp",
                   "runtime/include/tessel/runtime.h", "src/tessel_ext.cpp",
                   "tessel/__init__.py"):
        assert f"{root}/{needed}" in names
    # One version: the CMake project's, pyproject.toml's and the files'.
    cmake_version = re.search(r"project\(tessel VERSION ([0-9.]+)",
                              (PYTHON_DIR.parent / "CMakeLists.txt").read_text()).group(1)
    assert root == f"tessel-{cmake_version}"
    assert wheel.name.startswith(f"tessel-{cmake_version}-")

    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    package, extension, runtime, ok, _ = run_check(sys.executable, copy_model_so, tmp_path,
                                                   site)
    assert Path(package) == site / "tessel" / "__init__.py"
    assert Path(runtime) == site / "tessel" / "libtessel_runtime.so"
    assert ok == "ok"
