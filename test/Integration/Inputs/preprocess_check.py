"""Helpers for the --preprocess tests (pip python: onnx, numpy).

    preprocess_check.py model OUT.onnx C H W    y = x * 1, x: float32 [1,C,H,W]
    preprocess_check.py image REF.npz CASE OUT.npy    CASE's raw image
    preprocess_check.py pixels N H W C SEED OUT.npy   random uint8 NHWC images
    preprocess_check.py ort MODEL.onnx IMAGES.npy CROP OUT.npy
        numpy's preprocessing of NHWC uint8 images (center crop CROP,
        /255, ImageNet mean and std, to NCHW), then onnxruntime
    preprocess_check.py check ACTUAL.npy REF.npz CASE TOL
        prints CASE's max abs difference from torchvision's tensor; exit 1
        when a shape differs or the difference exceeds TOL. Where the
        reference has CASE.unrounded, an element whose resized value lies
        within 1e-3 of a half (a tie that float rounding decides) may be one
        pixel step off instead, and the count of those is printed.
"""

import sys

import numpy as np


def model(path, c, h, w):
    import onnx
    from onnx import TensorProto, helper
    one = helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "one"], ["y"], name="times_one")], "pre",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, h, w])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, c, h, w])],
        [one])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              path)


def main():
    mode = sys.argv[1]
    if mode == "model":
        model(sys.argv[2], *map(int, sys.argv[3:6]))
    elif mode == "image":
        np.save(sys.argv[4], np.load(sys.argv[2])[sys.argv[3] + ".image"])
    elif mode == "pixels":
        n, h, w, c, seed = map(int, sys.argv[2:7])
        rng = np.random.default_rng(seed)
        np.save(sys.argv[7], rng.integers(0, 256, (n, h, w, c), dtype=np.uint8))
    elif mode == "ort":
        import onnxruntime as ort
        images, crop = np.load(sys.argv[3]), int(sys.argv[4])
        top = int(round((images.shape[1] - crop) / 2.0))
        left = int(round((images.shape[2] - crop) / 2.0))
        x = images[:, top:top + crop, left:left + crop].astype(np.float32) / 255
        x = (x - np.float32([0.485, 0.456, 0.406])) / np.float32([0.229, 0.224, 0.225])
        x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
        session = ort.InferenceSession(sys.argv[2], providers=["CPUExecutionProvider"])
        name = session.get_inputs()[0].name
        np.save(sys.argv[5], session.run(None, {name: x})[0])
    elif mode == "check":
        actual = np.load(sys.argv[2])
        expected = np.load(sys.argv[3])[sys.argv[4] + ".expected"]
        if actual.shape != expected.shape:
            print(f"{sys.argv[4]}: shape {actual.shape}, expected {expected.shape}")
            sys.exit(1)
        diff = np.abs(actual.astype(np.float64) - expected)
        ties = np.zeros(diff.shape, dtype=bool)
        ref = np.load(sys.argv[3])
        if sys.argv[4] + ".unrounded" in ref:
            raw = ref[sys.argv[4] + ".unrounded"].astype(np.float64)
            ties = np.abs(raw - np.floor(raw) - 0.5) < 1e-3
            # One uint8 step after scale 1/255 and the channel's std.
            step = 1.0 / 255 / np.array([0.229, 0.224, 0.225]).reshape(1, 3, 1, 1)
            off_by_step = ties & (np.abs(diff - step) < 1e-4)
            diff = np.where(off_by_step, 0.0, diff)
            print(f"{sys.argv[4]}: {int(off_by_step.sum())} of {int(ties.sum())}"
                  f" ties rounded the other way")
        err = float(diff.max())
        print(f"{sys.argv[4]}: max abs difference {'%.1e' % err}"
              f" {'<=' if err <= float(sys.argv[5]) else '>'} {sys.argv[5]}")
        sys.exit(0 if err <= float(sys.argv[5]) else 1)


if __name__ == "__main__":
    main()
