#!/usr/bin/env bash
# The benchmark in one command: installs what it needs, builds Tessel, then
# runs bench/bench.py (exports, compiles, times Tessel, onnxruntime, IREE and
# OpenBLAS side by side) and writes bench/results.md and bench/results.json.
# Arguments go to bench/bench.py (e.g. --threads 1 --iterations 50).
# Run it on a quiet machine: it takes about 10 minutes on 2 cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"

# Debian's torch exports the models (for /usr/bin/python3 only); OpenBLAS is
# the GEMM reference.
APT_PACKAGES=(python3-torch python3-torchvision python3-onnx libopenblas0-pthread gcc)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bench: installing from Debian: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The peers, for the python3 on PATH.
python3 -c "import onnxruntime, iree.runtime, iree.compiler" 2>/dev/null ||
  python3 -m pip install --quiet --disable-pip-version-check \
    onnxruntime iree-base-compiler iree-base-runtime

"$root/scripts/build.sh"
exec python3 "$root/bench/bench.py" --build "${TESSEL_BUILD_DIR:-$root/build}" "$@"
