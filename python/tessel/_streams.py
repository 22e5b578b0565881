"""Streams, events and the futures of asynchronous runs.

A ``Stream`` is the runtime's in-order queue (``tessel_stream``): what is
queued on one stream happens in order, streams run at the same time on the
runtime's thread pool. ``Session.run_async`` queues a run on a stream and
returns a ``concurrent.futures.Future``; each stream has one daemon thread
that completes its futures in order, blocked (with the GIL released) until
the run behind the next one has happened.
"""

from __future__ import annotations

import concurrent.futures
import queue
import threading
from typing import Optional

from . import _ext


def _complete(pending_runs: queue.SimpleQueue) -> None:
    """The waiter of one stream: completes its futures in submission order.
    Holds the run's arrays until the run has happened. Ends at a None."""
    while True:
        item = pending_runs.get()
        if item is None:
            return
        pending, future, _inputs, outputs, names = item
        del item
        try:
            pending.wait()  # GIL released while blocked
        except BaseException as error:  # TesselError: the run's own error
            if future is not None:
                future.set_exception(error)
        else:
            if future is not None:
                future.set_result(dict(zip(names, outputs)))
        del pending, future, _inputs, outputs


class Stream:
    """An in-order queue of runs and events, served by the runtime's thread
    pool. Runs queued on one stream happen one after another in the order
    they were queued; runs on different streams may overlap.

    ``close()`` (or leaving a ``with`` block) waits for everything queued,
    then releases the stream; a stream dropped without closing is released
    when garbage-collected, after its queued work."""

    def __init__(self) -> None:
        self._ext_object = _ext.module().Stream()
        self._lock = threading.Lock()
        self._pending_runs: queue.SimpleQueue = queue.SimpleQueue()
        self._waiter: Optional[threading.Thread] = None
        self._last: Optional[concurrent.futures.Future] = None

    def synchronize(self) -> None:
        """Blocks (GIL released) until everything queued on this stream has
        happened and the futures of its runs are done. The errors of runs
        are reported by their futures, not here."""
        self._ext_object.synchronize()
        with self._lock:
            last = self._last
        if last is not None:
            concurrent.futures.wait([last])

    def wait_event(self, event: Event) -> None:
        """Makes the work queued on this stream from now on wait until
        ``event`` (as last recorded) has completed. Returns at once."""
        self._ext_object.wait_event(event._ext_object)

    def record_event(self) -> Event:
        """A new event recorded on this stream now."""
        event = Event()
        event.record(self)
        return event

    def close(self) -> None:
        """Waits for everything queued, completes the futures, and releases
        the stream. Later calls are no-ops."""
        self._ext_object.close()
        with self._lock:
            waiter, self._waiter = self._waiter, None
        if waiter is not None:
            self._pending_runs.put(None)
            if waiter is not threading.current_thread():  # not from a done-callback
                waiter.join()

    @property
    def closed(self) -> bool:
        return self._ext_object.closed

    def _submit(self, session, inputs, outputs, names) -> concurrent.futures.Future:
        """Queues one run of the extension session ``session`` (see
        Session.run_async). Raises the runtime's error for bad arguments."""
        with self._lock:
            pending = session.run_async(self._ext_object, inputs, outputs)
            future: concurrent.futures.Future = concurrent.futures.Future()
            future.set_running_or_notify_cancel()  # a queued run cannot be cancelled
            if self._waiter is None:
                self._waiter = threading.Thread(
                    target=_complete, args=(self._pending_runs,),
                    name="tessel-stream-waiter", daemon=True)
                self._waiter.start()
            self._pending_runs.put((pending, future, inputs, outputs, names))
            self._last = future
        return future

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __del__(self) -> None:
        # The waiter holds the queue, not the stream: let it end after the
        # runs already queued.
        try:
            if self._waiter is not None:
                self._pending_runs.put(None)
        except Exception:  # interpreter shutdown
            pass

    def __repr__(self) -> str:
        return f"<tessel.Stream{' (closed)' if self.closed else ''}>"


class Event:
    """A marker in a stream's queue, as in CUDA: ``record(stream)`` captures
    the work queued on the stream so far, and the event completes when that
    work has happened. An event never recorded counts as complete. Events
    carry no errors: a run's error is reported by its future."""

    def __init__(self) -> None:
        self._ext_object = _ext.module().Event()

    def record(self, stream: Stream) -> None:
        """From now on the event stands for the work queued on ``stream`` so
        far (recording again moves it)."""
        self._ext_object.record(stream._ext_object)

    def query(self) -> bool:
        """True when the event has completed (or was never recorded); never
        blocks."""
        return self._ext_object.query()

    def synchronize(self) -> None:
        """Blocks (GIL released) until the event has completed. The runs it
        covers have then happened; their futures complete right after."""
        self._ext_object.synchronize()

    def close(self) -> None:
        """Releases the event; streams waiting on it are not affected."""
        self._ext_object.close()

    @property
    def closed(self) -> bool:
        return self._ext_object.closed

    def __enter__(self) -> Event:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<tessel.Event{' (closed)' if self.closed else ''}>"
