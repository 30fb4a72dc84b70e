"""The fused optimizer update (keras/optimizers/fused.py, ops/optimizer_ops.py) against the
op-by-op reference path (`_fused_updates = False`, Keras's formula one op at a time): bitwise
equal, eagerly and traced; arrays users hold keep their values; writes land in place only
where nothing else can see the buffer."""

import threading

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.framework.variables import owns_value
from tapeflow.keras import optimizers
from tapeflow.keras.optimizers import schedules

CONFIGS = {
    "adam": lambda: optimizers.Adam(0.01),
    "adam_amsgrad": lambda: optimizers.Adam(0.01, amsgrad=True),
    "adamw": lambda: optimizers.AdamW(0.01, weight_decay=0.05),
    "adam_schedule": lambda: optimizers.Adam(schedules.ExponentialDecay(0.05, 3, 0.5)),
    "adam_clipnorm": lambda: optimizers.Adam(0.01, clipnorm=0.1),
    "adam_clipvalue": lambda: optimizers.Adam(0.01, clipvalue=0.05),
    "adam_global_clipnorm": lambda: optimizers.Adam(0.01, global_clipnorm=0.1),
    "sgd": lambda: optimizers.SGD(0.1),
    "sgd_momentum": lambda: optimizers.SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda: optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "sgd_weight_decay": lambda: optimizers.SGD(0.1, momentum=0.5, weight_decay=0.01),
    "rmsprop": lambda: optimizers.RMSprop(0.01),
    "rmsprop_centered_momentum": lambda: optimizers.RMSprop(0.01, momentum=0.5, centered=True),
    "rmsprop_momentum": lambda: optimizers.RMSprop(0.01, momentum=0.5),
    "adagrad": lambda: optimizers.Adagrad(0.1),
}


def _train(make, fused, traced, dtype, steps=12):
    rng = np.random.default_rng(0)
    w = tf.Variable(rng.normal(size=(5, 4)).astype(dtype))
    b = tf.Variable(rng.normal(size=(4,)).astype(dtype))
    x = tf.constant(rng.normal(size=(8, 5)).astype(dtype))
    opt = make()
    opt._fused_updates = fused

    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.tanh(x @ w + b)))
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
    if traced:
        step = tf.function(step)
    for _ in range(steps):
        step()
    return [w.numpy(), b.numpy()] + [v.numpy() for v in opt.variables]


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_fused_step_is_bitwise_the_op_by_op_step(name, dtype, traced):
    want = _train(CONFIGS[name], False, traced, dtype)
    got = _train(CONFIGS[name], True, traced, dtype)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_eager_alpha_is_bitwise_the_ops_alpha(dtype):
    dt = tf.as_dtype(dtype)
    for beta_1, beta_2, lr in [(0.9, 0.999, 0.001), (0.5, 0.99, 0.3), (0.95, 0.9999, 1e-5)]:
        opt = optimizers.Adam(lr, beta_1=beta_1, beta_2=beta_2)
        for step in [0, 1, 2, 9, 99, 999, 4321, 99999]:
            opt.iterations.assign(step)
            lr_t = tf.cast(opt.learning_rate, dt)
            fast = opt._eager_alpha(lr_t._value, np.dtype(dtype))
            slow = opt._alpha(lr_t, dt)
            assert fast.dtype == slow.dtype
            assert fast.numpy().tobytes() == slow.numpy().tobytes(), (beta_1, beta_2, step)


def _dense_problem():
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    g = tf.constant(np.full((2, 3), 0.5, np.float32))
    return w, g


def test_reads_taken_before_the_update_keep_their_values():
    w, g = _dense_problem()
    opt = optimizers.Adam(0.1)
    opt.apply_gradients([(g, w)])   # builds the slots
    before = w.numpy().copy()
    slots_before = [v.numpy().copy() for v in opt.variables[2:]]
    held = [w.value(), tf.identity(w), w + 0, w.read_value()]
    slot_reads = [v.value() for v in opt.variables[2:]]
    numpy_view = w.numpy()
    opt.apply_gradients([(g, w)])
    assert not np.array_equal(w.numpy(), before)      # it did update
    for t in held:
        np.testing.assert_array_equal(t.numpy(), before)
    np.testing.assert_array_equal(numpy_view, before)
    for t, want in zip(slot_reads, slots_before):
        np.testing.assert_array_equal(t.numpy(), want)


def _two_small_variables():
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = tf.Variable(np.ones(3, np.float32))
    grads = [tf.constant(np.full((2, 3), 0.5, np.float32)), tf.constant(np.full(3, -2.0,
                                                                            np.float32))]
    return [w, b], grads


def test_small_variables_update_as_one_group_over_shared_buffers():
    variables, grads = _two_small_variables()
    opt = optimizers.Adam(0.1)
    for _ in range(2):
        opt.apply_gradients(zip(grads, variables))
    if threading.active_count() != 1:
        pytest.skip("another thread runs: updates write fresh arrays")
    w, b = variables
    assert w._value.base is not None and w._value.base is b._value.base
    address = w._value.__array_interface__["data"][0]
    opt.apply_gradients(zip(grads, variables))
    assert w._value.__array_interface__["data"][0] == address   # in place, no new buffers


def test_reads_taken_before_a_grouped_update_keep_their_values():
    variables, grads = _two_small_variables()
    opt = optimizers.Adam(0.1)
    for _ in range(2):   # the second step leaves the variables holding the group's views
        opt.apply_gradients(zip(grads, variables))
    before = [v.numpy().copy() for v in variables + opt.variables[2:]]
    held = [variables[0].value(), variables[1].read_value(), opt.variables[2].value()]
    numpy_view = variables[1].numpy()
    opt.apply_gradients(zip(grads, variables))
    assert not np.array_equal(variables[0].numpy(), before[0])   # it did update
    np.testing.assert_array_equal(held[0].numpy(), before[0])
    np.testing.assert_array_equal(held[1].numpy(), before[1])
    np.testing.assert_array_equal(held[2].numpy(), before[2])
    np.testing.assert_array_equal(numpy_view, before[1])


def test_model_get_weights_keeps_its_values():
    model = tf.keras.Sequential([tf.keras.layers.Dense(3)])
    model.build((None, 2))
    opt = optimizers.Adam(0.1)
    grads = [tf.ones_like(v) for v in model.trainable_variables]
    weights = model.get_weights()
    copies = [np.array(a) for a in weights]
    opt.apply_gradients(zip(grads, model.trainable_variables))
    for a, want in zip(weights, copies):
        np.testing.assert_array_equal(a, want)


def test_a_value_nothing_else_holds_is_updated_in_place():
    w, g = _dense_problem()
    opt = optimizers.Adam(0.1)
    opt.apply_gradients([(g, w)])
    if threading.active_count() != 1:
        pytest.skip("another thread runs: updates write fresh arrays")
    address = w._value.__array_interface__["data"][0]
    slot_addresses = [v._value.__array_interface__["data"][0] for v in opt.variables[2:]]
    assert owns_value(w)
    opt.apply_gradients([(g, w)])
    assert w._value.__array_interface__["data"][0] == address
    assert [v._value.__array_interface__["data"][0] for v in opt.variables[2:]] == \
        slot_addresses


def test_owns_value_sees_every_holder():
    v = tf.Variable(np.ones(4, np.float32))
    assert owns_value(v)
    for make_holder in (lambda: v.value(), lambda: v._value[1:], lambda: memoryview(v._value),
                        lambda: np.asarray(v.value())):
        holder = make_holder()
        assert not owns_value(v)
        del holder
    assert owns_value(v)
    v.assign(np.ones(8, np.float32)[::2])   # assign copies a caller's array: v's own
    assert owns_value(v)
    v.assign(tf.constant(np.ones(8, np.float32))[::2])   # a view of a tensor's array: never
    assert not owns_value(v)                              # written into


def test_with_other_threads_alive_updates_write_fresh_arrays():
    w, g = _dense_problem()
    opt = optimizers.Adam(0.1)
    opt.apply_gradients([(g, w)])
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        old = w._value
        old_copy = old.copy()
        opt.apply_gradients([(g, w)])
        assert w._value is not old
        np.testing.assert_array_equal(old, old_copy)
    finally:
        stop.set()
        thread.join()


def test_traced_step_records_one_update_node_per_variable():
    w = tf.Variable(np.ones((3, 4), np.float32))
    b = tf.Variable(np.ones(4, np.float32))
    opt = optimizers.Adam(0.01)

    @tf.function
    def step(g1, g2):
        opt.apply_gradients(zip([g1, g2], [w, b]))
    args = (tf.ones((3, 4)), tf.ones(4))
    step(*args)
    ops = [op.type for op in step.get_concrete_function(*args).graph.get_operations()]
    assert ops.count("KerasApplyAdam") == 2
    assert ops.count("Sub") == 2   # only the step's scalars: 1 - beta_1**t, 1 - beta_2**t


def test_indexed_slices_gradients_take_the_op_by_op_path():
    def run(fused):
        table = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
        opt = optimizers.Adam(0.1)
        opt._fused_updates = fused
        for _ in range(3):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.gather(table, [0, 2, 0]) ** 2)
            grad = tape.gradient(loss, table)
            assert isinstance(grad, tf.IndexedSlices)
            opt.apply_gradients([(grad, table)])
        return table.numpy()
    np.testing.assert_array_equal(run(True), run(False))


def test_shape_mismatch_raises_and_leaves_variables_unchanged():
    w = tf.Variable(np.ones((2, 3), np.float32))
    opt = optimizers.Adam(0.1)
    opt.build([w])
    with pytest.raises(tf.errors.InvalidArgumentError):
        opt.apply_gradients([(tf.ones((4,)), w)])
    np.testing.assert_array_equal(w.numpy(), np.ones((2, 3), np.float32))
    assert int(opt.iterations.numpy()) == 0
    for slot in opt.variables[2:]:
        np.testing.assert_array_equal(slot.numpy(), np.zeros((2, 3), np.float32))


def test_update_inside_a_tape_keeps_the_op_by_op_path():
    w, g = _dense_problem()
    ref, _ = _dense_problem()
    opt, ref_opt = optimizers.Adam(0.1), optimizers.Adam(0.1)
    ref_opt._fused_updates = False
    with tf.GradientTape():
        opt.apply_gradients([(g, w)])
    ref_opt.apply_gradients([(g, ref)])
    np.testing.assert_array_equal(w.numpy(), ref.numpy())
    assert int(opt.iterations.numpy()) == 1


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("make", [lambda: optimizers.Adam(0.1),
                                  lambda: optimizers.SGD(0.1, momentum=0.9),
                                  lambda: optimizers.RMSprop(0.1),
                                  lambda: optimizers.Adagrad(0.1)])
def test_scalar_variables_update(make, traced):
    # TF 2.21: Adam(0.1) on a float64 scalar 1.0 with gradient 2.0 gives 0.900000824196408.
    v = tf.Variable(1.0, dtype=tf.float64)
    w = tf.Variable([1.0, 2.0])
    opt = make()

    def step():
        opt.apply_gradients([(tf.constant(2.0, tf.float64), v), (tf.constant([1.0, 1.0]), w)])

    (tf.function(step) if traced else step)()
    assert v.numpy() < 1.0 and v.shape == ()
    if isinstance(opt, optimizers.Adam):
        assert v.numpy() == pytest.approx(0.900000824196408, abs=1e-12)
