"""Records TensorFlow 2.21's orders for Dataset.random, sample_from_datasets and
choose_from_datasets for tapeflow's tests (run where TensorFlow is installed; CI does not):

    python tools/record_data_sampling.py   # writes tests/data/fixtures/sampling.json

Each case (`CASES`) is a small program: an optional `tf.random.set_seed`, datasets built in
order (op seeds come from get_seed's counter as they would), then passes over them in a given
order. `run_case(tf, case)` runs one with any `tf` module; the tests run the same programs on
tapeflow and compare with the orders recorded here.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "data" / "fixtures" / \
    "sampling.json"


def _case(name: str, datasets: list, passes: list, global_seed: Any = None) -> dict:
    return {"name": name, "global_seed": global_seed, "datasets": datasets, "passes": passes}


def _sample(sizes: list, weights: Any = None, seed: Any = None, **kwargs: Any) -> dict:
    return {"op": "sample", "sizes": sizes, "weights": weights, "seed": seed, **kwargs}


def _random(seed: Any, take: int, rerandomize: Any = None, repeat: int = 1) -> dict:
    return {"op": "random", "seed": seed, "take": take, "rerandomize": rerandomize,
            "repeat": repeat}


CASES = [
    _case("random_seed42", [_random(42, 12)], [0, 0]),
    _case("random_seed0", [_random(0, 6)], [0]),
    _case("random_seed_negative", [_random(-3, 6)], [0]),
    _case("random_seed_2**40", [_random(2**40, 6)], [0]),
    _case("random_rerandomize", [_random(42, 5, True)], [0, 0, 0]),
    _case("random_rerandomize_repeat", [_random(9, 4, True, 3)], [0, 0]),
    _case("random_fixed_repeat", [_random(9, 4, False, 3)], [0]),
    _case("random_global_seed", [_random(None, 4), _random(None, 4), _random(5, 4)],
          [0, 1, 2, 0], global_seed=11),
    _case("sample_two_weighted", [_sample([10, 5], [0.3, 0.7], 7)], [0, 0]),
    _case("sample_uniform_three", [_sample([40, 40, 40], None, 123)], [0]),
    _case("sample_five_skewed", [_sample([60, 30, 30, 30, 30], [0.5, 0.2, 0.1, 0.1, 0.1],
                                         2024)], [0]),
    _case("sample_stop_on_empty", [_sample([30, 8], [0.5, 0.5], 3,
                                           stop_on_empty_dataset=True)], [0]),
    _case("sample_zero_weight", [_sample([10, 10, 10], [0.4, 0.0, 0.6], 5)], [0]),
    _case("sample_float64_tensor", [_sample([20, 20], [0.25, 0.75], 8, dtype="float64")],
          [0]),
    # A zero weight in a tensor keeps its input (never picked, so never exhausted): only
    # stop_on_empty_dataset ends such a pass.
    _case("sample_float32_tensor_zero", [_sample([20, 20, 20], [0.25, 0.0, 0.75], 8,
                                                 dtype="float32", stop_on_empty_dataset=True)],
          [0]),
    _case("sample_rerandomize", [_sample([15, 15], [0.5, 0.5], 31,
                                         rerandomize_each_iteration=True)], [0, 0]),
    _case("sample_fixed_passes", [_sample([15, 15], [0.5, 0.5], 31)], [0, 0]),
    _case("sample_long", [_sample([3000, 3000], [0.6, 0.4], 77)], [0]),
    _case("sample_repeat", [_sample([6, 6], [0.5, 0.5], 4, repeat=3)], [0]),
    _case("sample_global_seed", [_sample([10, 10], None, None), _sample([10, 10], None, None)],
          [0, 1], global_seed=99),
    _case("sample_dataset_weights", [_sample([30, 30], "dataset", 13)], [0]),
    _case("choose", [{"op": "choose", "sizes": [5, 5, 5],
                      "choices": [2, 0, 1, 1, 2, 0, 0, 0, 0, 0, 0, 1]}], [0]),
    _case("choose_keep_going", [{"op": "choose", "sizes": [5, 2],
                                 "choices": [1, 1, 1, 0, 1, 0], "stop": False}], [0]),
]


def build(tf: Any, spec: dict) -> Any:
    """The dataset `spec` describes, built with the module `tf`."""
    if spec["op"] == "random":
        ds = tf.data.Dataset.random(seed=spec["seed"],
                                    rerandomize_each_iteration=spec["rerandomize"])
        return ds.take(spec["take"]).repeat(spec["repeat"])
    inputs = [tf.data.Dataset.range(1000 * i, 1000 * i + n) for i, n in enumerate(spec["sizes"])]
    if spec["op"] == "choose":
        choices = tf.data.Dataset.from_tensor_slices(tf.constant(spec["choices"], tf.int64))
        return tf.data.Dataset.choose_from_datasets(inputs, choices,
                                                    stop_on_empty_dataset=spec.get("stop", True))
    weights = spec["weights"]
    if weights == "dataset":     # alternating preferences, one weight vector per element
        weights = tf.data.Dataset.from_tensor_slices([[0.8, 0.2], [0.3, 0.7]] * 40)
    elif "dtype" in spec:
        weights = tf.constant(weights, getattr(tf, spec["dtype"]))
    ds = tf.data.Dataset.sample_from_datasets(
        inputs, weights=weights, seed=spec["seed"],
        stop_on_empty_dataset=spec.get("stop_on_empty_dataset", False),
        rerandomize_each_iteration=spec.get("rerandomize_each_iteration"))
    return ds.repeat(spec.get("repeat", 1))


def run_case(tf: Any, case: dict) -> list:
    """The element orders of the case's passes, in the order they ran."""
    tf.random.set_seed(case["global_seed"])    # None clears the seed an earlier case set
    datasets = [build(tf, spec) for spec in case["datasets"]]
    return [[int(x) for x in datasets[i].as_numpy_iterator()] for i in case["passes"]]


def main() -> None:
    import tensorflow as tf
    orders = {case["name"]: run_case(tf, case) for case in CASES}
    lines = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in orders.items())
    OUT.write_text(f'{{"tensorflow": "{tf.__version__}", "orders": {{\n{lines}\n}}}}\n')
    print(f"wrote {OUT} ({len(orders)} cases)")


if __name__ == "__main__":
    main()
