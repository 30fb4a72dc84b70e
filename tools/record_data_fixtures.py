"""Records TensorFlow 2.21's tf.data shuffle orders for tapeflow's tests (run where TensorFlow
is installed; CI does not run it):

    python tools/record_data_fixtures.py   # writes tests/data/fixtures/shuffle.json

Each case is a small program (`CASES`): an optional `tf.random.set_seed`, pipelines built in
order (so op seeds come from get_seed's counter as they would), then passes over them in a
given order. `run_case(tf, case)` runs one with any `tf` module: the tests run the same
programs on tapeflow and compare with the orders recorded here. Large orders are kept as a
SHA-256 digest of their int64 bytes plus their first elements.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
from typing import Any

import numpy as np

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "data" / "fixtures" / \
    "shuffle.json"
_DIGEST_ABOVE = 200   # orders longer than this are stored as digests


def _case(name: str, pipelines: list, passes: list, global_seed: Any = None) -> dict:
    return {"name": name, "global_seed": global_seed, "pipelines": pipelines,
            "passes": passes}


def _shuffled_range(n: int, buffer_size: int, seed: Any, reshuffle: bool = True) -> list:
    return [["range", n], ["shuffle", buffer_size, seed, reshuffle]]


CASES = [
    # Buffer sizes 1, smaller than, equal to and larger than the data; UNKNOWN (-2) holds all.
    *[_case(f"range10_buffer{b}_seed7", [_shuffled_range(10, b, 7)], [0, 0, 0])
      for b in (1, 3, 10, 20, -2)],
    _case("range100_buffer7_seed3", [_shuffled_range(100, 7, 3)], [0, 0]),
    _case("range1000_buffer100_seed-7", [_shuffled_range(1000, 100, -7)], [0, 0]),
    _case("range10_buffer4_seed2**40", [_shuffled_range(10, 4, 2**40)], [0, 0]),
    _case("fixed_order", [_shuffled_range(10, 4, 7, False)], [0, 0, 0]),
    _case("fixed_order_full_buffer", [_shuffled_range(50, 50, 11, False)], [0, 0]),
    # Epochs under repeat: shuffle().repeat(3) (fused by TF's optimizer) vs repeat(3).shuffle().
    _case("shuffle_then_repeat", [_shuffled_range(10, 4, 7) + [["repeat", 3]]], [0, 0]),
    _case("shuffle_then_repeat_fixed",
          [_shuffled_range(10, 4, 7, False) + [["repeat", 3]]], [0]),
    _case("repeat_then_shuffle", [[["range", 10], ["repeat", 3], ["shuffle", 4, 7, True]]],
          [0, 0]),
    _case("small_input_many_epochs", [_shuffled_range(3, 2, 7) + [["repeat", 4]]], [0]),
    _case("shuffle_then_repeat_big_buffer", [_shuffled_range(5, 100, 1) + [["repeat", 3]]],
          [0]),
    # Global seed only: op seeds from the eager counter, in the order the datasets are made.
    _case("global_seed_only", [_shuffled_range(10, 4, None), _shuffled_range(10, 4, None)],
          [0, 1, 0, 1], global_seed=5),
    _case("global_seed_and_op_seed", [_shuffled_range(10, 4, 7), _shuffled_range(10, 4, None)],
          [0, 1], global_seed=1234),
    _case("global_seed_0", [_shuffled_range(10, 10, None), _shuffled_range(10, 10, 0)], [0, 1],
          global_seed=0),
    # A stream without random access: the element buffer (and an unknown-size input).
    _case("filtered_input", [[["range", 30], ["filter_even"], ["shuffle", 4, 9, True]]],
          [0, 0]),
    _case("filtered_input_unknown_buffer",
          [[["range", 30], ["filter_even"], ["shuffle", -2, 9, True]]], [0]),
    # Batches gathered through the index plan: labels of from_tensor_slices((2 * i, i)).
    _case("slices_batched", [[["slices", 1000], ["shuffle", 64, 5, True], ["batch", 32]]],
          [0, 0]),
    _case("mnist_sized", [[["slices", 60000], ["shuffle", 10000, 42, True], ["batch", 128]]],
          [0, 0]),
]


def build(tf: Any, steps: list) -> Any:
    """The pipeline `steps` describes, built with the module `tf`."""
    ds = None
    for op, *args in steps:
        if op == "range":
            ds = tf.data.Dataset.range(args[0])
        elif op == "slices":
            i = np.arange(args[0], dtype=np.int64)
            ds = tf.data.Dataset.from_tensor_slices((2 * i, i))
        elif op == "shuffle":
            size, seed, reshuffle = args
            ds = ds.shuffle(size, seed=seed, reshuffle_each_iteration=reshuffle)
        elif op == "repeat":
            ds = ds.repeat(args[0])
        elif op == "batch":
            ds = ds.batch(args[0])
        elif op == "filter_even":
            ds = ds.filter(lambda x: x % 2 == 0)
        else:
            raise ValueError(op)
    return ds


def one_pass(ds: Any) -> list:
    """A pass's element order (for (2 * i, i) slices, the labels i after checking 2 * i)."""
    order = []
    for element in ds.as_numpy_iterator():
        if isinstance(element, tuple):
            x, y = element
            assert (np.asarray(x) == 2 * np.asarray(y)).all()
            element = y
        order.extend(np.asarray(element).reshape(-1).tolist())
    return order


def run_case(tf: Any, case: dict) -> list:
    """The orders of the case's passes, in the order they ran."""
    tf.random.set_seed(case["global_seed"])    # None clears the seed an earlier case set
    datasets = [build(tf, steps) for steps in case["pipelines"]]
    return [one_pass(datasets[i]) for i in case["passes"]]


def summary(order: list) -> Any:
    """An order as stored: itself, or a digest and its head where it is long."""
    if len(order) <= _DIGEST_ABOVE:
        return order
    digest = hashlib.sha256(np.asarray(order, np.int64).tobytes()).hexdigest()
    return {"length": len(order), "head": order[:20], "sha256": digest}


# TF's errors for bad arguments: (label, kwargs of range(10).shuffle).
ERRORS = [
    ("buffer_size_0", {"buffer_size": 0}),
    ("buffer_size_-1", {"buffer_size": -1}),
    ("buffer_size_-5", {"buffer_size": -5}),
    ("buffer_size_float", {"buffer_size": 3.0}),
    ("buffer_size_str", {"buffer_size": "3"}),
    ("buffer_size_none", {"buffer_size": None}),
    ("buffer_size_int32_tensor", {"buffer_size": "int32 tensor 3"}),
    ("seed_float", {"buffer_size": 3, "seed": 7.0}),
    ("reshuffle_tensor", {"buffer_size": 3, "reshuffle_each_iteration": "bool tensor"}),
]


def error_kwargs(tf: Any, kwargs: dict) -> dict:
    """ERRORS' kwargs with their tensor placeholders made with `tf`."""
    made = {"int32 tensor 3": tf.constant(3), "bool tensor": tf.constant(False)}
    return {k: made.get(v, v) if isinstance(v, str) else v for k, v in kwargs.items()}


def main() -> None:
    import os
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    tf.autograph.set_verbosity(0)
    record: dict = {"tensorflow": tf.__version__, "orders": {}, "errors": {}}
    for case in CASES:
        record["orders"][case["name"]] = [summary(o) for o in run_case(tf, case)]
    tf.random.set_seed(None)
    for label, kwargs in ERRORS:
        try:
            ds = tf.data.Dataset.range(10).shuffle(**error_kwargs(tf, kwargs))
            list(ds)
            record["errors"][label] = None
        except Exception as e:  # noqa: BLE001 - any error class is what we record
            record["errors"][label] = [type(e).__name__, str(e)]
    ds = tf.data.Dataset.from_tensor_slices(({"a": [1.0, 2.0]}, [1, 2])).shuffle(3)
    record["repr"] = repr(ds)
    record["cardinality"] = {
        "range10": int(tf.data.Dataset.range(10).shuffle(3).cardinality()),
        "unknown_buffer": int(tf.data.Dataset.range(10).shuffle(-2).cardinality()),
        "infinite": int(tf.data.Dataset.range(10).repeat().shuffle(3).cardinality()),
        "unknown": int(tf.data.Dataset.range(10).filter(lambda x: x > 2)
                       .shuffle(3).cardinality()),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
