"""ctypes declarations of the runtime's C API (tessel/runtime.h, tessel/abi.h).

Everything that knows about ctypes lives here and in the handle code of
``_runtime``; the rest of the package sees Python values and ``TesselError``.
The library is opened on first use, so ``import tessel`` works without it
(``tessel.compile`` does not need it).
"""

from __future__ import annotations

import ctypes
import threading
from ctypes import (POINTER, Structure, c_char_p, c_int32, c_int64, c_size_t,
                    c_uint16, c_uint32, c_uint64, c_void_p)

from . import _locate
from ._errors import NOT_FOUND, TesselError


class TensorDesc(Structure):
    """``tessel_tensor_desc``."""
    _fields_ = [("name", c_char_p), ("dtype", c_int32), ("rank", c_int32),
                ("shape", POINTER(c_int64))]


class ModelDesc(Structure):
    """``tessel_model_desc``, ABI 1.0 (every field the runtime guarantees)."""
    _fields_ = [
        ("struct_size", c_uint32), ("abi_major", c_uint16), ("abi_minor", c_uint16),
        ("model_name", c_char_p), ("compiler_version", c_char_p),
        ("compile_flags", c_char_p), ("target", c_char_p),
        ("target_cpu", c_char_p), ("target_features", c_char_p),
        ("num_inputs", c_uint32), ("num_outputs", c_uint32),
        ("inputs", POINTER(TensorDesc)), ("outputs", POINTER(TensorDesc)),
        ("entry_name", c_char_p), ("entry", c_void_p),
        ("workspace_size", c_uint64), ("workspace_alignment", c_uint64),
        ("weights_size", c_uint64),
    ]


class TensorView(Structure):
    """``tessel_tensor_view``."""
    _fields_ = [("data", c_void_p), ("dtype", c_int32), ("rank", c_int32),
                ("shape", POINTER(c_int64)), ("size_bytes", c_size_t)]


class SessionOptions(Structure):
    """``tessel_session_options``."""
    _fields_ = [("struct_size", c_uint32), ("num_threads", c_int32)]


# Opaque handles and `tessel_status` are plain pointers; NULL arrives as None.
_Status = c_void_p
_Handle = c_void_p

_PROTOTYPES = {
    "tessel_status_get_code": (c_int32, [_Status]),
    "tessel_status_get_message": (c_char_p, [_Status]),
    "tessel_status_free": (None, [_Status]),
    "tessel_status_code_name": (c_char_p, [c_int32]),
    "tessel_runtime_version": (c_char_p, []),
    "tessel_dtype_name": (c_char_p, [c_int32]),
    "tessel_dtype_size": (c_size_t, [c_int32]),
    "tessel_model_load": (_Status, [c_char_p, POINTER(_Handle)]),
    "tessel_model_retain": (None, [_Handle]),
    "tessel_model_release": (None, [_Handle]),
    "tessel_model_descriptor": (POINTER(ModelDesc), [_Handle]),
    "tessel_model_num_inputs": (c_size_t, [_Handle]),
    "tessel_model_num_outputs": (c_size_t, [_Handle]),
    "tessel_model_input": (POINTER(TensorDesc), [_Handle, c_size_t]),
    "tessel_model_output": (POINTER(TensorDesc), [_Handle, c_size_t]),
    "tessel_session_create": (_Status, [_Handle, POINTER(SessionOptions),
                                        POINTER(_Handle)]),
    "tessel_session_release": (None, [_Handle]),
    "tessel_session_num_threads": (c_int32, [_Handle]),
    "tessel_session_run": (_Status, [_Handle, POINTER(TensorView), c_size_t,
                                     POINTER(TensorView), c_size_t]),
}

_lock = threading.Lock()
_lib: ctypes.CDLL | None = None


def lib() -> ctypes.CDLL:
    """The runtime library, opened and declared on first call."""
    global _lib
    with _lock:
        if _lib is None:
            name, tried = _locate.runtime_library()
            try:
                loaded = ctypes.CDLL(name)
            except OSError as error:
                raise TesselError(
                    NOT_FOUND,
                    f"cannot load the Tessel runtime ({error}); looked at: "
                    f"{'; '.join(tried)}. Set $TESSEL_RUNTIME_LIBRARY to "
                    f"libtessel_runtime.so or $TESSEL_BUILD_DIR to the build "
                    f"tree") from None
            for function, (restype, argtypes) in _PROTOTYPES.items():
                symbol = getattr(loaded, function)
                symbol.restype = restype
                symbol.argtypes = argtypes
            _lib = loaded
        return _lib


def text(value: bytes | None) -> str | None:
    """A C string from the runtime as ``str`` (None stays None)."""
    return None if value is None else value.decode("utf-8", errors="replace")


def check(status: int | None) -> None:
    """Raises the ``TesselError`` that ``status`` describes, after freeing it;
    does nothing on success (NULL)."""
    if status is None:
        return
    runtime = lib()
    try:
        code = runtime.tessel_status_get_code(status)
        message = text(runtime.tessel_status_get_message(status)) or ""
        name = text(runtime.tessel_status_code_name(code)) or str(code)
    finally:
        runtime.tessel_status_free(status)
    raise TesselError(name, message)
