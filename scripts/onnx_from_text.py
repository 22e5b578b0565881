#!/usr/bin/env python3
"""Turns ONNX's textual syntax into a binary .onnx model.

Lit tests keep their models as text beside the RUN and CHECK lines; `#` lines
are comments to the ONNX parser, so a whole test file parses as one model:

    # RUN: %onnx-from-text %s -o %t.onnx
    <ir_version: 8, opset_import: ["" : 17]>
    agraph (float[1,4] x) => (float[1,4] y) { [relu1] y = Relu(x) }

Usage: onnx_from_text.py INPUT -o OUTPUT
"""
import argparse
import sys

import onnx
from onnx import parser


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    with open(args.input, encoding="utf-8") as f:
        text = f.read()
    try:
        model = parser.parse_model(text)
    except Exception as e:  # the parser raises its own error types
        print(f"{args.input}: error: not valid ONNX text: {e}", file=sys.stderr)
        return 2
    onnx.save(model, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
