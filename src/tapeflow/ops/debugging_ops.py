"""`tf.debugging`: the assert family, `tf.Assert` and `tf.debugging.check_numerics`.

Eagerly every check runs in Python at the call and raises TensorFlow's error with the text its
Python wrappers build (the data summary of `Condition x == y did not hold.`, `Expected 'False'
to be true. Summarized data: ...`). While tracing, what TensorFlow checks statically (known
ranks and shapes, dtypes, constant operands) raises at trace time as in TF; everything else
becomes an `Assert` node: a side-effecting primitive, kept by every graph pass as tf.print is
(so a check whose result is ignored still runs), whose kernel raises TF's `assertion failed:
[...] [...]` when the graph runs and does nothing while tracing (examples are not data).
`CheckNumerics` is the same kind of primitive, with an output: its input, checked.
"""

from __future__ import annotations

import collections
import operator
from typing import Any, Callable, Optional

import numpy as np

from tapeflow.autodiff import numerics
from tapeflow.autodiff.core import Primitive, bind
from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.abstract import dims_text, same_as_input
from tapeflow.framework.context import context
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.exports import tf_export
from tapeflow.framework.tensor import Tensor, TensorLike
from tapeflow.graph.ir import Operation, SymbolicTensor
from tapeflow.ops import array_ops, control_flow_ops, math_ops, reduce_ops
from tapeflow.ops._convert import convert_to_tensor
from tapeflow.ops.control_deps import get_static_value, no_op


# -- TensorFlow's Tensor::SummarizeValue (print_v2=false), as the Assert kernel prints ----------

_ESCAPES = {ord("\n"): b"\\n", ord("\r"): b"\\r", ord("\t"): b"\\t", ord('"'): b'\\"',
            ord("'"): b"\\'", ord("\\"): b"\\\\"}


def _c_escape(value: Any) -> str:
    """absl's Utf8SafeCEscape: quotes, backslashes and control bytes escaped, UTF-8 kept."""
    data = value if isinstance(value, bytes) else str(value).encode()
    out = bytearray()
    for byte in data:
        if byte in _ESCAPES:
            out += _ESCAPES[byte]
        elif byte < 0x20 or byte == 0x7f:
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    return out.decode("utf-8", "replace")


def _float_text(value: float, digits: int, cast: Callable) -> str:
    """TF's FloatToBuffer/DoubleToBuffer: %g with FLT_DIG (DBL_DIG) digits, or 3 (2) more
    where that does not read back as the same value; NaN as glibc prints it."""
    if value != value:
        return "-nan" if np.signbit(value) else "nan"
    text = "%.*g" % (digits, value)
    if cast(text) == cast(value):
        return text
    return "%.*g" % (digits + (3 if digits == 6 else 2), value)


def _element_text(value: Any, dtype: np.dtype) -> str:
    kind = dtype.kind
    if kind == "f":   # half prints as the float it widens to
        if dtype == np.float64:
            return _float_text(float(value), 15, float)
        return _float_text(float(value), 6, np.float32)
    if kind == "b":
        return "1" if value else "0"
    if kind in "iu":
        return str(int(value))
    return _c_escape(value)


def _nested_text(items: list, shape: tuple) -> str:
    """TF's PrintOneDim: the outer dimension unbracketed, `...` where the summary stops."""
    out: list = []
    index = 0
    limit = len(items)

    def dim(d: int) -> None:
        nonlocal index
        if index >= limit:
            return
        if d == len(shape) - 1:
            for i in range(shape[d]):
                if index >= limit:
                    if d != 0:
                        out.append("...")
                    return
                if i > 0:
                    out.append(" ")
                out.append(items[index])
                index += 1
            return
        for _ in range(shape[d]):
            if index >= limit:
                break   # nothing more is printed
            out.append("[")
            dim(d + 1)
            out.append("]")

    dim(0)
    return "".join(out)


def summarize_value(array: Any, summarize: int) -> str:
    """The text the Assert kernel prints for one data tensor: its first `summarize` values
    (all, where negative), nested as TF's Tensor::SummarizeValue, `...` if it stopped."""
    array = np.asarray(array)
    flat = array.reshape(-1)
    limit = flat.size if summarize < 0 else min(summarize, flat.size)
    if array.dtype.kind == "c":   # TF prints no complex values
        text = " ".join("?" * limit)
    else:
        items = [_element_text(v, array.dtype) for v in flat[:limit]]
        text = " ".join(items) if array.ndim == 0 else _nested_text(items, array.shape)
    return text + "..." if flat.size > limit else text


# -- the Assert primitive ------------------------------------------------------------------------

def _assert_kernel(condition: np.ndarray, *data: np.ndarray, summarize: int,
                   guarded: bool) -> tuple:
    if context.graph is not None:
        return ()   # tracing computes examples only: the check runs when the graph runs
    if np.ndim(condition) != 0:
        shape = dims_text(np.shape(condition))
        # TF guards an Assert of other than int32/string data with a cond on the condition.
        raise InvalidArgumentError(f"The second input must be a scalar, but it has shape "
                                   f"{shape}" if guarded else
                                   f"In[0] should be a scalar: {shape}")
    if not condition:
        raise InvalidArgumentError("assertion failed: " + " ".join(
            f"[{summarize_value(x, summarize)}]" for x in data))
    return ()


_ASSERT = Primitive("Assert", _assert_kernel, multiple_results=True, differentiable=False,
                    side_effect=True, shape_rule=lambda *avals, **attrs: ())


def _data_tensors(data: Any) -> list:
    if not isinstance(data, (list, tuple)):
        raise TypeError("values must be a sequence.")
    return [convert_to_tensor(x) for x in data]


def _graph_assert(condition: Any, data: Any, summarize: Optional[int]) -> Operation:
    """The traced Assert op (TF's gen_logging_ops._assert, guarded or not)."""
    condition = convert_to_tensor(condition)
    if condition.dtype != _dtypes.bool:
        raise TypeError(f"Input 'condition' of 'Assert' Op has type {condition.dtype.name} "
                        f"that does not match expected type of bool.")
    xs = _data_tensors(data)
    guarded = not all(x.dtype in (_dtypes.string, _dtypes.int32) for x in xs)
    bind(_ASSERT, (condition, *xs),
         {"summarize": 3 if summarize is None else int(summarize), "guarded": guarded})
    graph = context.graph
    return Operation(graph.nodes[-1].name, "Assert", (), [], graph)


def _summarize_eager(x: Tensor, summarize: Optional[int]) -> str:
    """control_flow_assert._summarize_eager: `1, 2, 3, ...`."""
    if summarize is None:
        summarize = 3
    elif summarize < 0:
        summarize = int(np.size(x._value))
    value = x.numpy()
    if x.shape.rank:
        flat = np.asarray(value).reshape(-1)
        items = [str(v) for v in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
    else:
        items = [str(value)] if summarize != 0 else []
    return ", ".join(items)


@tf_export("debugging.Assert", "Assert")
def Assert(condition: Any, data: Any, summarize: Optional[int] = None,  # noqa: N802 - TF's name
           name: Optional[str] = None) -> Optional[Operation]:
    """Raises InvalidArgumentError with a summary of `data` (a list of tensors and Python
    values, `summarize` entries each) unless `condition` holds. Eagerly it checks at once and
    returns None; inside tf.function it is an op that checks each time the graph runs."""
    if context.graph is None:
        if not condition:
            xs = _data_tensors(data)
            raise InvalidArgumentError(
                "Expected '%s' to be true. Summarized data: " % (condition,)
                + "\n".join(_summarize_eager(x, summarize) for x in xs))
        return None
    return _graph_assert(condition, data, summarize)


# -- names and static values while tracing -------------------------------------------------------

def _in_graph(t: Tensor) -> SymbolicTensor:
    """`t` as a tensor of the graph being traced (an eager tensor is its constant there)."""
    if isinstance(t, SymbolicTensor):
        return t
    graph = context.graph
    return graph.symbolic(graph.value_id(t))


def _name(t: Tensor) -> str:
    """The name TF's messages give `t`: its graph name while tracing, else `tensor`."""
    return _in_graph(t).name if context.graph is not None else "tensor"


def _shape_and_dtype(t: Tensor) -> str:
    return f"shape={t.shape} dtype={t.dtype.name}"


def _eager_or_graph_name(t: Tensor) -> str:
    """What the data of TF's asserts calls `t`: its shape and dtype eagerly, else its name."""
    return _shape_and_dtype(t) if context.graph is None else _name(t)


def _message_prefix(message: Optional[str]) -> str:
    return f"{message}.  " if message else ""


def _convert(value: Any, name: str, dtype: Any = None) -> Tensor:
    """convert_to_tensor(value, name=name): TF prefixes a conversion error with the name."""
    try:
        return convert_to_tensor(value, dtype=dtype)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


# -- element-wise comparisons --------------------------------------------------------------------

def _pretty_print(item: Any, summarize: Any) -> str:
    """check_ops._pretty_print: a tensor as a list of its first values' texts."""
    if isinstance(item, Tensor):
        value = item.numpy()
        if np.isscalar(value):
            return str(value)
        flat = value.reshape((-1,))
        texts = [str(v) for v in flat[:summarize]]   # TF's slice: a float summarize raises
        if len(texts) < flat.size:
            texts.append("...")
        return str(texts)
    return str(item)


def _failure_data(sym: str, x: Tensor, y: Tensor, summarize: Any, test: Tensor) -> list:
    """check_ops._make_assert_msg_data: the differing values and the first values."""
    data: list = [f"Condition x {sym} y did not hold."]
    if summarize > 0:
        x_np, y_np = x.numpy(), y.numpy()
        if x.shape == y.shape and x.shape.as_list():
            mask = np.logical_not(test.numpy())
            indices = np.argwhere(mask)
            count = min(summarize, indices.shape[0])
            data += [f"Indices of first {count} different values:", indices[:count],
                     "Corresponding x values:", x_np[mask].reshape((-1,))[:count],
                     "Corresponding y values:", y_np[mask].reshape((-1,))[:count]]
        x_flat, y_flat = np.reshape(x_np, (-1,)), np.reshape(y_np, (-1,))
        x_count, y_count = min(x_flat.size, summarize), min(y_flat.size, summarize)
        data += [f"First {x_count} elements of x:", x_flat[:x_count],
                 f"First {y_count} elements of y:", y_flat[:y_count]]
    return data


def _static_text(item: Any) -> str:
    """check_ops._maybe_constant_value_string: a tensor as its constant value's text."""
    if not isinstance(item, Tensor):
        return str(item)
    value = get_static_value(item)
    return str(item) if value is None else str(value)


def _binary_assert(sym: str, op_func: Callable, static_func: Callable, x: Any, y: Any,
                   data: Optional[list], summarize: Optional[int],
                   message: Optional[str], scope: Optional[str] = None) -> Optional[Operation]:
    """check_ops._binary_assert: eagerly checks now; traced, checks constant operands at
    trace time and otherwise adds an Assert. `scope`: TF's name scope of the assert, which
    names an operand converted from a Python value ('assert_less/y:0')."""
    if scope is not None and context.graph is not None:
        scope = context.graph.unique_name(scope)
        x, y = (_scoped_operand(v, f"{scope}/{n}") for v, n in ((x, "x"), (y, "y")))
    x = _convert(x, "x")
    y = _convert(y, "y")
    if context.graph is None:
        test = op_func(x, y)
        if reduce_ops.reduce_all(test):
            return None
        if summarize is None:
            summarize = 3
        elif summarize < 0:
            summarize = 1e9   # TF's "everything"
        if data is None:
            data = _failure_data(sym, x, y, summarize, test)
        if message is not None:
            data = [message] + list(data)
        raise InvalidArgumentError("\n".join(_pretty_print(d, summarize) for d in data))
    if data is None:
        data = [f"Condition x {sym} y did not hold element-wise:", f"x ({_name(x)}) = ", x,
                f"y ({_name(y)}) = ", y]
    if message is not None:
        data = [message] + list(data)
    condition = reduce_ops.reduce_all(op_func(x, y))
    x_static, y_static = get_static_value(x), get_static_value(y)
    if x_static is not None and y_static is not None and \
            not np.all(static_func(x_static, y_static)):
        raise InvalidArgumentError("\n".join(_static_text(d) for d in data))
    return _graph_assert(condition, data, summarize)


def _scoped_operand(value: Any, name: str) -> Any:
    """A Python operand as the graph constant `name`, as TF converts it in the assert's scope;
    a tensor stays itself."""
    if isinstance(value, TensorLike):
        return value
    tensor = _convert(value, name.rpartition("/")[2])
    graph = context.graph
    return graph.symbolic(graph.named_constant(tensor, name))


def _binary_doc(sym: str) -> str:
    return (f"Raises InvalidArgumentError unless `x {sym} y` holds element-wise (with "
            f"broadcasting). Eagerly it checks at once (None); inside tf.function it raises "
            f"at trace time for constant operands and otherwise returns the Assert op.")


def _make_binary(name: str, sym: str, op_func: Callable, static_func: Callable) -> Callable:
    def check(x: Any, y: Any, message: Optional[str] = None, summarize: Optional[int] = None,
              name: Optional[str] = None) -> Optional[Operation]:
        return _binary_assert(sym, op_func, static_func, x, y, None, summarize, message,
                              name or check.__name__)
    check.__doc__ = _binary_doc(sym)
    check.__name__ = check.__qualname__ = name
    return check


@tf_export("debugging.assert_equal", "assert_equal")
def assert_equal(x: Any, y: Any, message: Optional[str] = None, summarize: Optional[int] = None,
                 name: Optional[str] = None) -> Any:
    """Raises InvalidArgumentError unless `x == y` element-wise (with broadcasting); the same
    object passes. Eagerly it checks at once (None); inside tf.function it raises at trace
    time for constant operands and otherwise returns the Assert op."""
    if x is y:
        return None if context.graph is None else no_op()
    if name is None and context.graph is not None:
        context.graph.unique_name("assert_equal")   # TF enters this scope twice (v2, v1)
    return _binary_assert("==", math_ops.equal, np.equal, x, y, None, summarize, message,
                          name or "assert_equal")


@tf_export("debugging.assert_none_equal")
def assert_none_equal(x: Any, y: Any, summarize: Optional[int] = None,
                      message: Optional[str] = None, name: Optional[str] = None) -> Any:
    """Raises InvalidArgumentError unless `x != y` element-wise (with broadcasting). Eagerly
    it checks at once (None); inside tf.function it raises at trace time for constant
    operands and otherwise returns the Assert op."""
    return _binary_assert("!=", math_ops.not_equal, np.not_equal, x, y, None, summarize,
                          message, name or "assert_none_equal")

assert_less = tf_export("debugging.assert_less", "assert_less")(
    _make_binary("assert_less", "<", math_ops.less, np.less))
assert_less_equal = tf_export("debugging.assert_less_equal")(
    _make_binary("assert_less_equal", "<=", math_ops.less_equal, np.less_equal))
assert_greater = tf_export("debugging.assert_greater", "assert_greater")(
    _make_binary("assert_greater", ">", math_ops.greater, np.greater))
assert_greater_equal = tf_export("debugging.assert_greater_equal")(
    _make_binary("assert_greater_equal", ">=", math_ops.greater_equal, np.greater_equal))


def _sign_assert(x: Any, message: Optional[str], summarize: Optional[int], text: str,
                 op_func: Callable, static_func: Callable, zero_first: bool) -> Any:
    """check_ops.assert_positive & co.: a comparison with zero, with TF's data."""
    prefix = _message_prefix(message)
    x = _convert(x, "x")
    data = [prefix, text, f"x ({_eager_or_graph_name(x)}) = ", x]
    if text.startswith("Condition x <= 0"):
        data[1:3] = [text + data[2]]   # TF's assert_non_positive lacks a comma there
    zero = convert_to_tensor(0, dtype=x.dtype)
    a, b = (zero, x) if zero_first else (x, zero)
    return _binary_assert("", op_func, static_func, a, b, data, summarize, None)


def _make_sign(name: str, sym: str, op_func: Callable, static_func: Callable,
               zero_first: bool) -> Callable:
    text = f"Condition x {sym} did not hold element-wise:"

    def check(x: Any, message: Optional[str] = None, summarize: Optional[int] = None,
              name: Optional[str] = None) -> Any:
        return _sign_assert(x, message, summarize, text, op_func, static_func, zero_first)
    check.__doc__ = (f"Raises InvalidArgumentError unless `x {sym}` holds element-wise "
                     f"(None eagerly; the Assert op inside tf.function).")
    check.__name__ = check.__qualname__ = name
    return check


assert_positive = tf_export("debugging.assert_positive")(
    _make_sign("assert_positive", "> 0", math_ops.less, np.less, True))
assert_non_negative = tf_export("debugging.assert_non_negative")(
    _make_sign("assert_non_negative", ">= 0", math_ops.less_equal, np.less_equal, True))
assert_negative = tf_export("debugging.assert_negative")(
    _make_sign("assert_negative", "< 0", math_ops.less, np.less, False))
assert_non_positive = tf_export("debugging.assert_non_positive")(
    _make_sign("assert_non_positive", "<= 0", math_ops.less_equal, np.less_equal, False))


@tf_export("debugging.assert_near")
def assert_near(x: Any, y: Any, rtol: Any = None, atol: Any = None,
                message: Optional[str] = None, summarize: Optional[int] = None,
                name: Optional[str] = None) -> Optional[Operation]:
    """Raises InvalidArgumentError unless `|x - y| < atol + rtol * |y|` element-wise; the
    tolerances default to 10 * eps of the (real) dtype of `x`, as in TF."""
    prefix = _message_prefix(message)
    x = _convert(x, "x")
    y = _convert(y, "y", dtype=x.dtype)
    dtype = x.dtype.real_dtype if x.dtype.is_complex else x.dtype
    eps = np.finfo(dtype.as_numpy_dtype).eps   # TF's ValueError for integer dtypes
    rtol = _convert(10 * eps if rtol is None else rtol, "rtol", dtype=dtype)
    atol = _convert(10 * eps if atol is None else atol, "atol", dtype=dtype)
    shown = (rtol, atol) if context.graph is None else (_in_graph(rtol), _in_graph(atol))
    data = [prefix, "x and y not equal to tolerance rtol = %s, atol = %s" % shown,
            f"x ({_eager_or_graph_name(x)}) = ", x, f"y ({_eager_or_graph_name(y)}) = ", y]
    tol = math_ops.add(atol, math_ops.multiply(rtol, math_ops.abs(y)))
    diff = math_ops.abs(math_ops.subtract(x, y))
    return Assert(reduce_ops.reduce_all(math_ops.less(diff, tol)), data, summarize=summarize)


# -- ranks and shapes ----------------------------------------------------------------------------

class _StaticRankError(ValueError):
    """check_ops' 'Static rank condition failed' (actual rank, given rank or ranks)."""


def _rank_checks(x: Tensor, ranks: list, static_condition: Callable,
                 dynamic_condition: Callable, data: list, summarize: Optional[int]) -> Any:
    """check_ops._assert_ranks_condition: static where the ranks and x's rank are known."""
    for rank in ranks:
        _assert_type(rank, _dtypes.int32)
    statics = [get_static_value(rank) for rank in ranks]
    if all(s is not None for s in statics):
        if any(np.ndim(s) != 0 for s in statics):
            raise ValueError("Rank must be a scalar.")
        x_rank = x.shape.rank
        if x_rank is not None:
            if not static_condition(x_rank, statics):
                raise _StaticRankError(x_rank, statics)
            return no_op()
    condition = dynamic_condition(array_ops.rank(x), ranks)
    for rank, static in zip(ranks, statics):
        if static is None:
            _assert_rank(rank, 0, ["Rank must be a scalar. Received rank: ", rank], None, "")
    return _graph_assert(condition, data, summarize)


def _rank_data(message: str, x: Tensor, what: str, ranks: list) -> list:
    return [message, f"Tensor {_rank_name(x)} must have {what}", *ranks, "Received shape: ",
            array_ops.shape(x)]


def _rank_name(x: Tensor) -> str:
    return "" if context.graph is None else _name(x)


def _rank_relation(x: Any, rank: Any, data: Optional[list], summarize: Optional[int],
                   message: Optional[str], what: str, holds: Callable,
                   holds_op: Callable) -> Any:
    """`x`'s rank checked against `rank` by `holds` (statically) or `holds_op` (as the graph
    runs); `what` is "rank" or "rank at least", as TF's messages say it."""
    x = _convert(x, "x")
    rank = _convert(rank, "rank")
    message = _message_prefix(message)
    if data is None:
        data = _rank_data(message, x, what, [rank])
    try:
        return _rank_checks(x, [rank], lambda actual, given: holds(actual, given[0]),
                            lambda actual, given: holds_op(actual, given[0]), data, summarize)
    except _StaticRankError as exc:
        raise ValueError(f"{message}Tensor {_rank_name(x)} must have {what} "
                         f"{int(exc.args[1][0])}.  Received rank {exc.args[0]}, shape "
                         f"{x.shape}") from None


def _assert_rank(x: Any, rank: Any, data: Optional[list], summarize: Optional[int],
                 message: Optional[str]) -> Any:
    return _rank_relation(x, rank, data, summarize, message, "rank", operator.eq,
                          math_ops.equal)


@tf_export("debugging.assert_rank", "assert_rank")
def assert_rank(x: Any, rank: Any, message: Optional[str] = None,
                name: Optional[str] = None) -> Any:
    """Checks that `x` has rank `rank` (a scalar int32): a ValueError where the rank is
    known (eagerly always), else an Assert op that raises when the graph runs."""
    return _assert_rank(x, rank, None, None, message)


def _assert_rank_at_least(x: Any, rank: Any, data: Optional[list],
                          summarize: Optional[int], message: Optional[str]) -> Any:
    return _rank_relation(x, rank, data, summarize, message, "rank at least", operator.ge,
                          math_ops.greater_equal)


@tf_export("debugging.assert_rank_at_least")
def assert_rank_at_least(x: Any, rank: Any, message: Optional[str] = None,
                         name: Optional[str] = None) -> Any:
    """Checks that `x` has rank `rank` or more: a ValueError where the rank is known, else
    an Assert op that raises when the graph runs."""
    return _assert_rank_at_least(x, rank, None, None, message)


def _rank_in(actual: Any, given: list) -> Any:
    if not given:
        return convert_to_tensor(False)
    result = math_ops.equal(given[0], actual)
    for rank in given[1:]:
        result = math_ops.logical_or(result, math_ops.equal(rank, actual))
    return result


def _assert_rank_in(x: Any, ranks: Any, data: Optional[list], summarize: Optional[int],
                    message: Optional[str]) -> Any:
    x = _convert(x, "x")
    ranks = [_convert(rank, "rank") for rank in ranks]
    message = _message_prefix(message)
    if data is None:
        data = _rank_data(message, x, "rank in", ranks)
    try:
        return _rank_checks(x, ranks, lambda actual, given: actual in given, _rank_in, data,
                            summarize)
    except _StaticRankError as exc:
        given = tuple(np.asarray(r).item() for r in exc.args[1])
        raise ValueError(f"{message}Tensor {_rank_name(x)} must have rank in {given}.  "
                         f"Received rank {exc.args[0]}, shape {x.shape}") from None


@tf_export("debugging.assert_rank_in")
def assert_rank_in(x: Any, ranks: Any, message: Optional[str] = None,
                   name: Optional[str] = None) -> Any:
    """Checks that the rank of `x` is one of `ranks`: a ValueError where the rank is known,
    else an Assert op that raises when the graph runs."""
    return _assert_rank_in(x, ranks, None, None, message)


_DimSizes = collections.namedtuple("_DimSizes", ["x", "unspecified_dim", "actual_sizes",
                                                 "symbolic_sizes"])


def _dimension_sizes(x: Tensor) -> Any:
    """Each dimension's size: an int where known, else a tensor (a scalar counts as [1])."""
    rank = x.shape.rank
    if rank == 0:
        return (1,)
    if rank is not None:
        dims = x.shape.as_list()
        if all(d is not None for d in dims):
            return dims
        dynamic = array_ops.shape(x)
        return [d if d is not None else dynamic[i] for i, d in enumerate(dims)]
    return control_flow_ops.cond(math_ops.equal(array_ops.rank(x), 0),
                                 lambda: convert_to_tensor([1]), lambda: array_ops.shape(x))


def _has_known_value(size: Any) -> bool:
    try:
        int(size)
    except (ValueError, TypeError):
        return False
    return size is not None


def _shape_constraints(shapes: Any, prefix: str, tensor_name: Callable) -> list:
    sizes = []
    for x, symbolic in shapes:
        if not (hasattr(symbolic, "__iter__") or hasattr(symbolic, "__getitem__")):
            raise ValueError(f"{prefix}Tensor {tensor_name(x)}.  Specified shape must be an "
                             f"iterable.  An iterable has the attribute `__iter__` or "
                             f"`__getitem__`.  Received specified shape: {symbolic}")
        symbols = tuple(symbolic)
        innermost = False
        for i, symbol in enumerate(symbols):
            if symbol is not Ellipsis and symbol != "*":
                continue
            if i != 0:
                raise ValueError(f"{prefix}Tensor {tensor_name(x)} specified shape index {i}. "
                                 f" Symbol `...` or `*` for a variable number of unspecified "
                                 f"dimensions is only allowed as the first entry")
            innermost = True
        symbols = symbols[1:] if innermost else symbols
        sizes.append(_DimSizes(x, innermost, _dimension_sizes(x), symbols or (1,)))
    return sizes


def _check_sizes(sizes: list, data: Any, summarize: Optional[int], prefix: str,
                 tensor_name: Callable) -> None:
    """The dimension checks of check_ops.assert_shapes: sizes given explicitly or by the
    first tensor naming a symbol, static where both are known."""
    specified: dict = {}
    for entry in sizes:
        for i, symbol in enumerate(entry.symbolic_sizes):
            if symbol is None or symbol == ".":
                continue
            dim = i - len(entry.symbolic_sizes) if entry.unspecified_dim else i
            if not (_has_known_value(symbol) or symbol in specified):
                specified[symbol] = (entry.actual_sizes[dim], entry.x, dim)
                continue
            if _has_known_value(symbol):
                expected, how = int(symbol), "Specified explicitly"
            else:
                expected, by, at = specified[symbol]
                how = f"Specified by tensor {tensor_name(by)} dimension {at}"
            actual = entry.actual_sizes[dim]
            if _has_known_value(actual) and _has_known_value(expected):
                if int(actual) != int(expected):
                    raise ValueError(f"{prefix}{how}.  Tensor {tensor_name(entry.x)} "
                                     f"dimension {dim} must have size {int(expected)}.  "
                                     f"Received size {int(actual)}, shape {entry.x.shape}")
                continue
            condition = math_ops.equal(convert_to_tensor(actual), convert_to_tensor(expected))
            what = data if data is not None else [
                prefix, how, f"Tensor {tensor_name(entry.x)} dimension", dim,
                "must have size", expected, "Received shape: ", array_ops.shape(entry.x)]
            _graph_assert(condition, what, summarize)


@tf_export("debugging.assert_shapes")
def assert_shapes(shapes: Any, data: Any = None, summarize: Optional[int] = None,
                  message: Optional[str] = None, name: Optional[str] = None) -> None:
    """Checks tensors' shapes against symbolic ones: `[(x, ('N', 'Q')), (y, ('N', 3))]`
    (a symbol names one size across tensors, an int is explicit, None or '.' is any size, a
    leading `...` or '*' any outer dims; a scalar counts as shape (1,)). Known shapes raise
    ValueError; inside tf.function the rest become Assert ops."""
    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = _message_prefix(message)
    constraints = [(convert_to_tensor(x), s) for x, s in shapes if s is not None]

    def tensor_name(x: Tensor) -> str:
        return _eager_or_graph_name(x)

    sizes = _shape_constraints(constraints, prefix, tensor_name)
    for entry in sizes:
        rank = len(entry.symbolic_sizes)
        if entry.unspecified_dim:
            if rank not in (0, 1):
                _assert_rank_at_least(entry.x, rank, data, summarize, message)
        elif rank in (0, 1):
            _assert_rank_in(entry.x, [0, 1], data, summarize, message)
        else:
            _assert_rank(entry.x, rank, data, summarize, message)
    _check_sizes(sizes, data, summarize, prefix, tensor_name)


# -- dtypes and static properties ----------------------------------------------------------------

def _assert_type(tensor: Any, tf_type: Any, message: Optional[str] = None) -> None:
    tf_type = _dtypes.as_dtype(tf_type)
    tensor = convert_to_tensor(tensor)
    if tensor.dtype != tf_type:
        raise TypeError(f"{_message_prefix(message)}{_name(tensor)} must be of type "
                        f"{tf_type!r}; got {tensor.dtype!r}")


@tf_export("debugging.assert_type")
def assert_type(tensor: Any, tf_type: Any, message: Optional[str] = None,
                name: Optional[str] = None) -> None:
    """Raises TypeError unless `tensor` has dtype `tf_type` (always checked statically)."""
    _assert_type(tensor, tf_type, message)


@tf_export("debugging.assert_integer")
def assert_integer(x: Any, message: Optional[str] = None, name: Optional[str] = None) -> None:
    """Raises TypeError unless `x` has an integer dtype (always checked statically)."""
    x = convert_to_tensor(x)
    if not x.dtype.is_integer:
        raise TypeError(f'{_message_prefix(message)}Expected "x" to be integer type.  Found: '
                        f"{_name(x)} of dtype {x.dtype}")


@tf_export("debugging.assert_scalar")
def assert_scalar(tensor: Any, message: Optional[str] = None,
                  name: Optional[str] = None) -> None:
    """Raises ValueError unless `tensor` is known to be a scalar (an unknown shape fails)."""
    tensor = convert_to_tensor(tensor)
    if tensor.shape.rank != 0:
        prefix = _message_prefix(message)
        if context.graph is None:
            raise ValueError(f"{prefix}Expected scalar shape, saw shape: {tensor.shape}.")
        raise ValueError(f"{prefix}Expected scalar shape for {_name(tensor)}, saw shape: "
                         f"{tensor.shape}.")


@tf_export("debugging.assert_proper_iterable")
def assert_proper_iterable(values: Any) -> None:
    """Raises TypeError unless `values` is an iterable other than a tensor, an ndarray or a
    string (which iterate too, but are rarely meant as a sequence of values)."""
    if isinstance(values, (Tensor, np.ndarray, bytes, str)):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: '
                        f"{type(values)}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


@tf_export("debugging.assert_same_float_dtype")
def assert_same_float_dtype(tensors: Any = None, dtype: Any = None) -> Any:
    """The common floating dtype of `tensors` (None entries ignored) and `dtype`, float32 if
    neither is given; ValueError where they differ or it is not floating."""
    if tensors:
        dtype = _same_base_type(tensors, dtype)
    if not dtype:
        return _dtypes.float32
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def _item_text(item: Any) -> str:
    return item.name if hasattr(item, "name") else str(item)


def _same_base_type(items: Any, expected: Any) -> Any:
    """check_ops._assert_same_base_type."""
    first = None
    for item in items:
        if item is None:
            continue
        if not expected:
            expected, first = item.dtype, _item_text(item)
        elif expected != item.dtype:
            as_text = f" as {first}" if first else ""
            raise ValueError(f"{_item_text(item)}, type={item.dtype}, must be of the same "
                             f"type ({expected}){as_text}.")
    return expected


_NUMERIC_KINDS = frozenset("fiuc")


@tf_export("debugging.is_numeric_tensor")
def is_numeric_tensor(tensor: Any) -> bool:
    """True for a tensor of a number dtype (floats, integers, complex); False for bool and
    string tensors and for anything that is not a tensor (variables, arrays included)."""
    return isinstance(tensor, Tensor) and tensor._value.dtype.kind in _NUMERIC_KINDS


def _monotonic(x: Any, compare: Callable) -> Tensor:
    x = array_ops.reshape(x, [-1])
    if not is_numeric_tensor(x):
        raise TypeError("Expected x to be numeric, instead found: %s" % (x,))
    return reduce_ops.reduce_all(compare(x[1:], x[:-1]))


@tf_export("math.is_non_decreasing")
def is_non_decreasing(x: Any, name: Optional[str] = None) -> Tensor:
    """A bool scalar: whether `x`'s values (in row-major order) never decrease (True for
    fewer than two values)."""
    return _monotonic(x, math_ops.greater_equal)


@tf_export("math.is_strictly_increasing")
def is_strictly_increasing(x: Any, name: Optional[str] = None) -> Tensor:
    """A bool scalar: whether `x`'s values (in row-major order) strictly increase (True for
    fewer than two values)."""
    return _monotonic(x, math_ops.greater)


# -- CheckNumerics -------------------------------------------------------------------------------

def _check_numerics_kernel(x: np.ndarray, message: str) -> np.ndarray:
    if context.graph is None and not np.isfinite(x).all():
        nan, inf = bool(np.isnan(x).any()), bool(np.isinf(x).any())
        found = "Inf and NaN" if nan and inf else "NaN" if nan else "Inf"
        raise InvalidArgumentError(f"{message} : Tensor had {found} values")
    return x


def _gradient_message(message: str) -> str:
    """The message of CheckNumerics' gradient op in TF: the op's attr, as bytes."""
    return f"Not a number (NaN) or infinity (Inf) values detected in gradient. " \
           f"{message.encode()!r}"


def _check_numerics_vjp(g: Tensor, ans: Tensor, x: Tensor, message: str) -> Tensor:
    return check_numerics(g, _gradient_message(message))   # TF checks the cotangent too


def _check_numerics_jvp(tangents: list, ans: Tensor, x: Tensor, message: str) -> Tensor:
    # TF's forward mode transposes the gradient's gradient: its message, nested twice.
    return check_numerics(tangents[0], _gradient_message(_gradient_message(message)))


_CHECK_NUMERICS = Primitive("CheckNumerics", _check_numerics_kernel, side_effect=True,
                            shape_rule=same_as_input, batch_safe=True).defvjp(
    _check_numerics_vjp).defjvp(_check_numerics_jvp)

_EAGER_PREFIX = ("{{function_node __wrapped__CheckNumerics_device_/job:localhost/replica:0/"
                 "task:0/device:CPU:0}} ")


@tf_export("debugging.check_numerics")
def check_numerics(tensor: Any, message: str, name: Optional[str] = None) -> Tensor:
    """`tensor` itself, after checking that it holds no NaN or Inf (InvalidArgumentError
    `message : Tensor had NaN values`, also each time a traced graph runs); the gradient
    passes through, checked the same way."""
    # TF's eager error ends in " name: " where a tensor was passed (its slow path).
    suffix = " name: " if isinstance(tensor, TensorLike) else ""
    x = convert_to_tensor(tensor)
    if x._value.dtype.kind != "f":
        raise _check_numerics_dtype_error(x, suffix)
    if context.graph is not None:
        return bind(_CHECK_NUMERICS, (x,), {"message": message})
    try:
        return bind(_CHECK_NUMERICS, (x,), {"message": message})
    except InvalidArgumentError as exc:
        if exc.message.startswith(_EAGER_PREFIX):
            raise   # a check of a tangent, under a ForwardAccumulator
        raise InvalidArgumentError(f"{_EAGER_PREFIX}{exc.message} [Op:CheckNumerics]"
                                   f"{suffix}") from None


def _check_numerics_dtype_error(x: Tensor, suffix: str) -> Exception:
    if context.graph is not None:
        return TypeError(f"Value passed to parameter 'tensor' has DataType {x.dtype.name} not "
                         f"in list of allowed values: bfloat16, float16, float32, float64")
    return InvalidArgumentError(
        f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: "
        f"bfloat16, half, float, double\n\t; NodeDef: {{{{node CheckNumerics}}}}; "
        f"Op<name=CheckNumerics; signature=tensor:T -> output:T; attr=T:type,allowed="
        f"[DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE]; attr=message:string; is_stateful=true>"
        f" [Op:CheckNumerics]{suffix}")


@tf_export("debugging.assert_all_finite")
def assert_all_finite(x: Any, message: str, name: Optional[str] = None) -> Tensor:
    """`x` (an identity of it) after checking that it holds no NaN or Inf, as
    check_numerics; the gradient flows through the identity, unchecked, as in TF."""
    x = convert_to_tensor(x)
    check_numerics(x, message)
    return math_ops.identity(x)


# -- device placement logging --------------------------------------------------------------------

_LOG_DEVICE_PLACEMENT = [False]


@tf_export("debugging.set_log_device_placement")
def set_log_device_placement(enabled: bool) -> None:
    """Turns device placement logging on or off. tapeflow runs every op on the CPU with
    NumPy and logs nothing; the setting is kept for get_log_device_placement."""
    _LOG_DEVICE_PLACEMENT[0] = bool(enabled)


@tf_export("debugging.get_log_device_placement")
def get_log_device_placement() -> bool:
    """Whether device placement logging is on (set_log_device_placement)."""
    return _LOG_DEVICE_PLACEMENT[0]


__all__ = ["Assert", "assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
           "assert_greater", "assert_greater_equal", "assert_positive", "assert_non_negative",
           "assert_negative", "assert_non_positive", "assert_near", "assert_rank",
           "assert_rank_at_least", "assert_rank_in", "assert_shapes", "assert_type",
           "assert_integer", "assert_scalar", "assert_proper_iterable",
           "assert_same_float_dtype", "is_numeric_tensor", "is_non_decreasing",
           "is_strictly_increasing", "check_numerics", "assert_all_finite",
           "set_log_device_placement", "get_log_device_placement", "summarize_value"]


# -- check-numerics mode -------------------------------------------------------------------------

@tf_export("debugging.enable_check_numerics")
def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """From now on (in this thread) the first op whose float output holds NaN or Inf raises
    InvalidArgumentError naming the op, its output, dtype, shape, the counts found, its inputs
    and where it was made; tf.functions traced from now on check after each of their ops.
    Idempotent."""
    numerics.enable(stack_height_limit, path_length_limit)


@tf_export("debugging.disable_check_numerics")
def disable_check_numerics() -> None:
    """Stops the checks `enable_check_numerics` started in this thread (eager ops pay nothing
    again); functions traced while it was on keep their checks, as in TF. Idempotent."""
    numerics.disable()


__all__ += ["enable_check_numerics", "disable_check_numerics"]
