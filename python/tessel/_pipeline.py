"""A pipelined request path: preprocess request n+1 while request n runs.

A ``Pipeline`` has one worker thread, which calls ``preprocess`` on each
request in turn and queues the model run on one of the pipeline's streams
(``Session.run_async``; request n on stream n % streams), and the caller's
thread, which ``map`` blocks (GIL released) until the outputs of the oldest
request are ready. The worker goes on to the next request as soon as it has
queued a run, so preprocessing (JPEG decoding with Pillow, NumPy arithmetic:
both release the GIL) overlaps the model, which runs on the runtime's thread
pool; with two streams or more, runs of consecutive requests overlap too. At
most ``depth`` requests are taken from ``requests`` and not yet yielded.
"""

from __future__ import annotations

import collections
import concurrent.futures
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from ._errors import INVALID_ARGUMENT, TesselError
from ._streams import Stream


class PipelineError(Exception):
    """A request of ``Pipeline.map`` failed. ``index`` is its position in
    ``requests`` (from 0), ``stage`` is ``"preprocess"`` (the callable
    raised) or ``"run"`` (``run_async`` refused its inputs, or the run
    failed); ``__cause__`` is the original exception."""

    def __init__(self, index: int, stage: str, error: BaseException) -> None:
        super().__init__(index, stage, error)
        self.index = index
        self.stage = stage

    def __str__(self) -> str:
        error = self.args[2]
        return f"request {self.index}: {self.stage} failed: " \
               f"{type(error).__name__}: {error}"


class Pipeline:
    """Runs ``session`` on ``preprocess(request)`` for each request of
    ``map(requests)``, preprocessing the next request while the model runs
    the current one.

    ``preprocess`` takes one request and returns the model's inputs, as
    ``Session.run`` takes them (``{name: array}`` or a list); it runs on the
    pipeline's worker thread, one request at a time, in order. ``depth``
    (>= 1) bounds the requests in flight: 2 overlaps the preprocessing of
    request n+1 with the run of request n; 1 runs them one after another.
    ``streams`` (>= 1) is how many runs may happen at once: request n runs
    on stream n % streams, so with 2 streams (and depth 3) the runs of
    requests n and n+1 overlap as well, each with the session's kernel
    threads (``num_threads=1`` sessions then keep two cores busy).

    ``close()`` (or leaving a ``with`` block) stops the worker, drops the
    requests not yet preprocessed, and waits for the runs already queued.
    The session is the caller's, and stays open."""

    def __init__(self, session, preprocess: Callable[[Any], Any],
                 depth: int = 2, streams: int = 1) -> None:
        if not callable(preprocess):
            raise TesselError(INVALID_ARGUMENT, "preprocess must be callable, "
                              f"not {type(preprocess).__name__}")
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise TesselError(INVALID_ARGUMENT,
                              f"depth must be an int >= 1, not {depth!r}")
        if isinstance(streams, bool) or not isinstance(streams, int) or streams < 1:
            raise TesselError(INVALID_ARGUMENT,
                              f"streams must be an int >= 1, not {streams!r}")
        self.session = session
        self.preprocess = preprocess
        self.depth = depth
        self._streams = [Stream() for _ in range(streams)]
        self._worker = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="tessel-pipeline")
        self._closed = False

    def map(self, requests: Iterable[Any]) -> Iterator[dict[str, np.ndarray]]:
        """Yields the outputs (``{name: array}``) of each request, in the
        order of ``requests``, which is read lazily (at most ``depth`` ahead
        of what has been yielded). A failed request raises ``PipelineError``
        naming it, after the outputs of the requests before it; the requests
        after it are dropped (runs already queued still happen)."""
        if self._closed:
            raise TesselError(INVALID_ARGUMENT, "the pipeline is closed")
        return self._outputs(iter(requests))

    def _outputs(self, requests: Iterator[Any]) -> Iterator[dict[str, np.ndarray]]:
        # (index, future of the run's future), oldest first.
        window: collections.deque = collections.deque()
        index = 0
        try:
            while True:
                while len(window) < self.depth:
                    request = next(requests, _END)
                    if request is _END:
                        break
                    try:
                        prepared = self._worker.submit(self._prepare, index, request)
                    except RuntimeError:  # shut down: closed
                        raise TesselError(INVALID_ARGUMENT,
                                          "the pipeline is closed") from None
                    window.append((index, prepared))
                    index += 1
                if not window:
                    return
                oldest, prepared = window.popleft()
                yield self._result(oldest, prepared)
        finally:
            for _, prepared in window:
                prepared.cancel()  # not yet started; a started one queues its run

    def _prepare(self, index: int, request: Any) -> concurrent.futures.Future:
        """On the worker: preprocesses one request and queues its run."""
        try:
            inputs = self.preprocess(request)
        except Exception as error:
            raise PipelineError(index, "preprocess", error) from error
        try:
            return self.session.run_async(
                inputs, self._streams[index % len(self._streams)])
        except Exception as error:
            raise PipelineError(index, "run", error) from error

    def _result(self, index: int,
                prepared: concurrent.futures.Future) -> dict[str, np.ndarray]:
        try:
            run = prepared.result()  # raises the worker's PipelineError
        except concurrent.futures.CancelledError:
            raise TesselError(INVALID_ARGUMENT, f"the pipeline was closed "
                              f"before request {index} was preprocessed") from None
        try:
            return run.result()
        except Exception as error:
            raise PipelineError(index, "run", error) from error

    def close(self) -> None:
        """Stops the worker (after the request it is preprocessing, if any),
        drops the requests waiting for it, and waits for the queued runs.
        Later calls are no-ops."""
        if self._closed:
            return
        self._closed = True
        self._worker.shutdown(wait=True, cancel_futures=True)
        for stream in self._streams:
            stream.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<tessel.Pipeline depth={self.depth} streams={len(self._streams)}" \
               f"{' (closed)' if self._closed else ''}>"


_END = object()
