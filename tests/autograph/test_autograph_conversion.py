"""Which functions AutoGraph converts and how: callees, methods, closures, lambdas, nested
definitions, notebook cells; `tf.autograph.to_code` / `to_graph`. Expected values are TF 2.21's
answers for the same programs."""

import linecache

import numpy as np

import tapeflow as tf


def _scaled_loop(x, n):
    i = 0
    while i < n:
        x = x * 1.5
        i += 1
    return x


def _sign_or_zero(x):
    if x > 0:
        return x
    else:
        return x * 0


def test_functions_called_from_converted_code_are_converted():
    @tf.function
    def f(x, n):
        return _scaled_loop(x, n) + _sign_or_zero(-x)

    assert float(f(tf.constant(1.0), tf.constant(3))) == 3.375


def test_nested_definitions_convert():
    @tf.function
    def f(x):
        def g(y):
            if y > 0:
                return y * 10
            return y
        return g(x) + g(-x)

    assert float(f(tf.constant(2.0))) == 18.0


def test_methods_convert_and_see_their_instance():
    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(2.0)

        @tf.function
        def __call__(self, x):
            if tf.reduce_sum(x) > 0:
                return x * self.w
            return x / self.w

    m = Model()
    np.testing.assert_array_equal(m(tf.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(m(tf.constant([-1.0, -2.0])).numpy(), [-0.5, -1.0])


def test_zero_argument_super_inside_converted_branches():
    class Base:
        def scale(self, x):
            return x * 3.0

    class Child(Base):
        def scale(self, x):
            if x > 0:
                y = super().scale(x)
            else:
                y = x
            return y

    child = Child()
    f = tf.function(lambda x: child.scale(x))
    assert float(f(tf.constant(2.0))) == 6.0
    assert float(f(tf.constant(-2.0))) == -2.0


def test_callable_objects_convert_their_call():
    class Clip:
        def __call__(self, x):
            if x > 1.0:
                x = tf.constant(1.0)
            return x

    clip = Clip()
    f = tf.function(lambda x: clip(x))
    assert float(f(tf.constant(5.0))) == 1.0
    assert float(f(tf.constant(0.5))) == 0.5


def test_closures_share_the_original_cells():
    def make(k):
        def inner(x):
            if x > k:
                x = x - k
            return x

        def set_k(value):
            nonlocal k
            k = value
        return inner, set_k

    inner, set_k = make(tf.constant(5.0))
    f = tf.function(inner)
    assert float(f(tf.constant(7.0))) == 2.0
    set_k(tf.constant(1.0))
    # A Python number is a new signature: the retrace reads the cell's current value.
    assert float(f(7.0)) == 6.0


def test_nonlocal_assignments_inside_converted_branches():
    def make():
        count = 0

        def f(x):
            nonlocal count
            if x > 0:
                count = count + 1
                x = x * 2
            return x

        return f, lambda: count

    f, read = make()
    g = tf.function(f)
    assert float(g(tf.constant(3.0))) == 6.0
    assert read() == 1       # the tensor if traced its (one) true branch once


def test_lambdas_convert():
    f = tf.function(lambda x: x * 2 if x > 0 else x * -3)
    assert float(f(tf.constant(-1.0))) == 3.0
    assert float(f(tf.constant(2.0))) == 4.0


def test_a_function_defined_in_a_notebook_cell_converts():
    # IPython registers each cell's source with linecache under a made-up file name.
    source = "def cell_fn(x):\n    if x > 0:\n        return x\n    return -x\n"
    filename = "<ipython-input-7-0123456789ab>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    try:
        f = tf.function(namespace["cell_fn"])
        assert float(f(tf.constant(-4.0))) == 4.0
    finally:
        del linecache.cache[filename]


def test_to_code_and_to_graph():
    def f(x):
        if x > 0:
            x = x * 2
        return x

    code = tf.autograph.to_code(f)
    assert "def f(x):" in code and "ag__.if_stmt" in code
    converted = tf.autograph.to_graph(f)
    assert converted is not f
    traced = tf.function(converted, autograph=False)
    assert float(traced(tf.constant(-2.0))) == -2.0
    assert float(traced(tf.constant(2.0))) == 4.0


def test_eager_calls_are_not_converted():
    def f(x):
        total = 0
        for i in range(int(x)):
            total += i
        return total

    assert f(tf.constant(4)) == 6     # plain Python eagerly, as without tf.function


_traced_true_branches = 0


def test_global_assignments_inside_converted_branches():
    @tf.function
    def f(x):
        global _traced_true_branches
        if x > 0:
            _traced_true_branches += 1
            x = x * 2
        return x

    before = _traced_true_branches
    assert float(f(tf.constant(3.0))) == 6.0
    assert float(f(tf.constant(-3.0))) == -3.0
    assert _traced_true_branches == before + 1     # traced once, in the module's global


def _countdown(n):
    if n > 0:
        return _countdown(n - 1) + 1
    return 0


def test_a_recursive_function_on_python_values_converts_and_unrolls(caplog):
    f = tf.function(_countdown)
    with caplog.at_level("WARNING", logger="tapeflow"):
        assert int(f(5)) == 5
    assert "retracing" not in caplog.text    # nested calls trace as part of the outer one
