#!/usr/bin/env bash
# Builds the Python package's sdist and, from that sdist, its wheel:
#   scripts/python-dist.sh OUTDIR
# The package's CMake project (python/) builds ../runtime, which an sdist of
# python/ alone would lack; so python/ and runtime/ are staged together (the
# runtime as python's runtime/), and the sdist is made from the stage with
# scikit-build-core. The wheel is then built from the sdist, as pip builds it
# on a user's machine. Needs scikit-build-core and nanobind (scripts/setup.sh);
# runs offline.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$(mkdir -p "${1:?usage: $0 OUTDIR}" && cd "$1" && pwd)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
# Sources only: no build trees, caches or bytecode.
tar -C "$root" --exclude='__pycache__' --exclude='*.pyc' --exclude='.pytest_cache' \
    -cf - python | tar -C "$stage" -xf -
tar -C "$root" -cf - runtime | tar -C "$stage/python" -xf -
cd "$stage/python"
sdist=$(python3 -c "from scikit_build_core.build import build_sdist; print(build_sdist('$out'))" | tail -n 1)
echo "sdist: $out/$sdist"
python3 -m pip wheel --quiet --disable-pip-version-check --no-build-isolation --no-deps \
  "$out/$sdist" -w "$out"
ls "$out"/tessel-*.whl | sed 's/^/wheel: /'
