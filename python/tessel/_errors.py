"""The one exception type of the package."""

from __future__ import annotations


class TesselError(Exception):
    """A Tessel operation failed.

    ``code_name`` names what went wrong. For runtime errors it is the C API's
    name for the status code (``tessel_status_code_name``): ``"invalid
    argument"``, ``"not found"``, ``"I/O error"``, ``"invalid artifact"``,
    ``"incompatible"``, ``"runtime error"``, ``"out of memory"``,
    ``"deadline exceeded"`` or ``"resource exhausted"``.
    :func:`tessel.compile` adds ``"compile error"`` (the model cannot be
    compiled; ``message`` is the compiler's stderr). ``message`` says what is
    wrong, as the runtime or the compiler worded it.
    """

    def __init__(self, code_name: str, message: str) -> None:
        super().__init__(code_name, message)
        self.code_name = code_name
        self.message = message

    def __str__(self) -> str:
        return f"{self.code_name}: {self.message}"


# The C API's names (tessel_status_code_name) of the codes this package also
# raises on its own, so that its errors read like the runtime's.
INVALID_ARGUMENT = "invalid argument"
NOT_FOUND = "not found"
IO_ERROR = "I/O error"
COMPILE_ERROR = "compile error"
