"""`Dataset.shuffle` gives TensorFlow 2.21's element orders, errors, repr and cardinality.

The orders were recorded from TF 2.21 by tools/record_data_fixtures.py into
fixtures/shuffle.json; the same programs (`CASES`) run here on tapeflow.
"""

import json
import pathlib
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.data import shuffle_ops
from tapeflow.data.shuffle_ops import SeedGenerator, Words, shuffled_elements, shuffled_indices

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from tools.record_data_fixtures import CASES, ERRORS, error_kwargs, run_case, summary  # noqa: E402

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" / "shuffle.json").read_text())


@pytest.fixture(autouse=True)
def _no_global_seed():
    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)


def _needs(case):
    ops = {step[0] for steps in case["pipelines"] for step in steps}
    if "filter_even" in ops and not hasattr(tf.data.Dataset, "filter"):
        pytest.skip("Dataset.filter is not there yet (the element path is covered below)")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_orders_are_tensorflows(case):
    _needs(case)
    got = [summary(order) for order in run_case(tf, case)]
    assert got == FIXTURE["orders"][case["name"]]


def test_element_buffer_order_is_tensorflows():
    # The buffer of elements (an input without random access) against TF's order for
    # range(30).filter(even).shuffle(4, seed=9): the op seed 9 pairs with TF's default graph
    # seed, and the first pass takes the seed generator's first two words.
    expected = FIXTURE["orders"]["filtered_input"]
    generator = SeedGenerator(87654321, 9, reshuffle=True)
    for order in expected:
        words = Words(*generator.next_seeds())
        got = [int(x) for x in shuffled_elements(iter(range(0, 30, 2)), 4, words)]
        assert got == order
    words = Words(*SeedGenerator(87654321, 9, reshuffle=True).next_seeds())
    got = [int(x) for x in shuffled_elements(iter(range(0, 30, 2)), -2, words)]
    assert got == FIXTURE["orders"]["filtered_input_unknown_buffer"][0]


@pytest.mark.parametrize("n,buffer_size,chunk", [
    (1, 1, 97), (5, 1, 97), (37, 5, 97), (37, 37, 97), (37, 100, 97), (20000, 300, 97),
    (9000, -2, 97), (9000, -2, 1), (30000, 10000, 8192), (30000, 4000, 8192)])
def test_index_and_element_paths_agree(n, buffer_size, chunk):
    # The index path computes a chunk of ring steps at once; the element path steps the ring
    # one element at a time. Chunks smaller and larger than the buffer carry owners across.
    index_order = np.concatenate(list(shuffled_indices(n, buffer_size, Words(3, 4), chunk)))
    element_order = list(shuffled_elements(iter(range(n)), buffer_size, Words(3, 4)))
    assert index_order.tolist() == element_order
    assert sorted(element_order) == list(range(n))


def test_batches_gather_through_the_index_plan(monkeypatch):
    # batch over a shuffle of slices asks the shuffle for its index plan: one gather per batch,
    # never a gather of one element at a time.
    ds = tf.data.Dataset.from_tensor_slices(np.arange(100.0)).shuffle(30, seed=1).batch(8)
    monkeypatch.setattr(shuffle_ops, "_gathered", None)   # the element path would fail
    batches = [b.numpy() for b in ds]
    assert [len(b) for b in batches] == [8] * 12 + [4]
    assert sorted(np.concatenate(batches).tolist()) == list(range(100))


def test_elements_of_a_shuffle_over_slices_keep_their_values_and_specs():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    ds = tf.data.Dataset.from_tensor_slices(({"x": x}, np.arange(6))).shuffle(6, seed=2)
    for features, label in ds:
        assert features["x"].dtype == tf.float32 and label.dtype == tf.int64
        np.testing.assert_array_equal(features["x"].numpy(), x[int(label)])


def test_without_seed_each_pass_is_a_new_valid_permutation():
    ds = tf.data.Dataset.range(60).shuffle(60)
    first, second = ([int(v) for v in ds] for _ in range(2))
    assert sorted(first) == sorted(second) == list(range(60))
    assert first != second      # equal with probability 1/60!
    other = [int(v) for v in tf.data.Dataset.range(60).shuffle(60)]
    assert other != first


def test_without_seed_fixed_order_repeats():
    ds = tf.data.Dataset.range(40).shuffle(10, reshuffle_each_iteration=False)
    assert [int(v) for v in ds] == [int(v) for v in ds]


def test_iterators_take_seeds_when_made_not_when_first_read():
    # TF draws a pass's seeds when its iterator is made (Iterator::Initialize).
    ds = tf.data.Dataset.range(10).shuffle(4, seed=7)
    first, second = iter(ds), iter(ds)
    second_order = [int(v) for v in second]
    first_order = [int(v) for v in first]
    epochs = FIXTURE["orders"]["shuffle_then_repeat"][0]   # TF's passes 1, 2, 3 of this shuffle
    assert first_order == epochs[:10] and second_order == epochs[10:20]


@pytest.mark.parametrize("label,kwargs", ERRORS, ids=[e[0] for e in ERRORS])
def test_argument_errors_are_tensorflows(label, kwargs):
    name, message = FIXTURE["errors"][label]
    with pytest.raises(Exception) as info:
        list(tf.data.Dataset.range(10).shuffle(**error_kwargs(tf, kwargs)))
    assert type(info.value).__name__ == name
    assert str(info.value) == message
    if name == "InvalidArgumentError":
        assert isinstance(info.value, tf.errors.InvalidArgumentError)


def test_repr_and_cardinality_are_tensorflows():
    ds = tf.data.Dataset.from_tensor_slices(({"a": [1.0, 2.0]}, [1, 2])).shuffle(3)
    assert repr(ds) == FIXTURE["repr"]
    card = FIXTURE["cardinality"]
    assert int(tf.data.Dataset.range(10).shuffle(3).cardinality()) == card["range10"]
    assert int(tf.data.Dataset.range(10).shuffle(-2).cardinality()) == card["unknown_buffer"]
    assert int(tf.data.Dataset.range(10).repeat().shuffle(3).cardinality()) == card["infinite"]


def test_buffer_size_and_seed_may_be_int64_tensors():
    ds = tf.data.Dataset.range(10)
    got = [int(v) for v in ds.shuffle(ds.cardinality(), seed=tf.constant(7, tf.int64))]
    assert got == FIXTURE["orders"]["range10_buffer10_seed7"][0]


def test_seed_positions_replay_the_same_passes():
    ds = tf.data.Dataset.range(20).shuffle(5, seed=3).repeat(2)
    saved = shuffle_ops.seed_positions(ds)
    first = [int(v) for v in ds]
    shuffle_ops.restore_seed_positions(ds, saved)
    assert [int(v) for v in ds] == first
    assert [int(v) for v in ds] != first


def test_unseeded_shuffle_refuses_a_replay_checkpoint():
    with pytest.raises(tf.errors.UnimplementedError, match="without a seed"):
        tf.data.Dataset.range(5).shuffle(5)._check_replayable()
    tf.data.Dataset.range(5).shuffle(5, seed=1)._check_replayable()
