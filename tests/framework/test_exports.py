"""Public names come from `tf_export` declarations at the definition sites."""

from __future__ import annotations

import pytest

import tapeflow as tf
from tapeflow.framework import exports
from tapeflow.ops import linalg_ops, math_ops


def test_one_declaration_gives_every_namespace_its_name():
    assert tf.math.sin is math_ops.sin and tf.sin is math_ops.sin
    assert tf.linalg.matmul is tf.matmul is math_ops.matmul
    assert tf.norm is linalg_ops.norm            # not reduce_ops' vector norm
    assert "sin" in tf.math.__all__ and "sin" in tf.__all__


def test_namespaces_list_exactly_what_was_declared():
    for namespace, module in (("math", tf.math), ("nn", tf.nn), ("linalg", tf.linalg),
                              ("random", tf.random)):
        for name in module.__all__:   # loads the lazy ones (tf.linalg's LinearOperators)
            getattr(module, name)
        declared = exports.exported(namespace)
        assert declared, namespace
        assert set(module.__all__) == set(declared)
        assert all(getattr(module, name) is obj for name, obj in declared.items())


def test_a_name_declared_for_two_objects_is_refused(monkeypatch):
    monkeypatch.setattr(exports, "_NAMESPACES", {})

    @exports.tf_export("math.twice", "twice")
    def twice(x):
        return x

    assert exports.exported("math") == {"twice": twice}
    exports.tf_export("math.twice")(twice)           # the same object again is fine
    with pytest.raises(ValueError, match="tf.math.twice is exported twice"):
        exports.tf_export("math.twice")(lambda x: x)


def test_star_import_gives_the_public_namespace():
    namespace: dict = {}
    exec("from tapeflow import *", namespace)
    assert namespace["reduce_sum"] is tf.reduce_sum and namespace["Variable"] is tf.Variable
    assert namespace["math"] is tf.math and "ops" not in namespace
