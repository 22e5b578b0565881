"""Element types: Tessel's codes (ONNX TensorProto.DataType, abi.h) and NumPy's.

Tessel names its types as NumPy does ("float32", "bool", ...), except
bfloat16, which NumPy lacks.
"""

from __future__ import annotations

import numpy as np

from ._errors import INVALID_ARGUMENT, TesselError

BFLOAT16 = 16

# Tessel code -> type name; the names of all but bfloat16 are NumPy dtypes.
NAMES = {
    1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32",
    7: "int64", 9: "bool", 10: "float16", 11: "float64", 12: "uint32",
    13: "uint64", BFLOAT16: "bfloat16",
}

# (NumPy kind, item size) of a native-byte-order dtype -> Tessel code.
_CODES = {(np.dtype(name).kind, np.dtype(name).itemsize): code
          for code, name in NAMES.items() if code != BFLOAT16}


def name_of(code: int) -> str:
    """The type name of a Tessel code ("invalid" for an unknown one)."""
    return NAMES.get(code, "invalid")


def numpy_dtype(name: str, what: str) -> np.dtype:
    """The NumPy dtype of Tessel type ``name``; ``what`` names the tensor
    ("input 'x'") in the error raised for bfloat16."""
    if name == "bfloat16":
        raise TesselError(
            INVALID_ARGUMENT,
            f"{what} is bfloat16, and NumPy has no bfloat16 dtype; this binding "
            "cannot pass or return bfloat16 tensors")
    return np.dtype(name)


def code_of(dtype: np.dtype) -> int | None:
    """The Tessel code of a NumPy dtype, or None when Tessel has no such type
    (complex, strings, objects, datetimes, non-native byte order, ...)."""
    if not dtype.isnative:
        return None
    return _CODES.get((dtype.kind, dtype.itemsize))
