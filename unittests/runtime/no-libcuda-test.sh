#!/bin/sh
# Fails when the shared library $1 has a NEEDED entry for libcuda (the driver
# or the toolkit's stub): the runtime must load on machines without a driver.
set -eu
lib="$1"
needed="$(readelf -d "$lib" | grep '(NEEDED)')" || {
  echo "no NEEDED entries read from $lib: is readelf working?" >&2
  exit 1
}
echo "$needed"
if echo "$needed" | grep -q 'libcuda'; then
  echo "FAIL: $lib needs libcuda" >&2
  exit 1
fi
echo "OK: $lib does not need libcuda"
