"""TF's internal module names (array_ops, math_ops, tensor_shape, ...) over tapeflow's public
ops, so the ported linear operator code reads as TF's and calls tapeflow.

Only what the linear operators use is here. Everything resolves at call time (the namespaces
look their functions up in `tapeflow` on use), so importing this module imports no op family.
"""

import abc  # noqa: F401 - the ported modules take their imports from here
import collections  # noqa: F401
import contextlib
import functools  # noqa: F401
import types

import numpy as np

from tapeflow.framework import dtypes  # noqa: F401
from tapeflow.framework import errors  # noqa: F401
from tapeflow.framework.exports import tf_export  # noqa: F401
from tapeflow.framework.tensor import Tensor  # noqa: F401 - for the ported annotations
from tapeflow.framework.tensor_shape import TensorShape
from tapeflow.module import Module


class _Exported:
    """tapeflow's public names (`tf.concat`, `tf.linalg.diag`, ...) from their declarations,
    which the op families make on import (so this ops module needs no API-layer import)."""

    def __init__(self, namespace=""):
        self._namespace = namespace

    def __getattr__(self, name):
        import tapeflow.ops  # noqa: F401 - declares the public names
        from tapeflow.framework.exports import exported

        table = exported(self._namespace)
        if name in table:
            return table[name]
        if not self._namespace and name in _EXTRA:
            return _EXTRA[name]()
        return _Exported(f"{self._namespace}.{name}".lstrip("."))


def _nest():
    from tapeflow.framework import nest as nest_module
    return nest_module


def _variable():
    from tapeflow.framework.variables import Variable
    return Variable


def _convert():
    from tapeflow.framework.tensor_conversion import convert_to_tensor
    return convert_to_tensor


_EXTRA = {"nest": _nest, "Variable": _variable, "convert_to_tensor": _convert}


def _tf():
    return _Exported()


class _Namespace:
    """A TF module name whose attributes are tapeflow functions found by dotted path
    (`"linalg.band_part"`), or callables given directly."""

    def __init__(self, **names):
        self._names = names

    def __getattr__(self, name):
        try:
            target = self._names[name]
        except KeyError:
            raise AttributeError(name) from None
        if not isinstance(target, str):
            return target
        obj = _tf()
        for part in target.split("."):
            obj = getattr(obj, part)
        return obj


def _with_dependencies(dependencies, output_tensor, name=None):
    with _tf().control_dependencies(dependencies):
        return _tf().identity(output_tensor)


def _matrix_diag_v3(diagonal, k=0, num_rows=-1, num_cols=-1, align="RIGHT_LEFT", padding_value=0.0):
    """TF's MatrixDiagV3 for the tridiagonal band `k=(-1, 1)` in "LEFT_RIGHT" alignment (the
    only use here): superdiagonal left-aligned, subdiagonal right-aligned."""
    if tuple(k) != (-1, 1) or align != "LEFT_RIGHT":
        raise NotImplementedError("matrix_diag_v3: only k=(-1, 1), align='LEFT_RIGHT'")
    tf = _tf()
    diag = tf.linalg.diag
    return (
        diag(diagonal[..., 0, :-1], k=1)
        + diag(diagonal[..., 1, :])
        + diag(diagonal[..., 2, 1:], k=-1)
    )


def _ifftshift(x, axes=None, name=None):
    """Undoes fftshift: rolls each axis back by half its length (TF's tf.signal.ifftshift)."""
    x = _tf().convert_to_tensor(x)
    axes = tuple(range(x.shape.rank)) if axes is None else np.atleast_1d(axes).tolist()
    shift = [-(x.shape[axis] // 2) for axis in axes]
    return _tf().roll(x, shift, axes)


def _rotate_transpose(x, shift, name="rotate_transpose"):
    """Rolls the dimensions of `x` by `shift` (TF's distribution_util.rotate_transpose)."""
    x = _tf().convert_to_tensor(x)
    perm = np.roll(np.arange(x.shape.rank), shift)
    return _tf().transpose(x, perm)


def _map_structure_up_to(shallow, func, *structures):
    """`func` over the items of the shallow structure `shallow` (a list, tuple or leaf)."""
    if isinstance(shallow, (list, tuple)):
        return type(shallow)(
            _map_structure_up_to(s, func, *(x[i] for x in structures))
            for i, s in enumerate(shallow)
        )
    return func(*structures)


@contextlib.contextmanager
def _name_scope(name, *args, **kwargs):
    # Eager operators need no scope; the name is what TF's scope yields.
    yield name


class Dimension:
    """TF's tensor_shape.Dimension, for the few checks the operators make on one dim."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, Dimension) else value

    def is_compatible_with(self, other):
        other = Dimension(other)
        return self.value is None or other.value is None or self.value == other.value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {Dimension(other)} are not compatible")

    def __eq__(self, other):
        other = Dimension(other)
        if self.value is None or other.value is None:
            return None
        return self.value == other.value

    def __ne__(self, other):
        equal = self.__eq__(other)
        return None if equal is None else not equal

    def __hash__(self):
        return hash(self.value)

    def merge_with(self, other):
        self.assert_is_compatible_with(other)
        return Dimension(self.value if self.value is not None else Dimension(other).value)

    def _combine(self, other, fn):
        other = Dimension(other)
        if self.value is None or other.value is None:
            return Dimension(None)
        return Dimension(fn(self.value, other.value))

    def __add__(self, other):
        return self._combine(other, lambda a, b: a + b)

    __radd__ = __add__

    def __mul__(self, other):
        return self._combine(other, lambda a, b: a * b)

    __rmul__ = __mul__

    def __sub__(self, other):
        return self._combine(other, lambda a, b: a - b)

    def __int__(self):
        return self.value

    __index__ = __int__

    def __lt__(self, other):
        other = Dimension(other)
        return None if self.value is None or other.value is None else self.value < other.value

    def __str__(self):
        return "?" if self.value is None else str(self.value)

    def __repr__(self):
        return f"Dimension({self.value})"


def _dimension_value(dim):
    return dim.value if isinstance(dim, Dimension) else dim


def _dimension_at_index(shape, index):
    shape = TensorShape(shape) if not isinstance(shape, TensorShape) else shape
    if shape.rank is None:
        return Dimension(None)
    return Dimension(shape[index])


def _broadcast_shape(shape_x, shape_y):
    return _tf().broadcast_static_shape(TensorShape(shape_x), TensorShape(shape_y))


def _is_tensor(x):
    return _tf().is_tensor(x)


def _warn(*args, **kwargs):
    # TF logs "Using (possibly slow) default implementation of ..."; tapeflow stays quiet.
    pass


array_ops = _Namespace(
    broadcast_dynamic_shape="broadcast_dynamic_shape",
    broadcast_static_shape="broadcast_static_shape",
    broadcast_to="broadcast_to",
    concat="concat",
    expand_dims="expand_dims",
    gather="gather",
    matrix_band_part="linalg.band_part",
    matrix_diag="linalg.diag",
    matrix_diag_part="linalg.diag_part",
    matrix_set_diag="linalg.set_diag",
    matrix_transpose="linalg.matrix_transpose",
    meshgrid="meshgrid",
    newaxis=None,
    ones="ones",
    ones_like="ones_like",
    pad="pad",
    rank="rank",
    reshape="reshape",
    reverse="reverse",
    shape="shape",
    size="size",
    split="split",
    squeeze="squeeze",
    transpose="transpose",
    where="where",
    where_v2="where",
    zeros="zeros",
    zeros_like="zeros_like",
)
array_ops_stack = _Namespace(stack="stack", unstack="unstack")
check_ops = _Namespace(
    assert_equal="debugging.assert_equal",
    assert_less="debugging.assert_less",
    assert_non_negative="debugging.assert_non_negative",
    assert_positive="debugging.assert_positive",
    assert_proper_iterable="debugging.assert_proper_iterable",
    assert_rank="debugging.assert_rank",
)
common_shapes = _Namespace(broadcast_shape=_broadcast_shape)
control_flow_ops = _Namespace(group="group", no_op="no_op", with_dependencies=_with_dependencies)
distribution_util = _Namespace(rotate_transpose=_rotate_transpose)
fft_ops = _Namespace(
    fft="signal.fft",
    fft2d="signal.fft2d",
    fft3d="signal.fft3d",
    ifft="signal.ifft",
    ifft2d="signal.ifft2d",
    ifft3d="signal.ifft3d",
    ifftshift=_ifftshift,
)
gen_array_ops = _Namespace(matrix_diag_v3=_matrix_diag_v3)
linalg = _Namespace(
    adjoint="linalg.adjoint",
    cholesky="linalg.cholesky",
    det="linalg.det",
    diag_part="linalg.diag_part",
    inv="linalg.inv",
    logdet="linalg.logdet",
    slogdet="linalg.slogdet",
    solve="linalg.solve",
    trace="linalg.trace",
    transpose="linalg.matrix_transpose",
    triangular_solve="linalg.triangular_solve",
    tridiagonal_matmul="linalg.tridiagonal_matmul",
    tridiagonal_solve="linalg.tridiagonal_solve",
)
linalg_ops = _Namespace(
    cholesky="linalg.cholesky",
    cholesky_solve="linalg.cholesky_solve",
    eye="eye",
    matrix_determinant="linalg.det",
    matrix_solve="linalg.solve",
    self_adjoint_eigvals="linalg.eigvalsh",
    svd="linalg.svd",
)
logging = _Namespace(warn=_warn, warning=_warn)
manip_ops = _Namespace(roll="roll")
math_ops = _Namespace(
    abs="abs",
    cast="cast",
    complex="complex",
    conj="math.conj",
    equal="equal",
    exp="exp",
    floor="floor",
    imag="math.imag",
    linspace="linspace",
    log="math.log",
    matmul="matmul",
    mod="math.floormod",
    range="range",
    real="math.real",
    reduce_max="reduce_max",
    reduce_min="reduce_min",
    reduce_prod="reduce_prod",
    reduce_sum="reduce_sum",
    sign="sign",
    sqrt="sqrt",
)
module = types.SimpleNamespace(Module=Module)
nest = _Namespace(
    flatten="nest.flatten",
    is_nested="nest.is_nested",
    map_structure="nest.map_structure",
    map_structure_up_to=_map_structure_up_to,
    pack_sequence_as="nest.pack_sequence_as",
)
nn = _Namespace(l2_normalize="nn.l2_normalize")
ops = _Namespace(convert_to_tensor="convert_to_tensor", name_scope=_name_scope)
sort_ops = _Namespace(argsort="argsort")
tensor_conversion = _Namespace(convert_to_tensor_v2_with_dispatch="convert_to_tensor")
tensor_shape = _Namespace(
    Dimension=Dimension,
    TensorShape=TensorShape,
    dimension_at_index=_dimension_at_index,
    dimension_value=_dimension_value,
)
tensor_util = _Namespace(
    constant_value="get_static_value", is_tensor=_is_tensor, is_tf_type=_is_tensor
)
variables_module = _Namespace(Variable="Variable")
