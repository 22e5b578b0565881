# -*- Python -*-
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TESSEL"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".py", ".onnxtxt"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tessel_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tessel_src", config.tessel_src_root))
config.substitutions.append(("%tessel_build", config.tessel_obj_root))
# The C++ compiler this tree was built with (examples built against it).
config.substitutions.append(("%cxx", config.cxx_compiler))
# Its sanitizer flags, empty unless TESSEL_SANITIZE is set.
config.substitutions.append(("%sanitizer_flags", config.sanitizer_flags))
# A sanitized build (TESSEL_SANITIZE) reserves terabytes of address space at
# start, so a test capping a tool's address space lifts the cap (0) there.
config.substitutions.append(
    ("%address-space-mb", "0" if config.tessel_sanitize else "4096"))
# Tests of whole-artifact properties (reproducible bytes, Debian packages)
# that compile real-sized models several times are `UNSUPPORTED: sanitized`:
# the sanitizer stage checks memory safety, and under ASan each of their
# ResNet-18 compiles takes minutes; the default build runs them. So are
# the tests of the build and install layout (runtime-only-build, install),
# which build with the host's compiler or copy files: they run nothing the
# sanitized suite does not, and take minutes of CI.
if config.tessel_sanitize:
    config.available_features.add("sanitized")
config.substitutions.append(
    ("%llvm_include", os.path.join(os.path.dirname(config.llvm_tools_dir), "include")))
config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.tessel_tools_dir, config.llvm_tools_dir]
tools = ["tessel-opt", "tessel-compile", "tessel-run", "tessel-bench", "tessel-bench-serve", "tessel-compare"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Test models are written as ONNX text by onnx.parser (pip `onnx`) or built
# with onnx.helper; %onnx-from-text turns a test's embedded text into a model.
python = config.python_executable
# Ahead of lit's own %python (the interpreter running lit, without onnx).
config.substitutions.insert(0, ("%python", python))
config.substitutions.append(
    ("%onnx-from-text", python + " " + os.path.join(config.tessel_src_root, "scripts", "onnx_from_text.py"))
)
config.substitutions.append(
    ("%test-models", python + " " + os.path.join(config.tessel_src_root, "test", "Inputs", "models.py"))
)

# These are requirements, not optional features: a missing one must fail the
# run loudly rather than turn tests into silent UNSUPPORTED results.
for module in ("onnx", "numpy", "onnxruntime"):
    if subprocess.run([python, "-c", "import " + module],
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
        lit_config.fatal("the Python module '%s' is missing for %s; run scripts/setup.sh"
                         % (module, python))
# tessel-compare is the Python package's tool: a build without the package
# (-DTESSEL_BUILD_PYTHON=OFF, as the sanitized build) has none, and the tests
# that need it say `REQUIRES: python-package`.
if config.tessel_build_python.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("python-package")
# Hardware the tests may depend on (artifacts compiled for other CPUs).
try:
    with open("/proc/cpuinfo") as f:
        flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
except OSError:
    flags = []
if "avx512f" in flags:
    config.available_features.add("host-avx512f")
if "avx512f" in flags and "avx512_vnni" in flags:
    config.available_features.add("host-avx512-vnni")
if "avx2" in flags and "fma" in flags:
    config.available_features.add("host-avx2")
if "avx_vnni" in flags:
    config.available_features.add("host-avx-vnni")
if "avx512f" in flags and "avx512_bf16" in flags:
    config.available_features.add("host-avx512-bf16")
if "avx512f" in flags and "avx512_fp16" in flags:
    config.available_features.add("host-avx512-fp16")
# AMX tiles: the runtime asks Linux for the tile state (5.16 and later).
if "amx_tile" in flags and "amx_int8" in flags and "avx512f" in flags:
    config.available_features.add("host-amx-int8")
if "amx_tile" in flags and "amx_bf16" in flags and "avx512f" in flags:
    config.available_features.add("host-amx-bf16")

node_tests = "/usr/share/libonnx-testdata/data/node"
if not os.path.isdir(node_tests):
    lit_config.fatal("the ONNX test suite is missing (%s); run scripts/setup.sh" % node_tests)
config.substitutions.append(("%onnx-node-tests", node_tests))
