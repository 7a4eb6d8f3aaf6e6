"""TensorFlow's error classes (``tf.errors``), with TF's names, codes and constructor."""

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
    """The base class of errors raised while running an op, as ``tf.errors.OpError``."""

    def __init__(self, node_def, op, message, error_code=UNKNOWN, *args):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    def __reduce__(self):
        return type(self), (self._node_def, self._op, self._message)

    @property
    def message(self):
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def node_def(self):
        return self._node_def

    @property
    def error_code(self):
        return self._error_code

    def __str__(self):
        return self._message


def _op_error(name, code, doc):
    def __init__(self, node_def, op, message, *args):
        OpError.__init__(self, node_def, op, message, code)

    return type(name, (OpError,), {"__init__": __init__, "__doc__": doc})


CancelledError = _op_error("CancelledError", CANCELLED, "An operation was cancelled.")
UnknownError = _op_error("UnknownError", UNKNOWN, "An unknown error occurred.")
InvalidArgumentError = _op_error(
    "InvalidArgumentError", INVALID_ARGUMENT, "An op received an invalid argument."
)
DeadlineExceededError = _op_error("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _op_error("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _op_error("AlreadyExistsError", ALREADY_EXISTS, "The entity already exists.")
PermissionDeniedError = _op_error("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
UnauthenticatedError = _op_error("UnauthenticatedError", UNAUTHENTICATED, "Not authenticated.")
ResourceExhaustedError = _op_error(
    "ResourceExhaustedError", RESOURCE_EXHAUSTED, "Out of resources."
)
FailedPreconditionError = _op_error(
    "FailedPreconditionError", FAILED_PRECONDITION, "The system is not in a state to run the op."
)
AbortedError = _op_error("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _op_error("OutOfRangeError", OUT_OF_RANGE, "Iterated past the valid range.")
UnimplementedError = _op_error("UnimplementedError", UNIMPLEMENTED, "The op is not implemented.")
InternalError = _op_error("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _op_error("UnavailableError", UNAVAILABLE, "The runtime is unavailable.")
DataLossError = _op_error("DataLossError", DATA_LOSS, "Unrecoverable data loss.")


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation (bool, iteration) was applied to a symbolic tensor."""


def invalid_argument(message, op_name=None):
    """Build an ``InvalidArgumentError`` whose message ends in TF's ``[Op:Name]`` tag."""
    if op_name:
        message = f"{message} [Op:{op_name}]"
    return InvalidArgumentError(None, None, message)

