#!/usr/bin/env python3
"""Runs a tool on every one-byte corruption of a file: each byte XORed with
0xFF in turn (or every STRIDE-th byte), then the file cut at each of those
offsets. Each run must exit 0, or exit 1-3 with an `error[E00NN]` diagnostic
(not E0099); a signal, another exit status, a missing code or a run past
--timeout seconds is reported, and the script exits 1.

usage: flip_bytes.py FILE --stride N [--timeout S] -- TOOL ARGS...
ARGS use {} for the corrupted file's path.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

CODE = re.compile(r"error\[E00(\d\d)\]")


def main():
    argv = sys.argv[1:]
    split = argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--stride", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=60)
    args = ap.parse_args(argv[:split])
    command = argv[split + 1:]
    with open(args.file, "rb") as f:
        original = f.read()
    suffix = os.path.splitext(args.file)[1]
    outcomes, problems = {"ok": 0, "diagnostic": 0}, []
    with tempfile.TemporaryDirectory() as work:
        variants = []
        for at in range(0, len(original), args.stride):
            flipped = bytearray(original)
            flipped[at] ^= 0xFF
            variants.append((f"flip@{at}", bytes(flipped)))
            variants.append((f"cut@{at}", original[:at]))
        for label, data in variants:
            path = os.path.join(work, "corrupt" + suffix)
            with open(path, "wb") as f:
                f.write(data)
            cmd = [a.replace("{}", path) for a in command]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True,
                                   errors="replace", timeout=args.timeout)
            except subprocess.TimeoutExpired:
                problems.append(f"{label}: hang (over {args.timeout} s)")
                continue
            code = CODE.search(p.stderr)
            if p.returncode == 0:
                outcomes["ok"] += 1
            elif p.returncode in (1, 2, 3) and code and code.group(1) != "99":
                outcomes["diagnostic"] += 1
            else:
                problems.append(f"{label}: exit {p.returncode}: "
                                + " / ".join(p.stderr.strip().splitlines()[:3]))
    for problem in problems:
        print("PROBLEM", problem)
    print(f"{len(variants)} corruptions: {outcomes['ok']} ok, "
          f"{outcomes['diagnostic']} diagnostics, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
