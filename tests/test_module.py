"""tf.Module: names, and variables/submodules found through attributes (TF 2.21's order)."""

from __future__ import annotations

import pytest

import tapeflow as tf


class Dense(tf.Module):
    def __init__(self, n, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.ones((2, n)), name="w")
        self.b = tf.Variable(tf.zeros((n,)), name="b", trainable=False)


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.z = Dense(3)
        self.layers = [Dense(2, name="first"), {"k": Dense(1)}]
        self.a = tf.Variable(1.0)


def test_variables_in_tensorflow_order_without_duplicates():
    m = Model()
    # Same order TF 2.21 gives: own leaves by sorted attribute, then submodules in turn.
    assert [v.name for v in m.variables] == ["Variable:0", "b:0", "w:0", "b:0", "w:0",
                                             "b:0", "w:0"]
    assert [v.name for v in m.trainable_variables] == ["Variable:0", "w:0", "w:0", "w:0"]
    assert len(m.non_trainable_variables) == 3
    assert isinstance(m.variables, tuple)
    assert m.variables[1] is m.layers[0].b and m.variables[-1] is m.z.w


def test_submodules_are_found_in_lists_and_dicts():
    m = Model()
    assert [s.name for s in m.submodules] == ["first", "dense", "dense"]


def test_default_names_and_name_scope():
    class MyCoolModule(tf.Module):
        pass

    assert MyCoolModule().name == "my_cool_module"
    assert tf.Module().name == "module"
    m = Model()
    assert m.name == "model" and m.name_scope.name == "model/"


def test_invalid_name_raises():
    with pytest.raises(ValueError, match="is not a valid module name"):
        tf.Module(name="bad name")


def test_shared_module_listed_once():
    m = Model()
    m.zz = m.z  # reachable twice
    assert len(m.variables) == 7 and len(m.submodules) == 3


def test_cycles_terminate():
    a, b = tf.Module(name="a"), tf.Module(name="b")
    a.child, b.child = b, a
    a.v = tf.Variable(2.0)
    assert [s.name for s in a.submodules] == ["b"]
    assert len(a.variables) == 1


def test_gradient_through_module_variables():
    m = Dense(2)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(m.w * 3.0 + m.b)
    grads = tape.gradient(y, m.trainable_variables)
    assert len(grads) == 1 and grads[0].numpy().tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_name_scopes_nest_and_get_current_name_scope_names_them_as_tf():
    # TF 2.21's answers.
    assert tf.get_current_name_scope() == ""
    with tf.name_scope("outer") as outer:
        assert outer == "outer/"
        with tf.name_scope("inner") as inner:
            assert (inner, tf.get_current_name_scope()) == ("outer/inner/", "outer/inner")
            with tf.name_scope("abs/") as absolute:   # a trailing '/' starts at the root
                assert (absolute, tf.get_current_name_scope()) == ("abs/", "abs")
            with tf.name_scope("") as root:
                assert (root, tf.get_current_name_scope()) == ("", "")
        assert tf.get_current_name_scope() == "outer"
    module = tf.Module(name="mod")
    with module.name_scope:
        assert tf.get_current_name_scope() == "mod"
    assert module.name_scope.name == "mod/"
