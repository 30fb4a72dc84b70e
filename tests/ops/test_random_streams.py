"""The stateful random ops draw TensorFlow's numbers with TensorFlow's seed rules: a program of
calls (tools/record_random_fixtures.py's PROGRAM) gives, step by step, what TensorFlow 2.21
gave. The steps depend on each other: eager op seeds drawn from the global seed, one stream
per op type and seeds carried across calls and shapes, set_seed restarting them, a traced
function's streams carried from call to call, and a second function after the same set_seed
drawing the same numbers.

Every number is bit-exact.
"""

import json
import pathlib

import numpy as np
import pytest

import tapeflow as tf

PROGRAM = json.loads((pathlib.Path(__file__).parent / "fixtures" /
                      "stateless_random.json").read_text())["program"]
_BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _draw(step):
    op, shape, dtype, seed, *bounds = step
    if op == "shuffle":   # the rows of range(size) in the step's shape
        rows = tf.reshape(tf.range(int(np.prod(shape)), dtype=dtype), shape)
        return tf.random.shuffle(rows, seed=seed)
    if op == "uniform_int":
        return tf.random.uniform(shape, minval=bounds[0], maxval=bounds[1], dtype=dtype,
                                 seed=seed)
    fn = {"normal": tf.random.normal, "uniform": tf.random.uniform,
          "truncated_normal": tf.random.truncated_normal}[op]
    return fn(shape, dtype=dtype, seed=seed)


def _check(step, got, recorded):
    dtype = np.dtype(step[2])
    got = got.numpy().reshape(-1)
    if dtype.kind != "f":
        assert got.tolist() == recorded, step
        return
    want = np.array(recorded, _BITS[dtype.itemsize])
    assert got.view(want.dtype).tolist() == want.tolist(), (step, got, want.view(dtype))


def test_a_program_of_stateful_draws_gives_tensorflows_numbers():
    for entry in PROGRAM:
        step = entry["step"]
        if step[0] == "set_seed":
            tf.random.set_seed(step[1])
        elif step[0] == "function":
            fn = tf.function(lambda steps=step[1]: [_draw(s) for s in steps])
            for call in entry["values"]:
                for s, got, recorded in zip(step[1], fn(), call):
                    _check(s, got, recorded)
        else:
            _check(step, _draw(step), entry["values"])


def test_tracing_does_not_move_the_streams():
    tf.random.set_seed(3)
    eager = [tf.random.normal([4], seed=11).numpy() for _ in range(2)]
    tf.random.set_seed(3)
    f = tf.function(lambda: tf.random.normal([4], seed=11))
    f.get_concrete_function()               # a trace alone draws nothing
    np.testing.assert_array_equal(f().numpy(), eager[0])
    np.testing.assert_array_equal(f().numpy(), eager[1])


def test_unseeded_draws_differ_and_bounds_are_checked():
    tf.random.set_seed(None)
    assert not np.array_equal(tf.random.normal([8]).numpy(), tf.random.normal([8]).numpy())
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval"):
        tf.random.uniform([2], minval=3, maxval=3, dtype=tf.int32)
