"""Records what Keras 3.15 (TF 2.21 backend) answers for `keras.tree`, `keras.random`,
`keras.backend`, `keras.config` and `keras.dtype_policies` into
tests/keras/fixtures/small_namespaces.json; tests/keras/test_keras_small_namespaces.py runs
the same steps with `keras` = tapeflow.keras and compares (run with a Python that has Keras):

  TF_CPP_MIN_LOG_LEVEL=3 python tools/record_keras_small_namespaces.py

STEPS run in order in one namespace holding `keras`, `np`, `collections` and `warnings`: a
("run", code) step is executed, an (id, expression) step evaluated and its answer recorded
as `answer()` writes it (arrays and tensors as [dtype, values], tuples/lists/dicts item by
item, other values as `repr`, an exception as ["!", class name, text]).
"""

from __future__ import annotations

import json
import os
from typing import Any

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "fixtures",
                   "small_namespaces.json")

TREE = [
    ("run", "P = collections.namedtuple('P', 'a b'); "
            "od = collections.OrderedDict([('b', 1), ('a', 2)]); t = keras.tree"),
    ("tree.flatten", "t.flatten({'b': [1, (2, None)], 'a': P(3, {'z': 4, 'y': 5})})"),
    ("tree.flatten_ordered_dict", "t.flatten(od)"),
    ("tree.flatten_leaf", "t.flatten(7)"),
    ("tree.flatten_none", "t.flatten(None)"),
    ("tree.flatten_deque", "t.flatten(collections.deque([1, [2]]))"),
    ("tree.flatten_set_is_a_leaf", "t.flatten({1, 2})"),
    ("tree.flatten_unsortable_keys", "t.flatten({1: 'a', 'b': 2})"),
    ("tree.flatten_with_path", "t.flatten_with_path({'b': [1, (2, None)], 'a': P(3, 4)})"),
    ("tree.is_nested", "[t.is_nested(x) for x in ([], (), {}, None, 1, 'ab', P(1, 2), od, "
                       "{1}, collections.deque())]"),
    ("tree.map_structure", "t.map_structure(lambda x, y: x + y, {'a': [1, 2]}, "
                           "{'a': [10, 20]})"),
    ("tree.map_none_leaf", "t.map_structure(lambda x: 0, [None, 1])"),
    ("tree.map_none_not_leaf", "t.map_structure(lambda x: 0, [None, 1], none_is_leaf=False)"),
    ("tree.map_none_top", "t.map_structure(lambda x: 0, None, none_is_leaf=False)"),
    ("tree.map_deeper_second", "t.map_structure(lambda x, y: x, [1, [2]], [1, 2])"),
    ("tree.map_deeper_first", "t.map_structure(lambda x, y: x, [1, 2], [1, [2]])"),
    ("tree.map_list_tuple", "t.map_structure(lambda x, y: x, [1, 2], (1, 2))"),
    ("tree.map_arity", "t.map_structure(lambda x, y: x, [1, 2], [1, 2, 3])"),
    ("tree.map_nothing", "t.map_structure(lambda x: x)"),
    ("tree.map_namedtuple_dict", "t.map_structure(lambda x: x * 2, P({'q': 1, 'p': 2}, [3]))"),
    ("tree.map_up_to", "t.map_structure_up_to([1, 2], lambda x, y: (x, y), [[1, 2], 3], "
                       "[4, 5])"),
    ("tree.map_up_to_arity", "t.map_structure_up_to([1, [2]], lambda x: x, [10, [20, 30]])"),
    ("tree.map_up_to_shallower", "t.map_structure_up_to([1, [2]], lambda x: x, [10, 20])"),
    ("tree.same_ok", "t.assert_same_structure([1, (2,)], [3, (4,)])"),
    ("tree.same_list_tuple", "t.assert_same_structure([1, 2], (1, 2))"),
    ("tree.same_depth", "t.assert_same_structure([1, [2]], [1, 2])"),
    ("tree.same_depth_first", "t.assert_same_structure([1, 2], [1, [2]])"),
    ("tree.same_keys", "t.assert_same_structure({'a': 1}, {'b': 1})"),
    ("tree.same_arity", "t.assert_same_structure([1], [1, 2])"),
    ("run", "def warned(f):\n    with warnings.catch_warnings(record=True) as w:\n"
            "        warnings.simplefilter('always')\n        result = f()\n"
            "    return result, [(x.category.__name__, str(x.message)) for x in w]"),
    ("tree.same_check_types_false", "warned(lambda: t.assert_same_structure([1], [2], "
                                    "check_types=False))"),
    ("tree.same_check_types_true", "warned(lambda: t.assert_same_structure([1], [2], "
                                   "check_types=True))"),
    ("tree.paths_ok", "t.assert_same_paths([1, 2], (3, 4))"),
    ("tree.paths_differ", "t.assert_same_paths([1, 2], {'a': 1})"),
    ("tree.pack", "t.pack_sequence_as({'b': [0, 0], 'a': P(0, 0)}, [1, 2, 3, 4])"),
    ("tree.pack_too_many", "t.pack_sequence_as([0, 0], [1, 2, 3])"),
    ("tree.pack_too_few", "t.pack_sequence_as([0, 0, 0], [1, 2])"),
    ("tree.pack_leaf", "t.pack_sequence_as(0, [5])"),
    ("tree.pack_ordered_dict", "t.pack_sequence_as(od, [7, 8])"),
    ("tree.lists_to_tuples", "t.lists_to_tuples([1, [2, {'a': [3]}], (4, [5])])"),
    ("tree.map_shape_structure", "t.map_shape_structure(lambda s: ('S', s), "
                                 "{'a': (None, 3), 'b': [[1, 2], (4,)], 'c': []})"),
    ("tree.traverse", "t.traverse(lambda x: ('L', x) if not isinstance(x, (list, dict, tuple)) "
                      "else None, [1, {'a': 2}])"),
    ("tree.traverse_map_to_none", "t.traverse(lambda x: t.MAP_TO_NONE if x == 2 else None, "
                                  "[1, 2, [2]])"),
    ("tree.traverse_bottom_up", "t.traverse(lambda x: len(x) if isinstance(x, list) else None, "
                                "[1, [2, 3]], top_down=False)"),
    ("tree.traverse_stops", "t.traverse(lambda x: 'X' if isinstance(x, list) and len(x) == 2 "
                            "else None, [1, [2, 3]])"),
]

RANDOM = [
    ("run", "r = keras.random"),
    ("random.randint", "r.randint((2, 3), 0, 10, seed=1)"),
    ("random.randint_uint8", "r.randint((4,), 3, 200, dtype='uint8', seed=2)"),
    ("random.randint_int64", "r.randint((3,), -5, 5, dtype='int64', seed=3)"),
    ("random.randint_float", "r.randint((3,), 0, 5, dtype='float32', seed=3)"),
    ("random.shuffle", "r.shuffle(np.arange(6), seed=2)"),
    ("random.shuffle_axis1", "r.shuffle(np.arange(8).reshape(2, 4), axis=1, seed=5)"),
    ("random.categorical", "r.categorical([[0., 1., 2.], [3., 0., -1.]], 5, seed=3)"),
    ("random.categorical_int64", "r.categorical([[0., 1.]], 3, dtype='int64', seed=3)"),
    ("random.categorical_1d", "r.categorical([0., 1.], 3, seed=3)"),
    ("random.gamma", "r.gamma((3,), 2.0, seed=4)"),
    ("random.gamma_float64", "r.gamma((2,), 0.5, dtype='float64', seed=4)"),
    ("random.binomial", "r.binomial((4,), 5, 0.3, seed=5)"),
    ("random.binomial_float64", "r.binomial((2,), 10.0, [0.1, 0.9], dtype='float64', seed=5)"),
    ("random.beta", "r.beta((3,), 2.0, 3.0, seed=6)"),
    ("random.beta_broadcast", "r.beta((2, 2), [1.0, 2.0], 0.5, seed=6)"),
    ("random.uniform_int", "r.uniform((2,), dtype='int32', seed=1)"),
    ("run", "g = r.SeedGenerator(42)"),
    ("random.generator_randint", "r.randint((3,), 0, 100, seed=g)"),
    ("random.generator_shuffle", "r.shuffle(np.arange(4), seed=g)"),
    ("random.generator_beta", "r.beta((2,), 1.0, 1.0, seed=g)"),
    ("random.generator_state", "g.state.numpy()"),
]

BACKEND = [("run", "b = keras.backend")] + [
    (f"backend.{fn}_{label}", f"b.{fn}({expr})")
    for label, expr in [("float16", "'float16'"), ("bfloat16", "'bfloat16'"), ("int8", "'int8'"),
                        ("uint32", "'uint32'"), ("bool", "'bool'"), ("complex64", "'complex64'"),
                        ("string", "'string'"), ("py_float", "float"), ("py_int", "int"),
                        ("py_bool", "bool"), ("none", "None"), ("name_float", "'float'"),
                        ("np_float32", "np.float32"), ("np_int16", "np.dtype('int16')")]
    for fn in ("standardize_dtype", "is_float_dtype", "is_int_dtype")] + [
    (f"backend.result_type_{i}", f"b.result_type{args}")
    for i, args in enumerate(["('int32', 'float32')", "('int8', 'uint8')", "('int32', float)",
                              "('float16', int)", "(int, float)", "('bool', int)",
                              "('int64', 'float16')", "('uint64', 'int64')",
                              "('float8_e4m3fn', 'float32')", "()"])] + [
    ("backend.get_uid", "(b.get_uid('zz_small_ns'), b.get_uid('zz_small_ns'))"),
    ("run", "b.clear_session()"),
    ("backend.get_uid_after_clear", "b.get_uid('zz_small_ns')"),
    ("backend.is_keras_tensor", "(b.is_keras_tensor(keras.Input((2,))), "
                                "b.is_keras_tensor(np.ones(2)))"),
    ("backend.backend", "b.backend()"),
]

CONFIG = [
    ("run", "c = keras.config"),
    ("config.defaults", "(c.is_flash_attention_enabled(), c.is_traceback_filtering_enabled(), "
                        "c.max_epochs(), c.max_steps_per_epoch(), c.is_nnx_enabled(), "
                        "c.backend())"),
    ("run", "c.disable_flash_attention(); c.disable_traceback_filtering(); "
            "c.set_max_epochs(3); c.set_max_steps_per_epoch(2)"),
    ("config.set", "(c.is_flash_attention_enabled(), c.is_traceback_filtering_enabled(), "
                   "c.max_epochs(), c.max_steps_per_epoch())"),
    ("run", "c.enable_flash_attention(); c.enable_traceback_filtering(); "
            "c.set_max_epochs(None); c.set_max_steps_per_epoch(None)"),
    ("config.reset", "(c.is_flash_attention_enabled(), c.is_traceback_filtering_enabled(), "
                     "c.max_epochs(), c.max_steps_per_epoch())"),
]

DTYPE_POLICIES = [
    ("run", "d = keras.dtype_policies"),
    ("dtype_policies.serialize", "d.serialize(d.DTypePolicy('mixed_float16'))"),
    ("dtype_policies.serialize_float", "d.serialize(d.FloatDTypePolicy('float16'))"),
    ("dtype_policies.roundtrip", "d.deserialize(d.serialize(d.DTypePolicy('mixed_bfloat16')))"),
    ("dtype_policies.deserialize_float", "d.deserialize({'class_name': 'FloatDTypePolicy', "
                                         "'config': {'name': 'float64'}})"),
    ("dtype_policies.deserialize_string", "d.deserialize('float16')"),
    ("dtype_policies.deserialize_bad_name", "d.deserialize({'class_name': 'DTypePolicy', "
                                            "'config': {'name': 'int3'}})"),
    ("dtype_policies.get", "[(p.name, p.compute_dtype, p.variable_dtype, p.quantization_mode) "
                           "for p in (d.get(None), d.get('float64'), d.get('mixed_float16'), "
                           "d.get({'class_name': 'DTypePolicy', 'config': {'name': 'bfloat16'}}), "
                           "d.get(np.float16))]"),
    ("dtype_policies.get_bad", "d.get(5)"),
    ("dtype_policies.get_bad_name", "d.get('foo')"),
    ("dtype_policies.float_is_policy", "(d.DTypePolicy('float16') == d.FloatDTypePolicy("
                                       "'float16'), isinstance(d.FloatDTypePolicy('float16'), "
                                       "d.DTypePolicy))"),
    ("run", "m = d.DTypePolicyMap('float32'); m['dense/.*'] = 'bfloat16'; "
            "m['dense/kernel_x'] = d.DTypePolicy('float16')"),
    ("dtype_policies.map_lookup", "[m[k].name for k in ('dense/kernel', 'dense/kernel_x', "
                                  "'conv')] + [m.name, len(m), 'conv' in m, list(m)]"),
    ("dtype_policies.map_serialize", "d.serialize(m)"),
    ("dtype_policies.map_roundtrip", "[(k, v.name) for k, v in "
                                     "d.deserialize(d.serialize(m)).items()]"),
    ("dtype_policies.map_default", "(lambda e: (e.name, e.compute_dtype, e.get_config()))"
                                   "(d.DTypePolicyMap())"),
    ("dtype_policies.map_of_map", "d.DTypePolicyMap(d.DTypePolicyMap())"),
    ("dtype_policies.map_not_dict", "d.DTypePolicyMap('float32', [1])"),
    ("dtype_policies.map_duplicate", "m.__setitem__('dense/.*', 'float32')"),
    ("dtype_policies.map_bad_value", "m.__setitem__('x', 5)"),
    ("run", "m2 = d.DTypePolicyMap('float32', {'a.*': 'float16', '.*b': 'bfloat16'})"),
    ("dtype_policies.map_two_matches", "m2['ab']"),
]

STEPS = TREE + RANDOM + BACKEND + CONFIG + DTYPE_POLICIES


def answer(value: Any) -> Any:
    """A JSON-able description of a result, the same for Keras's and tapeflow's objects."""
    if hasattr(value, "numpy") and hasattr(value, "dtype") or type(value).__module__ == "numpy":
        import numpy as np
        array = np.asarray(value)
        return [str(array.dtype), array.tolist()]
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {"namedtuple": type(value).__name__, "items": [answer(v) for v in value]}
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [answer(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[answer(k), answer(v)] for k, v in value.items()],
                "type": type(value).__name__}
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    if isinstance(value, type):
        return f"class {value.__name__}"
    return repr(value)


def run_steps(keras: Any) -> dict:
    """{id: answer} for STEPS with `keras` as the library."""
    import collections
    import warnings

    import numpy as np
    scope = {"keras": keras, "np": np, "collections": collections, "warnings": warnings}
    answers = {}
    for step_id, code in STEPS:
        if step_id == "run":
            exec(code, scope)  # noqa: S102 - this file's literals
            continue
        try:
            answers[step_id] = answer(eval(code, scope))  # noqa: S307
        except Exception as e:  # the error is the answer
            answers[step_id] = ["!", type(e).__name__, str(e)]
    return answers


def main() -> None:
    import keras
    with open(OUT, "w") as f:
        json.dump(run_steps(keras), f, indent=0, sort_keys=True)
        f.write("\n")
    print(f"{len(STEPS)} steps -> {OUT}")


if __name__ == "__main__":
    main()
