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

Two releases of the test data form two groups, each with its own
expected-failure list and its own tables in the report:
  - Debian's libonnx-testdata (onnx 1.12): node, simple, pytorch-converted,
    pytorch-operator under /usr/share/libonnx-testdata/data (--xfail);
  - the node suite of the `onnx` Python package (--pip-onnx, or --pip-only),
    labelled with its version. PyPI's wheels hold the generators but not the
    data, so scripts/gen_onnx_node_suite.py writes it once into the build
    directory (--pip-xfail; the list's `# onnx-version:` line must match the
    installed onnx, else the group is skipped with a SKIPPED line).
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


# A sanitizer's report (tools built with scripts/test-sanitizers.sh): the run
# is a crash whatever its exit code, which would otherwise read as a refusal.
SANITIZER_RE = re.compile(r"^==\d+==ERROR: \w+Sanitizer|^SUMMARY: \w+Sanitizer|"
                          r": runtime error: ", re.M)
SANITIZER_RC = -1000


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, text=True, errors="replace")
    except subprocess.TimeoutExpired:
        return None, "", ""
    report = SANITIZER_RE.search(p.stderr)
    if report:
        # The report's first lines, not the tool's diagnostic, say what broke.
        return SANITIZER_RC, p.stdout, p.stderr[report.start():]
    return p.returncode, p.stdout, p.stderr


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


# --- The bfloat16 quirk of ONNX 1.12's test data ------------------------------
# onnx 1.12 wrote bfloat16 test tensors from NumPy uint16 arrays holding the
# bfloat16 bit patterns (NumPy had no bfloat16), so their .pb files say
# data_type UINT16 where the model declares BFLOAT16 (node/test_cast_*BFLOAT16*,
# test_castlike_*BFLOAT16*). onnx's own runner loads them as uint16 too; newer
# onnx releases write data_type BFLOAT16. The runner hands tessel-run a copy
# relabelled BFLOAT16 (the bits are unchanged) when, and only when, the model
# declares that input or output BFLOAT16 and the file says UINT16.
# Those expected outputs also truncate float32 to bfloat16 where Cast rounds to
# nearest even; bfloat16 outputs are compared with rtol 2**-6 (two bfloat16
# ulps), as onnx's backend test runner compares them.
ONNX_UINT16, ONNX_BFLOAT16 = 4, 16
BF16_RTOL = 2.0 ** -6


def _varint(buf, pos):
    value, shift = 0, 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, pos


def _fields(buf):
    """Yields (field, wire type, value, start, end) for each top-level field of a
    protobuf message; value is the int of a varint, the bytes of the others."""
    pos = 0
    while pos < len(buf):
        start = pos
        key, pos = _varint(buf, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 2:
            n, pos = _varint(buf, pos)
            value, pos = buf[pos:pos + n], pos + n
        elif wire in (1, 5):
            n = 8 if wire == 1 else 4
            value, pos = buf[pos:pos + n], pos + n
        else:
            raise ValueError("unsupported protobuf wire type %d" % wire)
        yield field, wire, value, start, pos


def _encode_varint(value):
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        out.append(b | (0x80 if value else 0))
        if not value:
            return bytes(out)


def declared_elem_types(model_path):
    """The element types the model's graph declares: ([inputs], [outputs]),
    0 where a value is not a tensor."""
    with open(model_path, "rb") as f:
        model = f.read()
    types = ([], [])
    for field, wire, graph, _, _ in _fields(model):
        if field != 7 or wire != 2:  # ModelProto.graph
            continue
        for gfield, gwire, info, _, _ in _fields(graph):
            if gfield not in (11, 12) or gwire != 2:  # GraphProto.input / output
                continue
            elem = 0
            for vfield, _, tp, _, _ in _fields(info):
                if vfield == 2:  # ValueInfoProto.type
                    for tfield, _, tensor, _, _ in _fields(tp):
                        if tfield == 1:  # TypeProto.tensor_type
                            for efield, _, e, _, _ in _fields(tensor):
                                if efield == 1:  # elem_type
                                    elem = e
            types[gfield - 11].append(elem)
    return types


def relabel_bf16(pb_path, declared, workdir):
    """pb_path, or a copy relabelled BFLOAT16 when it says UINT16 and the
    model declares BFLOAT16 (the quirk above)."""
    if declared != ONNX_BFLOAT16:
        return pb_path
    with open(pb_path, "rb") as f:
        tensor = f.read()
    parts, relabelled = [], False
    for field, wire, value, start, end in _fields(tensor):
        if field == 2 and wire == 0 and value == ONNX_UINT16:  # TensorProto.data_type
            parts.append(_encode_varint(2 << 3) + _encode_varint(ONNX_BFLOAT16))
            relabelled = True
        else:
            parts.append(tensor[start:end])
    if not relabelled:
        return pb_path
    fd, copy = tempfile.mkstemp(suffix=".pb", dir=workdir)
    with os.fdopen(fd, "wb") as f:
        f.write(b"".join(parts))
    return copy


def run_test(test, bindir, workdir, timeout, compile_flags=()):
    label, name, path = test
    result = {"suite": label, "name": name, "status": "", "reason": "", "code": "",
              "seconds": 0.0}
    start = time.time()
    so = os.path.join(workdir, f"{label}-{name}.so")
    copies = {}  # relabelled copies of test data files -> the originals
    compile_cmd = [os.path.join(bindir, "tessel-compile"),
                   os.path.join(path, "model.onnx"), "-o", so, *compile_flags]
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
                how = "a sanitizer report" if rc == SANITIZER_RC else f"exit {rc}"
                result.update(status="crash", reason=f"tessel-compile {how}: {msg}")
            return result
        rtol, atol = TOLERANCES.get(name, (RTOL, ATOL))[:2]
        in_types, out_types = declared_elem_types(os.path.join(path, "model.onnx"))
        if ONNX_BFLOAT16 in out_types:
            rtol = max(rtol, BF16_RTOL)
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
            def data_file(f, types, i):
                original = os.path.join(dpath, f)
                path = relabel_bf16(original, types[i] if i < len(types) else 0, workdir)
                if path != original:
                    copies[path] = original
                return path
            inputs = [data_file(f, in_types, i) for i, f in enumerate(inputs)]
            outputs = [data_file(f, out_types, i) for i, f in enumerate(outputs)]
            if inputs:
                cmd += ["--input"] + inputs
            cmd += ["--expected"] + outputs
            rc, out, err = run(cmd, timeout)
            for copy, original in copies.items():
                err = err.replace(copy, original + " (relabelled BFLOAT16)")
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
                how = "a sanitizer report" if rc == SANITIZER_RC else f"exit {rc}"
                result.update(status="crash", reason=f"tessel-run {how} ({ds}): {detail(err)}")
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
        for copy in copies:
            os.remove(copy)


def read_xfail(path):
    """The entries of an expected-failure file, and its `# onnx-version:` line."""
    entries, version = {}, None
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = re.match(r"#\s*onnx-version:\s*(\S+)", line)
            if m:
                version = m.group(1)
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            key, sep, reason = line.partition(" ")
            if not sep or not reason.strip():
                sys.exit(f"{path}:{lineno}: error: an entry needs a test and a reason")
            entries[key] = reason.strip()
    return entries, version


class Group:
    """Suites of one release of the ONNX test data, with their expected failures."""

    def __init__(self, label, root, suites, xfail, version=None):
        self.label, self.root, self.suites, self.xfail = label, root, suites, xfail
        self.version = version
        self.results = []
        self.wall = 0.0


def debian_label():
    try:
        v = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "libonnx-testdata"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    except OSError:
        v = ""
    v = v.split("-")[0].strip()
    return f"onnx {v} (Debian libonnx-testdata)" if v else "onnx (Debian libonnx-testdata)"


def pip_group(args):
    """The `onnx` Python package's node suite (generated on first use), or why it is skipped."""
    try:
        import onnx
    except ImportError:
        return None, "the onnx Python package is not installed (scripts/setup.sh installs it)"
    if args.pip_xfail:
        wanted = read_xfail(args.pip_xfail)[1]
        if wanted and wanted != onnx.__version__:
            return None, (f"{args.pip_xfail} is for onnx {wanted}, but python3 has onnx "
                          f"{onnx.__version__} (pip install onnx=={wanted})")
    out = args.pip_dir or os.path.join(os.path.abspath(args.build),
                                       f"onnx-{onnx.__version__}-testdata")
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_onnx_node_suite.py")
    p = subprocess.run([sys.executable, gen, "--out", out], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit(f"onnx_conformance: generating onnx {onnx.__version__}'s node suite failed:\n"
                 + p.stdout)
    return Group(f"onnx {onnx.__version__} (pip)", out, ["node"], args.pip_xfail,
                 onnx.__version__), None


STATUSES = ["pass", "mismatch", "refused", "error", "crash", "timeout"]


def summary_rows(results):
    """Per-suite results, and one table row per suite plus a total row."""
    by_suite = {}
    for r in results:
        by_suite.setdefault(r["suite"], []).append(r)
    rows = []
    for suite, rs in list(by_suite.items()) + [("all", results)]:
        counts = [sum(r["status"] == s for r in rs) for s in STATUSES]
        rows.append(f"| {suite} | {len(rs)} | " + " | ".join(map(str, counts)) +
                    f" | {100.0 * counts[0] / max(len(rs), 1):.1f}% |")
    return by_suite, rows


def write_doc(path, groups, jobs):
    """The markdown report: a summary table per group, then every test."""
    lines = [
        "# ONNX conformance",
        "",
        "Generated by `scripts/onnx_conformance.py`; do not edit by hand.",
        f"Tolerances: rtol {RTOL}, atol {ATOL} unless stated; {jobs} parallel jobs.",
    ]
    details = []
    for g in groups:
        by_suite, rows = summary_rows(g.results)
        lines += ["", f"## {g.label}", "",
                  f"Suites: {', '.join(g.suites)}. Wall time: {g.wall:.0f} s.", "",
                  "| suite | tests | " + " | ".join(STATUSES) + " | pass rate |",
                  "|---|---|" + "---|" * len(STATUSES) + "---|"] + rows
        # Passes that needed an input fixed at compile time, counted apart.
        fixed = {}
        for r in g.results:
            if r["status"] == "pass" and r.get("fixed_inputs"):
                fixed[r["suite"]] = fixed.get(r["suite"], 0) + 1
        if fixed:
            lines += ["", "Of these passes, " + ", ".join(
                f"{n} in {suite}" for suite, n in fixed.items()) +
                " compiled only with `--input-value`: an input that decides a "
                "shape (Reshape's shape, Resize's scales, TopK's k, a Loop's "
                "trip count...) was first refused with E0014, then fixed to "
                "test_data_set_0's value, as the error suggests; the artifact "
                "refuses any other value at run time. Without them: " +
                ", ".join(f"{suite} {sum(r['status'] == 'pass' for r in rs) - fixed.get(suite, 0)}"
                          f"/{len(rs)}" for suite, rs in by_suite.items()) + "."]
        for suite, rs in by_suite.items():
            details += ["", f"## {g.label}: {suite}", "",
                        "| test | result | code | detail |", "|---|---|---|---|"]
            for r in rs:
                reason = r["reason"].replace("|", "\\|").replace(g.root, "")
                details.append(f"| {r['name']} | {r['status']} | {r['code']} | {reason[:300]} |")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines + details) + "\n")


def prune_xfail(path, results):
    """Removes the listed tests that pass now and refreshes the others' reasons."""
    by_key = {f"{r['suite']}/{r['name']}": r for r in results}
    with open(path, encoding="utf-8") as f:
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
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(kept)
    print(f"conformance: removed {removed} passing tests from {path}; reasons refreshed")


def write_xfail(path, group):
    """Writes the group's non-passing tests as an expected-failure file."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("# Expected failures of scripts/onnx_conformance.py: '<suite>/<test> <reason>'.\n"
                "# This list only shrinks: CI fails when a listed test passes.\n"
                "# Crashes and timeouts are never listed.\n")
        if group.version:
            f.write(f"# onnx-version: {group.version}\n")
        for r in group.results:
            if r["status"] in ("mismatch", "refused", "error"):
                reason = r["reason"].replace("\n", " ")
                f.write(f"{r['suite']}/{r['name']} {r['status']}: {reason[:400]}\n")


def check(group, filtered):
    """One group's problems: results that disagree with its expected-failure list."""
    xfail = read_xfail(group.xfail)[0] if group.xfail else {}
    problems, seen = [], set()
    for r in group.results:
        key = f"{r['suite']}/{r['name']}"
        seen.add(key)
        if r["status"] in ("crash", "timeout"):
            problems.append(f"{key}: {r['status']}: {r['reason']}")
        elif r["status"] == "pass" and key in xfail:
            problems.append(f"{key}: passes now; remove it from {group.xfail}")
        elif r["status"] != "pass" and key not in xfail:
            problems.append(f"{key}: {r['status']}: {r['reason']}")
    if not filtered:
        suites = {os.path.basename(s.rstrip("/")) for s in group.suites}
        for key in xfail:
            if key not in seen and key.split("/")[0] in suites:
                problems.append(f"{key}: listed in {group.xfail} but not in the suite")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.environ.get("TESSEL_BUILD_DIR", "build"),
                    help="build directory with bin/tessel-compile and bin/tessel-run")
    ap.add_argument("--root", default=DEBIAN_SUITE, help="directory holding the suites")
    ap.add_argument("--suite", action="append",
                    help="suite name under --root, or a path (repeatable); default: "
                         + ", ".join(DEFAULT_SUITES))
    ap.add_argument("--pip-onnx", action="store_true",
                    help="also run the node suite of the `onnx` Python package, as a group "
                         "of its own labelled with its version (generated into --pip-dir)")
    ap.add_argument("--pip-only", action="store_true",
                    help="run only the `onnx` Python package's node suite")
    ap.add_argument("--pip-dir", help="where that suite is generated (default: "
                    "<build>/onnx-<version>-testdata)")
    ap.add_argument("--pip-xfail", help="that suite's expected-failure file; its "
                    "'# onnx-version: V' line names the onnx version it is for")
    ap.add_argument("--filter", help="only tests whose name matches this regex")
    ap.add_argument("--shard", help="K/N: only every N-th test of each group, from its "
                    "K-th (0-based), in name order; a fixed slice for slow builds")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=60, help="seconds per tool run")
    ap.add_argument("--compile-flag", action="append", default=[],
                    help="an extra tessel-compile flag for every test "
                         "(repeatable), e.g. --compile-flag=--layout=nhwc")
    ap.add_argument("--doc", help="write the markdown report here")
    ap.add_argument("--no-doc", action="store_true", help="(default) write no report")
    ap.add_argument("--json", help="write all results as JSON here")
    ap.add_argument("--xfail", help="expected-failure file: '<suite>/<test> <reason>' lines")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 on unexpected failures, unexpected passes, crashes, timeouts")
    ap.add_argument("--write-xfail", help="write the non-passing tests as an expected-failure "
                    "file, with each one's diagnostic as the reason (one group only)")
    ap.add_argument("--prune-xfail", action="store_true",
                    help="with --xfail/--pip-xfail: remove the listed tests that pass now and "
                         "refresh the others' reasons (new failures are never added)")
    ap.add_argument("--quiet", action="store_true", help="print only the summary")
    args = ap.parse_args()

    bindir = os.path.join(os.path.abspath(args.build), "bin")
    for tool in ("tessel-compile", "tessel-run"):
        if not os.access(os.path.join(bindir, tool), os.X_OK):
            sys.exit(f"onnx_conformance: {bindir}/{tool} not found; build first")
    groups = []
    if not args.pip_only:
        label = debian_label() if args.root == DEBIAN_SUITE else f"suites under {args.root}"
        groups.append(Group(label, args.root, args.suite or DEFAULT_SUITES, args.xfail))
    skipped = None
    if args.pip_onnx or args.pip_only:
        group, skipped = pip_group(args)
        if group:
            groups.append(group)
        else:
            print(f"conformance: SKIPPED the onnx pip suite: {skipped}", flush=True)
    if args.prune_xfail and not any(g.xfail for g in groups):
        sys.exit("onnx_conformance: --prune-xfail needs --xfail or --pip-xfail")
    if args.write_xfail and len(groups) != 1:
        sys.exit("onnx_conformance: --write-xfail writes one group's list; run one group")

    tests = {g.label: discover(g.root, g.suites, args.filter) for g in groups}
    if args.shard:
        m = re.fullmatch(r"(\d+)/(\d+)", args.shard)
        if not m or int(m.group(1)) >= int(m.group(2)):
            sys.exit(f"onnx_conformance: --shard wants K/N with 0 <= K < N, not {args.shard}")
        k, n = int(m.group(1)), int(m.group(2))
        tests = {label: [t for i, t in enumerate(ts) if i % n == k]
                 for label, ts in tests.items()}
    if not any(tests.values()):
        if skipped:
            print(f"conformance-check: SKIPPED: {skipped}")
            return 0
        sys.exit("onnx_conformance: no tests matched")

    workdir = tempfile.mkdtemp(prefix="tessel-conformance-")
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
            for g in groups:
                start = time.time()
                futures = [pool.submit(run_test, t, bindir, workdir, args.timeout,
                                       args.compile_flag)
                           for t in tests[g.label]]
                for fut in futures:
                    r = fut.result()
                    r["group"] = g.label
                    g.results.append(r)
                    if not args.quiet:
                        print(f"{r['status']:9} {r['suite']}/{r['name']}"
                              + (f"  {r['reason'][:200]}" if r["status"] != "pass" else ""),
                              flush=True)
                g.wall = time.time() - start
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    for g in groups:
        counts = {s: sum(r["status"] == s for r in g.results) for s in STATUSES}
        print(f"conformance [{g.label}]: {len(g.results)} tests: " +
              ", ".join(f"{counts[s]} {s}" for s in STATUSES) + f" ({g.wall:.0f} s)")

    if args.doc:
        write_doc(args.doc, groups, args.jobs)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump([r for g in groups for r in g.results], f, indent=1)
    if args.write_xfail:
        write_xfail(args.write_xfail, groups[0])
    if args.prune_xfail:
        for g in groups:
            if g.xfail:
                prune_xfail(g.xfail, g.results)

    if not args.check:
        return 0
    failed = 0
    for g in groups:
        problems = check(g, bool(args.filter or args.shard))
        for p in problems:
            print(f"UNEXPECTED [{g.label}] {p}")
        print(f"conformance-check [{g.label}]: {len(g.results) - len(problems)} passed, "
              f"{len(problems)} failed")
        failed += len(problems)
    if skipped:
        print(f"conformance-check: SKIPPED the onnx pip suite: {skipped}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
