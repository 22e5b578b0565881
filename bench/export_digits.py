"""Trains the INT8 accuracy model: a small CNN on scikit-learn's 8x8 digits.

Run with Debian's /usr/bin/python3 (python3-torch, python3-sklearn):

    /usr/bin/python3 bench/export_digits.py OUT_DIR

Two 3x3 convolutions (16 and 32 filters, ReLU), 2x2 max pooling and a linear
head, trained with Adam for 40 epochs on the 1437-image training split
(seeded: the same weights every run, about a minute of CPU). Writes
OUT_DIR/digits.onnx (a batch of 60 images, input `image` [60, 1, 8, 8],
pixels scaled to [0, 1]; output `logits` [60, 10]) and OUT_DIR/digits.npz
(train, train_labels, test, test_labels: the 360-image held-out split,
stratified, random_state 0).
"""

import os
import sys

import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

BATCH = 60


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    np.random.seed(0)
    torch.set_num_threads(1)
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]
    x_train, x_test, y_train, y_test = train_test_split(
        images, digits.target, test_size=360, random_state=0, stratify=digits.target)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 4 * 4, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train).long()
    for epoch in range(40):
        order = torch.randperm(len(xt))
        for start in range(0, len(xt), 64):
            idx = order[start:start + 64]
            optimizer.zero_grad()
            loss = loss_fn(model(xt[idx]), yt[idx])
            loss.backward()
            optimizer.step()
    model.eval()
    with torch.no_grad():
        accuracy = (model(torch.from_numpy(x_test)).argmax(1).numpy() == y_test).mean()
    print(f"digits: torch FP32 top-1 on the held-out split: {100 * accuracy:.2f}%",
          file=sys.stderr)
    torch.onnx.export(model, torch.zeros(BATCH, 1, 8, 8), os.path.join(out, "digits.onnx"),
                      opset_version=13, input_names=["image"], output_names=["logits"])
    np.savez(os.path.join(out, "digits.npz"), train=x_train, train_labels=y_train,
             test=x_test, test_labels=y_test)


if __name__ == "__main__":
    main()
