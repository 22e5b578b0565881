"""Finding the runtime library and the compiler."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tessel
from tessel import _locate

PYTHON_DIR = Path(__file__).resolve().parents[1]


def test_library_from_build_dir(build_dir, monkeypatch):
    monkeypatch.delenv("TESSEL_RUNTIME_LIBRARY", raising=False)
    path, _ = _locate.runtime_library()
    assert path == str(build_dir / "lib" / "libtessel_runtime.so")


def test_library_from_environment(build_dir, monkeypatch, tmp_path):
    library = str(build_dir / "lib" / "libtessel_runtime.so")
    monkeypatch.setenv("TESSEL_RUNTIME_LIBRARY", library)
    monkeypatch.setenv("TESSEL_BUILD_DIR", str(tmp_path))
    assert _locate.runtime_library()[0] == library
    monkeypatch.setenv("TESSEL_RUNTIME_LIBRARY", str(tmp_path / "nope.so"))
    with pytest.raises(tessel.TesselError, match=r"\$TESSEL_RUNTIME_LIBRARY is .*nope.so"):
        _locate.runtime_library()


def test_library_falls_back_to_system_loader(monkeypatch, tmp_path):
    monkeypatch.delenv("TESSEL_RUNTIME_LIBRARY", raising=False)
    monkeypatch.setenv("TESSEL_BUILD_DIR", str(tmp_path))
    assert _locate.runtime_library()[0] == "libtessel_runtime.so"


def test_library_not_found_message(tmp_path):
    # A fresh interpreter: this one has the library loaded already.
    env = {key: value for key, value in os.environ.items()
           if key not in ("TESSEL_RUNTIME_LIBRARY", "LD_LIBRARY_PATH")}
    env["TESSEL_BUILD_DIR"] = str(tmp_path)
    env["PYTHONPATH"] = str(PYTHON_DIR)
    script = ("import tessel\n"
              "try:\n    tessel.load('model.so')\n"
              "except tessel.TesselError as e:\n    print(e.code_name); print(e.message)\n")
    result = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path,
                            capture_output=True, text=True, check=True)
    code_name, message = result.stdout.split("\n", 1)
    assert code_name == "not found"
    assert "cannot load the Tessel runtime" in message
    assert str(tmp_path / "lib" / "libtessel_runtime.so") in message
    assert "TESSEL_RUNTIME_LIBRARY" in message


def test_compiler_lookup(build_dir, monkeypatch, tmp_path):
    monkeypatch.delenv("TESSEL_COMPILE", raising=False)
    assert _locate.compiler() == str(build_dir / "bin" / "tessel-compile")
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
