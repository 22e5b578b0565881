"""Finding the extension module, the runtime library and the compiler."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tessel
from tessel import _ext, _locate

PYTHON_DIR = Path(__file__).resolve().parents[1]


def run_python(script, tmp_path, **env_changes):
    """Runs ``script`` in a fresh interpreter importing the source tree's
    package; returns its stdout."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("TESSEL_RUNTIME_LIBRARY", "LD_LIBRARY_PATH")}
    env["PYTHONPATH"] = str(PYTHON_DIR)
    env.update(env_changes)
    result = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path,
                            capture_output=True, text=True, check=True)
    return result.stdout


REPORT_ERROR = ("import tessel\n"
                "try:\n    tessel.load('model.so')\n"
                "except tessel.TesselError as e:\n    print(e.code_name); print(e.message)\n")


def test_extension_from_build_tree(build_dir):
    module = _ext.module()
    assert Path(module.__file__).parent == build_dir / "python" / "tessel"
    assert tessel.runtime_version() == tessel.__version__


def test_runtime_found_by_rpath(build_dir, tmp_path):
    # No LD_LIBRARY_PATH: the extension's $ORIGIN-relative RUNPATH finds
    # build/lib/libtessel_runtime.so.
    script = ("import tessel; tessel.runtime_version()\n"
              "print([l.split()[-1] for l in open('/proc/self/maps') "
              "if 'libtessel_runtime' in l][0])")
    library = run_python(script, tmp_path).strip()
    assert Path(library) == build_dir / "lib" / "libtessel_runtime.so"


def test_runtime_library_from_environment(build_dir, tmp_path):
    copy = tmp_path / "copy" / "libtessel_runtime.so"
    copy.parent.mkdir()
    shutil.copy(build_dir / "lib" / "libtessel_runtime.so", copy)
    script = ("import tessel; tessel.runtime_version()\n"
              "print([l.split()[-1] for l in open('/proc/self/maps') "
              "if 'libtessel_runtime' in l][0])")
    assert run_python(script, tmp_path, TESSEL_RUNTIME_LIBRARY=str(copy)).strip() == str(copy)
    code_name, message = run_python(
        REPORT_ERROR, tmp_path, TESSEL_RUNTIME_LIBRARY=str(tmp_path / "nope.so")).split("\n", 1)
    assert code_name == "not found"
    assert "$TESSEL_RUNTIME_LIBRARY is" in message and "nope.so" in message


def test_extension_not_found_message(tmp_path):
    code_name, message = run_python(
        REPORT_ERROR, tmp_path, TESSEL_BUILD_DIR=str(tmp_path)).split("\n", 1)
    assert code_name == "not found"
    assert "cannot load the Tessel extension module" in message
    assert str(tmp_path / "python" / "tessel") in message
    assert "TESSEL_BUILD_DIR" in message


def test_compile_does_not_need_the_extension(tmp_path):
    # tessel.compile only runs the compiler: no extension, no runtime.
    script = ("import sys, tessel\n"
              "try:\n    tessel.compile('m.onnx', 'm.so')\n"
              "except tessel.TesselError as e:\n    print(e.code_name)\n"
              "print('tessel._tessel_ext' in sys.modules)\n")
    output = run_python(script, tmp_path, TESSEL_BUILD_DIR=str(tmp_path),
                        TESSEL_COMPILE=str(tmp_path / "absent"))
    assert output.split() == ["not", "found", "False"]


def test_compiler_lookup(monkeypatch, tmp_path):
    fake_build = tmp_path / "build"
    (fake_build / "bin").mkdir(parents=True)
    (fake_build / "bin" / "tessel-compile").write_text("")
    monkeypatch.delenv("TESSEL_COMPILE", raising=False)
    monkeypatch.setenv("TESSEL_BUILD_DIR", str(fake_build))
    assert _locate.compiler() == str(fake_build / "bin" / "tessel-compile")
    monkeypatch.setenv("TESSEL_COMPILE", str(tmp_path / "absent"))
    with pytest.raises(tessel.TesselError, match=r"\$TESSEL_COMPILE is .*absent"):
        tessel.compile("model.onnx", tmp_path / "model.so")
    not_executable = tmp_path / "tessel-compile"
    not_executable.write_text("")
    monkeypatch.setenv("TESSEL_COMPILE", str(not_executable))
    with pytest.raises(tessel.TesselError, match="cannot run .*tessel-compile") as error:
        tessel.compile("model.onnx", tmp_path / "model.so")
    assert error.value.code_name == "I/O error"
    monkeypatch.delenv("TESSEL_COMPILE")
    monkeypatch.setenv("TESSEL_BUILD_DIR", str(tmp_path / "no-build"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(tessel.TesselError, match="cannot find tessel-compile") as error:
        tessel.compile("model.onnx", tmp_path / "model.so")
    assert error.value.code_name == "not found"
