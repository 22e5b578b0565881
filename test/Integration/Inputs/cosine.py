"""cosine.py EXPECTED ACTUAL MIN [--closer-than OTHER]

Fails unless the cosine similarity of ACTUAL (.npy) to EXPECTED (.npy) is at
least MIN; with --closer-than, also unless ACTUAL is closer to EXPECTED
(largest absolute difference) than OTHER is.
"""
import sys

import numpy as np


def cosine(a, b):
    a = a.ravel().astype(np.float64)
    b = b.ravel().astype(np.float64)
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def main(argv):
    if len(argv) not in (4, 6) or (len(argv) == 6 and argv[4] != "--closer-than"):
        sys.exit(__doc__)
    expected, actual = np.load(argv[1]), np.load(argv[2])
    least = float(argv[3])
    if expected.shape != actual.shape:
        sys.exit("shapes differ: %s and %s" % (expected.shape, actual.shape))
    c = cosine(expected, actual)
    print("cosine %.7f" % c)
    if not c >= least:
        sys.exit("cosine %.7f is below %s" % (c, least))
    if len(argv) == 6:
        other = np.load(argv[5])
        mine = np.abs(actual - expected).max()
        theirs = np.abs(other - expected).max()
        print("max abs error %.3g, against %.3g" % (mine, theirs))
        if not mine < theirs:
            sys.exit("max abs error %.3g is not below %.3g" % (mine, theirs))


if __name__ == "__main__":
    main(sys.argv)
