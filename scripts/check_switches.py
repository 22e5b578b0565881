#!/usr/bin/env python3
"""Checks that every place naming tessel-compile's optimisation switches
agrees with the compiler's one list (lib/Pipelines/Pipelines.cpp,
`getOptimizations()`), as `tessel-compile --disable=help` prints it:

- the README's table between its `disable-switches` markers (rows equal,
  description, phase and pass included; `--fix` rewrites it);
- the names of docs/compiler.md's "Graph optimisations" table;
- `bench/ab.py --list-switches` (the switches its B variant turns off);
- the names tessel-compile's unknown-switch error lists.

Usage: check_switches.py --build BUILD [--root SRC] [--fix]
Exits 1 and names each disagreement.
"""

import argparse
import os
import re
import subprocess
import sys

BEGIN = "<!-- disable-switches: begin"
END = "<!-- disable-switches: end -->"
HELP_LINE = re.compile(r"^  ([a-z0-9-]+): (.*) \(([a-z]+), ([^()]+)\)$")


def help_entries(tessel_compile):
    out = subprocess.run([tessel_compile, "--disable=help"], capture_output=True,
                         text=True, check=True).stdout
    entries = []
    for line in out.splitlines():
        m = HELP_LINE.match(line)
        if not m:
            sys.exit(f"check_switches: unexpected --disable=help line: {line!r}")
        entries.append(m.groups())
    if not entries:
        sys.exit("check_switches: --disable=help listed nothing")
    return entries


def readme_table(entries):
    rows = ["| switch | phase | pass | what it does |", "|---|---|---|---|"]
    for name, description, phase, pass_ in entries:
        rows.append(f"| `{name}` | {phase} | `{pass_}` | {description} |")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True)
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--fix", action="store_true", help="rewrite the README's table")
    args = parser.parse_args()
    tessel_compile = os.path.join(args.build, "bin", "tessel-compile")
    entries = help_entries(tessel_compile)
    names = [e[0] for e in entries]
    problems = []

    readme_path = os.path.join(args.root, "README.md")
    readme = open(readme_path).read().split("\n")
    try:
        begin = next(i for i, l in enumerate(readme) if l.startswith(BEGIN))
        end = readme.index(END, begin)
    except (StopIteration, ValueError):
        sys.exit(f"check_switches: {readme_path} lacks the disable-switches markers")
    expected = readme_table(entries)
    if readme[begin + 1:end] != expected:
        if args.fix:
            readme[begin + 1:end] = expected
            open(readme_path, "w").write("\n".join(readme))
            print(f"check_switches: rewrote the table in {readme_path}")
        else:
            problems.append("README.md's switch table differs from --disable=help "
                            "(scripts/check_switches.py --build BUILD --fix rewrites it)")

    doc = open(os.path.join(args.root, "docs", "compiler.md")).read()
    section = doc.split("## Graph optimisations", 1)[-1].split("\n## ", 1)[0]
    doc_names = re.findall(r"^\| `([a-z0-9-]+)` \|", section, re.M)
    if doc_names != names:
        problems.append(f"docs/compiler.md's table names {doc_names}, --disable=help {names}")

    ab = subprocess.run([sys.executable, os.path.join(args.root, "bench", "ab.py"),
                         "--build", args.build, "--list-switches"],
                        capture_output=True, text=True)
    if ab.returncode or ab.stdout.split() != names:
        problems.append(f"bench/ab.py --list-switches gives {ab.stdout.split()} "
                        f"(exit {ab.returncode}: {ab.stderr.strip()[-300:]}), "
                        f"--disable=help {names}")

    bad = subprocess.run([tessel_compile, "--disable=no-such-switch"],
                         capture_output=True, text=True)
    m = re.search(r"in --disable \(([^)]*)\)", bad.stderr)
    if bad.returncode != 2 or not m or m.group(1).split(", ") != names:
        problems.append(f"the unknown-switch error lists {m.group(1) if m else bad.stderr!r}")

    for p in problems:
        print("check_switches:", p)
    if problems:
        return 1
    print(f"check_switches: {len(names)} switches agree in README.md, docs/compiler.md, "
          "bench/ab.py and tessel-compile")
    return 0


if __name__ == "__main__":
    sys.exit(main())
