#!/usr/bin/env python3
"""Runs the ONNX backend conformance suite through tessel-compile + tessel-run.

Each test directory holds `model.onnx` and `test_data_set_N/{input,output}_K.pb`.
A test ends as one of:
  pass      compiled, and every data set matched its expected outputs
  mismatch  compiled and ran, but an output differs (the max errors are kept)
  refused   tessel-compile refused the model with a diagnostic (kept, with code)
  error     tessel-run refused the data or the artifact (kept)
  crash     a tool died from a signal or an unexpected exit status
  timeout   a tool ran past the per-test limit

With --xfail FILE --check, the run fails when a test outside the list does not
pass, when a listed test passes (the list only shrinks), or on any crash or
timeout (those cannot be listed). --doc writes the markdown report.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

DEBIAN_SUITE = "/usr/share/libonnx-testdata/data"
DEFAULT_SUITES = ["node", "simple", "pytorch-converted", "pytorch-operator"]
RTOL, ATOL = 1e-3, 1e-7
# Families that need a looser tolerance than the suite default, with why.
TOLERANCES = {}

CODE_RE = re.compile(r"error\[(E\d{4})\]")
# tessel-compile's E0014 hint: the graph inputs a shape-deciding value comes
# from, each with the flag that fixes it at compile time.
FIX_RE = re.compile(r"--input-value (\S+)=<")
ERR_RE = re.compile(r"max_abs_err=(\S+) max_rel_err=(\S+)")


def discover(root, suites, pattern):
    tests = []
    for suite in suites:
        base = suite if os.path.isabs(suite) else os.path.join(root, suite)
        if not os.path.isdir(base):
            sys.exit(f"onnx_conformance: no suite at {base}")
        label = os.path.basename(base.rstrip("/"))
        for name in sorted(os.listdir(base)):
            path = os.path.join(base, name)
            if not os.path.isfile(os.path.join(path, "model.onnx")):
                continue
            if pattern and not re.search(pattern, name):
                continue
            tests.append((label, name, path))
    return tests


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, text=True, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", ""


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def detail(text, limit=3):
    lines = [l.rstrip() for l in text.splitlines() if l.strip()]
    return " / ".join(l.strip() for l in lines[:limit])


def tensor_proto_name(path):
    """The `name` (field 8) of the TensorProto in `path`, or None."""
    with open(path, "rb") as f:
        data = f.read()
    pos = 0

    def varint():
        nonlocal pos
        value, shift = 0, 0
        while pos < len(data):
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value
        raise ValueError("truncated varint")

    try:
        while pos < len(data):
            key = varint()
            field, wire = key >> 3, key & 7
            if wire == 0:
                varint()
            elif wire == 1:
                pos += 8
            elif wire == 5:
                pos += 4
            elif wire == 2:
                length = varint()
                if field == 8:
                    return data[pos:pos + length].decode("utf-8", "replace")
                pos += length
            else:
                return None
    except ValueError:
        return None
    return None


def fixed_input_flags(err, path):
    """For a refusal naming graph inputs that decide shapes (E0014), the
    --input-value flags that fix them to the first data set's values (the
    artifact refuses any other value, so every data set still checks)."""
    names = FIX_RE.findall(err)
    dpath = os.path.join(path, "test_data_set_0")
    if not names or not os.path.isdir(dpath):
        return [], []
    files = {}
    for f in os.listdir(dpath):
        if f.startswith("input_"):
            files[tensor_proto_name(os.path.join(dpath, f))] = os.path.join(dpath, f)
    if not all(n in files for n in names):
        return [], []
    return names, [f"--input-value={n}={files[n]}" for n in names]


def run_test(test, bindir, workdir, timeout):
    label, name, path = test
    result = {"suite": label, "name": name, "status": "", "reason": "", "code": "",
              "seconds": 0.0}
    start = time.time()
    so = os.path.join(workdir, f"{label}-{name}.so")
    compile_cmd = [os.path.join(bindir, "tessel-compile"),
                   os.path.join(path, "model.onnx"), "-o", so]
    rc, out, err = run(compile_cmd, timeout)
    fixed = []
    if rc == 1 and "error[E0014]" in err:
        fixed, flags = fixed_input_flags(err, path)
        if fixed:
            rc, out, err = run(compile_cmd + flags, timeout)
    note = ("; with --input-value for " +
            ", ".join(f"'{n}'" for n in fixed) + " (data set 0's value)"
            if fixed else "")
    result["fixed_inputs"] = fixed
    try:
        if rc is None:
            result.update(status="timeout", reason=f"tessel-compile ran past {timeout} s")
            return result
        if rc != 0:
            msg = detail(err.replace(os.path.join(path, "model.onnx") + ": ", ""))
            if rc in (1, 2) and CODE_RE.search(err):
                result.update(status="refused", reason=msg,
                              code=CODE_RE.search(err).group(1))
            else:
                result.update(status="crash", reason=f"tessel-compile exit {rc}: {msg}")
            return result
        rtol, atol = TOLERANCES.get(name, (RTOL, ATOL))[:2]
        datasets = sorted(d for d in os.listdir(path) if d.startswith("test_data_set_"))
        if not datasets:
            result.update(status="error", reason="the test has no data sets")
            return result
        worst = []
        for ds in datasets:
            dpath = os.path.join(path, ds)
            files = os.listdir(dpath)
            key = lambda f: int(re.findall(r"\d+", f)[-1])
            inputs = sorted((f for f in files if f.startswith("input_")), key=key)
            outputs = sorted((f for f in files if f.startswith("output_")), key=key)
            cmd = [os.path.join(bindir, "tessel-run"), so, "--quiet",
                   "--rtol", str(rtol), "--atol", str(atol)]
            if inputs:
                cmd += ["--input"] + [os.path.join(dpath, f) for f in inputs]
            cmd += ["--expected"] + [os.path.join(dpath, f) for f in outputs]
            rc, out, err = run(cmd, timeout)
            if rc is None:
                result.update(status="timeout", reason=f"tessel-run ran past {timeout} s ({ds})")
                return result
            if rc == 1:
                bad = [l for l in out.splitlines() if "MISMATCH" in l]
                result.update(status="mismatch", reason=f"{ds}: " + " / ".join(bad[:2]))
                return result
            if rc in (2, 3):
                err = err.replace(so + ": ", "")
                code = CODE_RE.search(err)
                result.update(status="error", reason=f"{ds}: {detail(err)}",
                              code=code.group(1) if code else "")
                return result
            if rc != 0:
                result.update(status="crash", reason=f"tessel-run exit {rc} ({ds}): {detail(err)}")
                return result
            worst += ERR_RE.findall(out)
        result["status"] = "pass"
        if worst:
            result["reason"] = "max abs err %.3g" % max(float(a) for a, _ in worst)
        return result
    finally:
        if note:
            result["reason"] = (result["reason"] + note).lstrip("; ")
        result["seconds"] = round(time.time() - start, 2)
        if os.path.exists(so):
            os.remove(so)


def read_xfail(path):
    entries = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            key, sep, reason = line.partition(" ")
            if not sep or not reason.strip():
                sys.exit(f"{path}:{lineno}: error: an entry needs a test and a reason")
            entries[key] = reason.strip()
    return entries


def write_doc(path, results, suites_desc, wall, jobs):
    by_suite = {}
    for r in results:
        by_suite.setdefault(r["suite"], []).append(r)
    statuses = ["pass", "mismatch", "refused", "error", "crash", "timeout"]
    lines = [
        "# ONNX conformance",
        "",
        "Generated by `scripts/onnx_conformance.py`; do not edit by hand.",
        f"Suites: {suites_desc}. Tolerances: rtol {RTOL}, atol {ATOL} unless stated.",
        f"Wall time: {wall:.0f} s with {jobs} parallel jobs.",
        "",
        "| suite | tests | " + " | ".join(statuses) + " | pass rate |",
        "|---|---|" + "---|" * len(statuses) + "---|",
    ]
    for suite, rs in by_suite.items():
        counts = [sum(r["status"] == s for r in rs) for s in statuses]
        lines.append(f"| {suite} | {len(rs)} | " + " | ".join(map(str, counts)) +
                     f" | {100.0 * counts[0] / max(len(rs), 1):.1f}% |")
    total = [sum(r["status"] == s for r in results) for s in statuses]
    lines.append(f"| all | {len(results)} | " + " | ".join(map(str, total)) +
                 f" | {100.0 * total[0] / max(len(results), 1):.1f}% |")
    for suite, rs in by_suite.items():
        lines += ["", f"## {suite}", "", "| test | result | code | detail |", "|---|---|---|---|"]
        for r in rs:
            reason = r["reason"].replace("|", "\\|").replace(str(DEBIAN_SUITE), "")
            lines.append(f"| {r['name']} | {r['status']} | {r['code']} | {reason[:300]} |")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.environ.get("TESSEL_BUILD_DIR", "build"),
                    help="build directory with bin/tessel-compile and bin/tessel-run")
    ap.add_argument("--root", default=DEBIAN_SUITE, help="directory holding the suites")
    ap.add_argument("--suite", action="append",
                    help="suite name under --root, or a path (repeatable); default: "
                         + ", ".join(DEFAULT_SUITES))
    ap.add_argument("--filter", help="only tests whose name matches this regex")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=60, help="seconds per tool run")
    ap.add_argument("--doc", help="write the markdown report here")
    ap.add_argument("--no-doc", action="store_true", help="(default) write no report")
    ap.add_argument("--json", help="write all results as JSON here")
    ap.add_argument("--xfail", help="expected-failure file: '<suite>/<test> <reason>' lines")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 on unexpected failures, unexpected passes, crashes, timeouts")
    ap.add_argument("--write-xfail", help="write the non-passing tests as an expected-failure "
                    "file, with each one's diagnostic as the reason")
    ap.add_argument("--prune-xfail", action="store_true",
                    help="with --xfail: remove the listed tests that pass now and refresh "
                         "the others' reasons (new failures are never added)")
    ap.add_argument("--quiet", action="store_true", help="print only the summary")
    args = ap.parse_args()

    bindir = os.path.join(os.path.abspath(args.build), "bin")
    for tool in ("tessel-compile", "tessel-run"):
        if not os.access(os.path.join(bindir, tool), os.X_OK):
            sys.exit(f"onnx_conformance: {bindir}/{tool} not found; build first")
    suites = args.suite or DEFAULT_SUITES
    tests = discover(args.root, suites, args.filter)
    if not tests:
        sys.exit("onnx_conformance: no tests matched")

    workdir = tempfile.mkdtemp(prefix="tessel-conformance-")
    start = time.time()
    results = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
            futures = [pool.submit(run_test, t, bindir, workdir, args.timeout) for t in tests]
            for fut in futures:
                r = fut.result()
                results.append(r)
                if not args.quiet:
                    print(f"{r['status']:9} {r['suite']}/{r['name']}"
                          + (f"  {r['reason'][:200]}" if r["status"] != "pass" else ""),
                          flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    wall = time.time() - start

    statuses = ["pass", "mismatch", "refused", "error", "crash", "timeout"]
    counts = {s: sum(r["status"] == s for r in results) for s in statuses}
    print(f"conformance: {len(results)} tests: " +
          ", ".join(f"{counts[s]} {s}" for s in statuses) + f" ({wall:.0f} s)")

    if args.doc:
        write_doc(args.doc, results, ", ".join(suites), wall, args.jobs)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    if args.write_xfail:
        with open(args.write_xfail, "w", encoding="utf-8") as f:
            f.write("# Expected failures of scripts/onnx_conformance.py: '<suite>/<test> <reason>'.\n"
                    "# This list only shrinks: CI fails when a listed test passes.\n"
                    "# Crashes and timeouts are never listed.\n")
            for r in results:
                if r["status"] in ("mismatch", "refused", "error"):
                    reason = r["reason"].replace("\n", " ")
                    f.write(f"{r['suite']}/{r['name']} {r['status']}: {reason[:400]}\n")

    if args.prune_xfail:
        if not args.xfail:
            sys.exit("onnx_conformance: --prune-xfail needs --xfail")
        by_key = {f"{r['suite']}/{r['name']}": r for r in results}
        with open(args.xfail, encoding="utf-8") as f:
            lines = f.readlines()
        kept, removed = [], 0
        for line in lines:
            key = line.split(" ", 1)[0].strip()
            r = by_key.get(key)
            if line.startswith("#") or not line.strip() or r is None:
                kept.append(line)
            elif r["status"] == "pass":
                removed += 1
            elif r["status"] in ("mismatch", "refused", "error"):
                # The reason stays true: today's diagnostic.
                reason = r["reason"].replace("\n", " ")[:400]
                kept.append(f"{key} {r['status']}: {reason}\n")
            else:
                kept.append(line)
        with open(args.xfail, "w", encoding="utf-8") as f:
            f.writelines(kept)
        print(f"conformance: removed {removed} passing tests from {args.xfail}; "
              "reasons refreshed")

    if not args.check:
        return 0
    xfail = read_xfail(args.xfail) if args.xfail else {}
    problems = []
    seen = set()
    for r in results:
        key = f"{r['suite']}/{r['name']}"
        seen.add(key)
        if r["status"] in ("crash", "timeout"):
            problems.append(f"{key}: {r['status']}: {r['reason']}")
        elif r["status"] == "pass" and key in xfail:
            problems.append(f"{key}: passes now; remove it from {args.xfail}")
        elif r["status"] != "pass" and key not in xfail:
            problems.append(f"{key}: {r['status']}: {r['reason']}")
    if not args.filter:
        for key in xfail:
            if key not in seen and key.split("/")[0] in {os.path.basename(s.rstrip('/')) for s in suites}:
                problems.append(f"{key}: listed in {args.xfail} but not in the suite")
    passed = len(results) - len(problems)
    for p in problems:
        print("UNEXPECTED " + p)
    print(f"conformance-check: {passed} passed, {len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
