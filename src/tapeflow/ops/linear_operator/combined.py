"""Operators built from other operators: products, adjoints, inverses, block diagonals,
Kronecker products and low-rank updates."""

from __future__ import annotations

from typing import Optional

import numpy as np

from tapeflow.framework.exports import tf_export
from tapeflow.ops.linear_operator import _ops as T
from tapeflow.ops.linear_operator.base import (LinearOperator, as_tensor, broadcast_batch,
                                               check_dtype)


def _check_operators(operators) -> list:
    operators = list(operators)
    if not operators:
        raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
    dtypes = {op.dtype for op in operators}
    if len(dtypes) > 1:
        found = "   ".join(str((op.name, op.dtype)) for op in operators)
        raise TypeError(f"Expected all operators to have the same dtype.  Found {found}")
    return operators


def _all_true(values) -> Optional[bool]:
    return True if all(v is True for v in values) else None


def _inherited(hint: Optional[bool], operators, name: str) -> Optional[bool]:
    """A hint given, else True where every operator is sure of it (else unknown)."""
    return hint if hint is not None else _all_true(getattr(op, name) for op in operators)


def _maybe_adjoint(x, adjoint_arg: bool):
    return T.adjoint(x) if adjoint_arg else x


def _pick(given, inner):
    """A hint given to a wrapper, else the wrapped operator's."""
    return inner if given is None else given


def _wrap(wrapper, operator, is_non_singular, is_self_adjoint, is_positive_definite,
          is_square, name) -> None:
    """Initializes an operator that wraps `operator` (its adjoint or inverse): the hints not
    given are the wrapped operator's."""
    LinearOperator.__init__(
        wrapper, operator.dtype, None, _pick(is_non_singular, operator.is_non_singular),
        _pick(is_self_adjoint, operator.is_self_adjoint),
        _pick(is_positive_definite, operator.is_positive_definite),
        _pick(is_square, operator.is_square), name=name,
        parameters=dict(operator=operator, name=name))


class _OperatorList(LinearOperator):
    """An operator made of a list of operators of one dtype (`self._operators`, checked by
    `_check_operators` before the hints that follow from them)."""

    def _init_over(self, operators, separator: str, is_non_singular, is_self_adjoint,
                   is_positive_definite, is_square, name: Optional[str]) -> None:
        name = name or separator.join(op.name for op in self._operators)
        LinearOperator.__init__(self, self._operators[0].dtype, None, is_non_singular,
                                is_self_adjoint, is_positive_definite, is_square, name=name,
                                parameters=dict(operators=operators, name=name))

    @property
    def operators(self) -> list:
        """The operators, in order: factors leftmost first, blocks top left first."""
        return list(self._operators)

    def _batch(self) -> list:
        return broadcast_batch(*[op.batch_shape.as_list() for op in self._operators])

    def _fold(self, method: str, combine):
        """`combine` over every operator's `method()`, first to last."""
        result = getattr(self._operators[0], method)()
        for op in self._operators[1:]:
            result = combine(result, getattr(op, method)())
        return result


@tf_export("linalg.LinearOperatorComposition")
class LinearOperatorComposition(_OperatorList):
    """The product A1 A2 ... An of operators, applied right to left, never multiplied out."""

    _EVENT_NDIMS = {"operators": None}

    def __init__(self, operators, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: Optional[bool] = None, name: Optional[str] = None):
        self._operators = _check_operators(operators)
        for left, right in zip(self._operators, self._operators[1:]):
            left._check_operator(right, False, False)
        if is_non_singular is None and all(op.is_square for op in self._operators):
            is_non_singular = _all_true(op.is_non_singular for op in self._operators)
        self._init_over(operators, "_o_", is_non_singular, is_self_adjoint,
                        is_positive_definite, is_square, name)

    def _shape(self):
        return self._batch() + [self._operators[0].range_dimension,
                                self._operators[-1].domain_dimension]

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        order = self._operators if adjoint else self._operators[::-1]
        for i, op in enumerate(order):
            x = op.matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg and i == 0)
        return x

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        order = self._operators[::-1] if adjoint else self._operators
        for i, op in enumerate(order):
            rhs = op.solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg and i == 0)
        return rhs

    def _determinant(self):
        if not all(op.is_square for op in self._operators):
            return super()._determinant()
        return self._fold("determinant", T.multiply)

    def _log_abs_determinant(self):
        if not all(op.is_square for op in self._operators):
            return super()._log_abs_determinant()
        return self._fold("log_abs_determinant", T.add)


@tf_export("linalg.LinearOperatorAdjoint")
class LinearOperatorAdjoint(LinearOperator):
    """The conjugate transpose A^H of an operator, acting through A's adjoint methods."""

    _EVENT_NDIMS = {"operator": None}

    def __init__(self, operator, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: Optional[bool] = None, name: Optional[str] = None):
        self._operator = operator
        name = name or operator.name + "_adjoint"
        _wrap(self, operator, is_non_singular, is_self_adjoint, is_positive_definite,
              is_square, name)

    @property
    def operator(self) -> LinearOperator:
        """The operator whose adjoint this is."""
        return self._operator

    def _shape(self):
        shape = self._operator.shape.as_list()
        return shape[:-2] + [shape[-1], shape[-2]]

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _to_dense(self):
        return T.adjoint(self._operator.to_dense())

    def _diag_part(self):
        return T.conj(self._operator.diag_part())

    def _determinant(self):
        return T.conj(self._operator.determinant())

    def _log_abs_determinant(self):
        return self._operator.log_abs_determinant()

    def _trace(self):
        return T.conj(self._operator.trace())

    def _adjoint_operator(self):
        return self._operator


@tf_export("linalg.LinearOperatorInversion")
class LinearOperatorInversion(LinearOperator):
    """The inverse A^-1 of a non-singular operator: its matmul is A's solve and back."""

    _EVENT_NDIMS = {"operator": None}

    def __init__(self, operator, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: Optional[bool] = None, name: Optional[str] = None):
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError(f"Argument `is_non_singular` or argument `operator` must have "
                             f"supplied hint `is_non_singular` equal to `True` or `None`. Found "
                             f"`operator.is_non_singular`: {operator.is_non_singular}, "
                             f"`is_non_singular`: {is_non_singular}.")
        if operator.is_square is False:
            raise ValueError("`operator` must be square, or have `is_square` set to `None`.")
        self._operator = operator
        name = name or operator.name + "_inv"
        _wrap(self, operator, is_non_singular, is_self_adjoint, is_positive_definite,
              is_square, name)

    @property
    def operator(self) -> LinearOperator:
        """The operator whose inverse this is."""
        return self._operator

    def _shape(self):
        return self._operator.shape

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return T.divide(T.ones_like(self._operator.determinant()),
                        self._operator.determinant())

    def _log_abs_determinant(self):
        return T.negative(self._operator.log_abs_determinant())

    def _inverse_operator(self):
        return self._operator


def _split_sizes(operators, adjoint: bool) -> list:
    return [op.range_dimension if adjoint else op.domain_dimension for op in operators]


@tf_export("linalg.LinearOperatorBlockDiag")
class LinearOperatorBlockDiag(_OperatorList):
    """A block-diagonal operator whose diagonal blocks are square operators."""

    _EVENT_NDIMS = {"operators": None}

    def __init__(self, operators, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: bool = True, name: Optional[str] = None):
        self._operators = _check_operators(operators)
        ops = self._operators
        is_non_singular = _inherited(is_non_singular, ops, "is_non_singular")
        is_self_adjoint = _inherited(is_self_adjoint, ops, "is_self_adjoint")
        is_positive_definite = _inherited(is_positive_definite, ops, "is_positive_definite")
        self._init_over(operators, "_ds_", is_non_singular, is_self_adjoint,
                        is_positive_definite, is_square, name)

    def _shape(self):
        return self._batch() + [sum(op.range_dimension for op in self._operators),
                                sum(op.domain_dimension for op in self._operators)]

    def _blockwise(self, method: str, x, adjoint: bool, adjoint_arg: bool):
        x = _maybe_adjoint(x, adjoint_arg)
        sizes = _split_sizes(self._operators, adjoint) if method == "matmul" else \
            _split_sizes(self._operators, not adjoint)
        parts = T.split(x, sizes, axis=-2)
        outs = [getattr(op, method)(part, adjoint=adjoint)
                for op, part in zip(self._operators, parts)]
        batch = broadcast_batch(*[o.shape[:-2] for o in outs])
        outs = [T.broadcast_to(o, batch + list(o.shape[-2:])) for o in outs]
        return T.concat(outs, axis=-2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._blockwise("matmul", x, adjoint, adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._blockwise("solve", rhs, adjoint, adjoint_arg)

    def _to_dense(self):
        cols = self.domain_dimension
        rows, start = [], 0
        batch = self.batch_shape.as_list()
        for op in self._operators:
            block = op.to_dense()
            block = T.broadcast_to(block, batch + list(block.shape[-2:]))
            width = op.domain_dimension
            paddings = [[0, 0]] * len(batch) + [[0, 0], [start, cols - start - width]]
            rows.append(T.pad(block, paddings))
            start += width
        return T.concat(rows, axis=-2)

    def _diag_part(self):
        parts = [op.diag_part() for op in self._operators]
        batch = broadcast_batch(*[p.shape[:-1] for p in parts])
        return T.concat([T.broadcast_to(p, batch + [p.shape[-1]]) for p in parts], axis=-1)

    def _determinant(self):
        return self._fold("determinant", T.multiply)

    def _log_abs_determinant(self):
        return self._fold("log_abs_determinant", T.add)

    def _trace(self):
        return self._fold("trace", T.add)

    def _eigvals(self):
        parts = [op.eigvals() for op in self._operators]
        return T.concat(parts, axis=-1)

    def _inverse_operator(self):
        return LinearOperatorBlockDiag([op.inverse() for op in self._operators],
                                       is_non_singular=True)

    def _adjoint_operator(self):
        return LinearOperatorBlockDiag([op.adjoint() for op in self._operators])

    def _cholesky_operator(self):
        return LinearOperatorBlockDiag([op.cholesky() for op in self._operators],
                                       is_non_singular=True)

    def _compose_with(self, right):
        if isinstance(right, LinearOperatorBlockDiag) and len(right.operators) == len(
                self._operators) and all(a.domain_dimension == b.range_dimension for a, b in
                                         zip(self._operators, right.operators)):
            return LinearOperatorBlockDiag([a.matmul(b) for a, b in
                                            zip(self._operators, right.operators)])
        return None


def _kron_dense(left, right):
    """The Kronecker product of two [batches of] matrices."""
    a, b = left, right
    m, n = a.shape[-2], a.shape[-1]
    p, q = b.shape[-2], b.shape[-1]
    outer = T.multiply(a[..., :, None, :, None], b[..., None, :, None, :])
    batch = list(outer.shape[:-4])
    return T.reshape(outer, batch + [m * p, n * q])


@tf_export("linalg.LinearOperatorKronecker")
class LinearOperatorKronecker(_OperatorList):
    """The Kronecker product A1 (x) A2 (x) ... of operators."""

    _EVENT_NDIMS = {"operators": None}

    def __init__(self, operators, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: Optional[bool] = None, name: Optional[str] = None):
        self._operators = _check_operators(operators)
        ops = self._operators
        is_non_singular = _inherited(is_non_singular, ops, "is_non_singular")
        is_self_adjoint = _inherited(is_self_adjoint, ops, "is_self_adjoint")
        self._init_over(operators, "_x_", is_non_singular, is_self_adjoint,
                        is_positive_definite, is_square, name)

    def _shape(self):
        rows = cols = 1
        for op in self._operators:
            rows, cols = rows * op.range_dimension, cols * op.domain_dimension
        return self._batch() + [rows, cols]

    def _to_dense(self):
        return self._fold("to_dense", _kron_dense)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        if any(op.batch_shape.rank for op in self._operators):
            return T.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)
        # (A1 (x) ... (x) Ak) x: view x's rows as a k-axis grid and let each factor act on
        # its own axis, never forming the N x N product.
        x = _maybe_adjoint(x, adjoint_arg)
        inner = [op.range_dimension if adjoint else op.domain_dimension
                 for op in self._operators]
        lead, cols, k = list(x.shape[:-2]), x.shape[-1], len(self._operators)
        grid = T.reshape(x, lead + inner + [cols])
        base = len(lead)
        for i, op in enumerate(self._operators):
            axis = base + i
            order = [a for a in range(base + k) if a != axis] + [axis, base + k]
            moved = T.transpose(grid, order)
            acted = op.matmul(moved, adjoint=adjoint)
            back = [0] * (base + k + 1)
            for position, source in enumerate(order):
                back[source] = position
            grid = T.transpose(acted, back)
        outer = [op.domain_dimension if adjoint else op.range_dimension
                 for op in self._operators]
        return T.reshape(grid, lead + [int(np.prod(outer)), cols])

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        inverse = LinearOperatorKronecker([op.inverse() for op in self._operators])
        return inverse.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _sizes(self) -> list:
        return [op.domain_dimension for op in self._operators]

    def _determinant(self):
        # det(A (x) B) = det(A)^q det(B)^n for A n x n and B q x q.
        total = self.domain_dimension
        result = None
        for op in self._operators:
            term = op.determinant() ** (total // op.domain_dimension)
            result = term if result is None else T.multiply(result, term)
        return result

    def _log_abs_determinant(self):
        total = self.domain_dimension
        result = None
        for op in self._operators:
            term = op.log_abs_determinant() * float(total // op.domain_dimension)
            result = term if result is None else T.add(result, term)
        return result

    def _trace(self):
        return self._fold("trace", T.multiply)

    def _inverse_operator(self):
        return LinearOperatorKronecker([op.inverse() for op in self._operators])

    def _adjoint_operator(self):
        return LinearOperatorKronecker([op.adjoint() for op in self._operators])


@tf_export("linalg.LinearOperatorLowRankUpdate")
class LinearOperatorLowRankUpdate(LinearOperator):
    """A = L + U D V^H: a base operator L plus a rank-K update (D diagonal, default the
    identity; V defaults to U). Solves and determinants go through the K x K capacitance
    matrix C = D^-1 + V^H L^-1 U (Woodbury identity, matrix determinant lemma)."""

    _EVENT_NDIMS = {"base_operator": None, "u": 2, "diag_update": 1, "v": 2}

    def __init__(self, base_operator, u, diag_update=None, v=None,
                 is_diag_update_positive: Optional[bool] = None,
                 is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None,
                 is_square: Optional[bool] = None, name: str = "LinearOperatorLowRankUpdate"):
        dtype = base_operator.dtype
        self._base = base_operator
        self._u = check_dtype(u, "u")
        self._v = None if v is None else as_tensor(v, dtype)
        self._d = None if diag_update is None else as_tensor(diag_update, dtype)
        if is_diag_update_positive is None and self._d is None:
            is_diag_update_positive = True
        symmetric = self._v is None
        if is_self_adjoint is None and symmetric and base_operator.is_self_adjoint \
                and (self._d is None or not dtype.is_complex):
            is_self_adjoint = True
        if is_positive_definite is None and symmetric and is_diag_update_positive \
                and base_operator.is_positive_definite:
            is_positive_definite = True
        self._is_diag_update_positive = is_diag_update_positive
        super().__init__(dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name=name,
                         parameters=dict(base_operator=base_operator, u=u,
                                         diag_update=diag_update, v=v, name=name))

    @property
    def base_operator(self) -> LinearOperator:
        """L, the operator being updated."""
        return self._base

    @property
    def u(self):
        """U, shape [..., M, K]."""
        return self._u

    @property
    def v(self):
        """V, shape [..., N, K] (U where not given)."""
        return self._u if self._v is None else self._v

    @property
    def diag_update(self):
        """The diagonal of D, shape [..., K] (None: the identity)."""
        return self._d

    @property
    def is_diag_update_positive(self) -> Optional[bool]:
        """Whether D's diagonal is positive (None: not known)."""
        return self._is_diag_update_positive

    def _shape(self):
        batch = broadcast_batch(self._base.batch_shape.as_list(), self._u.shape[:-2])
        return batch + self._base.shape.as_list()[-2:]

    def _scale(self, x, adjoint: bool):
        """D x (D^H x with `adjoint`) for x of shape [..., K, R]."""
        if self._d is None:
            return x
        d = T.conj(self._d) if adjoint and self.dtype.is_complex else self._d
        return T.multiply(T.expand_dims(d, -1), x)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _maybe_adjoint(x, adjoint_arg)
        left, right = (self.v, self._u) if adjoint else (self._u, self.v)
        update = T.matmul(left, self._scale(T.matmul(right, x, adjoint_a=True), adjoint))
        return T.add(self._base.matmul(x, adjoint=adjoint), update)

    def _to_dense(self):
        scaled_vh = self._scale(T.adjoint(self.v), False)
        return T.add(self._base.to_dense(), T.matmul(self._u, scaled_vh))

    def _capacitance(self, adjoint: bool):
        """C = D^-1 + V^H L^-1 U (with A^H: D^-H + U^H L^-H V)."""
        left, right = (self._u, self.v) if adjoint else (self.v, self._u)
        inner = T.matmul(left, self._base.solve(right, adjoint=adjoint), adjoint_a=True)
        k = self._u.shape[-1]
        if self._d is None:
            d_inv = T.eye(k, dtype=self.dtype)
        else:
            d = T.conj(self._d) if adjoint and self.dtype.is_complex else self._d
            d_inv = T.diag(T.divide(T.ones_like(d), d))
        return T.add(d_inv, inner)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _maybe_adjoint(rhs, adjoint_arg)
        left, right = (self.v, self._u) if adjoint else (self._u, self.v)
        base_rhs = self._base.solve(rhs, adjoint=adjoint)
        base_left = self._base.solve(left, adjoint=adjoint)
        correction = T.solve(self._capacitance(adjoint),
                             T.matmul(right, base_rhs, adjoint_a=True))
        return T.subtract(base_rhs, T.matmul(base_left, correction))

    def _log_abs_determinant(self):
        _, log_cap = T.slogdet(self._capacitance(False))
        result = self._base.log_abs_determinant()  # complex dtype for a complex operator
        log_cap = T.real(log_cap) if self.dtype.is_complex else log_cap
        result = T.add(result, T.cast(log_cap, result.dtype))
        if self._d is not None:
            log_d = T.reduce_sum(T.log(T.abs_(self._d)), axis=-1)
            result = T.add(result, T.cast(log_d, result.dtype))
        return result

    def _determinant(self):
        result = T.multiply(self._base.determinant(), T.det(self._capacitance(False)))
        if self._d is not None:
            result = T.multiply(result, T.reduce_prod(self._d, axis=-1))
        return result
