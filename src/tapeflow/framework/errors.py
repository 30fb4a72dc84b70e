"""TensorFlow's error classes (`tf.errors`), with the same names and hierarchy."""

from __future__ import annotations


class OpError(Exception):
    """The base class of errors raised while running an operation."""

    def __init__(self, node_def=None, op=None, message: str = "", *args) -> None:
        # TensorFlow's signature is (node_def, op, message); also accept a lone message.
        if message == "" and isinstance(node_def, str) and op is None:
            node_def, message = None, node_def
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message

    def __str__(self) -> str:
        return self.message


def _make(name: str, doc: str) -> type:
    return type(name, (OpError,), {"__doc__": doc, "__module__": __name__})


CancelledError = _make("CancelledError", "An operation was cancelled.")
UnknownError = _make("UnknownError", "An unknown error occurred.")
InvalidArgumentError = _make("InvalidArgumentError", "An operation received an invalid argument.")
DeadlineExceededError = _make("DeadlineExceededError",
                              "A deadline expired before the operation finished.")
NotFoundError = _make("NotFoundError", "A requested entity (a file, say) was not found.")
AlreadyExistsError = _make("AlreadyExistsError",
                           "An entity that an operation tried to create already exists.")
PermissionDeniedError = _make("PermissionDeniedError", "The caller may not run the operation.")
ResourceExhaustedError = _make("ResourceExhaustedError", "Some resource has been exhausted.")
FailedPreconditionError = _make("FailedPreconditionError",
                                "The system is not in a state to run the operation.")
AbortedError = _make("AbortedError", "The operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", "An operation iterated past the valid input range.")
UnimplementedError = _make("UnimplementedError", "The operation is not implemented.")
InternalError = _make("InternalError", "An internal invariant was broken.")
UnavailableError = _make("UnavailableError", "The runtime is currently unavailable.")
DataLossError = _make("DataLossError", "Unrecoverable data loss or corruption.")
UnauthenticatedError = _make("UnauthenticatedError", "The request lacks valid authentication.")



class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation (bool, iteration) that a traced tensor cannot take part in."""


__all__ = [
    "OperatorNotAllowedInGraphError", "OpError", "CancelledError", "UnknownError",
    "InvalidArgumentError", "DeadlineExceededError",
    "NotFoundError", "AlreadyExistsError", "PermissionDeniedError", "ResourceExhaustedError",
    "FailedPreconditionError", "AbortedError", "OutOfRangeError", "UnimplementedError",
    "InternalError", "UnavailableError", "DataLossError", "UnauthenticatedError",
]
