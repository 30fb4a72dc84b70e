"""`tf.debugging.enable_check_numerics`: the first op whose float output holds NaN or Inf raises.

Enabling swaps this thread's kernel runner (`framework.context`) for one that checks what each
kernel returns, as `framework.device` swaps it for the first kernel, so the disabled path pays
nothing: no flag is tested per op. The checking runner acts on

  - eager ops (a kernel called by `core.bind`): TensorFlow's eager message, with the counts of
    -Inf, +Inf and NaN elements and the op's inputs;
  - calls of a tf.function traced before the mode was enabled: as TensorFlow, the call is
    checked as one eagerly-executing op named `__inference_<function>`, on its outputs.

Programs compiled while the mode is on check after each op themselves (`graph/compiler.py`
asks `graph_checks()` at compile time and reports through `graph_error`), and keep checking
after the mode is disabled, as TensorFlow's traced CheckNumericsV2 ops do.

Compiled backward passes of eager tapes are turned off while any thread checks, so each op of
a backward pass runs (and is checked) by itself; the message then names the forward op whose
derivative rule made it.
"""

from __future__ import annotations

import linecache
import os
import sys
import threading
from typing import Any, Callable, Optional, Sequence

import numpy as np

from tapeflow.autodiff import backprop, core
from tapeflow.framework.context import context, rerun_kernel
from tapeflow.framework.errors import InvalidArgumentError
from tapeflow.framework.tensor import wrap
from tapeflow.framework.variables import Variable

# TensorFlow skips these ops' outputs (check_numerics_callback's SAFE_OPS and the op callbacks'
# OP_CALLBACK_SKIP_OPS): they move values without making new ones.
SKIPPED_OPS = frozenset({
    "Concat", "ConcatV2", "ExpandDims", "Fill", "Gather", "Maximum", "Minimum", "Reshape",
    "Slice", "Squeeze", "Stack", "StridedSlice", "StridedSliceGrad", "TensorListConcatV2",
    "TensorListGather", "TensorListGetItem", "TensorListPopBack", "TensorListStack",
    "Transpose", "Unpack", "Enter", "Exit", "Identity", "If", "LoopCond", "Merge",
    "NextIteration", "StatelessIf", "StatefulPartitionedCall", "Switch", "While",
    "CheckNumerics", "CheckNumericsV2"})

_EAGER_PREFIX = ("{{function_node __wrapped__CheckNumericsV2_device_/job:localhost/replica:0/"
                 "task:0/device:CPU:0}} ")

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

_threads = threading.local()   # .limits: (stack_height_limit, path_length_limit) while on
_checking_threads = [0]        # how many threads check (compiled backward passes are off)
_saved_backprop: list = []     # the compiled-backprop hook while it is off
_lock = threading.Lock()


def enabled() -> bool:
    """Whether this thread checks numerics."""
    return getattr(_threads, "limits", None) is not None


def graph_checks() -> Optional[tuple]:
    """For the compiler: this thread's (stack_height_limit, path_length_limit) while the mode
    is on (programs compiled now check after each op), else None."""
    return getattr(_threads, "limits", None)


def enable(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """Turns numerics checking on for this thread (idempotent: the first limits stay)."""
    if enabled():
        return
    state = context.state
    state.run_kernel(_noop)   # a pending first-kernel runner (framework.device) swaps itself now
    plain = state.run_kernel

    def checked_kernel(fn: Callable, *args: Any, **kwargs: Any) -> Any:
        try:
            raw = plain(fn, *args, **kwargs)
        except RuntimeError as exc:   # nested in another kernel (an eager while loop's body)
            raw = rerun_kernel(fn, args, kwargs, exc)
        if _has_bad_float(raw):
            _report(fn, args, raw, sys._getframe(1))
        return raw

    _threads.limits = (stack_height_limit, path_length_limit)
    _threads.plain = plain
    state.run_kernel = checked_kernel
    with _lock:
        _checking_threads[0] += 1
        if _checking_threads[0] == 1:
            _saved_backprop.append(backprop.hooks["compiled_backprop"])
            backprop.hooks["compiled_backprop"] = None


def disable() -> None:
    """Turns numerics checking off for this thread (idempotent), restoring the plain runner."""
    if not enabled():
        return
    context.state.run_kernel = _threads.plain
    _threads.limits = _threads.plain = None
    with _lock:
        _checking_threads[0] -= 1
        if _checking_threads[0] == 0:
            backprop.hooks["compiled_backprop"] = _saved_backprop.pop()


def _noop() -> None:
    return None


def _is_bad(array: Any) -> bool:
    dtype = getattr(array, "dtype", None)
    return dtype is not None and dtype.kind == "f" and not np.isfinite(array).all()


def _has_bad_float(raw: Any) -> bool:
    if isinstance(raw, (tuple, list)):
        return any(_is_bad(r) for r in raw)
    return _is_bad(raw)


# -- eager reports --------------------------------------------------------------------------------

def _report(fn: Callable, args: Sequence[Any], raw: Any, caller: Any) -> None:
    """Raises TF's error for an eager op (called by bind) or a call of a program compiled
    without checks; returns for other kernels (conversions, trace-time runs)."""
    if caller.f_code is core.bind.__code__ or caller.f_code is core.bind_eager_binary.__code__:
        local = caller.f_locals
        prim = local["prim"]
        inputs = local["inputs"] if "inputs" in local else (local["x"], local["y"])
        if prim.name in SKIPPED_OPS:
            return
        outputs = list(raw) if prim.multiple_results else [raw]
        raise _eager_error(prim.name, outputs, [_shown(x) for x in inputs], caller)
    program = getattr(fn, "program", None)
    if program is None or program.dry or program.checked or context.graph is not None:
        return
    graph = program.graph
    inputs = [wrap(a) for a in args[0][:len(graph.inputs)]]
    raise _eager_error(f"__inference_{graph.name}", list(raw), inputs, caller)


def _shown(x: Any) -> Any:
    return wrap(x._value) if isinstance(x, Variable) else x   # a variable shows its value


def _eager_error(op_type: str, outputs: list, inputs: list, frame: Any) -> InvalidArgumentError:
    slot = next(i for i, r in enumerate(outputs) if _is_bad(r))
    value = np.asarray(outputs[slot])
    tensor = wrap(value)
    inf = np.isinf(value)
    counts = (int(np.sum(inf & (value < 0))), int(np.sum(inf & (value > 0))),
              int(np.sum(np.isnan(value))))
    text = _header(slot, len(outputs), op_type, "eagerly-executing", str(tensor.dtype),
                   str(tensor.shape))
    for what, n in zip(("-Inf", "+Inf", "+NaN"), counts):
        if n:
            text += f"  # of {what} elements: {n}\n"
    text += _backward_line(rule_owner(frame))
    text += _inputs_text([str(x) for x in inputs])
    user = _user_frame(frame)
    if user is not None:
        location = (user.f_code.co_filename, user.f_lineno, user.f_code.co_name,
                    linecache.getline(user.f_code.co_filename, user.f_lineno).strip())
        text += _stack_text([location], *(_threads.limits or (30, 50)))
    text += "\n"
    return InvalidArgumentError(f"{_EAGER_PREFIX}{text} : Tensor had {_found(counts)} values "
                                f"[Op:CheckNumericsV2] name: ")


def rule_owner(frame: Any) -> Optional[str]:
    """The forward op whose derivative rule is running, when a backward walk is on the stack
    above `frame` (messages about backward-pass ops name it)."""
    if context.backward_depth <= 0:
        return None
    while frame is not None:
        if frame.f_code is backprop._walk.__code__:
            prim = frame.f_locals.get("prim")
            return getattr(prim, "name", None)
        frame = frame.f_back
    return None


def _user_frame(frame: Any) -> Any:
    while frame is not None and (frame.f_code.co_filename.startswith(_PACKAGE_DIR) or
                                 frame.f_code.co_filename.startswith("<")):
        frame = frame.f_back
    return frame


# -- the message's parts (TF's get_check_numerics_error_message) ------------------------------

def _header(slot: int, num_outputs: int, op_type: str, kind: str, dtype: str,
            shape: str) -> str:
    return (f"\n\n!!! Detected Infinity or NaN in output {slot} of {kind} op \"{op_type}\" "
            f"(# of outputs: {num_outputs}) !!!\n  dtype: {dtype}\n  shape: {shape}\n")


def _backward_line(forward_op: Optional[str], graph: bool = False) -> str:
    """A tapeflow addition: which derivative rule made a backward-pass op."""
    if forward_op is not None:
        return f"  In the backward pass: made by the derivative rule of op \"{forward_op}\"\n"
    if graph:
        return "  In the backward pass (an op of a gradient)\n"
    return ""


def _inputs_text(inputs: list) -> str:
    if len(inputs) > 1:
        return f"\n  Input tensors ({len(inputs)}):\n" + "".join(
            f"         {i}: {x}\n" for i, x in enumerate(inputs))
    if inputs:
        return f"\n  Input tensor: {inputs[0]}\n"
    return ""


def _limit(path: str, limit: Optional[int]) -> str:
    return path if limit is None or len(path) <= limit else "..." + path[len(path) - limit:]


def _stack_text(locations: list, stack_height_limit: Optional[int],
                path_length_limit: Optional[int]) -> str:
    text = "\n  Stack trace of op's creation (\"->\": inferred user code):\n"
    if stack_height_limit is not None and len(locations) > stack_height_limit:
        text += f"    + ... (Omitted {len(locations) - stack_height_limit} frames)\n"
        locations = locations[-stack_height_limit:]
    for filename, line, function, code in locations:
        text += f"    + {_limit(filename, path_length_limit)} (L{line}) {function}\n"
        text += f" -> |   {code}\n"
    return text


def _found(counts: tuple) -> str:
    """CheckNumericsV2's list of what it found: '-Inf, +Inf, and NaN'."""
    parts = [what for what, n in zip(("-Inf", "+Inf", "NaN"), counts) if n]
    if len(parts) <= 2:
        return " and ".join(parts)
    return ", ".join(parts[:-1]) + ", and " + parts[-1]


# -- graph reports (raised by programs compiled while the mode was on) -------------------------

def graph_error(program: Any, index: int, slot: int, value: Any) -> None:
    """Raises TF's error for output `slot` of node `index` of a checked program."""
    graph = program.graph
    node = graph.nodes[index]
    info = graph.values[node.outputs[slot]]
    value = np.asarray(value)
    inf = np.isinf(value)
    counts = (int(np.sum(inf & (value < 0))), int(np.sum(inf & (value > 0))),
              int(np.sum(np.isnan(value))))
    dtype = str(wrap(np.zeros((), info.dtype)).dtype)
    text = _header(slot, len(node.outputs), node.op_name, "graph", dtype, str(info.shape))
    text += _backward_line(node.made_by, graph=node.phase == "backward")
    text += _inputs_text([_graph_tensor_text(graph.values[v]) for v in node.inputs])
    text += f"  Graph name: \"{graph.name}\"\n"
    stack_height_limit, path_length_limit = program.checked
    if node.location[1]:
        text += _stack_text([node.location], stack_height_limit, path_length_limit)
    text = text.lstrip("\n") + "\n"   # TF's graph text follows the "Detected at" frames
    filename, line, function, _ = node.location
    check = f"{node.name}/CheckNumericsV2"
    error = InvalidArgumentError(
        f"Graph execution error:\n\nDetected at node {check} defined at (most recent call "
        f"last):\n  File \"{filename}\", line {line}, in {function}\n\n{text} : Tensor had "
        f"{_found(counts)} values\n\t [[{{{{node {check}}}}}]] [Op:__inference_{graph.name}]")
    error._tapeflow_numerics = True   # the compiler passes it on as it is
    raise error


def _graph_tensor_text(info: Any) -> str:
    if info.kind == "var":
        return f'Tensor("{info.name}", shape=(), dtype=resource)'
    dtype = wrap(np.zeros((), info.dtype)).dtype.name
    return f'Tensor("{info.name}", shape={info.shape}, dtype={dtype})'


def checked_outputs(node: Any, values: Sequence[Any]) -> list:
    """For the compiler: the output slots of `node` a checked program tests (float outputs of
    ops TensorFlow does not skip)."""
    if node.op_name in SKIPPED_OPS or isinstance(node.op, str) and \
            node.op != "ReadVariableOp":
        return []
    return [slot for slot, v in enumerate(node.outputs)
            if values[v].dtype is not None and values[v].dtype.kind == "f"]


__all__ = ["enable", "disable", "enabled", "graph_checks", "graph_error", "checked_outputs",
           "SKIPPED_OPS"]
