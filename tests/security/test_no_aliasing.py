"""Tensors and variables never alias the caller's arrays, in either direction.

A value that enters (tf.constant, tf.convert_to_tensor, tf.Variable, assign, tf.data, Keras
set_weights, py_function results) is copied, so the caller's later writes into its buffer change
nothing; a value that leaves is a read-only view (np.asarray of a tensor, as_numpy_iterator) or a
writable copy (`.numpy()`, np.asarray of a variable, get_weights, predict), each as TensorFlow
hands it out. Every expectation was measured with TF 2.21 / Keras 3.15.1 (`/tmp/tfenv`).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tapeflow as tf


def _write_each_step(make):
    """The values `make` keeps when the caller reuses one buffer for 0, 1, 2."""
    buf = np.zeros(3, np.float32)
    kept = []
    for i in range(3):
        buf[:] = i
        kept.append(make(buf))
    return [float(np.asarray(k)[0]) for k in kept]


# -- values entering -------------------------------------------------------------------------

@pytest.mark.parametrize("make", [tf.constant, tf.convert_to_tensor, tf.Variable, tf.identity,
                                  lambda a: tf.reshape(a, (3,)), lambda a: tf.cast(a, tf.float32),
                                  lambda a: tf.convert_to_tensor(a, dtype_hint=tf.float32)],
                         ids=["constant", "convert_to_tensor", "Variable", "identity", "reshape",
                              "cast_same_dtype", "dtype_hint"])
def test_a_reused_buffer_gives_each_value_it_held(make):
    # TF 2.21: [0.0, 1.0, 2.0] for each (the last value thrice before the fix).
    assert _write_each_step(make) == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.uint16,
                                   np.int64, np.bool_, np.complex64])
def test_constant_copies_every_numeric_dtype(dtype):
    a = np.ones(3, dtype)
    t = tf.constant(a)
    a[:] = 0
    assert t.numpy().tolist() == np.ones(3, dtype).tolist()


def test_constant_copies_strided_views_and_text():
    a = np.arange(6, dtype=np.float32)
    strided, transposed = tf.constant(a[::2]), tf.constant(a.reshape(2, 3).T)
    a[:] = 0
    assert strided.numpy().tolist() == [0.0, 2.0, 4.0]
    assert transposed.numpy().ravel().tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    words, raw = np.array(["ab", "cd"]), np.array([b"ab", b"cd"], object)
    from_words, from_raw = tf.constant(words), tf.constant(raw)
    words[0], raw[0] = "zz", b"zz"
    assert from_words.numpy().tolist() == from_raw.numpy().tolist() == [b"ab", b"cd"]


def test_numpy_scalars_and_0d_arrays_convert_by_value():
    zero_d = np.array(3.0, np.float32)
    t, s = tf.convert_to_tensor(zero_d), tf.convert_to_tensor(np.float32(3.0))
    zero_d[()] = 5.0
    assert float(t) == 3.0 and float(s) == 3.0 and s.dtype == tf.float32


def test_stack_and_lists_of_arrays_copy():
    a = np.arange(4, dtype=np.float32)
    stacked, listed = tf.stack([a, a]), tf.convert_to_tensor([a])
    a[:] = 0
    assert stacked.numpy().ravel().tolist() == [0.0, 1.0, 2.0, 3.0] * 2
    assert listed.numpy().ravel().tolist() == [0.0, 1.0, 2.0, 3.0]


def test_variable_does_not_change_when_its_source_array_is_written():
    a = np.zeros(3, np.float32)
    v = tf.Variable(a)
    a[:] = 5
    assert v.numpy().tolist() == [0.0, 0.0, 0.0]   # TF 2.21: [0. 0. 0.]


def test_assign_copies_the_callers_array():
    a = np.array([1.0, 2.0, 3.0], np.float32)
    v = tf.Variable([0.0, 0.0, 0.0])
    v.assign(a)
    a[:] = 7
    assert v.numpy().tolist() == [1.0, 2.0, 3.0]   # TF 2.21: [1. 2. 3.]


def test_sparse_and_ragged_components_are_copied():
    indices, values = np.array([[0, 0], [1, 1]], np.int64), np.array([1.0, 2.0], np.float32)
    st = tf.sparse.SparseTensor(indices, values, [2, 2])
    flat, splits = np.array([1.0, 2.0, 3.0], np.float32), np.array([0, 2, 3], np.int64)
    rt = tf.RaggedTensor.from_row_splits(flat, splits)
    indices[:], values[:], flat[:], splits[:] = 0, 9, 9, 0
    assert st.values.numpy().tolist() == [1.0, 2.0]
    assert st.indices.numpy().tolist() == [[0, 0], [1, 1]]
    assert rt.flat_values.numpy().tolist() == [1.0, 2.0, 3.0]
    assert rt.row_splits.numpy().tolist() == [0, 2, 3]
    # Handed out: read-only views (np.asarray) and writable copies (.numpy()), as TF.
    assert not np.asarray(st.values).flags.writeable
    assert not np.asarray(st.indices).flags.writeable
    assert not np.asarray(rt.flat_values).flags.writeable
    assert st.values.numpy().flags.writeable


_ARRAYS = hnp.arrays(
    dtype=st.sampled_from([np.float16, np.float32, np.float64, np.int8, np.int32, np.int64,
                           np.uint8, np.bool_, np.complex64]),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))


@settings(max_examples=300, deadline=None)
@given(array=_ARRAYS, step=st.integers(1, 2), make=st.sampled_from(
    [tf.constant, tf.convert_to_tensor, tf.Variable, tf.data.Dataset.from_tensors]))
def test_no_entry_point_keeps_any_array_it_is_given(array, step, make):
    source = array[..., ::step] if array.ndim else array      # strided views too
    expected = source.copy()
    made = make(source)
    array[...] = np.ones((), array.dtype) if array.dtype != np.bool_ else ~array
    value = next(iter(made)) if isinstance(made, tf.data.Dataset) else made
    assert np.array_equal(value.numpy(), expected, equal_nan=array.dtype.kind in "fc")
    assert np.asarray(value).flags.writeable == isinstance(value, tf.Variable)


# -- values leaving: tensors -----------------------------------------------------------------

def test_np_asarray_of_a_tensor_is_read_only():
    t = tf.constant([1.0, 2.0, 3.0])
    view = np.asarray(t)
    assert not view.flags.writeable                     # TF 2.21: writeable False
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 99.0
    assert t.numpy().tolist() == [1.0, 2.0, 3.0]
    assert not np.asarray(tf.constant(3.0)).flags.writeable
    assert not np.asarray(tf.constant([True])).flags.writeable
    assert not np.asarray(tf.constant(["a", "b"])).flags.writeable
    # TF's own t.__array__() hands out a writable alias of the tensor (a write changes the
    # "immutable" tensor); tapeflow's stays read-only, as np.asarray(t) is in TF.
    assert not t.__array__().flags.writeable


def test_copies_asked_of_a_tensor_are_writable():
    t = tf.constant([1.0, 2.0, 3.0])
    # TF 2.21: np.array(t), np.asarray(t, copy=True), np.asarray(t, np.float64) are writable.
    for array in (np.array(t), np.asarray(t, copy=True), np.asarray(t, np.float64)):
        assert array.flags.writeable
        array[0] = 50.0
    assert t.numpy().tolist() == [1.0, 2.0, 3.0]


def test_tensor_numpy_is_a_fresh_writable_copy():
    t = tf.constant([1.0, 2.0, 3.0])
    first, second = t.numpy(), t.numpy()
    assert first.flags.writeable                         # TF 2.21: writeable True, a copy
    assert not np.shares_memory(first, second)
    assert not np.shares_memory(first, np.asarray(t))
    first[0] = 99.0
    assert t.numpy().tolist() == [1.0, 2.0, 3.0]
    assert type(tf.constant(3.0).numpy()) is np.float32


# -- values leaving: variables ---------------------------------------------------------------

def test_variable_numpy_and_asarray_are_writable_copies():
    v = tf.Variable([1.0, 2.0, 3.0])
    copy_a, copy_b = v.numpy(), np.asarray(v)
    # TF 2.21: both writable; np.asarray(v) owns its data; writes leave v alone.
    assert copy_a.flags.writeable and copy_b.flags.writeable and copy_b.flags.owndata
    copy_a[0] = copy_b[1] = 100.0
    assert v.numpy().tolist() == [1.0, 2.0, 3.0]


def test_keras_variable_asarray_is_a_writable_copy():
    layer = tf.keras.layers.Dense(2)
    layer.build((None, 3))
    before = layer.kernel.numpy()
    kernel = np.asarray(layer.kernel)
    assert kernel.flags.writeable                        # TF 2.21 / Keras 3.15.1: True
    kernel[:] = 99.0
    assert np.array_equal(layer.kernel.numpy(), before)


@pytest.mark.parametrize("update", [lambda v: v.assign_add([1.0, 1.0, 1.0]),
                                    lambda v: v.assign_sub([1.0, 1.0, 1.0]),
                                    lambda v: v.assign([9.0, 9.0, 9.0])],
                         ids=["assign_add", "assign_sub", "assign"])
def test_values_read_before_an_update_keep_the_old_value(update):
    v = tf.Variable([1.0, 2.0, 3.0])
    taken = [v.read_value(), tf.identity(v), v.value(), v.numpy(), np.asarray(v),
             np.asarray(v.read_value())]
    update(v)
    for value in taken:                                  # TF 2.21: [1. 2. 3.] for each
        assert np.asarray(value).tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("make_optimizer", [lambda: tf.keras.optimizers.SGD(0.1),
                                            lambda: tf.keras.optimizers.Adam(0.1)],
                         ids=["SGD", "Adam"])
def test_values_read_before_an_optimizer_step_keep_the_old_value(make_optimizer):
    v = tf.Variable([1.0, 2.0, 3.0])
    read, view = v.read_value(), np.asarray(v.value())
    make_optimizer().apply_gradients([(tf.constant([1.0, 1.0, 1.0]), v)])
    assert read.numpy().tolist() == view.tolist() == [1.0, 2.0, 3.0]   # TF 2.21
    np.testing.assert_allclose(v.numpy(), [0.9, 1.9, 2.9], rtol=1e-5)


def test_variable_from_a_tensor_never_writes_into_the_tensor():
    t = tf.constant([1.0, 2.0, 3.0])
    v = tf.Variable(t)
    v.assign_add([1.0, 1.0, 1.0])
    w = tf.Variable(t)
    tf.keras.optimizers.SGD(0.1).apply_gradients([(tf.constant([1.0, 1.0, 1.0]), w)])
    assert t.numpy().tolist() == [1.0, 2.0, 3.0]        # TF 2.21: [1. 2. 3.]


def test_variable_assigned_another_variable_keeps_its_value_through_the_others_step():
    w = tf.Variable([1.0, 2.0, 3.0])
    v = tf.Variable([0.0, 0.0, 0.0])
    v.assign(w)
    tf.keras.optimizers.SGD(0.1).apply_gradients([(tf.constant([1.0, 1.0, 1.0]), w)])
    assert v.numpy().tolist() == [1.0, 2.0, 3.0]        # TF 2.21: [1. 2. 3.]
    np.testing.assert_allclose(w.numpy(), [0.9, 1.9, 2.9], rtol=1e-6)


# -- shape checks of the updates -------------------------------------------------------------

def _assign_error(op: str, var_shape: str, value_shape: str) -> str:
    # TF 2.21, eager: InvalidArgumentError with this text.
    return (f"{{{{function_node __wrapped__{op}_device_/job:localhost/replica:0/task:0/device:"
            f"CPU:0}}}} Cannot update variable with shape {var_shape} using a Tensor with shape "
            f"{value_shape}, shapes must be equal. [Op:{op}] name: ")


@pytest.mark.parametrize("initial, delta, var_shape, value_shape", [
    ([1.0, 2.0, 3.0], [1.0, 2.0], "[3]", "[2]"),
    ([1.0, 2.0, 3.0], 1.0, "[3]", "[]"),
    ([1.0, 2.0, 3.0], [[1.0, 2.0, 3.0]], "[3]", "[1,3]"),
    (np.ones((2, 3), np.float32), np.ones((3, 2), np.float32), "[2,3]", "[3,2]"),
    (1.0, [1.0], "[]", "[1]"),
])
@pytest.mark.parametrize("method, op", [("assign_add", "AssignAddVariableOp"),
                                        ("assign_sub", "AssignSubVariableOp")])
def test_add_and_sub_of_another_shape_raise_tf_error_and_keep_the_value(
        initial, delta, var_shape, value_shape, method, op):
    v = tf.Variable(initial)
    before = v.numpy().copy()
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        getattr(v, method)(delta)
    assert str(info.value) == _assign_error(op, var_shape, value_shape)
    assert np.array_equal(v.numpy(), before)


def test_add_to_a_variable_of_unknown_shape_never_broadcasts():
    v = tf.Variable([1.0, 2.0, 3.0], shape=tf.TensorShape(None))
    for delta in ([1.0, 2.0], [1.0], 1.0):              # NumPy would broadcast [1.] and 1.
        with pytest.raises(tf.errors.InvalidArgumentError, match="shapes must be equal"):
            v.assign_add(delta)
    assert v.numpy().tolist() == [1.0, 2.0, 3.0]
    v.assign([1.0, 2.0])                                 # TF 2.21: assign may change the shape
    assert v.numpy().tolist() == [1.0, 2.0]


def test_assign_of_an_incompatible_shape_raises_value_error_and_keeps_the_value():
    v = tf.Variable([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Shape mismatch"):
        v.assign([1.0, 2.0])
    assert v.numpy().tolist() == [1.0, 2.0, 3.0]


# -- tf.data ---------------------------------------------------------------------------------

@pytest.mark.parametrize("build, read", [
    (tf.data.Dataset.from_tensor_slices, lambda x: x),
    (tf.data.Dataset.from_tensors, lambda x: x),
    (lambda a: tf.data.Dataset.from_tensor_slices({"x": a}), lambda x: x["x"]),
], ids=["from_tensor_slices", "from_tensors", "dict"])
def test_datasets_copy_the_callers_arrays(build, read):
    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    ds = build(a)
    a[:] = -1
    got = np.concatenate([np.asarray(read(x)).ravel() for x in ds]).tolist()
    assert got == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]         # TF 2.21: the values at creation


def test_as_numpy_iterator_hands_out_read_only_arrays():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.float32).reshape(3, 2))
    rows = list(ds.as_numpy_iterator())
    assert [r.flags.writeable for r in rows] == [False] * 3        # TF 2.21: read-only
    with pytest.raises(ValueError, match="read-only"):
        rows[0][0] = 100.0
    assert [b.flags.writeable for b in ds.batch(2).as_numpy_iterator()] == [False, False]
    assert list(ds.as_numpy_iterator())[0].tolist() == [0.0, 1.0]
    element = next(iter(ds))
    assert not np.asarray(element).flags.writeable and element.numpy().flags.writeable
    scalars = list(tf.data.Dataset.from_tensors(np.float32(3.0)).as_numpy_iterator())
    assert scalars == [3.0] and type(scalars[0]) is np.float32


# -- py_function / numpy_function ------------------------------------------------------------

def test_numpy_function_gets_a_writable_copy_and_its_result_is_copied():
    x = tf.constant([1.0, 2.0])
    seen = {}

    def write_input(a):
        seen["writeable"] = a.flags.writeable
        a[0] = 100.0
        return a
    out = tf.numpy_function(write_input, [x], tf.float32)
    assert seen["writeable"]                             # TF 2.21: writable input copy
    assert x.numpy().tolist() == [1.0, 2.0] and out.numpy().tolist() == [100.0, 2.0]
    src = np.array([1.0, 2.0], np.float32)
    out = tf.numpy_function(lambda a: src, [x], tf.float32)
    src[:] = 9
    assert out.numpy().tolist() == [1.0, 2.0]            # TF 2.21: [1. 2.]


def test_py_function_result_is_copied():
    src = np.array([1.0, 2.0], np.float32)
    seen = {}

    def keep(a):
        seen["numpy_writeable"] = a.numpy().flags.writeable
        return src
    out = tf.py_function(keep, [tf.constant([1.0, 2.0])], tf.float32)
    src[:] = 9
    assert out.numpy().tolist() == [1.0, 2.0] and seen["numpy_writeable"]   # TF 2.21


# -- tf.function -----------------------------------------------------------------------------

def test_function_arguments_are_copied():
    identity, passthrough = tf.function(lambda x: tf.identity(x)), tf.function(lambda x: x)
    a = np.arange(3, dtype=np.float32)
    outs = [identity(a), passthrough(a)]
    a[:] = 0
    assert [o.numpy().tolist() for o in outs] == [[0.0, 1.0, 2.0]] * 2   # TF 2.21
    assert not np.asarray(outs[0]).flags.writeable


# -- Keras -----------------------------------------------------------------------------------

def test_keras_variables_and_initializers_copy():
    a = np.zeros(3, np.float32)
    variable = tf.keras.Variable(a)
    assigned = tf.keras.Variable(np.ones(3, np.float32))
    assigned.assign(a)
    weight = tf.keras.layers.Layer().add_weight(shape=(3,), initializer=lambda shape, dtype=None: a)
    a[:] = 5.0
    # Keras 3.15.1: [0. 0. 0.] for each.
    for v in (variable, assigned, weight):
        assert v.numpy().tolist() == [0.0, 0.0, 0.0]


def test_get_and_set_weights_copy():
    layer = tf.keras.layers.Dense(2)
    layer.build((None, 3))
    kernel = layer.kernel.numpy()
    weights = layer.get_weights()
    assert all(w.flags.writeable for w in weights)       # Keras 3.15.1: writable copies
    weights[0][:] = 7.0
    assert np.array_equal(layer.kernel.numpy(), kernel)
    new = [np.ones((3, 2), np.float32), np.zeros(2, np.float32)]
    layer.set_weights(new)
    new[0][:] = 5.0
    assert layer.kernel.numpy().tolist() == [[1.0, 1.0]] * 3


def test_predict_outputs_are_fresh_writable_arrays():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    x = np.ones((4, 3), np.float32)
    first, second = model.predict(x, verbose=0), model.predict(x, verbose=0)
    on_batch = model.predict_on_batch(x)
    # Keras 3.15.1: NumPy arrays, writable, not shared between calls.
    assert type(first) is np.ndarray and first.flags.writeable and on_batch.flags.writeable
    assert not np.shares_memory(first, second) and not np.shares_memory(first, on_batch)
    first[:] = 0.0
    np.testing.assert_allclose(model.predict(x, verbose=0), second)


# -- no copy where nothing enters (deterministic: traced allocations) ------------------------

def _traced_peak(fn) -> int:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_conversion_copies_once_and_views_cost_nothing():
    a = np.ones(1 << 20, np.float32)                     # 4 MiB
    t = tf.constant(a)
    assert _traced_peak(lambda: tf.constant(a)) >= a.nbytes       # a copy
    assert _traced_peak(lambda: tf.constant(a)) < 2 * a.nbytes    # just one
    assert _traced_peak(lambda: np.asarray(t)) < 64 << 10         # a view, no copy
    assert _traced_peak(lambda: tf.convert_to_tensor(t)) < 64 << 10
    v = tf.Variable(t)
    assert _traced_peak(lambda: v.value()) < 64 << 10
    assert _traced_peak(lambda: tf.reshape(t, (1024, 1024))) < 64 << 10
