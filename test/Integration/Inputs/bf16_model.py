"""bf16_model.py OUT_DIR

Writes a model that arrives in bfloat16 (onnxruntime's CPU provider runs no
bf16 MatMul, so the reference is computed here): y = x @ W + b, then Relu,
with x [24, 64], W [64, 48] and b [48] in bf16. The expected output sums the
MatMul's bf16 products in float64 and rounds the sum to bf16 (nearest even),
as a kernel that sums in f32 does within f32's rounding; then adds the bias
and rounds again (each ONNX op's output is bf16). Writes bf16_model.onnx,
x.pb and expected.pb (TensorProtos: numpy has no bfloat16).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def to_bf16_bits(a):
    """float32 -> bf16 bits, rounded to nearest even."""
    bits = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16_bits(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def tensor(name, bits, shape):
    t = TensorProto()
    t.name = name
    t.data_type = TensorProto.BFLOAT16
    t.dims.extend(shape)
    t.raw_data = bits.tobytes()
    return t


def main(out):
    rng = np.random.default_rng(7)
    x = to_bf16_bits(rng.standard_normal((24, 64)))
    w = to_bf16_bits(rng.standard_normal((64, 48)) / 8)
    b = to_bf16_bits(rng.standard_normal(48) / 4)
    # Each op's output is bf16, as ONNX types them: the product rounded
    # once, then the biased sum.
    p = from_bf16_bits(x).astype(np.float64) @ from_bf16_bits(w).astype(np.float64)
    p = from_bf16_bits(to_bf16_bits(p))
    y = np.maximum(p + from_bf16_bits(b), 0.0)
    nodes = [helper.make_node("MatMul", ["x", "W"], ["p"], name="matmul"),
             helper.make_node("Add", ["p", "b"], ["s"], name="bias"),
             helper.make_node("Relu", ["s"], ["y"], name="relu")]
    graph = helper.make_graph(
        nodes, "bf16_model",
        [helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [24, 64])],
        [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [24, 48])],
        [tensor("W", w, [64, 48]), tensor("b", b, [48])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    os.makedirs(out, exist_ok=True)
    onnx.save(model, os.path.join(out, "bf16_model.onnx"))
    with open(os.path.join(out, "x.pb"), "wb") as f:
        f.write(tensor("x", x, [24, 64]).SerializeToString())
    with open(os.path.join(out, "expected.pb"), "wb") as f:
        f.write(tensor("y", to_bf16_bits(y), [24, 48]).SerializeToString())
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
