#!/bin/sh
# End-to-end tests of tessel-bench-serve on the batch fixtures: both modes'
# text and JSON output, and the exit codes of bad usage and refused models.
#
# usage: tessel-bench-serve-test.sh TOOL BATCH1_SO BATCH4_SO BATCH8_SO
#                                   WIDE_SO FAILS_SO WORK_DIR DYNAMIC_SO
set -u
tool=$1 b1=$2 b4=$3 b8=$4 wide=$5 fails=$6 work=$7 dynamic=$8
failures=0
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_rc() { # EXPECTED DESCRIPTION COMMAND...
  want=$1 what=$2; shift 2
  "$@" >out.txt 2>err.txt; rc=$?
  [ "$rc" -eq "$want" ] || { fail "$what: exit $rc, expected $want"; cat out.txt err.txt; }
}

expect_rc 0 "streams table" "$tool" streams "$b1" --streams 2 --runs 50 --repeats 2
grep -q '2 stream(s), 1 thread(s) per run: [0-9.]* runs/s' out.txt ||
  fail "streams table: $(cat out.txt)"

expect_rc 0 "streams json" "$tool" streams "$b1" --streams 3 --runs 30 --json
python3 - out.txt <<'PY' || fail "streams json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["mode"] == "streams" and r["streams"] == 3 and r["runs"] == 30, r
assert r["runs_per_s"] > 0 and r["threads"] == 1, r
assert isinstance(r["load_average"], float), r
PY

expect_rc 0 "scheduler json" "$tool" scheduler "$b8" "$b1" "$b4" --clients 8 \
  --requests 200 --window-us 100000 --json
python3 - out.txt <<'PY' || fail "scheduler json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["mode"] == "scheduler" and r["batch_sizes"] == [1, 4, 8], r
assert r["max_batch"] == 8 and r["clients"] == 8 and r["requests"] == 200, r
assert r["requests_per_s"] > 0 and 0 < r["p50_ms"] <= r["p99_ms"], r
# 8 closed-loop clients and a long window: every batch is full.
assert r["mean_batch"] == 8 and r["padded_rows"] == 0, r
PY

expect_rc 0 "scheduler table" "$tool" scheduler "$b1" --max-batch 1 --clients 2 --requests 20
grep -q 'max batch 1, window 2000 us, target p99 0 us, 2 clients: [0-9.]* requests/s' out.txt ||
  fail "scheduler table: $(cat out.txt)"

# Open loop: 200 requests arrive in bursts of 4 at 2000 a second; the
# scheduler under a latency target sets its own window.
expect_rc 0 "open loop json" "$tool" scheduler "$b1" "$b4" "$b8" --rate 2000 \
  --burst 4 --requests 200 --target-p99-us 100000 --json
python3 - out.txt <<'PY' || fail "open loop json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["mode"] == "scheduler" and r["rate"] == 2000 and r["burst"] == 4, r
assert r["target_p99_us"] == 100000 and r["clients"] == 0, r
assert r["requests"] + r["refused"] == 200 and r["refused"] == 0, r
assert r["requests_per_s"] > 0 and 0 < r["p50_ms"] <= r["p99_ms"], r
assert 0 <= r["target_misses"] <= 200 and r["mean_batch"] >= 1, r
PY
expect_rc 0 "open loop table" "$tool" scheduler "$b1" --rate 500 --burst 2 --requests 20
grep -q 'target p99 0 us, 500 requests/s open loop in bursts of 2: [0-9.]* requests/s' out.txt ||
  fail "open loop table: $(cat out.txt)"

# One artifact with a dynamic batch (N in 1..16, entries for 1, 4 and 8):
# each batch is one run of exactly its rows.
expect_rc 0 "dynamic scheduler json" "$tool" scheduler "$dynamic" --clients 8 \
  --requests 200 --max-batch 8 --window-us 100000 --json
python3 - out.txt <<'PY' || fail "dynamic scheduler json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["batch_sizes"] == [16] and r["batch_range"] == [1, 16], r
assert r["max_batch"] == 8 and r["requests"] == 200, r
assert r["mean_batch"] == 8 and r["padded_rows"] == 0, r
PY
expect_rc 0 "dynamic scheduler table" "$tool" scheduler "$dynamic" --clients 2 \
  --requests 20
grep -q 'scheduler over a dynamic batch N=1..16, max batch 16,' out.txt ||
  fail "dynamic scheduler table: $(cat out.txt)"
expect_rc 3 "dynamic with another model" "$tool" scheduler "$dynamic" "$b1"
grep -q "has a dynamic batch (N=1..16), which runs every batch size itself" \
  err.txt || fail "dynamic mix message: $(cat err.txt)"

expect_rc 0 "cache json" "$tool" cache "$b1" --requests 400 --repeat-share 0.5 \
  --repeats 2 --json
python3 - out.txt <<'PY' || fail "cache json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["mode"] == "cache" and r["requests"] == 400, r
# Seeded: about half the requests repeat; with room for every entry, each
# repeat is a hit, and every output equals the full run's.
assert 150 < r["repeated_requests"] < 250, r
assert r["distinct_inputs"] + r["repeated_requests"] == 400, r
assert r["hits"] == r["repeated_requests"] and r["misses"] == r["distinct_inputs"], r
assert r["evictions"] == 0 and r["mismatches"] == 0 and r["entry_bytes"] == 28, r
assert r["plain_requests_per_s"] > 0 and r["cached_requests_per_s"] > 0, r
PY

expect_rc 0 "cache table, small bound" "$tool" cache "$b1" --requests 100 \
  --cache-bytes 100 --repeats 1
grep -q 'evictions (bound 100 bytes, 28 per entry); every output equals the full run' out.txt ||
  fail "cache table: $(cat out.txt)"
expect_rc 2 "bad repeat share" "$tool" cache "$b1" --repeat-share 1.5
grep -q -- "--repeat-share needs a number in \[0, 1\]" err.txt || fail "repeat share message"

expect_rc 2 "no mode" "$tool"
expect_rc 2 "bad mode" "$tool" serve "$b1"
grep -q "the mode is 'streams', 'scheduler' or 'cache', not 'serve'" err.txt ||
  fail "bad mode message"
expect_rc 2 "two models for streams" "$tool" streams "$b1" "$b4"
expect_rc 2 "bad integer" "$tool" streams "$b1" --streams 0
expect_rc 3 "mismatched models" "$tool" scheduler "$b4" "$wide"
grep -q 'the models of batch 2 and 4 differ' err.txt || fail "mismatch message: $(cat err.txt)"
expect_rc 3 "missing model" "$tool" streams "$work/none.so"
# A failing run is reported with the runtime's message (exit 3): the fixture
# fails a batch holding a negative x[0]; the 8 clients' seeded inputs hold
# several.
expect_rc 3 "failing run" "$tool" scheduler "$fails" --clients 8 --requests 16 --seed 1

[ "$failures" -eq 0 ] && echo "all tessel-bench-serve checks passed"
exit "$failures"
