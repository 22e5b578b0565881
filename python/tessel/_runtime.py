"""Models and sessions over the runtime's C API."""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Union

import numpy as np

from . import _capi, _dtypes
from ._errors import INVALID_ARGUMENT, TesselError

Inputs = Union[Mapping[str, np.ndarray], Sequence[np.ndarray]]


class TensorInfo:
    """A graph input or output: ``name``, ``dtype`` (a NumPy dtype) and
    ``shape`` (a tuple of ints).

    ``dtype_name`` is Tessel's name for the type, the NumPy name for all but
    ``"bfloat16"``; reading ``dtype`` of a bfloat16 tensor raises
    ``TesselError``, as NumPy has no such dtype.
    """

    __slots__ = ("name", "dtype_name", "shape")

    def __init__(self, name: str, dtype, shape) -> None:
        self.name = str(name)
        self.dtype_name = "bfloat16" if dtype == "bfloat16" else np.dtype(dtype).name
        self.shape = tuple(int(extent) for extent in shape)

    @property
    def dtype(self) -> np.dtype:
        return _dtypes.numpy_dtype(self.dtype_name, f"tensor '{self.name}'")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TensorInfo):
            return NotImplemented
        return (self.name, self.dtype_name, self.shape) == (
            other.name, other.dtype_name, other.shape)

    def __hash__(self) -> int:
        return hash((self.name, self.dtype_name, self.shape))

    def __repr__(self) -> str:
        return (f"TensorInfo(name={self.name!r}, dtype={self.dtype_name}, "
                f"shape={self.shape})")


@dataclass(frozen=True)
class Descriptor:
    """What the compiler recorded in an artifact (``tessel_model_desc``)."""
    compiler_version: str
    compile_flags: str
    target: str
    target_cpu: str
    target_features: str
    abi_version: tuple[int, int]
    workspace_size: int
    weights_size: int


def _tensor_info(desc: _capi.TensorDesc) -> TensorInfo:
    shape = [desc.shape[i] for i in range(desc.rank)]
    return TensorInfo(_capi.text(desc.name), _dtypes.name_of(desc.dtype), shape)


def _describe(tensor: TensorInfo) -> str:
    """``float32[1,3,224,224]``, as the runtime writes a tensor type."""
    return f"{tensor.dtype_name}[{','.join(str(d) for d in tensor.shape)}]"


class _Handle:
    """An owned C handle, released once: by ``close()``, by leaving a ``with``
    block, or (as a fallback) when garbage-collected. The lock keeps a
    release from racing with a call that uses the handle."""

    _release_function = ""
    _kind = ""

    def __init__(self, handle: int) -> None:
        self._handle = handle
        self._lock = threading.Lock()

    def close(self) -> None:
        """Releases the handle now; later calls are no-ops."""
        with self._lock:
            handle, self._handle = self._handle, None
            if handle is not None:
                getattr(_capi.lib(), self._release_function)(handle)

    @property
    def closed(self) -> bool:
        return self._handle is None

    def _live(self) -> int:
        """The handle; call with the lock held."""
        if self._handle is None:
            raise TesselError(INVALID_ARGUMENT, f"the {self._kind} is closed")
        return self._handle

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone
            pass


class Model(_Handle):
    """A loaded artifact. Its metadata is copied at load time and stays
    readable after ``close()``; sessions keep the artifact loaded on their
    own, so a model may be closed while its sessions run."""

    _release_function = "tessel_model_release"
    _kind = "model"

    def __init__(self, handle: int, path: str) -> None:
        super().__init__(handle)
        self.path = path
        try:
            self._read_metadata(_capi.lib(), handle)
        except BaseException:
            self.close()
            raise

    def _read_metadata(self, lib, handle: int) -> None:
        """Copies what the descriptor says; its strings are borrowed."""
        desc = lib.tessel_model_descriptor(handle).contents
        self.name: str = _capi.text(desc.model_name) or ""
        self.inputs: list[TensorInfo] = [
            _tensor_info(lib.tessel_model_input(handle, i).contents)
            for i in range(lib.tessel_model_num_inputs(handle))]
        self.outputs: list[TensorInfo] = [
            _tensor_info(lib.tessel_model_output(handle, i).contents)
            for i in range(lib.tessel_model_num_outputs(handle))]
        self.descriptor = Descriptor(
            compiler_version=_capi.text(desc.compiler_version) or "",
            compile_flags=_capi.text(desc.compile_flags) or "",
            target=_capi.text(desc.target) or "cpu",
            target_cpu=_capi.text(desc.target_cpu) or "",
            target_features=_capi.text(desc.target_features) or "",
            abi_version=(desc.abi_major, desc.abi_minor),
            workspace_size=desc.workspace_size,
            weights_size=desc.weights_size)

    def session(self, num_threads: int = 0) -> Session:
        """A new session (workspace and threads) for this model.
        ``num_threads`` 0 means every core the process may use."""
        options = _capi.SessionOptions(ctypes.sizeof(_capi.SessionOptions),
                                       num_threads)
        out = ctypes.c_void_p()
        with self._lock:
            _capi.check(_capi.lib().tessel_session_create(
                self._live(), ctypes.byref(options), ctypes.byref(out)))
        return Session(out.value, self.inputs, self.outputs)

    def __repr__(self) -> str:
        state = ", closed" if self.closed else ""
        return f"<tessel.Model {self.name!r} from {self.path!r}{state}>"


class Session(_Handle):
    """Runs a model. Runs on one session are serialized; use one session per
    thread to run in parallel."""

    _release_function = "tessel_session_release"
    _kind = "session"

    def __init__(self, handle: int, inputs: list[TensorInfo],
                 outputs: list[TensorInfo]) -> None:
        super().__init__(handle)
        self.inputs = list(inputs)
        self.outputs = list(outputs)

    @property
    def num_threads(self) -> int:
        with self._lock:
            return _capi.lib().tessel_session_num_threads(self._live())

    def run(self, inputs: Inputs) -> dict[str, np.ndarray]:
        """Runs the model once and returns its outputs by name, in the
        model's output order.

        ``inputs`` maps input names to arrays, or lists the arrays in the
        model's input order. Arrays must have the input's dtype and shape
        exactly: nothing is converted. A non-contiguous or misaligned array
        is copied into a C-contiguous one; the others are passed as they are.
        """
        arrays = self._ordered(inputs)
        results = [np.empty(out.shape, _dtypes.numpy_dtype(
            out.dtype_name, f"output '{out.name}'")) for out in self.outputs]
        # The views point at `arrays`, `results` and these shape arrays.
        input_views, _input_shapes = _views(arrays)
        output_views, _output_shapes = _views(results)
        with self._lock:
            _capi.check(_capi.lib().tessel_session_run(
                self._live(), input_views, len(arrays), output_views,
                len(results)))
        return {out.name: array for out, array in zip(self.outputs, results)}

    def _ordered(self, inputs: Inputs) -> list[np.ndarray]:
        """The input arrays in descriptor order, each checked to be an array
        of a Tessel type and made C-contiguous and aligned."""
        if isinstance(inputs, Mapping):
            known = [tensor.name for tensor in self.inputs]
            unknown = [name for name in inputs if name not in known]
            if unknown:
                raise TesselError(
                    INVALID_ARGUMENT,
                    f"unknown input '{unknown[0]}'; the model's inputs are "
                    + ", ".join(f"'{tensor.name}' {_describe(tensor)}"
                                for tensor in self.inputs))
            missing = [tensor for tensor in self.inputs if tensor.name not in inputs]
            if missing:
                raise TesselError(
                    INVALID_ARGUMENT,
                    "missing input " + ", ".join(
                        f"'{tensor.name}' {_describe(tensor)}" for tensor in missing))
            items = [(f"input '{tensor.name}'", inputs[tensor.name])
                     for tensor in self.inputs]
        elif isinstance(inputs, Sequence) and not isinstance(inputs, (str, bytes)):
            # The runtime checks the count, with its own message.
            items = [(f"input '{self.inputs[i].name}'" if i < len(self.inputs)
                      else f"input {i}", value) for i, value in enumerate(inputs)]
        else:
            raise TesselError(
                INVALID_ARGUMENT,
                "inputs must be a mapping from input names to arrays or a list "
                f"of arrays in input order, not {type(inputs).__name__}")
        return [_as_input(what, value) for what, value in items]

    def __repr__(self) -> str:
        return f"<tessel.Session{' (closed)' if self.closed else ''}>"


def _as_input(what: str, value) -> np.ndarray:
    if not isinstance(value, (np.ndarray, np.generic)):
        raise TesselError(
            INVALID_ARGUMENT,
            f"{what} must be a numpy array, not {type(value).__name__} "
            "(nothing is converted: make an array of the input's dtype)")
    array = np.asarray(value)
    if _dtypes.code_of(array.dtype) is None:
        raise TesselError(
            INVALID_ARGUMENT,
            f"{what} has numpy dtype {array.dtype.str} ({array.dtype.name}), "
            "which is no Tessel element type (native-endian bool, int, uint "
            "and float of 2, 4 and 8 bytes are; bfloat16 is not supported "
            "by this binding)")
    if not (array.flags.c_contiguous and array.flags.aligned):
        array = np.require(array, requirements=("C", "A"))
    return array


def _views(arrays: list[np.ndarray]):
    """A ctypes array of views over ``arrays``, and the shape arrays it points
    to (keep both, and ``arrays``, alive while the views are used)."""
    views = (_capi.TensorView * max(len(arrays), 1))()
    shapes = []
    for view, array in zip(views, arrays):
        shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        shapes.append(shape)
        view.data = array.ctypes.data
        view.dtype = _dtypes.code_of(array.dtype)
        view.rank = array.ndim
        view.shape = shape
        view.size_bytes = array.nbytes
    return views, shapes


def load(path: str | os.PathLike) -> Model:
    """Loads the artifact at ``path`` (a ``model.so`` written by
    ``tessel.compile``). Raises ``TesselError`` ("not found", "invalid
    artifact", "incompatible", ...) with the runtime's message."""
    path = os.fspath(path)
    out = ctypes.c_void_p()
    _capi.check(_capi.lib().tessel_model_load(os.fsencode(path), ctypes.byref(out)))
    return Model(out.value, path)
