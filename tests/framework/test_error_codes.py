"""tf.errors' status codes and each error class's error_code, as TF 2.21's."""

import pickle

import pytest

import tapeflow as tf

# TF 2.21's tf.errors constants (error_codes.proto) and the class raising each.
CODES = {
    "OK": (0, None), "CANCELLED": (1, "CancelledError"), "UNKNOWN": (2, "UnknownError"),
    "INVALID_ARGUMENT": (3, "InvalidArgumentError"),
    "DEADLINE_EXCEEDED": (4, "DeadlineExceededError"), "NOT_FOUND": (5, "NotFoundError"),
    "ALREADY_EXISTS": (6, "AlreadyExistsError"),
    "PERMISSION_DENIED": (7, "PermissionDeniedError"),
    "RESOURCE_EXHAUSTED": (8, "ResourceExhaustedError"),
    "FAILED_PRECONDITION": (9, "FailedPreconditionError"), "ABORTED": (10, "AbortedError"),
    "OUT_OF_RANGE": (11, "OutOfRangeError"), "UNIMPLEMENTED": (12, "UnimplementedError"),
    "INTERNAL": (13, "InternalError"), "UNAVAILABLE": (14, "UnavailableError"),
    "DATA_LOSS": (15, "DataLossError"), "UNAUTHENTICATED": (16, "UnauthenticatedError"),
}


@pytest.mark.parametrize("name", sorted(CODES))
def test_code_constant_and_class(name):
    code, cls_name = CODES[name]
    assert getattr(tf.errors, name) == code and type(getattr(tf.errors, name)) is int
    if cls_name:
        err = getattr(tf.errors, cls_name)(None, None, "went wrong")
        assert err.error_code == code
        assert err.message == str(err) == "went wrong"
        assert isinstance(err, tf.errors.OpError)


def test_op_error_takes_its_code_and_payloads():
    err = tf.errors.OpError(None, None, "m", tf.errors.NOT_FOUND)
    assert err.error_code == 5 and err.experimental_payloads == {}
    err = tf.errors.AbortedError(None, None, "m", {"k": b"v"})
    assert err.error_code == 10 and err.experimental_payloads == {"k": b"v"}


def test_errors_pickle_with_their_codes():
    # What tf.distribute / multiprocessing need: the class, message and code survive.
    err = pickle.loads(pickle.dumps(tf.errors.NotFoundError(None, None, "nf")))
    assert type(err) is tf.errors.NotFoundError and err.message == "nf" and err.error_code == 5
    err = pickle.loads(pickle.dumps(tf.errors.OpError(None, None, "m", 14)))
    assert type(err) is tf.errors.OpError and err.error_code == 14


def test_raised_kernel_error_has_its_code():
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.reshape(tf.ones([2, 3]), [4, 2])
    assert info.value.error_code == tf.errors.INVALID_ARGUMENT
