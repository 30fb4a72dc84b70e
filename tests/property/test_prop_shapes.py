"""Properties: shape rules agree with NumPy's (and error classes with TensorFlow's).

- elementwise binary (and SelectV2) primitives: broadcastable shapes (scalars and 0-size
  dimensions included) give `np.broadcast_shapes`, gradients come back in each input's shape,
  and incompatible shapes raise InvalidArgumentError;
- reductions: shape, axis (in range, negative, tuples, none) and keepdims give NumPy's result
  shape; out-of-range or repeated axes raise InvalidArgumentError;
- layout ops (reshape, transpose, concat, stack, squeeze, expand_dims, tile, gather): the same
  values and shape as NumPy on the same arguments, gradients in the input's shape.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tapeflow as tf
from tapeflow.autodiff.core import REGISTRY, dims_text

from _prop_common import budget
from _prop_ops import ARG_REDUCTIONS, BINARY, NO_GRADIENT, REDUCTIONS, TERNARY, array
from _prop_xfail import marked

ELEMENTWISE = {**BINARY, **TERNARY}
SHAPES = dict(min_dims=0, max_dims=4, min_side=0, max_side=3)


def _tensors(data, name: str, kinds, shapes) -> list:
    return [tf.constant(data.draw(array(kind, shape), label=f"{name} input {i}"))
            for i, (kind, shape) in enumerate(zip(kinds, shapes))]


def _gradients(fn, args: list):
    """The gradients of sum(fn(*args) * ones) w.r.t. each float argument (None elsewhere)."""
    floats = [a for a in args if a.dtype.is_floating]
    with tf.GradientTape() as tape:
        tape.watch(floats)
        y = fn(*args)
    grads = tape.gradient(y, floats, output_gradients=tf.ones_like(y))
    it = iter(grads)
    return y, [next(it) if a.dtype.is_floating else None for a in args]


# -- elementwise --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", marked(sorted(ELEMENTWISE), "broadcast"))
@budget(10)
@given(data=st.data())
def test_elementwise_broadcasts_as_numpy(name, data):
    op = ELEMENTWISE[name]
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=len(op.kinds), **SHAPES),
                       label="shapes").input_shapes
    args = _tensors(data, name, op.kinds, shapes)
    differentiable = REGISTRY[name].differentiable
    if differentiable:
        y, grads = _gradients(op.fn, args)
    else:
        y, grads = op.fn(*args), [None] * len(args)
    assert y.shape == np.broadcast_shapes(*shapes), f"{name}{shapes}"
    for index, (x, g) in enumerate(zip(args, grads)):
        if not differentiable or not x.dtype.is_floating or (name, index) in NO_GRADIENT:
            continue
        assert g is not None, f"{name}: no gradient for input {index} of shape {x.shape}"
        assert g.shape == x.shape and g.dtype == x.dtype, (
            f"{name}{shapes}: gradient {index} is {g.shape} {g.dtype.name}")


@st.composite
def _incompatible(draw, count: int) -> list:
    """`count` shapes of which the first two clash on one aligned dimension."""
    shapes = [list(s) for s in draw(hnp.mutually_broadcastable_shapes(
        num_shapes=count, min_dims=1, max_dims=3, min_side=1, max_side=3)).input_shapes]
    position = draw(st.integers(1, min(len(shapes[0]), len(shapes[1]))))
    shapes[0][-position], shapes[1][-position] = draw(st.sampled_from([(2, 3), (3, 2), (0, 2),
                                                                       (2, 0)]))
    return [tuple(s) for s in shapes]


@pytest.mark.parametrize("name", marked(sorted(ELEMENTWISE), "broadcast_error"))
@budget(5)
@given(data=st.data())
def test_incompatible_shapes_raise_invalid_argument(name, data):
    op = ELEMENTWISE[name]
    shapes = data.draw(_incompatible(len(op.kinds)), label="shapes")
    order = data.draw(st.permutations(range(len(shapes))), label="which inputs clash")
    shapes = [shapes[i] for i in order]
    args = _tensors(data, name, op.kinds, shapes)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        op.fn(*args)
    message = str(info.value)
    assert f"[Op:{name}]" in message
    if name in BINARY:  # TF 2.21: "Incompatible shapes: [2,3] vs. [3] [Op:AddV2]"
        assert f"Incompatible shapes: {dims_text(shapes[0])} vs. {dims_text(shapes[1])}" \
            in message, message


# -- reductions ---------------------------------------------------------------------------------

@st.composite
def _axis(draw, rank: int):
    """None, one axis, or a tuple/list of distinct axes, each possibly negative."""
    if rank == 0:
        return draw(st.sampled_from([None, (), []]))
    axes = draw(st.lists(st.integers(0, rank - 1), unique=True, max_size=rank))
    axes = [a - rank if draw(st.booleans()) else a for a in axes]
    form = draw(st.sampled_from(["none", "int", "tuple", "list"]))
    if form == "none":
        return None
    if form == "int":
        return axes[0] if axes else draw(st.integers(-rank, rank - 1))
    return tuple(axes) if form == "tuple" else axes


def _numpy_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


@pytest.mark.parametrize("name", marked(sorted(REDUCTIONS), "reduction_shape"))
@budget(12)
@given(data=st.data())
def test_reduction_shape_is_numpy(name, data):
    op = REDUCTIONS[name]
    shape = data.draw(hnp.array_shapes(**SHAPES), label="shape")
    axis = data.draw(_axis(len(shape)), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    [x] = _tensors(data, name, op.kinds, [shape])
    expected = np.sum(np.zeros(shape), axis=_numpy_axis(axis), keepdims=keepdims).shape
    if REGISTRY[name].differentiable:
        y, [g] = _gradients(lambda t: op.fn(t, axis=axis, keepdims=keepdims), [x])
        assert g.shape == shape and g.dtype == x.dtype, f"{name}: gradient {g.shape}"
    else:
        y = op.fn(x, axis=axis, keepdims=keepdims)
    assert y.shape == expected, f"{name}({shape}, axis={axis!r}, keepdims={keepdims})"


@pytest.mark.parametrize("name", marked(sorted(REDUCTIONS), "reduction_axis_range"))
@budget(6)
@given(data=st.data())
def test_reduction_axis_out_of_range_raises_invalid_argument(name, data):
    op = REDUCTIONS[name]
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3),
                      label="shape")
    rank = len(shape)
    wrong = data.draw(st.one_of(st.integers(rank, rank + 2), st.integers(-rank - 2, -rank - 1)),
                      label="axis")
    axis = data.draw(st.sampled_from([wrong, [wrong], (0, wrong) if rank else (wrong,)]),
                     label="axis form")
    [x] = _tensors(data, name, op.kinds, [shape])
    # TF 2.21: "Invalid reduction dimension (2 for input with 2 dimension(s) [Op:Sum]"
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid reduction dimension"):
        op.fn(x, axis=axis)


@pytest.mark.parametrize("name", marked(sorted(REDUCTIONS), "reduction_axis_repeated"))
@budget(4)
@given(data=st.data())
def test_reduction_repeated_axis_raises_invalid_argument(name, data):
    op = REDUCTIONS[name]
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3),
                      label="shape")
    rank = len(shape)
    a = data.draw(st.integers(0, rank - 1), label="repeated axis")
    axis = data.draw(st.sampled_from([[a, a], [a, a - rank], (a - rank, a)]), label="axis")
    [x] = _tensors(data, name, op.kinds, [shape])
    # TF 2.21: "Invalid reduction arguments: Axes contains duplicate dimension: 0 [Op:Sum]"
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"duplicate dimension"):
        op.fn(x, axis=axis)


@pytest.mark.parametrize("name", marked(sorted(ARG_REDUCTIONS), "arg_reduction"))
@budget(8)
@given(data=st.data())
def test_arg_reduction_shape_and_range(name, data):
    op = ARG_REDUCTIONS[name]
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=3),
                      label="shape")
    rank = len(shape)
    axis = data.draw(st.integers(-rank - 2, rank + 1), label="axis")
    [x] = _tensors(data, name, op.kinds, [shape])
    if not -rank <= axis < rank or shape[axis] == 0:
        with pytest.raises(tf.errors.InvalidArgumentError):  # TF: range / "axis is empty"
            op.fn(x, axis=axis)
        return
    reference = (np.argmax if name == "ArgMax" else np.argmin)(np.asarray(x), axis=axis)
    np.testing.assert_array_equal(np.asarray(op.fn(x, axis=axis)), reference)


# -- layout -------------------------------------------------------------------------------------

def _ramp(shape) -> np.ndarray:
    """Distinct values, so a misplaced element shows."""
    return np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) + 0.5


def _check_layout(fn, reference, xs: list, what: str) -> None:
    """fn(tensors) has NumPy's values and shape; each input's gradient has its shape."""
    args = [tf.constant(x) for x in xs]
    y, grads = _gradients(lambda *a: fn(list(a)), args)
    expected = reference(xs)
    assert y.shape == expected.shape, f"{what}: {y.shape} != NumPy's {expected.shape}"
    np.testing.assert_array_equal(np.asarray(y), expected, err_msg=what)
    for x, g in zip(xs, grads):
        g = tf.convert_to_tensor(g)  # an axis-0 gather's gradient is IndexedSlices
        assert g.shape == x.shape, f"{what}: gradient {g.shape} for input {x.shape}"


@st.composite
def _reshape_target(draw, shape):
    """A shape with the same number of elements, possibly with one -1."""
    size = int(np.prod(shape))
    if size == 0:
        dims = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
        return dims if 0 in dims else dims + [0]
    factors = [p for d in shape for p in _primes(d)]
    factors = draw(st.permutations(factors)) if factors else []
    cuts = sorted(draw(st.lists(st.integers(0, len(factors)), max_size=3)))
    bounds = [0] + cuts + [len(factors)]
    dims = [int(np.prod(factors[a:b])) for a, b in zip(bounds, bounds[1:])]
    if draw(st.booleans()):
        dims[draw(st.integers(0, len(dims) - 1))] = -1
    return dims


def _primes(n: int) -> list:
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


SMALL = dict(min_dims=0, max_dims=4, min_side=0, max_side=3)


@budget(25)
@given(data=st.data())
def test_reshape_is_numpy(data):
    shape = data.draw(hnp.array_shapes(**SMALL), label="shape")
    target = data.draw(_reshape_target(shape), label="target")
    _check_layout(lambda a: tf.reshape(a[0], target), lambda x: np.reshape(x[0], target),
                  [_ramp(shape)], f"reshape {shape} -> {target}")


@budget(25)
@given(data=st.data())
def test_transpose_is_numpy(data):
    shape = data.draw(hnp.array_shapes(**SMALL), label="shape")
    perm = data.draw(st.one_of(st.none(), st.permutations(range(len(shape)))), label="perm")
    _check_layout(lambda a: tf.transpose(a[0], perm), lambda x: np.transpose(x[0], perm),
                  [_ramp(shape)], f"transpose {shape} by {perm}")


@budget(25)
@given(data=st.data())
def test_concat_is_numpy(data):
    shape = list(data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=3),
                           label="shape"))
    rank = len(shape)
    axis = data.draw(st.integers(-rank, rank - 1), label="axis")
    sizes = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3), label="sizes")
    xs = []
    for size in sizes:
        shape[axis] = size
        xs.append(_ramp(shape) + 100 * len(xs))
    _check_layout(lambda a: tf.concat(a, axis=axis), lambda x: np.concatenate(x, axis=axis),
                  xs, f"concat {[x.shape for x in xs]} on axis {axis}")


@budget(25)
@given(data=st.data())
def test_stack_is_numpy(data):
    shape = data.draw(hnp.array_shapes(**SMALL), label="shape")
    rank = len(shape)
    axis = data.draw(st.integers(-rank - 1, rank), label="axis")
    count = data.draw(st.integers(1, 3), label="count")
    xs = [_ramp(shape) + 100 * i for i in range(count)]
    _check_layout(lambda a: tf.stack(a, axis=axis), lambda x: np.stack(x, axis=axis),
                  xs, f"stack {count} x {shape} on axis {axis}")


@budget(25)
@given(data=st.data())
def test_squeeze_is_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=5, min_side=0, max_side=2),
                      label="shape")
    rank = len(shape)
    ones = [i for i, d in enumerate(shape) if d == 1]
    chosen = data.draw(st.lists(st.sampled_from(ones), unique=True) if ones else st.just([]),
                       label="axes")
    axis = None if not chosen or data.draw(st.booleans()) else \
        [a - rank if data.draw(st.booleans()) else a for a in chosen]
    _check_layout(lambda a: tf.squeeze(a[0], axis),
                  lambda x: np.squeeze(x[0], None if axis is None else tuple(axis)),
                  [_ramp(shape)], f"squeeze {shape} axis {axis}")


@budget(25)
@given(data=st.data())
def test_expand_dims_is_numpy(data):
    shape = data.draw(hnp.array_shapes(**SMALL), label="shape")
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)), label="axis")
    _check_layout(lambda a: tf.expand_dims(a[0], axis), lambda x: np.expand_dims(x[0], axis),
                  [_ramp(shape)], f"expand_dims {shape} at {axis}")


@budget(25)
@given(data=st.data())
def test_tile_is_numpy(data):
    shape = data.draw(hnp.array_shapes(**SMALL), label="shape")
    multiples = data.draw(st.lists(st.integers(0, 3), min_size=len(shape),
                                   max_size=len(shape)), label="multiples")
    _check_layout(lambda a: tf.tile(a[0], multiples), lambda x: np.tile(x[0], multiples),
                  [_ramp(shape)], f"tile {shape} by {multiples}")


@budget(25)
@given(data=st.data())
def test_gather_is_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3),
                      label="params shape")
    rank = len(shape)
    axis = data.draw(st.integers(-rank, rank - 1), label="axis")
    index_shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3),
                            label="indices shape")
    size = shape[axis]
    assume(size > 0 or 0 in index_shape)  # nothing to gather from an empty axis
    indices = data.draw(hnp.arrays(np.int32, index_shape, elements=st.integers(0, max(size - 1, 0))),
                        label="indices")
    _check_layout(lambda a: tf.gather(a[0], indices, axis=axis),
                  lambda x: np.take(x[0], indices, axis=axis),
                  [_ramp(shape)], f"gather {shape}[{indices.tolist()}] on axis {axis}")


# -- layout errors (TF 2.21 raises InvalidArgumentError for each) -------------------------------

@budget(20)
@given(data=st.data())
def test_layout_misuse_raises_invalid_argument(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=3),
                      label="shape")
    rank = len(shape)
    x = tf.constant(_ramp(shape))
    misuse = data.draw(st.sampled_from([
        ("reshape to a different size", lambda: tf.reshape(x, [int(np.prod(shape)) + 1])),
        ("squeeze a dimension that is not 1",
         lambda: tf.squeeze(x, [data.draw(st.integers(-rank, rank - 1), label="axis")])),
        ("expand_dims out of range", lambda: tf.expand_dims(x, rank + 1)),
        ("tile with the wrong number of multiples", lambda: tf.tile(x, [1] * (rank + 1))),
        ("transpose by a non-permutation", lambda: tf.transpose(x, [0] * rank)
         if rank > 1 else tf.transpose(x, [1])),
        ("concat with a clashing dimension",
         lambda: tf.concat([x, tf.constant(_ramp(shape[:-1] + (shape[-1] + 1,)))], axis=0)
         if rank > 1 else tf.concat([x, x], axis=1)),  # (TF skips a lone tensor's check)
        ("gather out of range", lambda: tf.gather(x, [shape[0]])),
    ]), label="misuse")
    with pytest.raises(tf.errors.InvalidArgumentError):
        misuse[1]()
