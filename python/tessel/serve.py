"""Serving a compiled artifact on Ray Serve (``pip install "ray[serve]"``).

    from ray import serve
    import tessel.serve

    serve.start(proxy_location="Disabled")  # handles only, no HTTP proxy
    handle = serve.run(tessel.serve.application("/models/mlp.so", num_threads=2),
                       name="mlp", route_prefix=None)
    outputs = handle.remote({"x": x}).result()  # {"logits": array}
    outputs = handle.remote(x).result()  # a one-input model's array alone

    # The same network at batch 1 and 8: one sample per request, batched by
    # the runtime's scheduler in each replica.
    handle = serve.run(tessel.serve.application(["/models/net_b1.so", "/models/net_b8.so"]),
                       name="net", route_prefix=None)
    outputs = handle.remote(sample).result()  # sample: the shapes with batch 1

docs/serving.md has the details: one machine, a cluster, numbers.

Each replica loads the artifact once, in its constructor, and makes one
session and ``num_threads`` streams (or, given several artifacts, one
scheduler). A request is what ``Session.run`` takes (``{name: array}`` or a
list in input order), or a single array for a model with one input; its
outputs come back as ``{name: array}``. A request the session (or the
scheduler) refuses (an unknown or missing input, a wrong shape or dtype)
raises that ``TesselError`` at the caller, naming the input and what was
expected; the other requests of its batch are not affected.

Batching path, one artifact. Serve's ``@serve.batch`` collects up to
``max_batch_size`` requests (waiting at most ``batch_wait_timeout_s`` for
more), and the replica queues each request of the batch with
``Session.run_async`` on its streams, round-robin, so that runs overlap on
the runtime's thread pool while the replica's event loop stays free. A
request has the artifact's own input shapes, leading dimension included.

Batching path, several artifacts: the same network compiled at several batch
sizes (``application(["net_b1.so", "net_b8.so"])``). Each replica makes a
``tessel.Scheduler`` over them, and each request is one sample (the
artifacts' shapes with a leading dimension of 1) submitted to it on its own:
the scheduler stacks the samples queued within ``batch_wait_timeout_s`` (its
window), up to ``max_batch_size``, into one run of the largest artifact that
fits, and scatters the outputs back. There is no ``@serve.batch`` on this
path: the scheduler batches already, and a second batching layer in front of
it served fewer requests (docs/serving.md, "Which batching path").

Thread budget. A replica reserves ``num_threads`` CPUs from Ray
(``ray_actor_options["num_cpus"]``), so that Ray places no more replicas on a
node than it has cores, and its process runs the runtime's pool with that
many threads (``TESSEL_NUM_THREADS``, set through the replica's
``runtime_env``) and a session (or a scheduler) of that budget: however many
streams or batches run at once, a replica keeps at most ``num_threads``
cores busy.

The artifact paths are read by every replica, on whichever node Ray places it:
on a cluster each must name the same file on every node (a shared file
system, or the file copied to the same path). An artifact is native code: serve only
artifacts you trust (docs/security.md).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Sequence
from typing import Any, Optional, Union

import numpy as np
from ray import serve

from . import _ext
from ._errors import INVALID_ARGUMENT, TesselError
from ._runtime import load
from ._scheduler import Scheduler
from ._streams import Stream

Artifacts = Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]]


class Replica:
    """One replica of an artifact's deployment (see the module docstring);
    ``application`` makes the deployment."""

    def __init__(self, artifact: Artifacts, num_threads: int, max_batch_size: int,
                 batch_wait_timeout_s: float) -> None:
        self._scheduler: Optional[Scheduler] = None
        self._session = None
        self._streams: list[Stream] = []
        self._budget = num_threads
        artifacts = _artifact_list(artifact)
        if len(artifacts) > 1:
            # One sample per request, batched by the runtime's scheduler.
            self._scheduler = Scheduler(
                artifacts, max_batch=max_batch_size,
                window_us=round(batch_wait_timeout_s * 1e6), num_threads=num_threads)
            self._inputs = self._scheduler.inputs
            self._outputs = self._scheduler.outputs
            return
        with load(artifacts[0]) as model:
            self._inputs = model.inputs
            self._outputs = model.outputs
            self._session = model.session(num_threads=num_threads)
        self._streams = [Stream() for _ in range(num_threads)]
        # The decorator's values are per class; these are this deployment's.
        self._run_batch.set_max_batch_size(max_batch_size)
        self._run_batch.set_batch_wait_timeout_s(batch_wait_timeout_s)

    async def __call__(self, inputs) -> dict[str, np.ndarray]:
        """The outputs of one request; raises the session's TesselError for
        inputs it refuses."""
        if isinstance(inputs, np.ndarray):
            if len(self._inputs) != 1:
                raise TesselError(
                    INVALID_ARGUMENT,
                    f"the model has {len(self._inputs)} inputs ("
                    + ", ".join(f"'{tensor.name}'" for tensor in self._inputs)
                    + "): send a dict of arrays by name, not one array")
            inputs = {self._inputs[0].name: inputs}
        if self._scheduler is not None:
            # submit() raises refused inputs here, at this caller alone.
            return await asyncio.wrap_future(self._scheduler.submit(inputs))
        result = await self._run_batch(inputs)
        if isinstance(result, BaseException):
            raise result
        return result

    def describe(self) -> dict[str, Any]:
        """The model's ``inputs`` and ``outputs`` (TensorInfo lists; with
        several artifacts, one sample's: leading dimension 1), the artifacts'
        ``batch_sizes`` (None for one artifact), and the replica's thread
        budget: ``num_threads`` (the session's or the scheduler's) and
        ``runtime_threads`` (its process's pool)."""
        return {"inputs": self._inputs, "outputs": self._outputs,
                "batch_sizes": None if self._scheduler is None
                else list(self._scheduler.batch_sizes),
                "num_threads": self._num_threads(),
                "runtime_threads": _ext.module().runtime_num_threads()}

    def stats(self) -> Optional[dict[str, Any]]:
        """This replica's scheduler's counts (``tessel.SchedulerStats`` as a
        dict, with ``mean_batch``); None with one artifact."""
        if self._scheduler is None:
            return None
        stats = self._scheduler.stats()
        return {**dataclasses.asdict(stats), "mean_batch": stats.mean_batch}

    def _num_threads(self) -> int:
        if self._session is not None:
            return self._session.num_threads
        return self._budget  # the scheduler's sessions were given this

    # Serve's batching; application() sets this deployment's batch size and
    # wait in the constructor.
    @serve.batch
    async def _run_batch(self, requests: list) -> list:
        """Queues each request on the streams, round-robin, and returns each
        one's outputs, or its exception (refused inputs, a failed run) for
        __call__ to raise at that caller alone."""
        loop = asyncio.get_running_loop()
        runs = []
        for index, inputs in enumerate(requests):
            try:
                run = asyncio.wrap_future(self._session.run_async(
                    inputs, self._streams[index % len(self._streams)]), loop=loop)
            except Exception as error:  # refused at once: nothing was queued
                run = loop.create_future()
                run.set_exception(error)
            runs.append(run)
        return await asyncio.gather(*runs, return_exceptions=True)

    def __del__(self) -> None:
        # Serve calls this when it stops the replica: wait for queued runs.
        # (A constructor that failed may have made none of them.)
        for stream in getattr(self, "_streams", ()):
            stream.close()
        if getattr(self, "_session", None) is not None:
            self._session.close()
        if getattr(self, "_scheduler", None) is not None:
            self._scheduler.close()


def _artifact_list(artifact: Artifacts) -> list[str]:
    """``artifact`` as a non-empty list of paths."""
    if isinstance(artifact, (str, bytes, os.PathLike)):
        return [os.fsdecode(artifact)]
    if isinstance(artifact, Sequence) and artifact and all(
            isinstance(item, (str, bytes, os.PathLike)) for item in artifact):
        return [os.fsdecode(item) for item in artifact]
    raise TesselError(INVALID_ARGUMENT,
                      "artifact must be a path, or a non-empty list of paths (the "
                      f"same network at several batch sizes), not {artifact!r}")


def application(artifact: Artifacts, *, name: Optional[str] = None,
                num_threads: int = 1, max_batch_size: int = 8,
                batch_wait_timeout_s: float = 0.002, min_replicas: int = 1,
                max_replicas: int = 4,
                target_ongoing_requests: Optional[float] = None,
                max_ongoing_requests: Optional[int] = None) -> serve.Application:
    """A Ray Serve application serving ``artifact``: pass it to
    ``serve.run``.

    ``artifact`` is an artifact's path, or a list of the paths of one network
    compiled at several batch sizes, which each replica serves one sample
    per request through a ``tessel.Scheduler`` (see the module docstring).
    ``name`` is the deployment's (default: the (first) artifact's file name
    without its suffix). Each replica gets ``num_threads`` CPUs and runtime
    threads. ``max_batch_size`` and ``batch_wait_timeout_s`` are
    ``@serve.batch``'s for one artifact, the scheduler's ``max_batch`` and
    ``window_us`` for several (the default wait, 2 ms, is the scheduler's
    default window). Replicas scale between ``min_replicas`` and
    ``max_replicas`` to keep about ``target_ongoing_requests`` (default:
    ``max_batch_size``, one full batch) requests on each; a replica takes at
    most ``max_ongoing_requests`` at once (default: twice ``max_batch_size``,
    a batch running and the next one filling), Serve queues the rest.
    """
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) \
            or num_threads < 1:
        raise TesselError(INVALID_ARGUMENT,
                          f"num_threads must be an int >= 1, not {num_threads!r}")
    paths = [os.path.abspath(path) for path in _artifact_list(artifact)]
    deployment = serve.deployment(
        Replica,
        name=name or os.path.splitext(os.path.basename(paths[0]))[0],
        ray_actor_options={
            "num_cpus": num_threads,
            # Read once, when the process's runtime starts its pool.
            "runtime_env": {"env_vars": {"TESSEL_NUM_THREADS": str(num_threads)}},
        },
        max_ongoing_requests=max_ongoing_requests or 2 * max_batch_size,
        autoscaling_config={
            "min_replicas": min_replicas,
            "max_replicas": max_replicas,
            "target_ongoing_requests": target_ongoing_requests or max_batch_size,
        })
    return deployment.bind(paths[0] if len(paths) == 1 else paths, num_threads,
                           max_batch_size, batch_wait_timeout_s)
