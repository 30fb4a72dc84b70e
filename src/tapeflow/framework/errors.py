"""TensorFlow's error classes (`tf.errors`), with the same names and hierarchy."""

from __future__ import annotations


# The canonical status codes (TensorFlow's error_codes.proto), `tf.errors.OK` and so on.
OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """The base class of errors raised while running an operation."""

    def __init__(self, node_def=None, op=None, message: str = "", error_code: int | None = None,
                 *args) -> None:
        # TensorFlow's signature is (node_def, op, message, error_code[, payloads]); also
        # accept a lone message, as tapeflow's kernels raise them.
        if message == "" and isinstance(node_def, str) and op is None:
            node_def, message = None, node_def
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message
        self._error_code = UNKNOWN if error_code is None else error_code
        self._payloads = dict(args[0]) if args else {}

    @property
    def error_code(self) -> int:
        """The integer error code that describes the error."""
        return self._error_code

    @property
    def experimental_payloads(self) -> dict:
        """A dictionary describing details about the error (TF's Abseil-style payloads)."""
        return self._payloads

    def __reduce__(self):
        return OpError, (self.node_def, self.op, self.message, self._error_code, self._payloads)

    def __str__(self) -> str:
        return self.message


def _make(name: str, code: int, doc: str) -> type:
    def __init__(self, node_def=None, op=None, message: str = "", *args) -> None:
        OpError.__init__(self, node_def, op, message, code, *args)

    def __reduce__(self):
        return type(self), (self.node_def, self.op, self.message, self._payloads)

    return type(name, (OpError,), {"__doc__": doc, "__module__": __name__,
                                   "__init__": __init__, "__reduce__": __reduce__})


CancelledError = _make("CancelledError", CANCELLED, "An operation was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "An unknown error occurred.")
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT,
                             "An operation received an invalid argument.")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED,
                              "A deadline expired before the operation finished.")
NotFoundError = _make("NotFoundError", NOT_FOUND,
                      "A requested entity (a file, say) was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS,
                           "An entity that an operation tried to create already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED,
                              "The caller may not run the operation.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED,
                               "Some resource has been exhausted.")
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION,
                                "The system is not in a state to run the operation.")
AbortedError = _make("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE,
                        "An operation iterated past the valid input range.")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED,
                           "The operation is not implemented.")
InternalError = _make("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _make("UnavailableError", UNAVAILABLE,
                         "The runtime is currently unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED,
                             "The request lacks valid authentication.")


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation (bool, iteration) that a traced tensor cannot take part in."""


__all__ = [
    "OperatorNotAllowedInGraphError", "OpError", "CancelledError", "UnknownError",
    "InvalidArgumentError", "DeadlineExceededError",
    "NotFoundError", "AlreadyExistsError", "PermissionDeniedError", "ResourceExhaustedError",
    "FailedPreconditionError", "AbortedError", "OutOfRangeError", "UnimplementedError",
    "InternalError", "UnavailableError", "DataLossError", "UnauthenticatedError",
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
]
