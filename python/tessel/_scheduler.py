"""The batching scheduler (``tessel/scheduler.h``): single-sample requests run
in batches on the same network compiled at several batch sizes.

The C API tells a thread that a request has completed only when the thread
waits for it or asks; it has no completion callback. So the futures of
``Scheduler.submit`` are completed by daemon threads of this module, each
blocked in the extension with the GIL released:

* one per priority in use: within a priority, requests complete in the order
  they were submitted (a batch takes them in that order), so the thread waits
  for the oldest one and then completes every one of its priority that has
  completed meanwhile (a batch at a time);
* one for deadlines, started by the first request that has one: a request
  that expires in the queue completes then, possibly before older requests
  of its priority; this thread looks at each such request when its deadline
  has passed and completes it.

The threads hold the requests' arrays, not the scheduler, so a scheduler
dropped without ``close()`` still completes its futures; they end once the
scheduler is closed (or garbage-collected) and its futures are done.
"""

from __future__ import annotations

import collections
import concurrent.futures
import heapq
import itertools
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional, Union

import numpy as np

from . import _ext
from ._errors import INVALID_ARGUMENT, TesselError
from ._runtime import (Inputs, Model, TensorInfo, _arrays_as_given, _describe,
                       _empty_outputs, _ordered, load)

# How many requests of one priority a waiting thread looks at in one go.
_SWEEP = 64
# How long after a deadline the deadline thread looks again at a request
# still running (its batch had started in time), at first and at most.
_RECHECK_S = (0.0005, 0.05)

_INT32 = (-2**31, 2**31 - 1)


@dataclass(frozen=True)
class SchedulerStats:
    """What a scheduler has done since it was created
    (``tessel_scheduler_stats``)."""
    submitted: int          # requests accepted (cache hits included)
    rejected: int           # submissions refused: the queue was full
    completed: int          # requests that ran, successfully or not, and cache hits
    deadline_exceeded: int  # requests whose deadline passed in the queue
    batches: int            # batches formed
    model_runs: int         # model runs (>= batches: a batch may take several)
    padded_rows: int        # zero rows run to fill a model's batch
    cache_hits: int         # requests served from the result cache
    cache_misses: int       # submissions that looked in the cache, found nothing
    cache_evictions: int    # cache entries dropped to stay within the bound
    target_misses: int      # requests completed past target_p99_us (0 without)

    @property
    def mean_batch(self) -> float:
        """Requests per batch: ``(completed - cache_hits) / batches`` (0.0
        before the first batch). Exact when no batch is running: a batch is
        counted when it forms, its requests when they complete."""
        return (self.completed - self.cache_hits) / self.batches if self.batches else 0.0


class _Pending:
    """One submitted request whose future is not done yet."""
    __slots__ = ("request", "future", "inputs", "outputs", "names", "finished",
                 "recheck")

    def __init__(self, request, future, inputs, outputs, names) -> None:
        self.request = request
        self.future = future
        self.inputs = inputs    # referenced by the request until it completes
        self.outputs = outputs  # written by the request
        self.names = names
        self.finished = False   # the future is (being) completed
        self.recheck = 0.0      # the deadline thread's current delay


class _Level:
    """The requests of one priority, oldest first, and their thread."""
    __slots__ = ("queue", "wake", "thread")

    def __init__(self, lock: threading.Lock) -> None:
        self.queue: collections.deque[_Pending] = collections.deque()
        self.wake = threading.Condition(lock)
        self.thread: Optional[threading.Thread] = None


class _Waiters:
    """The futures of one scheduler's requests and the threads that complete
    them (see the module docstring). Holds nothing of the scheduler."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.levels: dict[int, _Level] = {}
        self.deadlines: list = []  # heap of (time.monotonic() due, sequence, _Pending)
        self.deadline_wake = threading.Condition(self.lock)
        self.deadline_thread: Optional[threading.Thread] = None
        self.sequence = itertools.count()
        self.unfinished = 0
        self.all_finished = threading.Condition(self.lock)
        self.stopping = False
        self.threads: set[threading.Thread] = set()

    def prepare(self, priority: int, deadline: bool) -> None:
        """Starts the threads a request of ``priority`` (with a deadline or
        not) needs, before it is submitted: a thread that cannot start then
        raises with nothing queued."""
        with self.lock:
            level = self.levels.get(priority)
            if level is None:
                level = self.levels[priority] = _Level(self.lock)
            if level.thread is None:
                level.thread = self._start(_serve_level, level,
                                           f"tessel-scheduler-priority-{priority}")
            if deadline and self.deadline_thread is None:
                self.deadline_thread = self._start(_serve_deadlines, None,
                                                   "tessel-scheduler-deadlines")

    def add(self, pending: _Pending, priority: int, due: Optional[float]) -> None:
        """Starts waiting for ``pending``, after ``prepare``: call in
        submission order."""
        with self.lock:
            self.unfinished += 1
            level = self.levels[priority]
            level.queue.append(pending)
            if len(level.queue) == 1:
                level.wake.notify()
            if due is not None:
                heapq.heappush(self.deadlines, (due, next(self.sequence), pending))
                if self.deadlines[0][2] is pending:
                    self.deadline_wake.notify()

    def _start(self, target, level, name) -> threading.Thread:
        thread = threading.Thread(target=target, args=(self, level), name=name,
                                  daemon=True)
        self.threads.add(thread)
        try:
            thread.start()
        except BaseException:
            self.threads.discard(thread)
            raise
        return thread

    def finish(self, pending: _Pending) -> None:
        """Completes the future of ``pending``, whose request has completed,
        unless done already."""
        with self.lock:
            if pending.finished:
                return
            pending.finished = True
        try:
            outcome = pending.request.outcome()
        except BaseException as error:  # (out of memory): this future's alone
            pending.future.set_exception(error)
        else:
            if outcome is None:
                pending.future.set_result(dict(zip(pending.names, pending.outputs)))
            else:
                pending.future.set_exception(TesselError(*outcome))
        pending.inputs = pending.outputs = None
        with self.lock:
            self.unfinished -= 1
            if self.unfinished == 0:
                self.all_finished.notify_all()
            if self.stopping:
                self.deadline_wake.notify()

    def stop(self) -> None:
        """The scheduler is closed: the threads end once their requests are
        done (every request completes when the scheduler is released)."""
        with self.lock:
            self.stopping = True
            for level in self.levels.values():
                level.wake.notify()
            self.deadline_wake.notify()

    def wait_finished(self) -> None:
        """After stop(): waits until every future is done and the threads
        have ended; not on one of those threads (from a done-callback),
        which would wait for itself."""
        if threading.current_thread() in self.threads:
            return
        with self.lock:
            while self.unfinished:
                self.all_finished.wait()
            threads = list(self.threads)
        for thread in threads:  # ending: stop() woke them
            thread.join()


def _serve_level(waiters: _Waiters, level: _Level) -> None:
    """A priority's thread: waits for its oldest request, then completes
    every one that has completed."""
    ext = _ext.module()
    try:
        while True:
            with waiters.lock:
                queue = level.queue
                while True:
                    while queue and queue[0].finished:
                        queue.popleft()
                    if queue:
                        break
                    if waiters.stopping:
                        level.thread = None  # another add() starts another
                        return
                    level.wake.wait()
                window = list(itertools.islice(queue, _SWEEP))
            for index in ext.wait_first([pending.request for pending in window]):
                waiters.finish(window[index])
            del window
    finally:
        with waiters.lock:
            waiters.threads.discard(threading.current_thread())


def _serve_deadlines(waiters: _Waiters, _level) -> None:
    """The deadline thread: completes requests that expired in the queue,
    which may complete before older requests of their priority."""
    heap = waiters.deadlines
    try:
        while True:
            with waiters.lock:
                while True:
                    if waiters.stopping:
                        heap[:] = [entry for entry in heap if not entry[2].finished]
                        heapq.heapify(heap)
                    while heap and heap[0][2].finished:
                        heapq.heappop(heap)
                    if not heap:
                        if waiters.stopping:
                            waiters.deadline_thread = None
                            return
                        waiters.deadline_wake.wait()
                        continue
                    delay = heap[0][0] - time.monotonic()
                    if delay <= 0:
                        pending = heapq.heappop(heap)[2]
                        break
                    waiters.deadline_wake.wait(delay)
            if pending.request.done():
                waiters.finish(pending)
            else:
                # Its batch had started (it runs to the end; its priority's
                # thread completes it), or the batcher is about to expire
                # it: look again soon, then less often.
                low, high = _RECHECK_S
                pending.recheck = min(max(2 * pending.recheck, low), high)
                with waiters.lock:
                    heapq.heappush(heap, (time.monotonic() + pending.recheck,
                                          next(waiters.sequence), pending))
            del pending
    finally:
        with waiters.lock:
            waiters.threads.discard(threading.current_thread())


def _int_option(name: str, value, low: int, high: int, meaning: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise TesselError(INVALID_ARGUMENT, f"{name} must be {meaning}, not {value!r}")
    return value


class Scheduler:
    """Serves single-sample requests in batches: the runtime's batching
    scheduler (``tessel/scheduler.h``; docs/runtime.md, "The batching
    scheduler") over one network compiled at several batch sizes::

        tessel.compile("net.onnx", "net_b1.so", input_shapes={"x": (1, 64)})
        tessel.compile("net.onnx", "net_b8.so", input_shapes={"x": (8, 64)})
        with tessel.Scheduler(["net_b1.so", "net_b8.so"]) as scheduler:
            future = scheduler.submit({"x": sample})  # sample: float32[1,64]
            outputs = future.result()                 # {"y": float32[1,10]}

    ``artifacts_or_models`` is a list of artifact paths or loaded
    ``tessel.Model``s (or one of either), one per batch size, in any order:
    every input and output of every model has the batch as its leading
    dimension and the models agree on everything else (names, dtypes, the
    other dimensions), else ``TesselError`` says which models and tensor
    differ. The scheduler keeps the models loaded on its own: paths are
    loaded here and closed again, models passed in may be closed.

    Or one artifact with a dynamic batch (``Model.batch_range``; compiled
    with ``dim_range``), alone: a batch of n requests is then one run of
    exactly n rows (of ``batch_range[0]`` when n is fewer), and
    ``max_batch`` defaults to the range's maximum; ``batch_sizes`` is
    ``(max,)``.

    The scheduler queues requests and forms a batch when ``max_batch``
    requests are queued or the oldest has waited ``window_us``, whichever
    comes first, taking higher ``priority`` first and, within a priority,
    the oldest first. A batch of n runs on the model of the largest batch
    size <= n, then the rest likewise (7 on batch sizes 1, 4 and 8: 4 + 1 +
    1 + 1); n below the smallest batch size runs on the smallest model with
    the unused rows zeroed. Batches run on the runtime's thread pool. The
    options (unlike ``tessel_scheduler_options``, where 0 takes the default,
    a value here means what it says):

    ``max_batch``
        the most requests one batch takes; None (default): the largest
        batch size, capped at ``queue_limit``. May exceed the largest batch
        size (the batch then takes several model runs).
    ``window_us``
        how long, in microseconds, the oldest queued request waits for a
        batch to fill before a smaller batch forms; default 2000; 0 batches
        whatever is queued at once; above 10**12 counts as 10**12.
    ``queue_limit``
        the most requests queued (submitted, not yet in a running batch);
        default 1024; a submission beyond it raises ``TesselError``
        ("resource exhausted").
    ``max_concurrent_batches``
        the most batches running at once; default 1.
    ``num_threads``
        the threads of each model run's parallel loops, as
        ``Model.session``'s; default 0: every core.
    ``result_cache_bytes``
        > 0: a per-sample result cache of that many bytes: a request whose
        inputs equal, byte for byte, those of an earlier request still cached
        completes at submission with a copy of its outputs (least recently
        used entries are evicted). Default 0: no cache; none either when a
        model is ``descriptor.nondeterministic``.
    ``target_p99_us``
        > 0: a latency target for the 99th percentile of a request's time
        from submission to completion; the scheduler then sets the window
        itself (``window_us`` only until it has timed a run) from its
        measurements of each batch size's run time and of the arrival
        rate: a batch forms when ``max_batch`` requests are queued, when a
        full batch started any later would finish past 90% of the target
        after the oldest request's submission, at once when the next
        request is not expected before then, or when arrivals have paused
        (none for twice the median gap between recent ones). Negative ``priority``
        requests have twice the target. ``stats()["target_misses"]``
        counts the requests that completed past it. Default 0: none.

    A context manager: leaving the block closes it (``close()``).
    """

    def __init__(self, artifacts_or_models: Union[Sequence, str, os.PathLike, Model],
                 *, max_batch: Optional[int] = None, window_us: int = 2000,
                 queue_limit: int = 1024, max_concurrent_batches: int = 1,
                 num_threads: int = 0, result_cache_bytes: int = 0,
                 target_p99_us: int = 0) -> None:
        self._ext_object = None
        self._waiters = _Waiters()
        self._submit_lock = threading.Lock()
        self._closing = False
        if max_batch is not None:
            _int_option("max_batch", max_batch, 1, _INT32[1], "None or an int >= 1")
        _int_option("window_us", window_us, 0, 2**63 - 1, "an int >= 0")
        _int_option("queue_limit", queue_limit, 1, _INT32[1], "an int >= 1")
        _int_option("max_concurrent_batches", max_concurrent_batches, 1, _INT32[1],
                    "an int >= 1")
        _int_option("num_threads", num_threads, 0, _INT32[1],
                    "an int >= 0 (0: every core)")
        _int_option("result_cache_bytes", result_cache_bytes, 0, 2**64 - 1,
                    "an int >= 0 (0: no cache)")
        _int_option("target_p99_us", target_p99_us, 0, 2**63 - 1,
                    "an int >= 0 (0: no target)")
        if isinstance(artifacts_or_models, (str, bytes, os.PathLike, Model)):
            artifacts_or_models = [artifacts_or_models]
        if not isinstance(artifacts_or_models, Sequence) or not artifacts_or_models:
            raise TesselError(
                INVALID_ARGUMENT,
                "a Scheduler needs a list of artifact paths or Models, one per "
                f"batch size, not {artifacts_or_models!r}")
        models, loaded = [], []
        try:
            for item in artifacts_or_models:
                if isinstance(item, Model):
                    models.append(item)
                elif isinstance(item, (str, bytes, os.PathLike)):
                    loaded.append(load(os.fsdecode(item)))
                    models.append(loaded[-1])
                else:
                    raise TesselError(
                        INVALID_ARGUMENT,
                        "a Scheduler takes artifact paths or tessel.Models, not "
                        f"{type(item).__name__}")
            self._ext_object = _ext.module().Scheduler.create(
                [model._ext_object for model in models],
                max_batch or 0,
                window_us if window_us > 0 else -1,  # C: 0 is the default, < 0 is 0
                queue_limit, max_concurrent_batches, num_threads, result_cache_bytes,
                target_p99_us)
        finally:
            for model in loaded:
                model.close()
        first = models[0]
        self.batch_sizes: tuple[int, ...] = tuple(self._ext_object.batch_sizes())
        # One sample's tensors: the models' with a leading dimension of 1.
        self.inputs: list[TensorInfo] = [
            TensorInfo(t.name, t.dtype_name, (1, *t.shape[1:])) for t in first.inputs]
        self.outputs: list[TensorInfo] = [
            TensorInfo(t.name, t.dtype_name, (1, *t.shape[1:])) for t in first.outputs]
        self._output_names = [tensor.name for tensor in self.outputs]
        # What _prepare's fast path checks and makes (None with a bfloat16
        # tensor, which NumPy has no dtype for: the checked path explains).
        no_bfloat16 = all(t.dtype_name != "bfloat16" for t in self.inputs + self.outputs)
        self._expected = tuple(
            (t.name, np.dtype(t.dtype_name) if no_bfloat16 else None)
            for t in self.inputs)
        self._input_shapes = tuple(t.shape for t in self.inputs)
        self._output_types = tuple(
            (t.shape, np.dtype(t.dtype_name)) for t in self.outputs) \
            if no_bfloat16 else None

    def submit(self, inputs: Inputs, *, priority: int = 0,
               deadline_us: Optional[int] = None) -> concurrent.futures.Future:
        """Queues one request and returns at once a
        ``concurrent.futures.Future`` of its outputs (``{name: array}``).

        ``inputs`` is one sample: ``{name: array}``, or a list of arrays in
        input order, each with the input's dtype and the models' shape with
        a leading dimension of 1 (``scheduler.inputs``: ``float32[1,64]`` for
        models of ``float32[B,64]``), the C API's contract; nothing is
        converted, and a batch dimension other than 1, or none, is refused.
        The outputs have a leading dimension of 1 too. Mistakes (a wrong
        shape, dtype, name or count), a full queue (``"resource
        exhausted"``) and a closed scheduler raise ``TesselError`` here, and
        nothing is queued.

        ``priority``: higher runs first (an int32; default 0).
        ``deadline_us``: None (default) or microseconds from now by which the
        request's batch must have formed; a request still queued then
        completes with ``TesselError`` ("deadline exceeded"), its batch never
        run; one whose batch has started runs to the end. A failed run fails
        the future of every request in it with the run's error.

        The future cannot be cancelled. The input arrays are referenced, not
        copied, until the request has completed: do not modify them before
        the future is done. Done-callbacks run on the scheduler's waiting
        threads (or at once, on this thread, for a result cache hit)."""
        arrays, outputs, native_deadline = self._prepare(inputs, priority, deadline_us)
        future: concurrent.futures.Future = concurrent.futures.Future()
        future.set_running_or_notify_cancel()  # a queued request cannot be cancelled
        with self._submit_lock:
            if not self._closing:
                self._waiters.prepare(priority, deadline_us is not None)
            request = self._submit_now(arrays, outputs, priority, native_deadline)
            pending = _Pending(request, future, arrays, outputs, self._output_names)
            if request.done():  # a result cache hit
                hit = True
            else:
                hit = False
                due = None if deadline_us is None else \
                    time.monotonic() + deadline_us / 1e6
                self._waiters.add(pending, priority, due)
        if hit:
            with self._waiters.lock:
                self._waiters.unfinished += 1
            self._waiters.finish(pending)
        return future

    def run(self, inputs: Inputs, *, priority: int = 0,
            deadline_us: Optional[int] = None) -> dict[str, np.ndarray]:
        """``submit(...).result()``, waiting on this thread (GIL released)
        without a future: the outputs of one sample, or the request's
        ``TesselError``."""
        arrays, outputs, native_deadline = self._prepare(inputs, priority, deadline_us)
        with self._submit_lock:
            request = self._submit_now(arrays, outputs, priority, native_deadline)
        request.wait()
        return dict(zip(self._output_names, outputs))

    def stats(self) -> SchedulerStats:
        """The scheduler's counts so far (``SchedulerStats``)."""
        return SchedulerStats(**self._ext_object.stats())

    def close(self) -> None:
        """Stops taking requests, runs every queued request at once (without
        waiting for the window) and waits until they have completed and
        their futures are done, then releases the scheduler. Later calls are
        no-ops. From a done-callback it does not wait for the futures (the
        thread running the callback completes them)."""
        if self._ext_object is None:  # the constructor failed
            return
        with self._submit_lock:
            self._closing = True
        self._ext_object.close()  # GIL released: waits for queued requests
        self._waiters.stop()
        self._waiters.wait_finished()

    @property
    def closed(self) -> bool:
        return self._ext_object is None or self._ext_object.closed

    def __enter__(self) -> Scheduler:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __del__(self) -> None:
        # The waiting threads end once the requests are done: the extension
        # object releases the scheduler (which runs them) right after.
        try:
            self._waiters.stop()
        except Exception:  # interpreter shutdown, or a failed constructor
            pass

    def __repr__(self) -> str:
        sizes = ", ".join(str(size) for size in getattr(self, "batch_sizes", ()))
        return f"<tessel.Scheduler batch sizes [{sizes}]{' (closed)' if self.closed else ''}>"

    def _prepare(self, inputs: Inputs, priority, deadline_us):
        """The checked input arrays, the output arrays, and the C deadline."""
        if type(priority) is not int or not _INT32[0] <= priority <= _INT32[1]:
            _int_option("priority", priority, *_INT32, "an int32")
        if deadline_us is None:
            native_deadline = 0
        else:
            native_deadline = _int_option(
                "deadline_us", deadline_us, 1, 2**63 - 1,
                "None (no deadline) or an int > 0 (microseconds)")
        # The fast path (a few microseconds less per request), else the
        # checked one, which explains what is wrong.
        arrays = _arrays_as_given(self._expected, inputs, self._input_shapes)
        if arrays is None:
            arrays = self._checked(inputs)
        return arrays, _empty_outputs(self._output_types, self.outputs), native_deadline

    def _checked(self, inputs: Inputs) -> list[np.ndarray]:
        """The input arrays in input order, checked as Session.run checks
        them, with its messages; C-contiguous and aligned (copies if not)."""
        arrays = _ordered(self.inputs, inputs)
        if len(arrays) != len(self.inputs):
            expected = len(self.inputs)
            raise TesselError(
                INVALID_ARGUMENT,
                f"expected {expected} input{'' if expected == 1 else 's'}, got {len(arrays)}")
        for tensor, array in zip(self.inputs, arrays):
            if array.dtype.name != tensor.dtype_name or array.shape != tensor.shape:
                # Session.run's message (the runtime's), and a hint for the
                # most likely mistakes: a batch, or no batch dimension.
                got = f"{array.dtype.name}[{','.join(str(d) for d in array.shape)}]"
                hint = ""
                if array.shape != tensor.shape and (
                        array.shape[1:] == tensor.shape[1:] and array.ndim == len(tensor.shape)
                        or array.shape == tensor.shape[1:]):
                    hint = " (a request is one sample: leading dimension 1)"
                raise TesselError(
                    INVALID_ARGUMENT,
                    f"input '{tensor.name}': expected {_describe(tensor)}, got {got}{hint}")
        return arrays

    def _submit_now(self, arrays, outputs, priority, native_deadline):
        """The extension's submit; call holding ``_submit_lock``."""
        if self._closing:
            raise TesselError(INVALID_ARGUMENT, "the scheduler is closed")
        return self._ext_object.submit(arrays, outputs, priority, native_deadline)
