"""Checks tessel-bench --profile --json: every sample is listed once, most
first, and the 3x3 conv's parallel body is among them by name."""
import json
import sys

record = json.load(open(sys.argv[1]))
profile = record["profile"]
assert profile["interval_us"] == 1000, profile
items = profile["items"]
assert profile["samples"] > 0 and items, profile
assert sum(i["samples"] for i in items) == profile["samples"], profile
assert abs(sum(i["share"] for i in items) - 1) < 1e-4, profile
counts = [i["samples"] for i in items]
assert counts == sorted(counts, reverse=True), counts
assert any(i["symbol"].startswith("tessel_parallel_body_") and "conv1" in i["name"]
           for i in items), items
print("profile ok")
