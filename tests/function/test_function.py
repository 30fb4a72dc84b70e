"""tf.function: retracing, side effects, variables, gradients, errors, graph passes and views.

Expected values and counts were checked with TensorFlow 2.21 (see the comments)."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.function import OperatorNotAllowedInGraphError


def test_traces_once_per_shape_and_dtype_and_python_side_effects_run_only_then(capsys):
    trace_log = []

    @tf.function
    def f(x):
        trace_log.append(1)
        print("tracing", x)
        return x * 2.0

    np.testing.assert_allclose(f(tf.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
    f(tf.constant([3.0, 4.0]))
    assert f.experimental_get_tracing_count() == 1
    f(tf.constant([1.0, 2.0, 3.0]))                  # new shape
    f(tf.constant([1.0, 2.0], dtype=tf.float64))     # new dtype
    assert f.experimental_get_tracing_count() == 3
    assert len(trace_log) == 3
    # TF prints the symbolic tensor as Tensor("x:0", shape=(2,), dtype=float32).
    assert capsys.readouterr().out.splitlines()[0] == \
        'tracing Tensor("x:0", shape=(2,), dtype=float32)'


def test_python_scalars_retrace_by_value_objects_by_identity():
    @tf.function
    def f(x, n, obj):
        return x * float(n) * obj.scale

    class Holder:
        def __init__(self, scale):
            self.scale = scale

    a, b = Holder(2.0), Holder(3.0)
    x = tf.constant(1.0)
    assert float(f(x, 2, a)) == 4.0
    assert float(f(x, 2, a)) == 4.0
    assert f.experimental_get_tracing_count() == 1
    assert float(f(x, 3, a)) == 6.0
    assert float(f(x, 3, b)) == 9.0
    assert f.experimental_get_tracing_count() == 3


def test_tf_print_runs_every_call_to_stderr(capsys):
    @tf.function
    def f(x):
        tf.print("x =", x)
        return x + 1

    f(tf.constant([1.0, 2.5]))
    f(tf.constant([3.0, 4.0]))
    err = capsys.readouterr().err
    assert err == "x = [1 2.5]\nx = [3 4]\n"


def test_tf_print_format_matches_tensorflow(capsys):
    # TF 2.21: [1.5 2 3 ... 5 6 7] hi 3 2 [[1 2]\n [3 4]]
    tf.print(tf.constant([1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]), "hi", 3, tf.constant(2),
             tf.constant([[1, 2], [3, 4]]))
    tf.print(tf.constant(1.25), tf.constant(True), tf.constant([1e-8, 1e10]))
    assert capsys.readouterr().err == ("[1.5 2 3 ... 5 6 7] hi 3 2 [[1 2]\n [3 4]]\n"
                                      "1.25 1 [1e-08 1e+10]\n")


def test_input_signature_with_none_dims_traces_once():
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        assert x.shape.as_list() == [None, 3]
        return tf.reduce_sum(x * x, axis=1)

    for n in (1, 4, 7):
        x = np.arange(3 * n, dtype=np.float32).reshape(n, 3)
        np.testing.assert_allclose(f(tf.constant(x)).numpy(), (x * x).sum(1))
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed"):
        f(tf.constant([[1.0, 2.0]]))


def test_reduce_retracing_relaxes_shapes_after_the_second_shape():
    @tf.function(reduce_retracing=True)
    def f(x):
        return x * 3.0

    for n in (2, 3, 4, 5):
        np.testing.assert_allclose(f(tf.ones([n])).numpy(), np.full(n, 3.0))
    assert f.experimental_get_tracing_count() == 2   # as TensorFlow: [2], then [None]


def test_get_concrete_function_and_graph_views():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.sin(x) * x)
        return y, tape.gradient(y, x)

    cf = f.get_concrete_function(tf.TensorSpec([3], tf.float32))
    x = np.array([0.1, 0.2, 0.3], np.float32)
    y, g = cf(tf.constant(x))
    np.testing.assert_allclose(g.numpy(), np.cos(x) * x + np.sin(x), rtol=1e-6)
    text = str(cf.graph)
    assert "Sin(" in text and "[backward]" in text and "float32(3,)" in text
    dot = cf.graph.to_dot()
    assert dot.startswith("digraph") and "cluster_backward" in dot and "cluster_forward" in dot
    assert "def run(args):" in cf.lowered_source()
    assert f.experimental_get_tracing_count() == 1


def test_variables_read_and_assigned_inside_the_graph():
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        v.assign_add(x)
        v.assign(v * 2.0)
        return v.read_value()

    assert float(f(tf.constant(1.0))) == 4.0
    assert float(f(tf.constant(1.0))) == 10.0
    assert float(v.numpy()) == 10.0
    assert f.experimental_get_tracing_count() == 1


def test_variables_created_on_first_call_only():
    state = {}

    @tf.function
    def f(x):
        if "v" not in state:
            state["v"] = tf.Variable(2.0)
        return x * state["v"]

    assert float(f(tf.constant(3.0))) == 6.0
    assert f.experimental_get_tracing_count() == 2    # TF traces twice when variables appear

    @tf.function
    def g(x):
        tf.Variable(1.0)
        return x

    with pytest.raises(ValueError, match="tf.function only supports singleton tf.Variables "
                                         "created on the first call"):
        g(tf.constant(1.0))


def test_training_step_matches_eager_and_outer_tape_gradients():
    rng = np.random.default_rng(0)
    w = tf.Variable(rng.normal(size=(4, 3)).astype(np.float32))
    b = tf.Variable(np.zeros(3, np.float32))
    x = tf.constant(rng.normal(size=(8, 4)).astype(np.float32))
    y = tf.constant(rng.normal(size=(8, 3)).astype(np.float32))

    def step(x, y):
        with tf.GradientTape() as tape:
            pred = tf.nn.relu(x @ w + b) if hasattr(tf, "nn") else tf.maximum(x @ w + b, 0.0)
            loss = tf.reduce_mean((pred - y) ** 2)
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * gw)
        b.assign_sub(0.1 * gb)
        return loss

    start = (w.numpy(), b.numpy())
    eager = [float(step(x, y)) for _ in range(3)]
    eager_w = w.numpy()
    w.assign(start[0]), b.assign(start[1])
    compiled = tf.function(step)
    traced = [float(compiled(x, y)) for _ in range(3)]
    np.testing.assert_allclose(traced, eager, rtol=1e-6)
    np.testing.assert_allclose(w.numpy(), eager_w, rtol=1e-6)

    @tf.function
    def forward(x):
        return tf.reduce_sum(x @ w)

    with tf.GradientTape() as tape:
        loss = forward(x)
    gw = tape.gradient(loss, w)
    np.testing.assert_allclose(gw.numpy(), np.tile(x.numpy().sum(0)[:, None], (1, 3)),
                               rtol=1e-5)


def test_methods_and_nested_functions():
    class Model:
        def __init__(self):
            self.v = tf.Variable(3.0)

        @tf.function
        def __call__(self, x):
            return inner(x) * self.v

    @tf.function
    def inner(x):
        return x + 1.0

    m1, m2 = Model(), Model()
    m2.v.assign(5.0)
    assert float(m1(tf.constant(1.0))) == 6.0
    assert float(m2(tf.constant(1.0))) == 10.0


def test_python_control_flow_on_traced_tensor_without_autograph_names_the_line():
    @tf.function(autograph=False)
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(OperatorNotAllowedInGraphError) as info:
        f(tf.constant(1.0))
    message = str(info.value)
    assert "if x > 0:" in message and "tf.cond" in message and "test_function.py" in message

    @tf.function(autograph=False)
    def g(x):
        total = 0.0
        for item in x:
            total += item
        return total

    with pytest.raises(OperatorNotAllowedInGraphError, match="tf.while_loop"):
        g(tf.constant([1.0, 2.0]))


def test_errors_inside_traced_code_point_at_the_user_line():
    @tf.function
    def f(x, y):
        return x + y

    # TF 2.21's answer: the shape function fails while tracing, with a ValueError.
    with pytest.raises(ValueError) as info:
        f(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))
    message = str(info.value)
    assert "in user code" in message and "return x + y" in message
    assert "Dimensions must be equal, but are 2 and 3" in message


def test_passes_fold_constants_merge_duplicates_and_drop_dead_code():
    @tf.function
    def f(x):
        c = tf.constant(2.0) * tf.constant(3.0)      # folded
        tf.exp(x)                                    # dead
        a = tf.sin(x) * c
        b = tf.sin(x) * c                            # common subexpression
        return a + b

    cf = f.get_concrete_function(tf.TensorSpec([2], tf.float32))
    ops = [n.op_name for n in cf.graph.nodes]
    assert ops.count("Sin") == 1 and "Exp" not in ops and ops.count("Mul") == 1
    assert cf.pass_stats["constants_folded"] >= 1
    x = np.array([0.3, 0.4], np.float32)
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), 12 * np.sin(x), rtol=1e-6)


def test_equal_constants_merge_so_repeated_work_on_them_is_done_once():
    # An optimizer computes its step size from fresh constants for every variable.
    @tf.function
    def f(x):
        return x * tf.sqrt(1.0 - tf.constant(0.999)) + x * tf.sqrt(1.0 - tf.constant(0.999))

    cf = f.get_concrete_function(tf.TensorSpec([2], tf.float32))
    assert cf.pass_stats["constants_merged"] >= 1
    assert [n.op_name for n in cf.graph.nodes].count("Mul") == 1
    x = np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), 2 * x * np.sqrt(0.001), rtol=1e-5)


def test_in_place_buffer_reuse_keeps_inputs_and_results_intact():
    @tf.function
    def f(x):
        y = x * 2.0
        z = y + 1.0       # may reuse y's buffer
        w = z * z         # and again
        return w - 1.0, x

    x = tf.constant(np.arange(6, dtype=np.float32))
    before = x.numpy()
    out, same = f(x)
    np.testing.assert_allclose(out.numpy(), (before * 2 + 1) ** 2 - 1)
    np.testing.assert_array_equal(x.numpy(), before)
    cf = f.get_concrete_function(x)
    assert "out=" in cf.lowered_source()


_FAMILY_PROGRAMS = {
    "math": lambda x, y: tf.exp(x) * tf.sin(y) - tf.maximum(x, y) / (1.0 + tf.abs(y)),
    "reduce": lambda x, y: tf.reduce_sum(x * y, axis=1) + tf.reduce_max(x, axis=1)
    + tf.reduce_mean(y),
    "array": lambda x, y: tf.reshape(tf.transpose(tf.concat([x, y], axis=0)), [-1])[1:7],
    "matmul": lambda x, y: tf.matmul(x, tf.transpose(y)) + tf.where(x > y, x, y)[:, :3],
    "nn": lambda x, y: (tf.nn.softmax(x) + tf.nn.relu(y) + tf.nn.sigmoid(x * y))
    if hasattr(tf, "nn") else x,
    "linalg": lambda x, y: (tf.linalg.matmul(x[:, :3], y[:, :3], transpose_b=True)
                            if hasattr(tf, "linalg") else x),
    "control": lambda x, y: tf.cond(tf.reduce_sum(x) > 0.0, lambda: x * y, lambda: x - y),
}


@pytest.mark.parametrize("family", sorted(_FAMILY_PROGRAMS))
def test_graph_output_equals_eager_output(family):
    program = _FAMILY_PROGRAMS[family]
    rng = np.random.default_rng(3)
    x = tf.constant(rng.normal(size=(3, 4)))
    y = tf.constant(rng.normal(size=(3, 4)))
    eager = program(x, y)
    traced = tf.function(program)(x, y)
    assert traced.dtype == eager.dtype and traced.shape == eager.shape
    np.testing.assert_allclose(traced.numpy(), eager.numpy(), rtol=1e-12, atol=1e-12)
    # Gradients through the compiled function equal the eager ones as well.
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        e, t = tf.reduce_sum(program(x, y)), tf.reduce_sum(tf.function(program)(x, y))
    for a, b in zip(tape.gradient(e, [x, y]), tape.gradient(t, [x, y])):
        if a is None:
            assert b is None
        else:
            np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-12, atol=1e-12)


def test_indexed_slices_outputs_are_computed_per_call():
    # A gather's gradient is an IndexedSlices; returned from a traced function, each call
    # must give its own values and indices, not the trace's.
    params = tf.Variable(np.arange(6.0).reshape(3, 2).astype("float32"))

    @tf.function
    def grad(idx, scale):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.gather(params, idx) * scale)
        return tape.gradient(y, params)

    first = grad(tf.constant([0, 2]), tf.constant(1.0))
    second = grad(tf.constant([1, 1]), tf.constant(3.0))
    assert isinstance(second, tf.IndexedSlices)
    np.testing.assert_array_equal(first.indices.numpy(), [0, 2])
    np.testing.assert_array_equal(second.indices.numpy(), [1, 1])
    np.testing.assert_array_equal(second.values.numpy(), np.full((2, 2), 3.0))
    np.testing.assert_array_equal(tf.convert_to_tensor(second).numpy(),
                                  [[0, 0], [6, 6], [0, 0]])


def test_a_new_object_at_a_dead_objects_address_gets_its_own_trace():
    # Objects are keyed by identity; a freed object's address is often reused at once, and
    # the newcomer must not be served the old trace (with the old object's variables).
    class Holder:
        def __init__(self, value):
            self.v = tf.Variable(value)

    @tf.function
    def read(holder):
        return holder.v * 1.0

    for value in range(10):
        holder = Holder(float(value))
        assert float(read(holder)) == value
        del holder


def test_user_line_is_found_when_tapeflow_is_imported_through_an_unnormalized_path(tmp_path):
    # A sys.path entry such as 'benchmarks/../src' gives tapeflow's frames unnormalized file
    # names; they must still count as tapeflow's, so errors point at the user's line.
    import os
    import subprocess
    import sys
    src = os.path.dirname(os.path.dirname(tf.__file__))
    script = tmp_path / "user.py"
    script.write_text("import tapeflow as tf\n"
                      "@tf.function\n"
                      "def f(x):\n"
                      "    return tf.reshape(x, (5,))\n"
                      "f(tf.ones((2, 3)))\n")
    unnormalized = os.path.join(src, "..", os.path.basename(src))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=unnormalized), timeout=60)
    assert 'user.py", line 4, in f' in result.stderr
    assert "graph.py" not in result.stderr.split("in user code:")[1]


@pytest.mark.parametrize("view", [lambda a: a[0:2], lambda a: tf.reshape(a, (3, 1))[:2, 0],
                                  lambda a: tf.transpose(tf.reshape(a, (3, 1)))[0, :2]])
def test_buffer_reuse_never_overwrites_a_value_that_a_view_still_reads(view):
    # a's last use is exp, which may write its result into a's buffer, but a slice, reshape
    # or transpose taken earlier is a view of that buffer and is read afterwards.
    def f(x):
        a = x * 2.0
        v = view(a)
        b = tf.exp(a)
        return v + tf.reduce_sum(b)

    x = tf.constant([1.0, 2.0, 3.0])
    np.testing.assert_allclose(tf.function(f)(x).numpy(), f(x).numpy(), rtol=1e-6)


def test_repeated_calls_dispatch_by_shape_dtype_value_and_identity():
    # The fast dispatch for positional calls must tell apart exactly what tracing does.
    traces = []

    @tf.function
    def f(x, flag, obj):
        traces.append(1)
        return x * 2.0 if flag else x

    class Thing:
        pass

    a, b = Thing(), Thing()
    x32 = tf.constant([1.0, 2.0])
    for _ in range(3):
        assert f(x32, True, a).numpy().tolist() == [2.0, 4.0]
    assert len(traces) == 1
    # As TF 2.21: Python literals are keyed by value, and 1 == True, 0.0 == False.
    assert f(x32, 1, a).numpy().tolist() == [2.0, 4.0] and len(traces) == 1
    assert f(x32, False, a).numpy().tolist() == [1.0, 2.0] and len(traces) == 2
    assert f(x32, 0.0, a).numpy().tolist() == [1.0, 2.0] and len(traces) == 2
    assert f(x32, None, a).numpy().tolist() == [1.0, 2.0] and len(traces) == 3
    f(x32, True, b)
    f(tf.constant([1.0, 2.0, 3.0]), True, a)
    f(tf.constant([1.0, 2.0], tf.float64), True, a)
    assert len(traces) == 6
    assert f(tf.constant([5.0, 6.0]), True, a).numpy().tolist() == [10.0, 12.0]
    assert len(traces) == 6


def test_variables_built_inside_a_trace_are_initialized_eagerly():
    # A subclassed Keras model first called inside tf.function builds its weights there:
    # the initializers (random draws) run eagerly, as TensorFlow's init_scope lifts them.
    from tapeflow import keras

    class MLP(keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = keras.layers.Dense(8, activation="relu")
            self.out = keras.layers.Dense(1)

        def call(self, x, training=False):
            return self.out(self.hidden(x))

    model = MLP()
    x = tf.constant(np.ones((4, 3), np.float32))
    traced = tf.function(lambda v: model(v))(x)
    np.testing.assert_allclose(traced.numpy(), model(x).numpy(), rtol=1e-6)
    assert len(model.trainable_variables) == 4

    created = []

    @tf.function
    def make():
        if not created:  # the singleton pattern TensorFlow allows
            created.append(tf.Variable(lambda: tf.random.normal((2,)) * 0.0 + 3.0))
        return created[0].read_value()
    np.testing.assert_array_equal(make().numpy(), [3.0, 3.0])


def test_python_values_returned_from_a_function_come_out_as_tensors():
    # TF 2.21: numbers, strings and bools become constant tensors; None stays None.
    @tf.function
    def f(x):
        return x * x + 1, 2.5, None, {"flag": True}

    y, c, n, d = f(2)
    assert isinstance(y, tf.Tensor) and y.dtype == tf.int32 and int(y.numpy()) == 5
    assert isinstance(c, tf.Tensor) and c.dtype == tf.float32
    assert n is None
    assert isinstance(d["flag"], tf.Tensor) and d["flag"].dtype == tf.bool


def test_none_dims_of_a_signature_reach_op_outputs_and_nested_functions(capsys):
    # TF 2.21: static shape inference keeps the None batch dim through ops and into a
    # nested tf.function's trace; reduced-away dims disappear.
    @tf.function
    def inner(h):
        print("inner", h.shape)
        return h

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def outer(x):
        h = inner(tf.matmul(x, tf.ones([3, 2])) + 1.0)
        return h, tf.reduce_sum(x, axis=0), tf.transpose(x)

    h, s, t = outer.get_concrete_function().structured_outputs
    assert (h.shape.as_list(), s.shape.as_list(), t.shape.as_list()) == \
        ([None, 2], [3], [3, None])
    assert capsys.readouterr().out == "inner (None, 2)\n"
    np.testing.assert_allclose(outer(tf.ones([4, 3]))[0].numpy(), np.full((4, 2), 4.0))


def test_concrete_function_converts_lists_and_rejects_a_wrong_dtype():
    # TF 2.21: lists convert to the signature's dtype; an int32 tensor for a float32 input
    # raises InvalidArgumentError "cannot compute __inference_add_N as input #0 ...".
    @tf.function
    def add(a, b):
        return a + b

    spec = tf.TensorSpec([2], tf.float32)
    cf = add.get_concrete_function(spec, spec)
    np.testing.assert_allclose(cf([1.0, 2.0], np.array([3.0, 4.0])).numpy(), [4.0, 6.0])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"as input #0\(zero-based\) was expected to be a float tensor "
                             r"but is a int32 tensor"):
        cf(tf.constant([1, 2]), tf.constant([3, 4]))


def test_returned_shapes_become_tensors_and_other_objects_raise_typeerror():
    # TF 2.21: a returned TensorShape converts to an int32 tensor; a DType (or any object
    # that does not convert) raises TypeError "To be compatible with tf.function, ...".
    @tf.function
    def shape_of(x):
        return x.shape

    out = shape_of(tf.ones([2, 3]))
    assert out.dtype == tf.int32 and out.numpy().tolist() == [2, 3]

    @tf.function
    def dtype_of(x):
        return x.dtype

    with pytest.raises(TypeError, match="found return value of type DType, which is not a "
                                        "Tensor or ExtensionType"):
        dtype_of(tf.ones([2]))


def test_a_leaked_symbolic_tensor_has_no_numpy_and_is_out_of_scope():
    # TF 2.21: a tensor kept from inside a trace has no `numpy` attribute (AttributeError, so
    # hasattr() is False), and using it eagerly raises TypeError instead of computing with
    # the value it had while tracing.
    leaked = []

    @tf.function
    def f(x):
        y = x * 2.0
        leaked.append(y)
        with pytest.raises(AttributeError, match="'SymbolicTensor' object has no attribute "
                                                 "'numpy'"):
            y.numpy()
        return y

    f(tf.constant(1.0))
    (t,) = leaked
    assert not hasattr(t, "numpy")
    with pytest.raises(AttributeError):
        t.numpy()
    with pytest.raises(TypeError, match="is out of scope and cannot be used here"):
        t + 1.0
    with pytest.raises(TypeError, match="is out of scope"):
        tf.exp(t)



def test_equal_python_literals_share_a_trace_as_in_tensorflow():
    # TF 2.21: g(2) then g(2.0) is one trace (returning int32 2 both times); True is another.
    traces = []

    @tf.function
    def g(x):
        traces.append(x)
        return tf.constant(x)

    assert [str(g(2).dtype), str(g(2.0).dtype), str(g(True).dtype)] == \
        ["<dtype: 'int32'>", "<dtype: 'int32'>", "<dtype: 'bool'>"]
    assert traces == [2, True]


def test_a_function_defined_inside_another_captures_its_tensors():
    # TF 2.21's answers: the inner function closes over the outer one's traced tensor.
    @tf.function
    def outer(x):
        @tf.function
        def inner(y):
            return x * y
        return inner(tf.constant(2.0)) + x

    assert float(outer(tf.constant(3.0))) == 9.0
    assert float(outer(tf.constant(4.0))) == 12.0

    leaked = []

    @tf.function
    def keep(x):
        leaked.append(x * 2.0)
        return x

    keep(tf.constant(1.0))

    @tf.function
    def use_leaked():
        return leaked[0] + 1.0

    with pytest.raises(TypeError, match="out of scope"):
        use_leaked()
