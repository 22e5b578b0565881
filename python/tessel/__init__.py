"""Tessel: compile ONNX models ahead of time and run the artifacts.

    import numpy as np
    import tessel

    tessel.compile("model.onnx", "model.so")
    with tessel.load("model.so") as model, model.session() as session:
        outputs = session.run({"image": np.zeros((1, 1, 28, 28), np.float32)})

Errors raise ``tessel.TesselError`` (``code_name``, ``message``).
"""

from ._compile import compile_model as compile  # noqa: A001 (tessel.compile)
from ._errors import TesselError
from ._runtime import Descriptor, Model, Session, TensorInfo, load

__version__ = "0.1.0"

__all__ = ["Descriptor", "Model", "Session", "TensorInfo", "TesselError",
           "compile", "load", "runtime_version"]


def runtime_version() -> str:
    """The version of the loaded ``libtessel_runtime.so`` (e.g. "0.1.0")."""
    from . import _capi

    return _capi.text(_capi.lib().tessel_runtime_version()) or ""
