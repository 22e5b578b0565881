"""Checks a runtime trace (TESSEL_TRACE) against docs/trace.schema.json and
against what the run did, then prints a summary for FileCheck.

    check_trace.py TRACE.json SCHEMA.json MODEL.onnx [--min-requests N] [--streams N]

Beyond the schema: async spans ("b"/"e") pair up by (cat, name, id) and end
after they begin; every kernel span on the thread that ran a model lies
inside that run's span; kernel spans are named after nodes of MODEL.onnx;
with --min-requests, at least that many scheduler requests were traced (the
tool's own warm-up adds some), and every request ended ok.
"""

import argparse
import collections
import json
import sys

import jsonschema
import onnx


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("schema")
    ap.add_argument("model")
    ap.add_argument("--min-requests", type=int)
    ap.add_argument("--streams", type=int)
    args = ap.parse_args()
    trace = json.load(open(args.trace))
    jsonschema.validate(trace, json.load(open(args.schema)))
    events = trace["traceEvents"]
    errors = []

    opened = {}
    spans = collections.Counter()
    for e in events:
        if e["ph"] == "b":
            opened[(e["cat"], e["name"], e["id"])] = e
        elif e["ph"] == "e":
            key = (e["cat"], e["name"], e["id"])
            begin = opened.pop(key, None)
            if begin is None:
                errors.append(f"an end without a begin: {key}")
            elif e["ts"] < begin["ts"]:
                errors.append(f"{key} ends before it begins")
            else:
                spans[e["cat"], e["name"].split(" ")[0]] += 1
                if e["cat"] == "scheduler" and e["args"].get("status") != "ok":
                    errors.append(f"request {e['id']} ended {e['args']}")
    if opened:
        errors.append(f"{len(opened)} spans never end, e.g. {next(iter(opened))}")

    runs = [e for e in events if e["ph"] == "X" and e["cat"] == "run"]
    kernels = [e for e in events if e["ph"] == "X" and e["cat"] == "kernel"]
    # Kernel spans of the thread that ran the model: inside one of its runs.
    callers = [k for k in kernels if "threads" in k["args"]]
    for k in callers:
        if not any(r["tid"] == k["tid"] and r["ts"] <= k["ts"] and
                   k["ts"] + k["dur"] <= r["ts"] + r["dur"] + 1e-3 for r in runs):
            errors.append(f"kernel span {k['name']} at {k['ts']} is outside every run")
    nodes = {n.name for n in onnx.load(args.model).graph.node}
    for k in kernels:
        if not set(k["name"].split("+")) <= nodes:
            errors.append(f"kernel span '{k['name']}' names no node of the model")
    names = {e["args"]["name"] for e in events if e["ph"] == "M"}

    if args.min_requests is not None and spans["scheduler", "request"] < args.min_requests:
        errors.append(f"{spans['scheduler', 'request']} requests traced, "
                      f"at least {args.min_requests} expected")
    if args.streams is not None:
        streams = {e["name"] for e in events if e.get("cat") == "stream"}
        if len(streams) != args.streams:
            errors.append(f"{len(streams)} streams traced, {args.streams} expected")
    for error in errors:
        print("error:", error)
    batches = [e for e in events if e.get("cat") == "scheduler" and e["ph"] == "X"]
    helpers = {k["tid"] for k in kernels} - {k["tid"] for k in callers}
    print("schema: ok")
    print(f"runs: {len(runs)}, kernel spans: {len(kernels)} on "
          f"{len({k['tid'] for k in kernels})} threads ({len(helpers)} only helping)")
    print(f"scheduler batches: {len(batches)}, rows: "
          f"{sum(b['args']['rows'] for b in batches)}, requests: {spans['scheduler', 'request']}")
    print(f"stream runs: {spans['stream', 'stream']}")
    print("threads:", ", ".join(sorted(n for n in names if not n.startswith("thread "))))
    print("kernels:", ", ".join(sorted({k["name"] for k in kernels})))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
