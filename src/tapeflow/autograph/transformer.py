"""The source rewrite: a function's AST in, the AST of its converted form out.

The rewrite runs in passes over one function definition (nested definitions are rewritten with
it, each as its own scope):

1. jumps: `return` inside control flow, `break` and `continue` become flag variables; the
   statements a jump skips are guarded by `if not flag:` (TensorFlow's lowering, so that a
   tensor condition can decide a jump);
2. liveness: for each `if`, `while` and `for`, which of the names it assigns are read later
   (these become its outputs or loop state; the rest are temporaries of the statement);
3. control flow: each `if` / `while` / `for` becomes functions of the names it assigns and a
   call of `ag__.if_stmt` / `while_stmt` / `for_stmt`, which decide at run time whether the
   condition (or iterable) is a tensor;
4. expressions: calls become `ag__.converted_call` (so callees are converted too), `and` /
   `or` / `not` and conditional expressions become lazy `ag__` calls.

Generated statements take the location of the statement they replace, so tracebacks and
TensorFlow's "in user code" pointer name the user's own line.
"""

from __future__ import annotations

import ast
import copy
import itertools
from typing import Iterable, Optional

# Names the rewrite introduces. Flags and return values are ordinary variables of the user's
# function (they may be loop state); `ag__`-prefixed names are generated functions.
RETURN_FLAG = "do_return__"
RETURN_VALUE = "retval__"
_GENERATED = "ag__"


class ConversionError(Exception):
    """The function uses a construct AutoGraph does not convert; it runs unconverted."""


def _loc(new: ast.AST, old: ast.AST) -> ast.AST:
    """`new` (and every node under it without a location) placed at the first line of
    `old` (a whole statement's span would make Python report its last line for calls)."""
    for node in ast.walk(new):
        if "lineno" in node._attributes and not hasattr(node, "lineno"):
            node.lineno = node.end_lineno = old.lineno
            node.col_offset = node.end_col_offset = old.col_offset
    return new


def _name(id_: str, store: bool = False) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _ag(attr: str) -> ast.Attribute:
    return ast.Attribute(value=_name(_GENERATED), attr=attr, ctx=ast.Load())


def _call(func: ast.expr, *args: ast.expr) -> ast.Call:
    return ast.Call(func=func, args=list(args), keywords=[])


def _assign(target: str, value: ast.expr) -> ast.Assign:
    return ast.Assign(targets=[_name(target, store=True)], value=value)


def _lambda(body: ast.expr) -> ast.Lambda:
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                         kw_defaults=[], kwarg=None, defaults=[]), body=body)


def _not(flag: str) -> ast.expr:
    return _call(_ag("not_"), _name(flag))


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.While, ast.For)


def _walk_scope(node: ast.AST) -> Iterable[ast.AST]:
    """The nodes under `node` in its own scope (not inside nested definitions)."""
    for child in ast.iter_child_nodes(node):
        yield child
        if not isinstance(child, _SCOPES):
            yield from _walk_scope(child)


def _contains(stmts: list, kinds: tuple, into_loops: bool) -> bool:
    """True when a statement of `kinds` occurs in `stmts` (same scope; inside nested loops
    only when `into_loops`)."""
    for stmt in stmts:
        if isinstance(stmt, kinds):
            return True
        if isinstance(stmt, _SCOPES):
            continue
        if isinstance(stmt, _LOOPS) and not into_loops:
            continue
        for block in _blocks(stmt):
            if _contains(block, kinds, into_loops):
                return True
    return False


def _blocks(stmt: ast.stmt) -> list:
    """The statement lists nested directly in `stmt`."""
    blocks = [getattr(stmt, field) for field in ("body", "orelse", "finalbody")
              if isinstance(getattr(stmt, field, None), list)]
    blocks += [h.body for h in getattr(stmt, "handlers", [])]
    blocks += [c.body for c in getattr(stmt, "cases", [])]
    return blocks


# -- pass 0: what is not converted ----------------------------------------------------------------

def check_supported(fdef: ast.AST) -> None:
    """Raises ConversionError for what TensorFlow's AutoGraph does not convert either."""
    for node in _walk_scope(fdef):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            raise ConversionError("generators are not supported")
        if isinstance(node, ast.While) and node.orelse:
            raise ConversionError("while/else statement not yet supported")
        if isinstance(node, ast.For) and node.orelse:
            raise ConversionError("for/else statement not yet supported")
        if isinstance(node, (ast.AsyncFor, ast.AsyncWith, ast.Await)):
            raise ConversionError("async code is not supported")


# -- pass 1: jumps --------------------------------------------------------------------------------

def _always_returns(stmts: list) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    return False


def _move_rest_into_branches(stmts: list) -> list:
    """`if c: ...return` followed by more statements: the rest moves into the `else`, so
    both branches of a tensor `if` define the return value (TensorFlow's rewrite)."""
    out: list = []
    for i, stmt in enumerate(stmts):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list) and not isinstance(stmt, _SCOPES):
                setattr(stmt, field, _move_rest_into_branches(block))
        out.append(stmt)
        rest = stmts[i + 1:]
        if isinstance(stmt, ast.If) and rest:
            if _always_returns(stmt.body) and not _always_returns(stmt.orelse):
                stmt.orelse = _move_rest_into_branches(stmt.orelse + rest)
                return out
            if _always_returns(stmt.orelse) and not _always_returns(stmt.body):
                stmt.body = _move_rest_into_branches(stmt.body + rest)
                return out
    return out


class _Jumps:
    """Lowers one kind of jump (return, or one loop's break / continue) to a flag."""

    def __init__(self, kinds: tuple, flag: str, into_loops: bool) -> None:
        self.kinds = kinds
        self.flag = flag
        self.into_loops = into_loops

    def replacement(self, stmt: ast.stmt) -> list:
        out = [_assign(self.flag, ast.Constant(True))]
        if isinstance(stmt, ast.Return):
            out.append(_assign(RETURN_VALUE, stmt.value or ast.Constant(None)))
        return [_loc(s, stmt) for s in out]

    def may_jump(self, stmt: ast.stmt) -> bool:
        if isinstance(stmt, self.kinds):
            return True
        if isinstance(stmt, _SCOPES) or (isinstance(stmt, _LOOPS) and not self.into_loops):
            return False
        return any(_contains(b, self.kinds, self.into_loops) for b in _blocks(stmt))

    def lower(self, stmts: list) -> list:
        out: list = []
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, self.kinds):
                out += self.replacement(stmt)
                return out          # what follows a jump in its block never runs
            jumps = self.may_jump(stmt)
            if jumps:
                self._lower_inside(stmt)
            out.append(stmt)
            rest = stmts[i + 1:]
            if jumps and rest:
                guard = ast.If(test=_not(self.flag), body=self.lower(rest), orelse=[])
                out.append(_loc(guard, rest[0]))
                return out
        return out

    def _lower_inside(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, _LOOPS):
            # A return inside a loop also ends the loop.
            stmt.body = self.lower(stmt.body)
            _add_loop_guard(stmt, self.flag)
            return
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list) and block:
                setattr(stmt, field, self.lower(block) or [ast.Pass()])
        for part in getattr(stmt, "handlers", []) + getattr(stmt, "cases", []):
            part.body = self.lower(part.body) or [ast.Pass()]


def _add_loop_guard(loop: ast.stmt, flag: str) -> None:
    """The loop stops once `flag` is set (checked before each iteration)."""
    if isinstance(loop, ast.While):
        loop.test = _loc(_call(_ag("and_"), _lambda(_not(flag)), _lambda(loop.test)), loop.test)
    else:
        loop.ag_extra_tests = getattr(loop, "ag_extra_tests", []) + [flag]


def lower_returns(fdef: ast.FunctionDef) -> None:
    fdef.body = _move_rest_into_branches(fdef.body)
    nested = any(_contains(block, (ast.Return,), into_loops=True)
                 for stmt in fdef.body if not isinstance(stmt, _SCOPES)
                 for block in _blocks(stmt))
    if not nested:
        return
    jumps = _Jumps((ast.Return,), RETURN_FLAG, into_loops=True)
    body = jumps.lower(fdef.body)
    start = [_assign(RETURN_FLAG, ast.Constant(False)),
             _assign(RETURN_VALUE, _call(_ag("UndefinedReturnValue")))]
    end = ast.Return(value=_call(_ag("retval"), _name(RETURN_VALUE)))
    fdef.body = [_loc(s, fdef.body[0]) for s in start] + body + \
        [_loc(end, fdef.body[-1])]


_counter = itertools.count(1)


def lower_loop_jumps(node: ast.AST) -> None:
    """Lowers `break` and `continue` of every loop in `node`'s scope, innermost first."""
    for child in list(_walk_scope(node)):
        if not isinstance(child, _LOOPS):
            continue
        lower_loop_jumps(child)
        n = next(_counter)
        if _contains(child.body, (ast.Continue,), into_loops=False):
            flag = f"continue__{n}"
            body = _Jumps((ast.Continue,), flag, into_loops=False).lower(child.body)
            child.body = [_loc(_assign(flag, ast.Constant(False)), child.body[0])] + body
        if _contains(child.body, (ast.Break,), into_loops=False):
            flag = f"break__{n}"
            child.body = _Jumps((ast.Break,), flag, into_loops=False).lower(child.body)
            child.ag_init = getattr(child, "ag_init", []) + [flag]
            _add_loop_guard(child, flag)


def _loops_with_init(stmts: list) -> list:
    """Statements with each loop's flag initializations (`break__n = False`) before it."""
    out = []
    for stmt in stmts:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list) and not isinstance(stmt, _SCOPES):
                setattr(stmt, field, _loops_with_init(block))
        for part in getattr(stmt, "handlers", []) + getattr(stmt, "cases", []):
            part.body = _loops_with_init(part.body)
        for flag in getattr(stmt, "ag_init", []):
            out.append(_loc(_assign(flag, ast.Constant(False)), stmt))
        out.append(stmt)
    return out


# -- pass 2: liveness -----------------------------------------------------------------------------

def _loads(node: ast.AST) -> set:
    """Names `node` reads (inside nested lambdas and comprehensions too, less their own)."""
    names: set = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            names.add(sub.id)
    return names


def _stores(node: ast.AST) -> set:
    """Names `node` binds in its own scope (the name of a nested definition included)."""
    names: set = set()
    nodes = [node] if isinstance(node, _SCOPES) else [node, *_walk_scope(node)]
    for sub in nodes:
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            names.add(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(sub.name)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in sub.names)
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            names.add(sub.name)
    return {n for n in names if not n.startswith(_GENERATED)}


def _comprehension_locals(node: ast.AST) -> set:
    return {n.id for sub in ast.walk(node) if isinstance(sub, ast.comprehension)
            for n in ast.walk(sub.target) if isinstance(n, ast.Name)}


def _stores_in_scope(node: ast.AST) -> set:
    return _stores(node) - _comprehension_locals(node)


def _live_before(stmts: list, live: set) -> set:
    for stmt in reversed(stmts):
        live = _live_before_stmt(stmt, live)
    return live


def _live_before_stmt(stmt: ast.stmt, live: set) -> set:
    if isinstance(stmt, ast.If):
        stmt.ag_live_out = set(live)
        return _loads(stmt.test) | _live_before(stmt.body, live) | \
            _live_before(stmt.orelse, live)
    if isinstance(stmt, ast.While):
        stmt.ag_live_out = set(live)
        head = live | _loads(stmt.test)
        while True:
            new = live | _loads(stmt.test) | _live_before(stmt.body, head)
            if new == head:
                break
            head = new
        stmt.ag_live_head = head
        return head
    if isinstance(stmt, ast.For):
        stmt.ag_live_out = set(live)
        targets = _stores(stmt.target)
        head = set(live)
        while True:
            new = live | (_live_before(stmt.body, head) - targets) | \
                set(getattr(stmt, "ag_extra_tests", []))
            if new == head:
                break
            head = new
        stmt.ag_live_head = head
        return head | _loads(stmt.iter)
    if isinstance(stmt, ast.With):
        bound = set().union(*(_stores(item.optional_vars) for item in stmt.items
                              if item.optional_vars is not None))
        return (_live_before(stmt.body, live) - bound) | \
            set().union(*(_loads(item.context_expr) for item in stmt.items))
    if isinstance(stmt, ast.Try) or hasattr(stmt, "handlers"):
        inner = set(live)
        for block in reversed(_blocks(stmt)):
            inner |= _live_before(block, live)
        return inner | _loads_outside_blocks(stmt)
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (live - {stmt.name}) | _loads(stmt)
    kills = _stores_in_scope(stmt) if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Import,
                                                       ast.ImportFrom, ast.Delete)) else set()
    return (live - kills) | _loads(stmt)


def _loads_outside_blocks(stmt: ast.stmt) -> set:
    names: set = set()
    for field, value in ast.iter_fields(stmt):
        if field in ("body", "orelse", "finalbody", "handlers"):
            continue
        for sub in value if isinstance(value, list) else [value]:
            if isinstance(sub, ast.AST):
                names |= _loads(sub)
    for handler in getattr(stmt, "handlers", []):
        if handler.type is not None:
            names |= _loads(handler.type)
    return names


# -- pass 3: control flow -------------------------------------------------------------------------

class _ControlFlow(ast.NodeTransformer):
    """Rewrites `if` / `while` / `for` into functions and `ag__` calls, innermost first."""

    def __init__(self, global_names: set, nonlocal_names: set, always_live: set) -> None:
        # Names declared global / nonlocal are never state: generated functions declare them
        # too, so that their assignments reach the same variable.
        self.global_names = global_names
        self.nonlocal_names = nonlocal_names
        self.declared = global_names | nonlocal_names
        # Names liveness cannot follow (read by a nested function when it is called, or
        # through locals()): every statement that assigns them gives them back.
        self.always_live = always_live

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node     # nested definitions are converted as their own scopes

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node

    def _modified(self, stmt: ast.stmt) -> list:
        return sorted(_stores_in_scope(stmt) - self.declared)

    def _function(self, name: str, params: list, body: list, returns: Optional[list],
                  where: ast.AST) -> ast.FunctionDef:
        assigned = _stores_in_scope(ast.Module(body=body, type_ignores=[]))
        stmts: list = []
        if self.global_names & assigned:
            stmts.append(ast.Global(names=sorted(self.global_names & assigned)))
        if self.nonlocal_names & assigned:
            stmts.append(ast.Nonlocal(names=sorted(self.nonlocal_names & assigned)))
        stmts += body or [ast.Pass()]
        if returns is not None:
            stmts.append(ast.Return(value=ast.Tuple(elts=[_name(n) for n in returns],
                                                    ctx=ast.Load())))
        fn = ast.FunctionDef(name=name, args=_params(params), body=stmts, decorator_list=[],
                             returns=None, type_comment=None)
        if "type_params" in ast.FunctionDef._fields:
            fn.type_params = []
        return _loc(fn, where)

    def _call_statement(self, outputs: list, call: ast.Call, where: ast.AST) -> ast.stmt:
        if outputs:
            target = ast.Tuple(elts=[_name(n, store=True) for n in outputs], ctx=ast.Store())
            return _loc(ast.Assign(targets=[target], value=call), where)
        return _loc(ast.Expr(value=call), where)

    def visit_If(self, node: ast.If) -> list:
        self.generic_visit(node)
        n = next(_counter)
        modified = self._modified(node)
        outputs = [m for m in modified if m in node.ag_live_out or m in self.always_live]
        body = self._function(f"ag__if_body_{n}", modified, node.body, outputs, node)
        orelse = self._function(f"ag__else_body_{n}", modified, node.orelse, outputs, node)
        call = _call(_ag("if_stmt"), node.test, _name(body.name), _name(orelse.name),
                     _state(modified), _names(outputs))
        return [body, orelse, self._call_statement(outputs, call, node)]

    def visit_While(self, node: ast.While) -> list:
        options, node.body = _loop_options(node.body)
        self.generic_visit(node)
        n = next(_counter)
        state = [m for m in self._modified(node)
                 if m in node.ag_live_head or m in self.always_live]
        test = self._function(f"ag__loop_test_{n}", state, [], None, node)
        test.body = [_loc(ast.Return(value=node.test), node.test)]
        body = self._function(f"ag__loop_body_{n}", state, node.body, state, node)
        call = _call(_ag("while_stmt"), _name(test.name), _name(body.name), _state(state),
                     _names(state), options)
        return [test, body, self._call_statement(state, call, node)]

    def visit_For(self, node: ast.For) -> list:
        options, node.body = _loop_options(node.body)
        self.generic_visit(node)
        n = next(_counter)
        state = [m for m in self._modified(node)
                 if m in node.ag_live_head or m in self.always_live]
        item = f"ag__item_{n}"
        unpack = _loc(ast.Assign(targets=[node.target], value=_name(item)), node)
        body = self._function(f"ag__loop_body_{n}", [item] + state, [unpack] + node.body,
                              state, node)
        extra = getattr(node, "ag_extra_tests", [])
        out = [body]
        extra_name: ast.expr = ast.Constant(None)
        if extra:
            test = self._function(f"ag__extra_test_{n}", state, [], None, node)
            flags = [_not(f) for f in extra]
            value = flags[0] if len(flags) == 1 else ast.BoolOp(op=ast.And(), values=flags)
            test.body = [_loc(ast.Return(value=value), node)]
            out.insert(0, test)
            extra_name = _name(test.name)
        call = _call(_ag("for_stmt"), node.iter, extra_name, _name(body.name), _state(state),
                     _names(state), options)
        return out + [self._call_statement(state, call, node)]


def _params(names: list) -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def _names(names: list) -> ast.Tuple:
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def _state(names: list) -> ast.Call:
    """`ag__.ld(locals(), names)`: the names' current values (Undefined where unbound)."""
    return _call(_ag("ld"), _call(_name("locals")), _names(names))


def _loop_options(body: list) -> tuple:
    """`tf.autograph.experimental.set_loop_options(...)` at the top of a loop body, taken out
    of the body as the loop's options (a dict expression); `{}` when absent."""
    options: ast.expr = ast.Dict(keys=[], values=[])
    kept = []
    for stmt in body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        func = call.func if isinstance(call, ast.Call) else None
        name = func.attr if isinstance(func, ast.Attribute) else \
            func.id if isinstance(func, ast.Name) else None
        if name == "set_loop_options" and not call.args:
            options = ast.Dict(keys=[ast.Constant(k.arg) for k in call.keywords],
                               values=[k.value for k in call.keywords])
            _loc(options, stmt)
            continue
        kept.append(stmt)
    return options, kept or [ast.Pass()]


# -- pass 4: expressions --------------------------------------------------------------------------

_DIRECT_CALLS = {"super", "locals", "globals", "vars", "eval", "exec", "print", "isinstance",
                 "issubclass", "getattr", "setattr", "hasattr", "type", "id", "callable"}


class _Expressions(ast.NodeTransformer):
    """Calls through `converted_call`; lazy `and` / `or`; `not`; conditional expressions."""

    def __init__(self, method_self: Optional[str]) -> None:
        self.method_self = method_self   # the first parameter of a method using super()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        # The functions control flow generated are part of this scope; the user's nested
        # definitions were converted as their own.
        return self.generic_visit(node) if node.name.startswith(_GENERATED) else node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "super" and not node.args and \
                self.method_self:
            # Zero-argument super() reads the frame's first argument, which a generated
            # function would change: name both explicitly.
            node.args = [_name("__class__"), _name(self.method_self)]
            return node
        if isinstance(func, ast.Name) and (func.id in _DIRECT_CALLS or
                                           func.id.startswith(_GENERATED)):
            return node
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                func.value.id == _GENERATED:
            return node
        positional = ast.Tuple(elts=node.args, ctx=ast.Load())
        keywords = ast.Dict(keys=[ast.Constant(k.arg) if k.arg else None for k in node.keywords],
                            values=[k.value for k in node.keywords])
        return _loc(_call(_ag("converted_call"), func, positional, keywords), node)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        op = "and_" if isinstance(node.op, ast.And) else "or_"
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = _call(_ag(op), _lambda(value), _lambda(result))
        return _loc(result, node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return _loc(_call(_ag("not_"), node.operand), node)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        return _loc(_call(_ag("if_exp"), node.test, _lambda(node.body), _lambda(node.orelse)),
                    node)


# -- the whole rewrite ----------------------------------------------------------------------------

def _declared(fdef: ast.AST) -> tuple:
    glob, nonloc = set(), set()
    for node in _walk_scope(fdef):
        if isinstance(node, ast.Global):
            glob.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            nonloc.update(node.names)
    return glob, nonloc


def convert_function(fdef: ast.AST, method_self: Optional[str] = None) -> ast.AST:
    """The converted copy of a FunctionDef or Lambda node (nested definitions included)."""
    fdef = copy.deepcopy(fdef)
    if hasattr(fdef, "decorator_list"):
        fdef.decorator_list = []    # the function object given is already undecorated
    _convert_scope(fdef, method_self)
    return fdef


def _convert_scope(fdef: ast.AST, method_self: Optional[str]) -> None:
    if isinstance(fdef, ast.Lambda):
        fdef.body = _Expressions(method_self).visit(fdef.body)
        _convert_nested(fdef, method_self)
        return
    check_supported(fdef)
    lower_returns(fdef)
    lower_loop_jumps(fdef)
    fdef.body = _loops_with_init(fdef.body)
    _live_before(fdef.body, set())
    glob, nonloc = _declared(fdef)
    _convert_nested(fdef, method_self)
    flow = _ControlFlow(glob, nonloc, _read_behind_liveness(fdef))
    fdef.body = [s for stmt in fdef.body for s in _as_list(flow.visit(stmt))]
    expressions = _Expressions(method_self)
    fdef.body = [expressions.visit(s) for s in fdef.body]
    ast.fix_missing_locations(fdef)


_NAMESPACE_READERS = {"locals", "vars", "eval", "exec", "dir"}


def _read_behind_liveness(fdef: ast.AST) -> set:
    """The names of `fdef`'s scope that are read where liveness does not look: inside the
    nested functions and lambdas it defines (read when they are called, which may be after a
    later assignment), or all of them when it reads its namespace (`locals()`, `eval`)."""
    names: set = set()
    for node in _walk_scope(fdef):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            names |= _loads(node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in _NAMESPACE_READERS:
            return {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name)}
    return names


def _convert_nested(fdef: ast.AST, method_self: Optional[str]) -> None:
    for node in _walk_scope(fdef):
        if isinstance(node, ast.FunctionDef) and not node.name.startswith(_GENERATED):
            try:
                _convert_scope(node, method_self)
            except ConversionError:
                pass     # the nested function stays as written (converted_call retries it)


def _as_list(result: object) -> list:
    return result if isinstance(result, list) else [result]
