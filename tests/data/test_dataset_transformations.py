"""tf.data transformations: order, element_spec, cardinality, repr and errors as TensorFlow
2.21 gives them (expected values measured in TF 2.21)."""

import numpy as np
import pytest

import tapeflow as tf

D = tf.data.Dataset
R = D.range(10)
TF_SHUFFLED = [[0, 9, 5, 1], [2, 7, 3, 8], [6, 4]]   # TF 2.21: shuffle(10, seed=1).batch(4)


def values(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


@pytest.mark.parametrize("make, name, cardinality", [
    (lambda: R.batch(3), "_BatchDataset", 4),
    (lambda: R.batch(3, drop_remainder=True), "_BatchDataset", 3),
    (lambda: R.batch(3, num_parallel_calls=2), "_ParallelBatchDataset", 4),
    (lambda: R.batch(3).unbatch(), "_UnbatchDataset", -2),
    (lambda: R.batch(4).rebatch(2), "_RebatchDataset", -2),
    (lambda: R.repeat(), "_RepeatDataset", -1),
    (lambda: R.repeat(2), "_RepeatDataset", 20),
    (lambda: R.take(3), "_TakeDataset", 3),
    (lambda: R.skip(3), "_SkipDataset", 7),
    (lambda: R.map(lambda x: x * 2), "_MapDataset", 10),
    (lambda: R.map(lambda x: x, num_parallel_calls=tf.data.AUTOTUNE), "_ParallelMapDataset", 10),
    (lambda: R.filter(lambda x: x > 3), "_FilterDataset", -2),
    (lambda: R.flat_map(lambda x: D.from_tensors(x)), "_FlatMapDataset", -2),
    (lambda: R.interleave(lambda x: D.from_tensors(x), cycle_length=2), "_InterleaveDataset",
     -2),
    (lambda: R.concatenate(R), "_ConcatenateDataset", 20),
    (lambda: R.prefetch(tf.data.AUTOTUNE), "_PrefetchDataset", 10),
    (lambda: R.shard(2, 0), "_ShardDataset", 5),
    (lambda: R.unique(), "_UniqueDataset", -2),
    (lambda: R.take_while(lambda x: x < 5), "_TakeWhileDataset", -2),
    (lambda: R.with_options(tf.data.Options()), "_OptionsDataset", 10),
    (lambda: R.cache(), "CacheDataset", 10),
    (lambda: R.ignore_errors(), "_IgnoreErrorsDataset", -2),
    (lambda: R.scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s)), "_ScanDataset", 10),
])
def test_repr_and_cardinality(make, name, cardinality):
    ds = make()
    assert repr(ds).startswith(f"<{name} element_spec=")
    assert int(ds.cardinality()) == cardinality
    assert tf.data.experimental.cardinality(ds).dtype == tf.int64


def test_cardinality_rules_and_len():
    assert [int(d.cardinality()) for d in (R.filter(lambda x: True).take(3), R.repeat().take(3),
                                           R.repeat().skip(3), R.skip(-1), R.take(-1),
                                           R.repeat(0))] == [-2, 3, -1, 0, 10, 0]
    assert len(R) == 10
    with pytest.raises(TypeError, match="The dataset is infinite."):
        len(R.repeat())
    with pytest.raises(TypeError, match="The dataset length is unknown."):
        len(R.filter(lambda x: True))


def test_batch_padded_rebatch_window():
    assert values(R.batch(3)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert R.batch(3, drop_remainder=True).element_spec == tf.TensorSpec([3], tf.int64)
    ragged = R.take(4).map(lambda x: tf.fill([x], x))
    assert values(ragged.padded_batch(2)) == [[[0], [1]], [[2, 2, 0], [3, 3, 3]]]
    padded = ragged.padded_batch(2, padded_shapes=[5],
                                 padding_values=tf.constant(-1, tf.int64))
    assert values(padded)[1] == [[2, 2, -1, -1, -1], [3, 3, 3, -1, -1]]
    assert ragged.padded_batch(2, padded_shapes=[5], drop_remainder=True).element_spec == \
        tf.TensorSpec([2, 5], tf.int64)
    with pytest.raises(tf.errors.DataLossError, match="pad to a smaller size"):
        values(ragged.padded_batch(2, padded_shapes=[2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Cannot add tensor to the batch: "
                       r"number of elements does not match. Shapes are: \[tensor\]: \[1\], "
                       r"\[batch\]: \[0\]"):
        values(ragged.batch(2))
    assert values(R.batch(4).rebatch([1, 3])) == [[0], [1, 2, 3], [4], [5, 6, 7], [8], [9]]
    windows = [values(w) for w in R.window(3, shift=2)]
    assert windows == [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6, 7, 8], [8, 9]]
    assert [values(w) for w in R.window(3, 2, 2, drop_remainder=True)] == \
        [[0, 2, 4], [2, 4, 6], [4, 6, 8]]
    assert (int(R.window(3, 2).cardinality()), int(R.window(3, 2, drop_remainder=True)
                                                    .cardinality())) == (5, 4)
    assert values(R.window(3).flat_map(lambda w: w.batch(3))) == [[0, 1, 2], [3, 4, 5],
                                                                   [6, 7, 8], [9]]
    assert repr(R.window(3).element_spec) == \
        "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))"


def test_batch_zero_is_tf_error():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Batch size must be greater than zero"):
        R.batch(0)


def test_interleave_order():
    src = D.range(1, 4)
    ds = src.interleave(lambda x: D.from_tensors(x).repeat(x), cycle_length=2, block_length=2)
    assert values(ds) == [1, 2, 2, 3, 3, 3]
    par = src.interleave(lambda x: D.from_tensors(x).repeat(x), cycle_length=2,
                         num_parallel_calls=2)
    assert repr(par).startswith("<_ParallelInterleaveDataset")
    assert values(par) == [1, 2, 2, 3, 3, 3]


def test_zip_concatenate_enumerate():
    assert values(R.take(2).concatenate(D.range(5, 7))) == [0, 1, 5, 6]
    with pytest.raises(TypeError, match="Incompatible dataset elements"):
        R.concatenate(D.from_tensors(1.0))
    assert D.from_tensors([1, 2]).concatenate(D.from_tensors([1, 2, 3])).element_spec == \
        tf.TensorSpec([None], tf.int32)
    assert values(D.from_tensor_slices([7, 8]).enumerate(start=5)) == [(5, 7), (6, 8)]
    assert repr(R.enumerate()).startswith("<_ZipDataset")
    with pytest.raises(TypeError, match="Python `list` is not supported"):
        D.zip([R, R])
    with pytest.raises(TypeError, match="encountered object of type <class 'int'>"):
        D.zip(R, 1)
    assert values(D.zip((R.take(2), (R, R)))) == [(0, (0, 0)), (1, (1, 1))]


def test_map_traces_once_and_structures(capsys):
    def f(x):
        print("tracing")
        return {"a": x, "b": (x, 1.0)}
    ds = R.map(f)
    values(ds)
    values(ds)
    assert capsys.readouterr().out == "tracing\n"
    assert ds.element_spec["b"][1] == tf.TensorSpec([], tf.float32)
    assert R.map(lambda x: [x, x]).element_spec == (tf.TensorSpec([], tf.int64),) * 2
    assert R.map(lambda x: 1).element_spec == tf.TensorSpec([], tf.int32)
    pairs = D.from_tensor_slices(([1], [2])).map(lambda a, b: a + b)
    assert values(pairs) == [3]


def test_map_runtime_error_keeps_pipeline_usable():
    m = R.map(lambda x: tf.gather([1, 2, 3], x))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices = 3 is not in \[0, 3\)"):
        values(m)
    assert values(m.take(2)) == [1, 2]


def test_filter_shard_unique_reduce_scan_take_while():
    assert values(R.filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]
    with pytest.raises(ValueError, match="`predicate` must return a `tf.bool` scalar tensor"):
        R.filter(lambda x: x)
    assert values(R.shard(3, 1)) == [1, 4, 7]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Index must be between 0 and 1 "
                       r"\(currently index = 2\)"):
        R.shard(2, 2)
    assert values(D.from_tensor_slices([1, 2, 1, 3, 2]).unique()) == [1, 2, 3]
    total = R.reduce(np.int64(0), lambda s, x: s + x)
    assert total.dtype == tf.int64 and int(total) == 45
    assert values(R.take(4).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * 2))) == \
        [0, 0, 2, 6]
    assert values(R.take_while(lambda x: x < 4)) == [0, 1, 2, 3]


def test_group_by_window_and_buckets():
    gbw = R.group_by_window(lambda x: x % 2, lambda k, d: d.batch(2), window_size=2)
    assert values(gbw) == [[0, 2], [1, 3], [4, 6], [5, 7], [8], [9]]
    bucket = D.range(1, 7).map(lambda x: tf.fill([x], x)).bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [3, 5], [2, 2, 2])
    assert bucket.element_spec == tf.TensorSpec([None, None], tf.int64)
    assert values(bucket) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]],
                              [[5, 5, 5, 5, 5, 0], [6, 6, 6, 6, 6, 6]]]


def test_repeat_take_skip_cache_prefetch(tmp_path):
    assert values(R.repeat(2).skip(15)) == [5, 6, 7, 8, 9]
    assert values(D.range(0).repeat()) == []
    with pytest.raises(TypeError, match="Cannot convert 'a' to EagerTensor of dtype int64"):
        R.take("a")
    assert values(R.prefetch(2)) == list(range(10))
    calls = []
    cached = R.map(lambda x: tf.py_function(lambda v: calls.append(1) or v, [x], tf.int64)
                   ).cache(str(tmp_path / "c"))
    assert values(cached) == list(range(10)) and values(cached) == list(range(10))
    assert len(calls) == 10
    again = R.map(lambda x: x * 0).cache(str(tmp_path / "c"))   # read from the file
    assert values(again) == list(range(10))


def test_shuffle_then_batch_gathers_by_index():
    ds = D.from_tensor_slices((np.arange(10), np.arange(10) * 10)).shuffle(10, seed=1).batch(4)
    batches = [(x.tolist(), y.tolist()) for x, y in ds.as_numpy_iterator()]
    # TF 2.21's batches for this seed
    assert [b[0] for b in batches] == TF_SHUFFLED
    assert all(y == 10 * x for b in batches for x, y in zip(*b))


def test_get_single_element_and_save_load(tmp_path):
    assert D.from_tensors([1, 2]).get_single_element().numpy().tolist() == [1, 2]
    assert int(tf.data.experimental.get_single_element(D.from_tensors(3))) == 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dataset had more than one"):
        R.get_single_element()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dataset was empty."):
        R.take(0).get_single_element()
    src = R.take(3).map(lambda x: (x, tf.cast(x, tf.float32)))
    src.save(str(tmp_path / "saved"))
    loaded = D.load(str(tmp_path / "saved"))
    assert loaded.element_spec == src.element_spec
    assert values(loaded) == [(0, 0.0), (1, 1.0), (2, 2.0)]


def test_parallel_map_uses_the_threads_it_is_given():
    import threading
    import time
    from tapeflow.data.dataset_ops import parallel_map
    seen = set()

    def record(x):
        seen.add(threading.get_ident())
        time.sleep(0.002)     # long enough that a second worker would be started
        return x

    assert list(parallel_map(record, iter(range(16)), 1)) == list(range(16))
    assert len(seen) == 1


def test_interleave_function_whose_inner_map_closes_over_the_element():
    # TF 2.21's order (cycle 2; an exhausted input passes the turn on).
    ds = tf.data.Dataset.range(3).interleave(
        lambda k: tf.data.Dataset.range(k + 2).map(lambda i: k * 10 + i), cycle_length=2)
    assert [int(x) for x in ds.as_numpy_iterator()] == [0, 10, 1, 11, 12, 20, 21, 22, 23]


@pytest.mark.parametrize("size, declared, text", [
    (3, 5, "expected to contain 5 elements but contained only 3 elements."),
    (6, 4, "expected to contain 4 elements but contained at least 5 elements."),
    (3, -1, "expected to contain an infinite number of elements but contained only 3 "
            "elements."),
])
def test_assert_cardinality_checks_the_count(size, declared, text):
    # TF 2.21's answers: FailedPreconditionError "Input dataset was " + text.
    ds = tf.data.Dataset.range(size).apply(tf.data.experimental.assert_cardinality(declared))
    with pytest.raises(tf.errors.FailedPreconditionError, match="Input dataset was " + text):
        list(ds.as_numpy_iterator())
    good = tf.data.Dataset.range(4).apply(tf.data.experimental.assert_cardinality(4))
    assert list(good.as_numpy_iterator()) == [0, 1, 2, 3] and int(good.cardinality()) == 4
