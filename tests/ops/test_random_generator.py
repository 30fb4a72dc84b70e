"""`tf.random.Generator` draws TensorFlow's numbers and moves its state as TensorFlow does.
The expected numbers are TF 2.21's answers for the same calls."""

import numpy as np
import pytest

import tapeflow as tf


def _close(t, expected):
    np.testing.assert_allclose(t.numpy(), expected, rtol=3e-7)


def test_draws_and_state_after_each_draw():
    g = tf.random.Generator.from_seed(1)
    assert g.state.numpy().tolist() == [1, 0, 0] and g.algorithm == 1
    _close(g.normal([3]), [0.4384227395057678, -0.5343984365463257, -0.07710261642932892])
    assert g.state.numpy().tolist() == [769, 0, 0]          # 256 draws per output
    _close(g.uniform([5]), [0.6941341161727905, 0.7800472974777222, 0.3360424041748047,
                            0.5991655588150024, 0.9410930871963501])
    assert g.uniform([4], minval=0, maxval=10, dtype=tf.int32).numpy().tolist() == [1, 2, 9, 8]
    _close(g.truncated_normal([3]), [-0.16787435114383698, 1.8853472471237183,
                                     -1.229236364364624])
    assert g.state.numpy().tolist() == [3841, 0, 0]
    split = g.split(2)
    assert [s.state.numpy().tolist() for s in split] == [[0, 0, -4839541709258232692],
                                                          [0, 0, 3833500417257657854]]
    assert g.uniform_full_int([2], dtype=tf.int64).numpy().tolist() == [
        -3206527474837102847, -822974215341821412]
    assert g.make_seeds(2).numpy().tolist() == [[-7204024886673235746, -4472212563072582704],
                                                [0, 0]]


def test_a_large_seed_fills_several_state_words():
    g = tf.random.Generator.from_seed(12345678901234567890123)
    assert g.state.numpy().tolist() == [4807115922877859019, 669, 0]
    _close(g.normal([2]), [0.4702543616294861, 0.13666951656341553])
    assert tf.random.create_rng_state(5, "philox").numpy().tolist() == [5, 0, 0]


def test_draws_inside_tf_function_move_the_state_and_checkpoints_keep_it(tmp_path):
    g = tf.random.Generator.from_seed(7)
    f = tf.function(lambda: (g.normal([3]), g.uniform([2], minval=1.0, maxval=5.0)))
    expected = [([-1.3240395784378052, 0.28785666823387146, -0.8757901191711426],
                 [2.857914924621582, 4.051032543182373]),
                ([0.6197004914283752, 0.024328697472810745, -1.743532419204712],
                 [2.0564956665039062, 3.8174495697021484])]
    for normal, uniform in expected:
        a, b = f()
        _close(a, normal)
        _close(b, uniform)
    assert g.state.numpy().tolist() == [2567, 0, 0]
    checkpoint = tf.train.Checkpoint(generator=g)
    path = checkpoint.write(str(tmp_path / "gen"))
    first = g.normal([2]).numpy()
    checkpoint.read(path)
    np.testing.assert_array_equal(g.normal([2]).numpy(), first)


def test_threefry_is_refused_on_cpu_as_tensorflow():
    g = tf.random.Generator.from_seed(1, alg="threefry")
    with pytest.raises(tf.errors.UnimplementedError,
                       match="Non-XLA devices don't support the ThreeFry algorithm"):
        g.normal([2])


def test_a_threefry_state_has_two_words_as_tf():
    """TF 2.21's values: ThreeFry's state is [counter, key] (Philox's three words); TF's CPU
    kernels draw from neither (UnimplementedError), but the states and errors are TF's."""
    assert tf.random.create_rng_state(42, "threefry").numpy().tolist() == [42, 0]
    assert tf.random.create_rng_state(2**70 + 5, "threefry").numpy().tolist() == [5, 64]
    assert tf.random.create_rng_state([1, 2, 3], "threefry").numpy().tolist() == [1, 2]
    assert tf.random.create_rng_state([7], "threefry").numpy().tolist() == [0, 7]
    g = tf.random.Generator.from_seed(42, alg="threefry")
    assert g.state.numpy().tolist() == [42, 0]
    g.reset_from_seed(7)
    assert g.state.numpy().tolist() == [7, 0]
    assert tf.random.Generator.from_key_counter(5, [9], "threefry").state.numpy().tolist() == \
        [9, 5]
    assert tf.random.Generator.from_non_deterministic_state("threefry").state.shape == (2,)
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \[2\] are incompatible"):
        tf.random.Generator.from_state([1, 2, 3], "threefry")
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \[3\] are incompatible"):
        tf.random.Generator.from_state([1, 2], "philox")
