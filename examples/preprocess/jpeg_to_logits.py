"""From a JPEG file to a model's outputs, with the preprocessing compiled in.

Pillow decodes the JPEG (libjpeg-turbo underneath) to uint8 HWC pixels;
everything after that (resize, center crop, scale, mean/std, HWC -> CHW) runs
inside the artifact that `tessel.compile(..., preprocess=SPEC)` builds. The
artifact's shapes are static, so it is compiled for the JPEG's size (a camera
or a pipeline with one resolution compiles once); `--out` keeps it.

    python3 examples/preprocess/jpeg_to_logits.py MODEL.onnx IMAGE.jpg \
        [--spec 'resize=256,crop=224,scale=1/255,mean=...,std=...'] [--out MODEL.so]

Prints the top-5 indices and values of the first output.
"""

import argparse
import os
import sys
import tempfile

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import tessel  # noqa: E402

IMAGENET = ("resize=256,crop=224,scale=1/255,mean=0.485:0.456:0.406,"
            "std=0.229:0.224:0.225")


def decode(path, grayscale=False):
    """The JPEG's pixels, uint8 [H, W, C]."""
    with Image.open(path) as image:
        pixels = np.asarray(image.convert("L" if grayscale else "RGB"))
    return pixels[..., None] if pixels.ndim == 2 else pixels


def compile_for(model, pixels, spec, out):
    h, w, _ = pixels.shape
    spec = f"input=uint8,hwc,size={h}x{w},{spec}"
    return tessel.compile(model, out, preprocess=spec)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("image")
    parser.add_argument("--spec", default=IMAGENET,
                        help="the --preprocess items after the image's own "
                             "(input, layout, size); default: ImageNet's")
    parser.add_argument("--grayscale", action="store_true")
    parser.add_argument("--out", help="where to keep the artifact")
    args = parser.parse_args()
    pixels = decode(args.image, args.grayscale)
    with tempfile.TemporaryDirectory() as tmp:
        so = compile_for(args.model, pixels, args.spec,
                         args.out or os.path.join(tmp, "model.so"))
        with tessel.load(so) as model, model.session() as session:
            outputs = session.run([pixels])
    first = next(iter(outputs.values())).reshape(-1)
    top = np.argsort(first)[::-1][:5]
    for index in top:
        print(f"{index}\t{first[index]:.6f}")


if __name__ == "__main__":
    main()
