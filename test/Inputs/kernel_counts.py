"""Prints, for each `tessel-compile --report` file given as LABEL=PATH, the
number of kernels, then the ONNX nodes of each kernel (sorted):
`LABEL: N kernels` and `LABEL kernel: node+node+...`."""
import json
import sys

for arg in sys.argv[1:]:
    label, path = arg.split("=", 1)
    kernels = json.load(open(path))["kernels"]
    print(f"{label}: {len(kernels)} kernels")
    for nodes in sorted("+".join(k["nodes"]) for k in kernels):
        print(f"{label} kernel: {nodes}")
