"""fit / evaluate / predict on tf.data datasets, generators and PyDatasets, as Keras 3 on TF.

Hard-coded numbers are TF 2.21 + Keras 3.15's answers for the same programs."""

import warnings

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras
InvalidArgumentError = tf.errors.InvalidArgumentError

X = np.arange(30, dtype="float32").reshape(10, 3) / 30
Y = np.ones((10, 2), "float32")
LABELS = np.array([[0.0], [1.0]] * 5, "float32")


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _model(units=2):
    keras.utils.set_random_seed(1)
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(units)])
    m.compile("sgd", "mse")
    return m


def _gen(n=3, size=3):
    for i in range(n):
        yield X[size * i:size * (i + 1)], Y[size * i:size * (i + 1)]


def test_seeded_shuffle_losses_equal_keras_for_all_modes():
    keras.utils.set_random_seed(42)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 5)).astype("float32")
    y = (x[:, :1] > 0).astype("float32")
    m = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
    m.compile(keras.optimizers.SGD(0.5), "binary_crossentropy")
    losses = []
    for kwargs in ({"shuffle": True}, {"shuffle": "batch"},
                   {"shuffle": True, "steps_per_epoch": 4}):
        losses += m.fit(x, y, batch_size=16, epochs=2, verbose=0, **kwargs).history["loss"]
    keras_losses = [0.6783422, 0.4349303, 0.3156423, 0.2342472, 0.1829469, 0.1735432]
    np.testing.assert_allclose(losses, keras_losses, rtol=1e-6)


def test_dataset_fit_evaluate_predict_equal_the_array_path():
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(4)
    a, b = _model(), _model()
    ha = a.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    hb = b.fit(ds, epochs=2, verbose=0)
    assert ha.history == hb.history
    np.testing.assert_allclose(hb.history["loss"], [1.6067997217178345, 1.4296538829803467],
                               rtol=1e-6)  # Keras 3.15
    for wa, wb in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_array_equal(wa, wb)
    assert a.evaluate(X, Y, batch_size=4, verbose=0) == b.evaluate(ds, verbose=0)
    p = b.predict(ds, verbose=0)
    assert p.shape == (10, 2) and p.dtype == np.float32
    np.testing.assert_array_equal(p, a.predict(X, verbose=0))
    # A dataset of x alone predicts too.
    np.testing.assert_array_equal(b.predict(tf.data.Dataset.from_tensor_slices(X).batch(3),
                                            verbose=0), p)


def test_dataset_with_steps_and_repeat_and_validation():
    m = _model()
    h = m.fit(tf.data.Dataset.from_tensor_slices((X, Y)).batch(4).repeat(), steps_per_epoch=3,
              epochs=2, verbose=0)
    # Keras 3.15: steps_per_epoch=3 over the repeated batches (4, 4, 2) per epoch.
    np.testing.assert_allclose(h.history["loss"], [1.6067997217178345, 1.4296538829803467],
                               rtol=1e-6)
    h = _model().fit(X, Y, batch_size=4, shuffle=False, epochs=2, verbose=0,
                     validation_data=tf.data.Dataset.from_tensor_slices((X, Y)).batch(4),
                     validation_steps=1)
    np.testing.assert_allclose(h.history["val_loss"], [1.1604273319244385, 1.0586804151535034],
                               rtol=1e-6)  # Keras 3.15: one validation batch per epoch


def test_generator_replays_its_peeked_batches_as_keras():
    # Keras peeks 2 batches to fix the spec and replays them on every new pass: with 3
    # batches, steps_per_epoch=2 and 3 epochs the steps see b0 b1 | b2 (runs out) | b0 b1.
    m = _model()
    h = m.fit(_gen(), steps_per_epoch=2, epochs=3, verbose=0)
    np.testing.assert_allclose(h.history["loss"],
                               [1.3767671585083008, 1.8611445426940918, 1.2581228017807007],
                               rtol=1e-6)  # Keras 3.15
    m = _model()
    h = m.fit(X, Y, batch_size=4, shuffle=False, validation_data=_gen(), epochs=2, verbose=0)
    np.testing.assert_allclose(h.history["val_loss"], [1.415000081062317, 1.138115406036377],
                               rtol=1e-6)  # Keras 3.15: the cached eval pass replays too


def test_generator_warns_when_it_runs_out_and_with_shuffle():
    m = _model()
    with pytest.warns(UserWarning) as record:
        m.fit(_gen(), epochs=1, verbose=0)
    messages = [str(r.message) for r in record]
    assert any(msg.startswith("`shuffle=True` was passed, but will be ignored since the data "
                              "`x` was provided as a generator.") for msg in messages)
    assert any(msg.startswith("Your input ran out of data; interrupting training.")
               for msg in messages)


def test_generator_and_dataset_errors_are_keras_and_leave_the_model_usable():
    m = _model()
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(4)
    with pytest.raises(ValueError, match=r"When providing `x` as a tf.data.Dataset, `y` should "
                                         r"not be passed"):
        m.fit(ds, Y, verbose=0)
    with pytest.raises(ValueError, match="`sample_weights` should not be passed"):
        m.fit(ds, sample_weight=np.ones(10), verbose=0)
    with pytest.raises(ValueError, match=r"Argument `validation_split` is only supported for "
                                         r"tensors or NumPy arrays.Found incompatible type"):
        m.fit(ds, validation_split=0.2, verbose=0)
    with pytest.raises(ValueError, match="the generator must return a tuple"):
        m.fit((list(b) for b in _gen()), verbose=0)
    with pytest.raises(ValueError, match="Received an empty generator"):
        m.fit((b for b in []), verbose=0)
    with pytest.raises(ValueError, match="`class_weight` is not supported for Python generator"):
        m.fit(_gen(), class_weight={0: 1.0}, verbose=0)
    with pytest.raises(ValueError, match=r"Unrecognized data type: x=abc \(of type "
                                         r"<class 'str'>\)"):
        m.fit("abc", verbose=0)
    with pytest.raises(ValueError, match=r"Data is expected to be in format `x`, `\(x,\)`"):
        m.fit(((X[:4], Y[:4], np.ones(4), np.ones(4)) for _ in range(2)), verbose=0)

    def bad_shape():
        yield X[:4], Y[:4]
        yield X[:4], Y[:4]
        yield X[:4, :2], Y[:4]
    with pytest.raises(InvalidArgumentError, match=r"Generator yielded an element of shape "
                                                   r"\(4, 2\) where an element of shape "
                                                   r"\(None, 3\) was expected"):
        m.fit(bad_shape(), verbose=0)

    def bad_rank():
        yield X[:4], Y[:4]
        yield X[:4, 0], Y[:4]
    with pytest.raises(ValueError, match="must have the same rank"):
        m.fit(bad_rank(), verbose=0)
    fresh = _model()
    assert m.evaluate(X, Y, verbose=0) != fresh.evaluate(X, Y, verbose=0)  # it trained
    m.fit(X, Y, verbose=0)  # and still trains


def test_generator_batches_take_the_spec_dtype():
    m = _model()

    def batches():
        yield X[:4], Y[:4]
        yield X[:4], Y[:4]
        yield X[:4].astype("float64"), Y[:4].astype("int64")  # cast to the first batches'
    m.fit(batches(), verbose=0)
    assert m.predict(X[:1], verbose=0).dtype == np.float32


def test_class_weight_and_sample_weight_through_a_dataset():
    a, b = _model(1), _model(1)
    ha = a.fit(X, LABELS, batch_size=4, shuffle=False, class_weight={0: 2.0, 1: 0.5},
               verbose=0)
    hb = b.fit(tf.data.Dataset.from_tensor_slices((X, LABELS)).batch(4),
               class_weight={0: 2.0, 1: 0.5}, verbose=0)
    assert ha.history == hb.history
    np.testing.assert_allclose(hb.history["loss"], [0.6006996035575867], rtol=1e-6)
    with pytest.raises(InvalidArgumentError, match=r"indices\[1\] = 3 is not in \[0, 2\)"):
        _model(1).fit(tf.data.Dataset.from_tensor_slices((X, LABELS * 3)).batch(4),
                      class_weight={0: 2.0, 1: 0.5}, verbose=0)
    with pytest.raises(ValueError, match="You cannot `class_weight` and `sample_weight`"):
        _model(1).fit(tf.data.Dataset.from_tensor_slices((X, LABELS, LABELS[:, 0])).batch(4),
                      class_weight={0: 2.0}, verbose=0)
    sw = np.linspace(0, 1, 10).astype("float32")
    h = _model().fit(tf.data.Dataset.from_tensor_slices((X, Y, sw)).batch(4), verbose=0)
    np.testing.assert_allclose(h.history["loss"], [0.9275533556938171], rtol=1e-6)
    h2 = _model().fit(X, Y, sample_weight=sw, batch_size=4, shuffle=False, verbose=0)
    assert h.history == h2.history


class _Batches(keras.utils.PyDataset):
    def __init__(self, log, n=3, **kwargs):
        super().__init__(**kwargs)
        self.log, self.n = log, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.log.append(i)
        return X[3 * i:3 * i + 3], Y[3 * i:3 * i + 3]

    def on_epoch_begin(self):
        self.log.append("begin")

    def on_epoch_end(self):
        self.log.append("end")


def test_py_dataset_call_order_and_seeded_shuffle_as_keras():
    keras.utils.set_random_seed(3)
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    m.compile("sgd", "mse")
    log = []
    h = m.fit(_Batches(log), epochs=2, verbose=0, shuffle=True)
    # Keras 3.15: two batches read for the spec, then Python-random-shuffled epochs.
    assert log == [0, 1, "end", "begin", 1, 0, 2, "end", "begin", 0, 2, 1, "end"]
    np.testing.assert_allclose(h.history["loss"], [2.1672356128692627, 1.9719712734222412],
                               rtol=1e-6)
    log.clear()
    m.evaluate(_Batches(log), verbose=0)
    assert log == [0, 1, "end", "begin", 0, 1, 2, "end"]
    assert m.predict(_Batches([]), verbose=0).shape == (9, 2)


def test_py_dataset_workers_give_the_same_training():
    a, b = _model(), _model()
    ha = a.fit(_Batches([]), epochs=2, shuffle=False, verbose=0)
    hb = b.fit(_Batches([], workers=3, max_queue_size=2), epochs=2, shuffle=False, verbose=0)
    assert ha.history == hb.history


def test_py_dataset_errors():
    class Bad(keras.utils.PyDataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return "abc"
    m = _model()
    with pytest.raises(ValueError, match=r"PyDataset.__getitem__\(\) must return a tuple or a "
                                         r"dict.*Received: abc... of type <class 'str'>"):
        m.fit(Bad(), verbose=0)
    with pytest.raises(ValueError, match="`y` should not be passed"):
        m.fit(_Batches([]), Y, verbose=0)
    with pytest.raises(ValueError, match="The PyDataset has length 0"):
        m.fit(_Batches([], n=0), verbose=0)

    class NoSuper(keras.utils.PyDataset):
        def __init__(self):
            pass

        def __len__(self):
            return 1

        def __getitem__(self, i):
            return X[:3], Y[:3]
    with pytest.warns(UserWarning, match="should call `super\\(\\).__init__\\(\\*\\*kwargs\\)`"):
        m.fit(NoSuper(), verbose=0, shuffle=False)


def test_unknown_length_prints_unknown_then_the_learned_length(capsys):
    m = _model()
    m.fit(_gen(), epochs=2, verbose=1, shuffle=False)
    out = capsys.readouterr().out
    first, second = out.split("Epoch 2/2\n")
    assert first.startswith("Epoch 1/2\n\r      1/Unknown \x1b[1m")  # as Keras 3.15
    assert "\r\x1b[1m3/3\x1b[0m" in first
    assert second.startswith("\r\x1b[1m1/3\x1b[0m")


def test_timeseries_dataset_from_array_as_keras():
    data = np.arange(40, dtype="float32").reshape(20, 2)
    targets = np.arange(20) * 10
    ds = keras.utils.timeseries_dataset_from_array(
        data, targets, sequence_length=3, sampling_rate=2, sequence_stride=3, batch_size=2,
        start_index=1, end_index=18)
    assert repr(ds.element_spec) == (
        "(TensorSpec(shape=(None, None, 2), dtype=tf.float32, name=None), "
        "TensorSpec(shape=(None,), dtype=tf.int64, name=None))")
    assert int(ds.cardinality()) == 3
    windows, t = next(iter(ds))
    assert windows.numpy().tolist() == [[[2, 3], [6, 7], [10, 11]],
                                        [[8, 9], [12, 13], [16, 17]]]
    assert t.numpy().tolist() == [10, 40]
    tf.random.set_seed(None)  # TF's answer below was drawn without a global seed
    shuffled = keras.utils.timeseries_dataset_from_array(data, targets, sequence_length=4,
                                                         batch_size=3, shuffle=True, seed=5)
    # Keras 3.15: start positions shuffled by NumPy's RandomState(5), then tf.data's shuffle.
    assert [t.numpy().tolist() for _, t in shuffled.take(2)] == [[120, 30, 70], [150, 130, 100]]
    single = keras.utils.timeseries_dataset_from_array(data, None, sequence_length=4,
                                                       batch_size=None)
    assert int(single.cardinality()) == 17
    assert repr(single.element_spec) == "TensorSpec(shape=(None, 2), dtype=tf.float32, name=None)"


def test_split_dataset_as_keras():
    x = np.arange(10, dtype="float32").reshape(5, 2)
    y = np.arange(5)
    left, right = keras.utils.split_dataset((x, y), left_size=0.6)
    assert int(left.cardinality()) == 3 and int(right.cardinality()) == 2
    assert [int(b.numpy()) for _, b in right] == [3, 4]
    left, right = keras.utils.split_dataset(x, right_size=2, shuffle=True, seed=3)
    assert [r.numpy().tolist() for r in right] == [[8.0, 9.0], [2.0, 3.0]]  # Python's random
    left, right = keras.utils.split_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(2),
                                            left_size=3)
    assert int(left.cardinality()) == 2  # rebatched by 2, as Keras
    assert [b.numpy().tolist() for _, b in left] == [[0, 1], [2]]
    with pytest.raises(ValueError, match="`left_size` should be either a positive integer "
                                         "smaller than 5"):
        keras.utils.split_dataset(x, left_size=5)
    with pytest.raises(TypeError, match="Invalid `left_size` Type"):
        keras.utils.split_dataset(x, left_size="a")
