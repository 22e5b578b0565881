"""Writes preprocess_reference.npz: images and what torchvision 0.14 makes of
them, the reference the --preprocess tests compare with (produced outside
Tessel, committed). Runs under Debian's /usr/bin/python3 (python3-torchvision):

    /usr/bin/python3 test/Integration/Inputs/preprocess_reference.py OUT.npz

Each case NAME stores NAME.image (the raw input) and NAME.expected (the
[1, C, H, W] float32 tensor torchvision's transforms give), seeded. A
bilinear case also stores NAME.unrounded: the resized, cropped pixels before
torchvision rounds them back to uint8 (where one lies within float rounding
of a half, the rounding may go either way).
"""

import sys

import numpy as np
import torch
import torchvision
from torchvision import transforms as T

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def tv(image_chw, resize=None, nearest=False, crop=None, to_float=True):
    steps = []
    if resize is not None:
        mode = (T.InterpolationMode.NEAREST if nearest
                else T.InterpolationMode.BILINEAR)
        steps.append(T.Resize(resize, interpolation=mode))
    if crop is not None:
        steps.append(T.CenterCrop(crop))
    if to_float:
        steps.append(T.ConvertImageDtype(torch.float32))  # x / 255
    steps.append(T.Normalize(MEAN, STD))
    return T.Compose(steps)(image_chw).unsqueeze(0).numpy()


def unrounded(image_chw, size, crop):
    x = torch.nn.functional.interpolate(image_chw.float().unsqueeze(0), size=size,
                                        mode="bilinear", align_corners=False)
    return T.CenterCrop(crop)(x).numpy()


def main():
    rng = np.random.default_rng(7)
    out = {}
    # Downscale (shorter side 20 of 30x40, so 20x26) and crop 16, bilinear.
    img = rng.integers(0, 256, (30, 40, 3), dtype=np.uint8)
    out["down.image"] = img
    out["down.expected"] = tv(torch.from_numpy(img).permute(2, 0, 1), 20,
                              crop=16)
    out["down.unrounded"] = unrounded(torch.from_numpy(img).permute(2, 0, 1),
                                      (20, 26), 16)
    # The same with nearest.
    out["nearest.image"] = img
    out["nearest.expected"] = tv(torch.from_numpy(img).permute(2, 0, 1), 20,
                                 nearest=True, crop=16)
    # Upscale to 14x18 (exact size), crop 12x16, from a portrait image.
    img = rng.integers(0, 256, (12, 9, 3), dtype=np.uint8)
    out["up.image"] = img
    out["up.expected"] = tv(torch.from_numpy(img).permute(2, 0, 1), (14, 18),
                            crop=(12, 16))
    out["up.unrounded"] = unrounded(torch.from_numpy(img).permute(2, 0, 1),
                                    (14, 18), (12, 16))
    # Float CHW input, crop only (an odd margin: offset rounds half to even).
    img = rng.random((3, 19, 21), dtype=np.float32)
    out["float.image"] = img
    out["float.expected"] = tv(torch.from_numpy(img), crop=16, to_float=False)
    np.savez(sys.argv[1], **out)
    print("torchvision", torchvision.__version__)


if __name__ == "__main__":
    main()
