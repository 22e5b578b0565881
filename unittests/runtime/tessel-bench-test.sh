#!/bin/sh
# End-to-end tests of tessel-bench on the hand-written fixtures: the table,
# the JSON record, --input, and the exit codes of bad usage and failing runs.
#
# usage: tessel-bench-test.sh TESSEL_BENCH ADD_SO FAILS_SO WORK_DIR DYNAMIC_SO
set -u
bench=$1 add=$2 fails=$3 work=$4 dynamic=$5
failures=0
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_rc() { # EXPECTED DESCRIPTION COMMAND...
  want=$1 what=$2; shift 2
  "$@" >out.txt 2>err.txt; rc=$?
  [ "$rc" -eq "$want" ] || { fail "$what: exit $rc, expected $want"; cat out.txt err.txt; }
}

expect_rc 0 "table" "$bench" "$add" --warmup 2 --iterations 5
grep -q 'p50 [0-9.]* ms' out.txt || fail "table has no p50"
grep -q '5 iterations after 2 warm-up, 1 thread' out.txt || fail "table header: $(cat out.txt)"

expect_rc 0 "json" "$bench" "$add" --warmup 1 --iterations 7 --threads 2 --json
python3 - out.txt <<'PY' || fail "json record"
import json, sys
r = json.load(open(sys.argv[1]))
for key in ("p50_ms", "p95_ms", "p99_ms", "mean_ms", "min_ms"):
    assert isinstance(r[key], float) and r[key] >= 0, key
assert r["min_ms"] <= r["p50_ms"] <= r["p95_ms"] <= r["p99_ms"] <= r["max_ms"]
assert r["iterations"] == 7 and r["warmup"] == 1 and r["threads"] == 2, r
m = r["machine"]
assert m["cores"] >= 1 and m["cpu"] and isinstance(m["flags"], list), m
assert isinstance(m["load_average"], float), m
assert r["tessel_version"], r
a = r["artifact"]
assert a["name"] and a["target"] == "cpu" and "compile_flags" in a, a
PY

# --cold: each run after reading a buffer larger than the caches.
expect_rc 0 "--cold table" "$bench" "$add" --warmup 1 --iterations 3 --cold
grep -q '3 iterations after 1 warm-up, 1 thread(s), cold caches' out.txt || fail "--cold table header: $(cat out.txt)"
expect_rc 0 "--cold json" "$bench" "$add" --warmup 0 --iterations 2 --cold --json
python3 - out.txt <<'PY' || fail "--cold json record"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["cold"] is True and r["flush_bytes"] >= 64 << 20, r
PY
expect_rc 0 "json without --cold" "$bench" "$add" --iterations 1 --json
python3 - out.txt <<'PY' || fail "json record without --cold"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["cold"] is False and r["flush_bytes"] == 0, r
PY

# A given input is used as is; a wrong shape is refused with exit 2.
printf '\223NUMPY\001\000\166\000' >a.npy
printf "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" >>a.npy
printf '%58s\n' '' >>a.npy
printf '\000\000\200\077\000\000\200\077\000\000\200\077\000\000\200\077\000\000\200\077\000\000\200\077' >>a.npy
expect_rc 0 "--input" "$bench" "$add" --input a=a.npy --iterations 2 --warmup 0
printf '\223NUMPY\001\000\166\000' >bad.npy
printf "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }" >>bad.npy
printf '%58s\n' '' >>bad.npy
printf '\000\000\200\077\000\000\200\077\000\000\200\077\000\000\200\077\000\000\200\077\000\000\200\077' >>bad.npy
expect_rc 2 "wrong input shape" "$bench" "$add" --input a=bad.npy
grep -q "input 'a' expects float32\[2,3\], got float32\[3,2\]" err.txt || fail "shape message: $(cat err.txt)"
expect_rc 2 "unknown input" "$bench" "$add" --input nope=a.npy
grep -q "no input named 'nope'" err.txt || fail "unknown input message: $(cat err.txt)"

# --batch: any batch in a dynamic batch's range (default 1); a static
# artifact takes only its own.
expect_rc 0 "dynamic default batch" "$bench" "$dynamic" --warmup 0 --iterations 2
grep -q '1 thread(s), batch 1 (N=1..16)' out.txt || fail "batch 1: $(cat out.txt)"
expect_rc 0 "dynamic --batch" "$bench" "$dynamic" --batch 13 --iterations 2 --json
python3 - out.txt <<'PY' || fail "dynamic --batch json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["batch"] == 13 and r["batch_range"] == [1, 16], r
PY
expect_rc 2 "--batch outside the range" "$bench" "$dynamic" --batch 17
grep -q -- "--batch 17 is outside the range N=1..16 of" err.txt ||
  fail "range message: $(cat err.txt)"
expect_rc 0 "static --batch of its own" "$bench" "$add" --batch 2 --iterations 1 --json
python3 - out.txt <<'PY' || fail "static batch json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["batch"] == 2 and r["batch_range"] is None, r
PY
expect_rc 2 "static --batch of another" "$bench" "$add" --batch 3
grep -q "has a static batch of 2 (dimension 0 of its first input); --batch 3" \
  err.txt || fail "static batch message: $(cat err.txt)"

expect_rc 2 "no model" "$bench"
expect_rc 2 "bad iterations" "$bench" "$add" --iterations 0
expect_rc 2 "unknown flag" "$bench" "$add" --frobnicate
expect_rc 3 "missing artifact" "$bench" "$work/none.so"
expect_rc 3 "failing entry" "$bench" "$fails" --warmup 1
[ -s err.txt ] || fail "failing entry printed no diagnostic"

[ "$failures" -eq 0 ] && echo "tessel-bench: all passed"
[ "$failures" -eq 0 ]
