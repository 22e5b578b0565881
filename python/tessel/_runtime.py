"""Models and sessions over the extension module (the runtime's C API)."""

from __future__ import annotations

import concurrent.futures
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Optional, Union

import numpy as np

from . import _dtypes, _ext
from ._errors import INVALID_ARGUMENT, TesselError
from ._streams import Stream

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
    # ABI 1.2's TESSEL_MODEL_NONDETERMINISTIC: a session never caches its
    # results (False for older artifacts).
    nondeterministic: bool = False
    # ABI 1.4: the name of the dynamic batch (``Model.batch_range``), None
    # when the shapes are static.
    batch_name: Optional[str] = None
    # ABI 1.5: the name of the padded dimension (``Model.padded_range``),
    # and the dimension of each input and output that holds it (-1: none);
    # None without one.
    padded_name: Optional[str] = None
    padded_input_dims: Optional[tuple[int, ...]] = None
    padded_output_dims: Optional[tuple[int, ...]] = None


def _describe(tensor: TensorInfo) -> str:
    """``float32[1,3,224,224]``, as the runtime writes a tensor type."""
    return f"{tensor.dtype_name}[{','.join(str(d) for d in tensor.shape)}]"


class _Closable:
    """An owner of an extension object that holds a runtime handle: released
    by ``close()``, by leaving a ``with`` block, or when garbage-collected.
    The extension keeps a close from racing with calls on other threads."""

    _ext_object = None

    def close(self) -> None:
        """Releases the handle now; later calls are no-ops."""
        self._ext_object.close()

    @property
    def closed(self) -> bool:
        return self._ext_object.closed

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class Model(_Closable):
    """A loaded artifact. Its metadata is copied at load time and stays
    readable after ``close()``; sessions keep the artifact loaded on their
    own, so a model may be closed while its sessions run.

    ``batch_range`` is None, or ``(min, max)`` for an artifact compiled
    with a dynamic batch (``tessel-compile --dim-range N=1..64``): dimension
    0 of every input and output is then the batch, which a run may set to
    any value in the range, the same for every input (``inputs`` and
    ``outputs`` show batch 1); the outputs come back with that batch.

    ``padded_range`` is None, or ``(min, max)`` for an artifact compiled
    with a padded dimension (``--dim-range S=1..128`` on a dimension other
    than the batch): input ``i`` holds it in its dimension
    ``descriptor.padded_input_dims[i]`` (-1: not at all), which a run may
    set to any length in the range, the same for every such input
    (``inputs`` and ``outputs`` show the shortest compiled length); the
    outputs holding it come back with that length."""

    def __init__(self, ext_model) -> None:
        self._ext_object = ext_model
        self.path: str = ext_model.path
        self.name: str = ext_model.name
        self.inputs: list[TensorInfo] = [TensorInfo(*info) for info in ext_model.inputs]
        self.outputs: list[TensorInfo] = [TensorInfo(*info) for info in ext_model.outputs]
        self.descriptor = Descriptor(**ext_model.descriptor)
        self.batch_range: Optional[tuple[int, int]] = ext_model.batch_range
        self.padded_range: Optional[tuple[int, int]] = ext_model.padded_range

    def session(self, num_threads: int = 0,
                result_cache_bytes: int = 0) -> Session:
        """A new session (workspace and threads) for this model.
        ``num_threads`` 0 means every core the process may use.

        ``result_cache_bytes`` > 0 gives the session a result cache of that
        many bytes: a run whose inputs equal, byte for byte, those of an
        earlier run still cached returns a copy of that run's outputs without
        running the model; least recently used entries are evicted, and each
        counts its inputs' and outputs' bytes. A non-deterministic model
        (``descriptor.nondeterministic``) gets no cache. See
        ``Session.cache_stats``."""
        if isinstance(num_threads, bool) or not isinstance(num_threads, int) \
                or not -2**31 <= num_threads < 2**31:
            raise TesselError(INVALID_ARGUMENT,
                              f"num_threads must be an int >= 0, not {num_threads!r}")
        if isinstance(result_cache_bytes, bool) \
                or not isinstance(result_cache_bytes, int) \
                or not 0 <= result_cache_bytes < 2**64:
            raise TesselError(
                INVALID_ARGUMENT, "result_cache_bytes must be an int >= 0 "
                f"(0: no cache), not {result_cache_bytes!r}")
        padded = None
        if self.padded_range is not None:
            padded = (self.padded_range, self.descriptor.padded_input_dims,
                      self.descriptor.padded_output_dims)
        return Session(self._ext_object.session(num_threads, result_cache_bytes),
                       self.inputs, self.outputs, self.batch_range, padded)

    def __repr__(self) -> str:
        state = ", closed" if self.closed else ""
        return f"<tessel.Model {self.name!r} from {self.path!r}{state}>"


class Session(_Closable):
    """Runs a model. Runs on one session may overlap (from several threads,
    or on several streams): the runtime gives each its own workspace."""

    def __init__(self, ext_session, inputs: list[TensorInfo],
                 outputs: list[TensorInfo],
                 batch_range: Optional[tuple[int, int]] = None,
                 padded=None) -> None:
        self._ext_object = ext_session
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self._batch_range = batch_range
        # ((min, max), input dims, output dims) of a padded dimension.
        self._padded = padded
        self._stream_lock = threading.Lock()
        self._stream: Optional[Stream] = None
        # What run's fast path checks, worked out once: per input its name
        # and NumPy dtype (None for bfloat16: the checked path refuses it),
        # per output its name, and its shape and dtype when NumPy has one.
        self._expected = tuple(
            (tensor.name, None if tensor.dtype_name == "bfloat16"
             else np.dtype(tensor.dtype_name)) for tensor in self.inputs)
        self._output_names = tuple(out.name for out in self.outputs)
        self._output_types = None if any(
            out.dtype_name == "bfloat16" for out in self.outputs) else tuple(
                (out.shape, np.dtype(out.dtype_name)) for out in self.outputs)
        # The extension's fast path does run's checks, allocations and
        # call in one call (about 1 us less per run); None with a bfloat16
        # output, which NumPy cannot allocate.
        # (A padded dimension sizes the outputs by the inputs' length:
        # the checked path.)
        self._plan = None if self._output_types is None \
            or padded is not None else \
            _ext.module().RunPlan(
                [name for name, _ in self._expected],
                [_plan_code(dtype) for _, dtype in self._expected],
                list(self._output_names),
                [shape for shape, _ in self._output_types],
                [dtype for _, dtype in self._output_types],
                np.empty, np.ndarray, *(batch_range or (0, 0)))

    @property
    def num_threads(self) -> int:
        return self._ext_object.num_threads

    def cache_stats(self) -> dict[str, int]:
        """The counts of the session's result cache: ``hits``, ``misses``,
        ``evictions``, ``entries``, ``bytes`` (held now, never above the
        bound) and ``capacity_bytes`` (the bound; 0, like every count, when
        the session has no cache)."""
        return self._ext_object.cache_stats()

    def run(self, inputs: Inputs) -> dict[str, np.ndarray]:
        """Runs the model once and returns its outputs by name, in the
        model's output order. The GIL is released while the model runs.

        ``inputs`` maps input names to arrays, or lists the arrays in the
        model's input order. Arrays must have the input's dtype and shape
        exactly (with a dynamic batch, ``Model.batch_range``, any batch in
        the range as dimension 0, the same for every input; the outputs
        have that batch): nothing is converted. A non-contiguous or
        misaligned array is copied into a C-contiguous one; the others are
        passed as they are.
        """
        if self._plan is not None:
            named = self._ext_object.run_named(self._plan, inputs)
            if named is not None:
                return named
            # (What _as_given would accept, run_named has just run.)
            arrays = self._ordered(inputs)
        else:
            arrays = self._as_given(inputs)
            if arrays is None:
                arrays = self._ordered(inputs)
        results = self._allocate_outputs(arrays)
        self._ext_object.run(arrays, results)
        return dict(zip(self._output_names, results))

    def run_async(self, inputs: Inputs,
                  stream: Optional[Stream] = None) -> concurrent.futures.Future:
        """Queues one run on ``stream`` and returns at once a
        ``concurrent.futures.Future`` of the outputs (``{name: array}``, as
        ``run`` returns them).

        Runs queued on one stream run one after another, in order; runs on
        different streams may overlap. Without ``stream`` the run goes on
        this session's own stream (created on first use, closed with the
        session). ``inputs`` are checked now, as ``run`` checks them: a
        mistake raises ``TesselError`` here and queues nothing. An error of
        the run itself is raised by the future's ``result()`` (and returned
        by ``exception()``). The input arrays are referenced, not copied,
        until the run has happened: do not modify them before the future is
        done.
        """
        arrays = self._as_given(inputs)
        if arrays is None:
            arrays = self._ordered(inputs)
        results = self._allocate_outputs(arrays)
        if stream is None:
            stream = self._own_stream()
        return stream._submit(self._ext_object, arrays, results,
                              list(self._output_names))

    def close(self) -> None:
        """Releases the session; first waits for the runs queued on its own
        stream (``run_async`` without a stream). Runs queued on other streams
        keep what they need and still happen."""
        with self._stream_lock:
            stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()
        super().close()

    def _own_stream(self) -> Stream:
        with self._stream_lock:
            if self._stream is None:
                if self.closed:
                    raise TesselError(INVALID_ARGUMENT, "the session is closed")
                self._stream = Stream()
            return self._stream

    def _allocate_outputs(self, arrays: list[np.ndarray]) -> list[np.ndarray]:
        """Fresh outputs for a run on ``arrays``: with a dynamic batch, of
        the first input's batch when it is in the range (otherwise of the
        smallest: the runtime then refuses the inputs, saying why)."""
        batch = None
        if self._batch_range is not None:
            low, high = self._batch_range
            batch = low
            first = arrays[0] if arrays else None
            if first is not None and first.ndim >= 1 \
                    and low <= first.shape[0] <= high:
                batch = first.shape[0]
        lengths = None
        if self._padded is not None:
            (low, high), input_dims, output_dims = self._padded
            # The first input holding it, when its length is in the range
            # (otherwise the shortest: the runtime then refuses the inputs).
            length = low
            for array, dim in zip(arrays, input_dims):
                if dim >= 0:
                    if array.ndim > dim and low <= array.shape[dim] <= high:
                        length = array.shape[dim]
                    break
            lengths = [(dim, length) for dim in output_dims]
        return _empty_outputs(self._output_types, self.outputs, batch, lengths)

    def _as_given(self, inputs: Inputs) -> Optional[list[np.ndarray]]:
        """_arrays_as_given; shapes are the extension's to check, on either
        path."""
        return _arrays_as_given(self._expected, inputs)

    def _ordered(self, inputs: Inputs) -> list[np.ndarray]:
        """The input arrays in descriptor order, each checked to be an array
        of a Tessel type and made C-contiguous and aligned."""
        return _ordered(self.inputs, inputs)

    def __repr__(self) -> str:
        return f"<tessel.Session{' (closed)' if self.closed else ''}>"


def _arrays_as_given(expected, inputs: Inputs,
                     shapes=None) -> Optional[list[np.ndarray]]:
    """The fast path of ``_ordered``: the arrays in input order when
    ``inputs`` is a dict of exactly the inputs ``expected`` names (per
    input its name and NumPy dtype, None for bfloat16), each an ndarray of
    that dtype (and, with ``shapes``, of that shape), C-contiguous and
    aligned: what ``_ordered`` would pass on as it is. None otherwise, for
    the checked path to check and explain."""
    if type(inputs) is not dict or len(inputs) != len(expected):
        return None
    arrays = []
    for i, (name, dtype) in enumerate(expected):
        array = inputs.get(name)
        # (dtype None is bfloat16; np.dtype(None) would be float64.)
        if dtype is None or type(array) is not np.ndarray \
                or array.dtype != dtype \
                or (shapes is not None and array.shape != shapes[i]):
            return None
        flags = array.flags
        if not (flags.c_contiguous and flags.aligned):
            return None
        arrays.append(array)
    return arrays


def _empty_outputs(output_types, outputs: list[TensorInfo],
                   batch: Optional[int] = None,
                   lengths=None) -> list[np.ndarray]:
    """Fresh arrays for ``outputs``: from ``output_types`` (per output its
    shape and NumPy dtype, worked out once) when given, else from each
    TensorInfo, which raises for a type NumPy lacks. ``batch``, when given,
    replaces dimension 0 of every shape (a dynamic batch); ``lengths``,
    when given, holds per output (dim, length): ``length`` replaces
    dimension ``dim`` unless it is -1 (a padded dimension)."""
    def at_batch(shape, i):
        shape = tuple(shape) if batch is None else (batch, *shape[1:])
        if lengths is not None and lengths[i][0] >= 0:
            dim, length = lengths[i]
            shape = (*shape[:dim], length, *shape[dim + 1:])
        return shape
    if output_types is not None:
        return [np.empty(at_batch(shape, i), dtype)
                for i, (shape, dtype) in enumerate(output_types)]
    return [np.empty(at_batch(out.shape, i), _dtypes.numpy_dtype(
        out.dtype_name, f"output '{out.name}'"))
        for i, out in enumerate(outputs)]


def _ordered(tensors: list[TensorInfo], inputs: Inputs) -> list[np.ndarray]:
    """The arrays of ``inputs`` in the order of ``tensors`` (a model's
    inputs), each checked to be an array of a Tessel type and made
    C-contiguous and aligned. Names are checked here, the count only when
    ``inputs`` is a mapping (the runtime words the count's error)."""
    if isinstance(inputs, Mapping):
        known = [tensor.name for tensor in tensors]
        unknown = [name for name in inputs if name not in known]
        if unknown:
            raise TesselError(
                INVALID_ARGUMENT,
                f"unknown input '{unknown[0]}'; the model's inputs are "
                + ", ".join(f"'{tensor.name}' {_describe(tensor)}"
                            for tensor in tensors))
        missing = [tensor for tensor in tensors if tensor.name not in inputs]
        if missing:
            raise TesselError(
                INVALID_ARGUMENT,
                "missing input " + ", ".join(
                    f"'{tensor.name}' {_describe(tensor)}" for tensor in missing))
        items = [(f"input '{tensor.name}'", inputs[tensor.name])
                 for tensor in tensors]
    elif isinstance(inputs, Sequence) and not isinstance(inputs, (str, bytes)):
        # The runtime checks the count, with its own message.
        items = [(f"input '{tensors[i].name}'" if i < len(tensors)
                  else f"input {i}", value) for i, value in enumerate(inputs)]
    else:
        raise TesselError(
            INVALID_ARGUMENT,
            "inputs must be a mapping from input names to arrays or a list "
            f"of arrays in input order, not {type(inputs).__name__}")
    return [_as_input(what, value) for what, value in items]


def _plan_code(dtype: Optional[np.dtype]) -> int:
    """The Tessel code the fast path requires of an input of ``dtype``; -1
    (never taken) for bfloat16, which NumPy has no dtype for."""
    code = None if dtype is None else _dtypes.code_of(dtype)
    return -1 if code is None else code


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


def load(path: str | os.PathLike) -> Model:
    """Loads the artifact at ``path`` (a ``model.so`` written by
    ``tessel.compile``). Raises ``TesselError`` ("not found", "invalid
    artifact", "incompatible", ...) with the runtime's message."""
    return Model(_ext.module().Model.load(os.fspath(path)))
