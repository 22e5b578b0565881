"""Summarises the --report files of batchnorm-folding.test: how many kernels
compute a BatchNormalization apart from its Conv or Gemm, and which kernels
hold a BatchNormalization together with one."""
import json
import sys

folded, kept = (json.load(open(p))["kernels"] for p in sys.argv[1:3])


def separate_bn(kernels):
    return sum(1 for k in kernels if "BatchNormalization" in k["onnx_op_types"]
               and not {"Conv", "Gemm"} & set(k["onnx_op_types"]))


print(f"kept: {separate_bn(kept)} BatchNormalization kernels")
print(f"folded: {separate_bn(folded)} BatchNormalization kernels")
pairs = sorted({"+".join(k["nodes"]) for k in folded
                if "BatchNormalization" in k["onnx_op_types"]})
print("folded: " + " ".join(pairs))
print(f"folded has {len(kept) - len(folded)} fewer kernels")
