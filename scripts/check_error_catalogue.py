"""Checks the error contract's catalogue (docs/errors.md) against the code.

Every code of `enum class ErrorCode` (include/tessel/Support/ErrorCodes.h)
must have a row in docs/errors.md, every row must name a code that exists,
and every code must be checked by at least one test: a lit test (test/) or a
runtime test (unittests/) that matches `error[E00NN]`. E0099 (internal error)
is exempt: only a bug reaches it.

usage: python3 scripts/check_error_catalogue.py [REPO_ROOT]
Prints one line per problem and exits 1 if there is any.
"""

import os
import re
import sys

EXEMPT = {99}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "include/tessel/Support/ErrorCodes.h")) as f:
        header = f.read()
    enum = header[header.index("enum class ErrorCode"):]
    enum = enum[:enum.index("};")]
    codes = {int(v): name for name, v in re.findall(r"(\w+)\s*=\s*(\d+)", enum)}
    with open(os.path.join(root, "docs/errors.md")) as f:
        documented = {int(c) for c in re.findall(r"^\| E(\d{4}) \|", f.read(), re.M)}

    tested = set()
    for top in ("test", "unittests", "python/tests"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                try:
                    with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                        text = f.read()
                except (UnicodeDecodeError, OSError):
                    continue
                tested |= {int(c) for c in re.findall(r"error\\?\[E(\d{4})\\?\]", text)}

    problems = []
    for code, name in sorted(codes.items()):
        if code not in documented:
            problems.append(f"E{code:04d} ({name}) has no row in docs/errors.md")
        if code not in tested and code not in EXEMPT:
            problems.append(f"E{code:04d} ({name}) is not checked by any test "
                            "(no test matches 'error[E{:04d}]')".format(code))
    for code in sorted(documented - set(codes)):
        problems.append(f"docs/errors.md documents E{code:04d}, which ErrorCode lacks")
    for problem in problems:
        print(problem)
    print(f"error catalogue: {len(codes)} codes, {len(documented)} documented, "
          f"{len(tested & set(codes))} tested, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
