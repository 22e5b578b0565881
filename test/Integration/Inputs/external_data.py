"""Writes models whose initializers are ONNX external data (beside the
.onnx, as exporters write models over 2 GB), and broken variants:

    external_data.py OUT_DIR

OUT_DIR/mlp.onnx + weights.bin   x[4,256] -> Gemm 256x256 (256 KiB), Relu, Gemm
                                 256x10 (10 KiB) -> logits, every tensor of at
                                 least 1 KiB external; with its input and
                                 onnxruntime's output (x.npy, expected.npy)
OUT_DIR/escape.onnx              a location with '..' (to OUT_DIR/../weights.bin,
                                 which exists: a copy)
OUT_DIR/absolute.onnx            an absolute location
OUT_DIR/missing.onnx             a location that does not exist
OUT_DIR/short.onnx               an offset past the end of the file
"""

import os
import shutil
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    inits, nodes, prev = [], [], "x"
    for i, (n_in, n_out) in enumerate(((256, 256), (256, 10))):
        inits += [numpy_helper.from_array(
                      (rng.standard_normal((n_out, n_in)) / np.sqrt(n_in)).astype(np.float32),
                      f"fc{i}.weight"),
                  numpy_helper.from_array(rng.standard_normal(n_out).astype(np.float32),
                                          f"fc{i}.bias")]
        out_name = "logits" if i == 1 else f"h{i}"
        nodes.append(helper.make_node("Gemm", [prev, f"fc{i}.weight", f"fc{i}.bias"],
                                      [out_name], name=f"fc{i}", transB=1))
        if i == 0:
            nodes.append(helper.make_node("Relu", [out_name], ["r0"], name="relu0"))
            prev = "r0"
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 256])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [4, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save_model(model, os.path.join(out, "mlp.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="weights.bin", size_threshold=1024)
    x = rng.standard_normal((4, 256)).astype(np.float32)
    np.save(os.path.join(out, "x.npy"), x)
    session = ort.InferenceSession(os.path.join(out, "mlp.onnx"))
    np.save(os.path.join(out, "expected.npy"), session.run(None, {"x": x})[0])

    def variant(name, change):
        broken = onnx.load(os.path.join(out, "mlp.onnx"), load_external_data=False)
        [tensor] = [t for t in broken.graph.initializer
                    if t.data_location == onnx.TensorProto.EXTERNAL][:1]
        change({entry.key: entry for entry in tensor.external_data})
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(broken.SerializeToString())

    shutil.copy(os.path.join(out, "weights.bin"), os.path.join(out, "..", "weights.bin"))
    variant("escape", lambda e: setattr(e["location"], "value", "../weights.bin"))
    variant("absolute", lambda e: setattr(e["location"], "value",
                                          os.path.abspath(os.path.join(out, "weights.bin"))))
    variant("missing", lambda e: setattr(e["location"], "value", "nowhere.bin"))
    variant("short", lambda e: setattr(e["offset"], "value", str(10 ** 9)))


if __name__ == "__main__":
    main()
