"""Which functions AutoGraph converts, and the conversion of one function object.

A function is converted from its source (found through `linecache`, so functions typed into a
notebook convert too): the module's source is parsed, the function's definition found by its
line, rewritten (`transformer`), compiled under the user's file name and line numbers, and
turned back into a function that shares the original's globals, closure cells and defaults.
Converted code calls other functions through `converted_call`, which converts them in turn:
not tapeflow's own code, the standard library, NumPy and the like, nor functions marked
`do_not_convert`. Where the source cannot be had, the function runs as it is, with
TensorFlow's warning.
"""

from __future__ import annotations

import __future__
import ast
import builtins
import functools
import inspect
import linecache
import logging
import sys
import types
import weakref
from typing import Any, Callable, Optional

from tapeflow.framework.context import context
from tapeflow.graph.ir import SymbolicTensor
from tapeflow.autograph import transformer

logger = logging.getLogger("tapeflow")

# Top-level modules whose functions run as they are (TensorFlow's list, plus tapeflow).
_DO_NOT_CONVERT = {"tapeflow", "tensorflow", "keras", "numpy", "scipy", "pandas", "matplotlib",
                   "PIL", "absl", "mock", "ipdb", "pdb", "IPython", "torch", "jax", "h5py"}

_converted_code: dict = {}   # id(code) -> (code, user function name, lambda source or None)
_cache: dict = {}                   # original code -> (converted code or None, reason)
_functions: Any = weakref.WeakKeyDictionary()   # original function -> converted function
_warned: set = set()


def do_not_convert(func: Optional[Callable] = None) -> Any:
    """Marks `func` to run as it is inside converted code (`tf.autograph.experimental`)."""
    def mark(f: Callable) -> Callable:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return f(*args, **kwargs)
        wrapper.__ag_do_not_convert__ = True
        return wrapper
    return mark if func is None else mark(func)


def convert(func: Callable, warn: bool = True) -> Callable:
    """`func` converted (or itself where it is not to be, or cannot be, converted)."""
    if isinstance(func, functools.partial):
        inner = convert(func.func, warn)
        return func if inner is func.func else functools.partial(inner, *func.args,
                                                                **func.keywords)
    if inspect.ismethod(func):
        inner = convert(func.__func__, warn)
        return func if inner is func.__func__ else types.MethodType(inner, func.__self__)
    if not isinstance(func, types.FunctionType) or not _may_convert(func):
        return func
    try:
        return _functions[func]
    except (KeyError, TypeError):
        pass
    converted = _convert_function(func, warn)
    try:
        _functions[func] = converted
    except TypeError:
        pass
    return converted


def is_converted_code(code: types.CodeType) -> bool:
    """Whether `code` came out of a conversion (a converted function or one it defines)."""
    entry = _converted_code.get(id(code))
    return entry is not None and entry[0] is code


def user_function_name(code: types.CodeType) -> str:
    """The name of the user's function a converted code object runs (for a function
    AutoGraph generated, the one it was generated in; `None` for a converted lambda, as TF
    names it)."""
    entry = _converted_code.get(id(code))
    return entry[1] if entry is not None and entry[0] is code else code.co_name


def converted_lambda_source(code: types.CodeType) -> Optional[str]:
    """The source TF shows for a frame of a converted lambda (the lambda alone, as parsed and
    unparsed), or None for any other code."""
    entry = _converted_code.get(id(code))
    return entry[2] if entry is not None and entry[0] is code else None


def _may_convert(func: types.FunctionType) -> bool:
    if getattr(func, "__ag_do_not_convert__", False) or is_converted_code(func.__code__):
        return False
    module = (getattr(func, "__module__", None) or "").split(".")[0]
    if module in _DO_NOT_CONVERT or module in getattr(sys, "stdlib_module_names", ()):
        return False
    return True


def _convert_function(func: types.FunctionType, warn: bool) -> Callable:
    code = func.__code__
    if code not in _cache:
        try:
            _cache[code] = (_converted_code_for(func), None)
        except (transformer.ConversionError, OSError, TypeError, SyntaxError,
                LookupError) as exc:
            _cache[code] = (None, str(exc) or type(exc).__name__)
    new_code, reason = _cache[code]
    if new_code is None:
        if warn and code not in _warned:
            _warned.add(code)
            logger.warning(f"AutoGraph could not transform {func!r} and will run it as-is.\n"
                           f"Cause: {reason}\nTo silence this warning, decorate the function "
                           f"with @tf.autograph.experimental.do_not_convert")
        return func
    return _rebuild(func, new_code)


def _rebuild(func: types.FunctionType, code: types.CodeType) -> Callable:
    """A function running `code` with `func`'s globals, defaults and closure cells."""
    from tapeflow.autograph import operators
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    closure = tuple(types.CellType(operators) if name == transformer._GENERATED
                    else cells[name] for name in code.co_freevars)
    new = types.FunctionType(code, func.__globals__, func.__name__, func.__defaults__,
                             closure or None)
    new.__kwdefaults__ = func.__kwdefaults__
    new.__qualname__ = func.__qualname__
    new.__doc__ = func.__doc__
    new.__dict__.update(func.__dict__)
    new.__wrapped__ = func
    return new


# -- source ---------------------------------------------------------------------------------------

def _definition(func: types.FunctionType) -> ast.AST:
    """The FunctionDef (or Lambda) node of `func` in its module's source."""
    code = func.__code__
    lines = linecache.getlines(code.co_filename, func.__globals__)
    if not lines:
        linecache.checkcache(code.co_filename)
        lines = linecache.getlines(code.co_filename)
    if not lines:
        raise transformer.ConversionError(
            f"Unable to locate the source code of {func!r}. Note that functions defined in "
            f"certain environments, like the interactive Python shell, do not expose their "
            f"source code. If that is the case, you should define them in a .py source file. "
            f"If you are certain the code is graph-compatible, wrap the call using "
            f"@tf.autograph.experimental.do_not_convert. Original error: could not get "
            f"source code")
    tree = _parsed("".join(lines), code.co_filename)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.name == code.co_name:
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            if code.co_firstlineno in (first, node.lineno):
                found.append(node)
        elif isinstance(node, ast.Lambda) and code.co_name == "<lambda>" and \
                node.lineno == code.co_firstlineno and \
                [a.arg for a in node.args.args] == list(code.co_varnames[:code.co_argcount]):
            found.append(node)
    if len(found) != 1:
        raise transformer.ConversionError(
            "could not get source code" if not found else
            "the source code of the function is ambiguous (several lambdas on one line)")
    if isinstance(found[0], ast.AsyncFunctionDef):
        raise transformer.ConversionError("async functions are not supported")
    return found[0]


_trees: dict = {}    # file name -> (its source, its AST): a module's functions parse it once


def _parsed(source: str, filename: str) -> ast.AST:
    cached = _trees.get(filename)
    if cached is not None and cached[0] == source:
        return cached[1]
    try:
        tree = ast.parse(source, filename)
    except SyntaxError:
        raise transformer.ConversionError("could not parse the source code") from None
    _trees[filename] = (source, tree)
    return tree


def _converted_code_for(func: types.FunctionType) -> types.CodeType:
    node = _definition(func)
    code = func.__code__
    lambda_source = ast.unparse(node) if isinstance(node, ast.Lambda) else None
    method_self = code.co_varnames[0] if "__class__" in code.co_freevars and \
        code.co_argcount else None
    converted = transformer.convert_function(node, method_self)
    params = [transformer._GENERATED] + [n for n in code.co_freevars]
    if isinstance(converted, ast.Lambda):
        body: list = [ast.Return(value=converted)]
    else:
        body = [converted, ast.Return(value=transformer._name(converted.name))]
        if converted.name not in code.co_freevars:
            # The definition must not make its own name a local of the factory: a recursive
            # call reads the module's global, as in the original.
            body.insert(0, ast.Global(names=[converted.name]))
    factory = ast.FunctionDef(name="ag__factory", args=transformer._params(params), body=body,
                              decorator_list=[], returns=None, type_comment=None)
    if "type_params" in ast.FunctionDef._fields:
        factory.type_params = []
    module = ast.Module(body=[factory], type_ignores=[])
    transformer._loc(factory, node)
    ast.fix_missing_locations(module)
    flags = code.co_flags & _FUTURE_FLAGS
    compiled = compile(module, code.co_filename, "exec", flags=flags, dont_inherit=True)
    factory_code = _find_code(compiled, "ag__factory")
    target = _find_code(factory_code, code.co_name)
    for sub, owner in _all_code(compiled, code.co_name):
        if lambda_source is not None and owner == "<lambda>":
            _converted_code[id(sub)] = (sub, "None", lambda_source)
        else:
            _converted_code[id(sub)] = (sub, owner, None)
    return target


_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag


def _find_code(code: types.CodeType, name: str) -> types.CodeType:
    for const in code.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == name:
            return const
    raise transformer.ConversionError(f"internal: no code object {name!r}")


def _all_code(code: types.CodeType, owner: str) -> list:
    """(code object, the name of the user's function it belongs to) for `code` and every code
    object inside it: a function AutoGraph generated belongs to the function it was made in."""
    if not code.co_name.startswith(transformer._GENERATED) and code.co_name != "<module>":
        owner = code.co_name
    out = [(code, owner)]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out += _all_code(const, owner)
    return out


def source_of(func: Callable) -> str:
    """The converted source of `func` (`tf.autograph.to_code`)."""
    func = getattr(func, "python_function", func)
    if inspect.ismethod(func):
        func = func.__func__
    node = _definition(func)
    code = func.__code__
    method_self = code.co_varnames[0] if "__class__" in code.co_freevars else None
    return ast.unparse(transformer.convert_function(node, method_self)) + "\n"


# -- calls from converted code --------------------------------------------------------------------

# graph -> {id(tf.range tensor): (tensor, start, limit, delta)}: a `for` over such a tensor
# counts instead of reading the tensor's elements.
_ranges: Any = weakref.WeakKeyDictionary()


def _remember_range(result: SymbolicTensor, args: tuple, kwargs: dict) -> None:
    """Records the bounds a tf.range call gave `result`, in its dtype (TF casts them)."""
    from tapeflow.ops import math_ops
    from tapeflow.ops._convert import convert_to_tensor
    names = ("start", "limit", "delta")
    values = dict(zip(names, args))
    values.update({k: v for k, v in kwargs.items() if k in names})
    if values.get("limit") is None:      # tf.range(n) counts from 0 to n
        values["start"], values["limit"] = 0, values["start"]
    values.setdefault("delta", 1)
    bounds = tuple(math_ops.cast(convert_to_tensor(values[n]), result.dtype) for n in names)
    _ranges.setdefault(result._graph, {})[id(result)] = (result, *bounds)


def range_bounds(tensor: SymbolicTensor) -> Optional[tuple]:
    """(start, limit, delta) of a tensor a converted call to tf.range / range made."""
    entry = _ranges.get(tensor._graph, {}).get(id(tensor))
    return entry[1:] if entry is not None and entry[0] is tensor else None


def _is_traced_value(x: Any) -> bool:
    return isinstance(x, SymbolicTensor)


def converted_call(func: Callable, args: tuple, kwargs: dict) -> Any:
    """Calls `func(*args, **kwargs)` from converted code, converting `func` first where it
    should be (and overloading the builtins `range` and `len` for tensors)."""
    from tapeflow.ops import array_ops
    if func is builtins.range and context.graph is not None and \
            any(_is_traced_value(a) for a in args):
        func = array_ops.range     # range() of a traced tensor is tf.range, as TF's overload
    if func is array_ops.range:
        result = func(*args, **kwargs)
        if isinstance(result, SymbolicTensor):
            _remember_range(result, args, kwargs)
        return result
    if func is builtins.len and len(args) == 1 and isinstance(args[0], SymbolicTensor):
        return _tensor_len(args[0])
    target = func
    if not isinstance(func, (types.FunctionType, types.MethodType, functools.partial)):
        call = None if isinstance(func, type) else next(
            (k.__dict__["__call__"] for k in type(func).__mro__ if "__call__" in k.__dict__),
            None)
        if isinstance(call, types.FunctionType) and not isinstance(func, type) and \
                _may_convert(call):
            target = types.MethodType(convert(call), func)
    else:
        target = convert(func)
    return target(*args, **kwargs)


def _tensor_len(x: Any) -> Any:
    from tapeflow.ops import array_ops
    if x.shape.rank == 0:
        raise ValueError("len requires a non-scalar tensor, got one of shape []")
    if x.shape.rank is not None and x.shape[0] is not None:
        return x.shape[0]
    return array_ops.shape(x)[0]

