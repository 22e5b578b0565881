"""The torch side of bench/preprocess.py: under Debian's /usr/bin/python3
(python3-torch, python3-torchvision, python3-pil).

Exports ResNet-18 (random seeded weights, BatchNorm statistics filled, as
bench/export_models.py does) to OUT_DIR/resnet18.onnx, writes N seeded
256x256 JPEG images (smooth random fields, quality 90), decodes them with
Pillow, and computes torchvision's transforms (Resize(256), CenterCrop(224),
ConvertImageDtype, Normalize on the uint8 tensor) followed by torch's model:

    OUT_DIR/images/NNN.jpg, OUT_DIR/pixels.npy (N, 256, 256, 3) uint8,
    OUT_DIR/torch_logits.npy (N, 1000)

    /usr/bin/python3 bench/preprocess_torch.py OUT_DIR [--images 16]
"""

import argparse
import os

import numpy as np
import torch
import torchvision
from PIL import Image
from torchvision import transforms as T

from export_models import count_flops, export, fill_batchnorm_statistics


def smooth_image(rng, size=256):
    """A photo-like image: low-frequency colour fields plus a little noise."""
    coarse = rng.random((8, 8, 3)) * 255
    image = np.asarray(Image.fromarray(coarse.astype(np.uint8)).resize(
        (size, size), Image.BICUBIC), dtype=np.float64)
    image += rng.normal(0, 12, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--images", type=int, default=16)
    args = parser.parse_args()
    os.makedirs(os.path.join(args.out_dir, "images"), exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = torchvision.models.resnet18(pretrained=False)
    fill_batchnorm_statistics(model, (4, 3, 224, 224))
    x = torch.randn(1, 3, 224, 224)
    export(model, (x,), "resnet18", args.out_dir, ["input"], ["logits"],
           count_flops(model, (x,)))

    rng = np.random.default_rng(2026)
    transform = T.Compose([
        T.Resize(256), T.CenterCrop(224), T.ConvertImageDtype(torch.float32),
        T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    pixels, logits = [], []
    for i in range(args.images):
        path = os.path.join(args.out_dir, "images", f"{i:03d}.jpg")
        Image.fromarray(smooth_image(rng)).save(path, quality=90)
        with Image.open(path) as image:
            decoded = np.asarray(image.convert("RGB"))
        pixels.append(decoded)
        tensor = transform(torch.from_numpy(decoded.copy()).permute(2, 0, 1))
        with torch.no_grad():
            logits.append(model(tensor.unsqueeze(0))[0].numpy())
    np.save(os.path.join(args.out_dir, "pixels.npy"), np.stack(pixels))
    np.save(os.path.join(args.out_dir, "torch_logits.npy"), np.stack(logits))
    print(f"torchvision {torchvision.__version__}: {args.images} images", flush=True)


if __name__ == "__main__":
    main()
