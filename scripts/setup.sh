#!/usr/bin/env bash
# Installs what Tessel needs on Debian 12, when it is missing: LLVM/MLIR 22,
# libonnx and the ONNX backend test suite, GoogleTest, CMake and Ninja from
# Debian's archive; numpy, onnx, onnxruntime, pytest, nanobind and
# scikit-build-core for the `python3` on PATH (nanobind builds the Python
# package's extension; scikit-build-core builds its wheel, `pip install ./python`).
# Run as root (or with sudo available). Safe to run again: it installs only
# what is absent.
set -euo pipefail

# --sanitizers: also clang-22 and its runtimes (ASan, UBSan, libFuzzer), for
# scripts/test-sanitizers.sh and scripts/fuzz.sh.
SANITIZERS=0
for arg in "$@"; do
  case "$arg" in
    --sanitizers) SANITIZERS=1 ;;
    *) echo "usage: $0 [--sanitizers]" >&2; exit 2 ;;
  esac
done

APT_PACKAGES=(
  cmake ninja-build g++ make
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  libgtest-dev googletest zlib1g-dev
)
if [ "$SANITIZERS" = 1 ]; then
  APT_PACKAGES+=(clang-22 libclang-rt-22-dev)
fi
# module=requirement. onnx is pinned: its node test suite is the second
# conformance suite (test/conformance/expected-failures-onnx-1.23.txt); an
# onnx already installed at another version is left alone, and the
# conformance run then says that it skips that suite.
PIP_PACKAGES=(numpy=numpy onnx=onnx==1.23.2 onnxruntime=onnxruntime pytest=pytest
              nanobind=nanobind scikit_build_core=scikit-build-core PIL=pillow
              jsonschema=jsonschema "ray.serve=ray[serve]==2.60.0")

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing from Debian: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

pip_missing=()
for entry in "${PIP_PACKAGES[@]}"; do
  python3 -c "import ${entry%%=*}" 2>/dev/null || pip_missing+=("${entry#*=}")
done
if ((${#pip_missing[@]})); then
  echo "setup: installing for $(command -v python3): ${pip_missing[*]}"
  python3 -m pip install --quiet --disable-pip-version-check "${pip_missing[@]}"
fi
echo "setup: all dependencies present"
