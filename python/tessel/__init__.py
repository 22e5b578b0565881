"""Tessel: compile ONNX models ahead of time and run the artifacts.

    import numpy as np
    import tessel

    tessel.compile("model.onnx", "model.so")
    with tessel.load("model.so") as model, model.session() as session:
        image = np.zeros((1, 1, 28, 28), np.float32)
        outputs = session.run({"image": image})
        future = session.run_async({"image": image})  # concurrent.futures.Future
        outputs = future.result()
        with tessel.Stream() as stream:  # an in-order queue of runs
            futures = [session.run_async([image], stream) for _ in range(4)]
        # Preprocess request n+1 on a worker thread while request n runs.
        with tessel.Pipeline(session, lambda path: {"image": decode(path)}) as pipeline:
            for outputs in pipeline.map(paths):  # in order
                ...
    # Single samples in batches, over the network compiled at batch 1 and 8.
    with tessel.Scheduler(["model_b1.so", "model_b8.so"]) as scheduler:
        future = scheduler.submit({"image": image})  # one sample: leading dim 1
        outputs = future.result()

Errors raise ``tessel.TesselError`` (``code_name``, ``message``).
"""

from ._compile import compile_model as compile  # noqa: A001 (tessel.compile)
from ._errors import TesselError
from ._pipeline import Pipeline, PipelineError
from ._runtime import Descriptor, Model, Session, TensorInfo, load
from ._scheduler import Scheduler, SchedulerStats
from ._streams import Event, Stream

__version__ = "0.1.0"

__all__ = ["Descriptor", "Event", "Model", "Pipeline", "PipelineError", "Scheduler",
           "SchedulerStats", "Session", "Stream", "TensorInfo", "TesselError", "compile",
           "load", "runtime_version"]


def runtime_version() -> str:
    """The version of the loaded ``libtessel_runtime.so`` (e.g. "0.1.0")."""
    from . import _ext

    return _ext.module().runtime_version()
