"""tf.function introspection: concrete functions' printed signatures, structured inputs and
outputs, the graph's operations, binding errors, the retracing warning, and the graph-mode
utilities (executing_eagerly, init_scope, is_tensor, get_static_value, control_dependencies,
group, no_op). Expected texts are TF 2.21's answers (object addresses masked)."""

from __future__ import annotations

import logging
import re

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.graph.ir import Graph

F2 = "TensorSpec(shape=(2,), dtype=tf.float32, name=None)"


def _masked(text: str) -> str:
    return re.sub(r"0x[0-9a-fA-F]+", "ADDR", text)


@pytest.fixture
def add_fn():
    @tf.function
    def f(x, y):
        return x + y
    return f.get_concrete_function(tf.TensorSpec([2], tf.float32), tf.TensorSpec([2], tf.float32))


def test_printed_concrete_function(add_fn):
    # TF 2.21's answer.
    signature = (f"Input Parameters:\n  x (POSITIONAL_OR_KEYWORD): {F2}\n"
                 f"  y (POSITIONAL_OR_KEYWORD): {F2}\nOutput Type:\n  {F2}\nCaptures:\n  None")
    assert str(add_fn) == "ConcreteFunction " + signature
    assert add_fn.pretty_printed_signature() == signature
    assert _masked(repr(add_fn)) == f"<ConcreteFunction (x: {F2}, y: {F2}) -> {F2} at ADDR>"


def test_structured_signature_and_outputs(add_fn):
    # TF 2.21's answers.
    assert repr(add_fn.structured_input_signature) == (
        "((TensorSpec(shape=(2,), dtype=tf.float32, name='x'), "
        "TensorSpec(shape=(2,), dtype=tf.float32, name='y')), {})")
    assert repr(add_fn.structured_outputs) == "<tf.Tensor 'Identity:0' shape=(2,) dtype=float32>"


def test_graph_operations(add_fn):
    ops = add_fn.graph.get_operations()
    # TF 2.21's answer.
    assert [(op.name, op.type, [t.name for t in op.inputs], [t.name for t in op.outputs])
            for op in ops] == [("x", "Placeholder", [], ["x:0"]), ("y", "Placeholder", [], ["y:0"]),
                               ("add", "AddV2", ["x:0", "y:0"], ["add:0"]),
                               ("Identity", "Identity", ["add:0"], ["Identity:0"])]
    assert repr(ops[2]) == "<tf.Operation 'add' type=AddV2>"
    assert ops[2].outputs[0].op is ops[2]


def test_op_names_are_tf_names_case_insensitively_unique():
    graph = Graph("g")
    # TF 2.21's answer: 'add' then 'Add' gives 'Add_1'.
    assert [graph.unique_name(n) for n in ("add", "Add", "add_2", "add")] == \
        ["add", "Add_1", "add_2", "add_3"]

    @tf.function
    def h(x):
        return tf.matmul(x, x) * 2.0 - 1.0, tf.reduce_sum(x)
    cf = h.get_concrete_function(tf.TensorSpec([None, None], tf.float32, name="inp"))
    kinds = [(op.name, op.type) for op in cf.graph.get_operations() if op.type != "Const"]
    # TF 2.21's names for these ops (its Consts differ: tapeflow folds attributes).
    assert kinds == [("inp", "Placeholder"), ("MatMul", "MatMul"), ("mul", "Mul"),
                     ("sub", "Sub"), ("Sum", "Sum"), ("Identity", "Identity"),
                     ("Identity_1", "Identity")]


def test_keyword_only_and_python_arguments():
    @tf.function
    def g(x, n=2, *, scale=1.0):
        return {"a": tf.sin(x) * scale, "b": (x, n)}
    cg = g.get_concrete_function(tf.constant([1.0, 2.0]))
    g(tf.constant(1.0), 3)
    # TF 2.21's answers.
    assert repr(cg.structured_input_signature) == \
        "((TensorSpec(shape=(2,), dtype=tf.float32, name='x'), 2), {'scale': 1.0})"
    first = (f"Input Parameters:\n  x (POSITIONAL_OR_KEYWORD): {F2}\n"
             f"  n (POSITIONAL_OR_KEYWORD): Literal[2]\n  scale (KEYWORD_ONLY): Literal[1.0]\n"
             f"Output Type:\n  Dict[['a', {F2}], ['b', Tuple[{F2}, TensorSpec(shape=(), "
             f"dtype=tf.int32, name=None)]]]\nCaptures:\n  None")
    assert g.pretty_printed_concrete_signatures().split("\n\n")[0] == first
    assert g.pretty_printed_concrete_signatures().count("Input Parameters:") == 2
    assert repr(cg.structured_outputs) == (
        "{'a': <tf.Tensor 'Identity:0' shape=(2,) dtype=float32>, 'b': (<tf.Tensor "
        "'Identity_1:0' shape=(2,) dtype=float32>, <tf.Tensor 'Identity_2:0' shape=() "
        "dtype=int32>)}")


def test_nested_varargs_and_kwargs_signature():
    @tf.function
    def f(a, b, *args, **kw):
        return [a[0], {"z": b}], (a[1],), None, 3
    c = f.get_concrete_function(
        [tf.TensorSpec([2]), tf.TensorSpec([None], tf.int32, name="q")],
        {"k": tf.TensorSpec([]), "j": 1}, tf.TensorSpec([3]), 5, opt=tf.TensorSpec([1]),
        flag=True)
    s0 = "TensorSpec(shape=(), dtype=tf.float32, name=None)"
    # TF 2.21's answers.
    assert str(c) == (
        "ConcreteFunction Input Parameters:\n"
        "  a (POSITIONAL_ONLY): List[TensorSpec(shape=(2,), dtype=tf.float32, name=None), "
        "TensorSpec(shape=(None,), dtype=tf.int32, name='q')]\n"
        f"  b (POSITIONAL_ONLY): Dict[['k', {s0}], ['j', Literal[1]]]\n"
        "  args_0 (POSITIONAL_ONLY): TensorSpec(shape=(3,), dtype=tf.float32, name=None)\n"
        "  args_1 (POSITIONAL_ONLY): Literal[5]\n  flag (KEYWORD_ONLY): Literal[True]\n"
        "  opt (KEYWORD_ONLY): TensorSpec(shape=(1,), dtype=tf.float32, name=None)\n"
        "Output Type:\n  Tuple[List[TensorSpec(shape=(2,), dtype=tf.float32, name=None), "
        f"Dict[['z', Dict[['k', {s0}], ['j', TensorSpec(shape=(), dtype=tf.int32, name=None)]]]]],"
        " Tuple[TensorSpec(shape=(None,), dtype=tf.int32, name=None)], Literal[None], "
        "TensorSpec(shape=(), dtype=tf.int32, name=None)]\nCaptures:\n  None")
    assert "args_1: Literal[5], /, *, flag: Literal[True]" in repr(c)
    assert repr(c.structured_input_signature) == (
        "(([TensorSpec(shape=(2,), dtype=tf.float32, name='a_0'), TensorSpec(shape=(None,), "
        "dtype=tf.int32, name='q')], {'k': TensorSpec(shape=(), dtype=tf.float32, name='b_k'), "
        "'j': 1}, TensorSpec(shape=(3,), dtype=tf.float32, name='args_0'), 5), {'flag': True, "
        "'opt': TensorSpec(shape=(1,), dtype=tf.float32, name='opt')})")
    outs = c.structured_outputs
    # TF 2.21: outputs are numbered in flattening order (dict keys sorted).
    assert [outs[0][0].name, outs[0][1]["z"]["j"].name, outs[0][1]["z"]["k"].name,
            outs[1][0].name, outs[3].name] == \
        ["Identity:0", "Identity_1:0", "Identity_2:0", "Identity_3:0", "Identity_4:0"]


def test_variables_in_signatures_and_captures():
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def g(v, x):
        return v + x
    cg = g.get_concrete_function(v, tf.constant(1.0))
    # TF 2.21's answer.
    assert "  v (POSITIONAL_OR_KEYWORD): VariableSpec(shape=(2,), dtype=tf.float32, " \
        "trainable=True, alias_id=0)\n" in str(cg)
    w = tf.Variable(1.0)

    @tf.function
    def hv(x):
        return x * w
    text = str(hv.get_concrete_function(tf.constant([1.0, 2.0])))
    assert text.endswith(f"Captures:\n  {id(w)}: TensorSpec(shape=(), dtype=tf.resource, "
                         f"name=None)")


def _received(*args, **kwargs) -> str:
    return f"Received args: {args} and kwargs: {kwargs} for signature: (x: {F2}, y: {F2}) -> {F2}."


def test_concrete_call_binding_errors(add_fn):
    a = tf.constant([1.0, 2.0])
    cases = [  # TF 2.21's answers
        (lambda: add_fn(a, a, z=a), "got an unexpected keyword argument 'z'", _received(a, a, z=a),
         "f(x, y) got unexpected keyword arguments: z."),
        (lambda: add_fn(a), "missing a required argument: 'y'", _received(a),
         "f(x, y) missing required arguments: y."),
        (lambda: add_fn(a, a, a), "too many positional arguments", _received(a, a, a),
         "f(x, y) takes 2 positional arguments, got 3."),
        (lambda: add_fn(a, x=a), "multiple values for argument 'x'", _received(a, x=a),
         "f(x, y) missing required arguments: y."),
    ]
    for call, reason, received, flat in cases:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == (f"Binding inputs to tf.function failed due to `{reason}`. "
                                   f"{received}\nFallback to flat signature also failed due "
                                   f"to: {flat}")
    np.testing.assert_array_equal(add_fn(x=a, y=a).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(add_fn(a, y=[1.0, 2.0]).numpy(), [2.0, 4.0])


def test_concrete_call_refuses_another_python_value():
    @tf.function
    def g(x, *, k=1):
        return x * k
    a = tf.constant([1.0, 2.0])
    cg = g.get_concrete_function(a, k=2)
    np.testing.assert_array_equal(cg(a, k=2).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(cg(a).numpy(), [2.0, 4.0])
    with pytest.raises(TypeError, match=re.escape(
            "failed due to `Can not cast 3 to Literal[2]`. Received args: ")) as info:
        cg(a, k=3)
    # TF 2.21's answer.
    assert str(info.value).endswith(
        f"for signature: (x: {F2}, *, k: Literal[2]) -> {F2}.\nFallback to flat signature "
        f"also failed due to: g(x) got unexpected keyword arguments: k.")


RETRACE = ("{} out of the last {} calls to {} triggered tf.function retracing. Tracing is "
           "expensive and the excessive number of tracings could be due to (1) creating "
           "@tf.function repeatedly in a loop, (2) passing tensors with different shapes, (3) "
           "passing Python objects instead of tensors. For (1), please define your "
           "@tf.function outside of the loop. For (2), @tf.function has reduce_retracing=True "
           "option that can avoid unnecessary retracing. For (3), please refer to "
           "https://www.tensorflow.org/guide/function#controlling_retracing and "
           "https://www.tensorflow.org/api_docs/python/tf/function for  more details.")


def _warnings(caplog) -> list:
    return [r.getMessage() for r in caplog.records if "retracing" in r.getMessage()]


def test_retracing_warning(caplog):
    def identity(x):
        return x
    f = tf.function(identity)
    with caplog.at_level(logging.WARNING, logger="tapeflow"):
        for i in range(4):
            f(i)
        assert _warnings(caplog) == []
        f(4)   # TF 2.21: the fifth retracing call warns, then the sixth; never again
        f(5)
        f(6)
        f(7)
    assert _warnings(caplog) == [RETRACE.format(5, 5, identity), RETRACE.format(6, 6, identity)]


def test_retracing_warning_counts_calls_without_tracing_and_functions_made_in_a_loop(caplog):
    def body(x):
        return x
    with caplog.at_level(logging.WARNING, logger="tapeflow"):
        g = tf.function(body)
        for i in range(8):   # one call in four traces: never 5 of the last 10
            g(i // 2)
            g(i // 2)
        assert _warnings(caplog) == []

        def loop_body(x):
            return x
        for _ in range(5):   # TF 2.21: a tf.function made anew in a loop warns at the fifth
            tf.function(loop_body)(tf.constant(1))
        h = tf.function(lambda x: x)
        for i in range(1, 8):   # get_concrete_function is not a call: no warning
            h.get_concrete_function(tf.zeros([i]))
    assert _warnings(caplog) == [RETRACE.format(5, 5, loop_body)]


def test_executing_eagerly_and_init_scope():
    seen = []

    @tf.function
    def f(x):
        seen.append(tf.executing_eagerly())
        with tf.init_scope():
            seen.append(tf.executing_eagerly())
            c = tf.constant(3.0)
            seen.append(c.numpy())
        return x + c
    assert tf.executing_eagerly()
    assert f(tf.constant(1.0)).numpy() == 4.0
    assert seen == [False, True, 3.0]   # TF 2.21's answers


def test_is_tensor():
    # TF 2.21's answers.
    assert [tf.is_tensor(x) for x in (tf.constant(1), np.array(1), 1, tf.Variable(1.0),
                                      tf.IndexedSlices(tf.constant([1.0]), tf.constant([0])))] \
        == [True, False, False, True, True]


def test_get_static_value_in_a_trace():
    got = {}

    @tf.function(autograph=False)
    def f(x):
        sv = tf.get_static_value
        got.update(x=sv(x), const=sv(tf.constant([1, 2])), add=sv(tf.constant(1) + 2),
                   shape=sv(tf.shape(x)), shape0=sv(tf.shape(x)[0]), size=sv(tf.size(x)),
                   rank=sv(tf.rank(x)), x1=sv(x + 1), cast=sv(tf.cast(tf.constant(1), tf.float32)),
                   range=sv(tf.range(3)), stack=sv(tf.stack([1, 2])),
                   concat=sv(tf.concat([[1], [2]], 0)), fill=sv(tf.fill([2], 3)),
                   unstack=sv(tf.unstack(tf.constant([1, 2]))[1]),
                   zeros_like=sv(tf.zeros_like(x)), reshape=sv(tf.reshape(tf.constant([1, 2]),
                                                                         [2, 1])),
                   stack2=sv(tf.stack([tf.shape(x)[0], 2])),
                   castshape=sv(tf.cast(tf.shape(x), tf.float32)))
        return x
    f(tf.constant([1.0, 2.0]))
    # TF 2.21's answers: None where TF's constant_value does not fold the op.
    for name in ("x", "add", "shape0", "x1", "reshape", "stack2"):
        assert got[name] is None, name
    expected = {"const": np.array([1, 2], np.int32), "shape": np.array([2], np.int32),
                "size": np.array(2, np.int32), "rank": np.array(1, np.int32),
                "cast": np.array(1.0, np.float32), "range": np.array([0, 1, 2], np.int32),
                "stack": np.array([1, 2], np.int32), "concat": np.array([1, 2], np.int32),
                "fill": np.array([3, 3], np.int32), "unstack": np.int32(2),
                "zeros_like": np.zeros(2, np.float32),
                "castshape": np.array([2.0], np.float32)}
    for name, value in expected.items():
        assert got[name].dtype == value.dtype and np.shape(got[name]) == value.shape, name
        np.testing.assert_array_equal(got[name], value, err_msg=name)


def test_get_static_value_eagerly():
    # TF 2.21's answers.
    np.testing.assert_array_equal(tf.get_static_value(tf.constant([1, 2])), [1, 2])
    assert tf.get_static_value(5) == 5 and tf.get_static_value([1, 2]) == [1, 2]
    assert tf.get_static_value(tf.Variable(1.0)) is None


def test_control_dependencies_group_and_no_op_eagerly():
    calls = []
    with tf.control_dependencies([tf.constant(1), lambda: calls.append(1)]) as cd:
        assert cd is None
        assert (tf.constant(2.0) + 1).numpy() == 3.0
    assert calls == [1]   # TF 2.21 runs callables eagerly
    with pytest.raises(TypeError, match="'int' object is not iterable"):
        tf.control_dependencies(3)
    assert tf.no_op() is None and tf.group(tf.constant(1)) is None and tf.group() is None


def test_control_dependencies_group_and_no_op_traced():
    v = tf.Variable(1.0)
    seen = {}

    @tf.function
    def f(x):
        assign = v.assign_add(1.0)
        g = tf.group(x + 1, x * 2)
        seen.update(group=repr(g), group_type=g.type, no_op=repr(tf.no_op()),
                    named=repr(tf.group(x, name="gg")))
        with tf.control_dependencies([g, assign]) as cd:
            seen["cd"] = cd
            y = v.read_value() + x
        with tf.control_dependencies(None):
            pass
        return y
    assert f(tf.constant(1.0)).numpy() == 3.0   # the read runs after the assignment
    assert f(tf.constant(1.0)).numpy() == 4.0
    # TF 2.21's answers.
    assert seen == {"group": "<tf.Operation 'group_deps' type=NoOp>", "group_type": "NoOp",
                    "no_op": "<tf.Operation 'NoOp' type=NoOp>",
                    "named": "<tf.Operation 'gg' type=NoOp>", "cd": None}


def test_graph_mode_utilities_refuse_what_tf_refuses():
    @tf.function(autograph=False)
    def bad_group(x):
        tf.group(1)
        return x

    @tf.function(autograph=False)
    def bad_kwarg(x):
        tf.group(x, foo=1)
        return x

    @tf.function(autograph=False)
    def tensor_deps(x):
        with tf.control_dependencies(x):
            return x + 1

    @tf.function(autograph=False)
    def returns_op(x):
        return tf.group(x)
    x = tf.constant(1.0)
    # TF 2.21's classes and messages.
    with pytest.raises(TypeError, match=re.escape(
            "'inputs' should be zero or more (nested) Tensors. Received '1' with type "
            "'<class 'int'>'.")):
        bad_group(x)
    with pytest.raises(ValueError, match="Unknown keyword arguments: foo"):
        bad_kwarg(x)
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tensor_deps(x)
    with pytest.raises(TypeError, match="found return value of type Operation"):
        returns_op(x)


def test_function_type_and_inference_fn_of_a_concrete_function():
    # TF 2.21's answers (the tf.function guide's `double_strings`).
    @tf.function
    def double(a):
        return a + a

    concrete = double.get_concrete_function(tf.constant("a"))
    assert str(concrete.function_type) == ("(a: TensorSpec(shape=(), dtype=tf.string, "
                                           "name=None)) -> TensorSpec(shape=(), "
                                           "dtype=tf.string, name=None)")
    assert str(concrete.inference_fn(tf.constant("b"))) == \
        "tf.Tensor(b'bb', shape=(), dtype=string)"
