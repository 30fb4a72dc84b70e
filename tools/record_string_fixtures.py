"""Records TensorFlow 2.21's printed answers for tapeflow's string tests (run where TensorFlow
is installed; CI does not run it):

    python tools/record_string_fixtures.py   # writes tests/strings/fixtures/strings.json

Each case is a small program over `tf` (and `np`); its printed text is recorded, or
`ERROR <class name>: <message>` where it raises (the message as `_message` normalizes it).
The `guide_*` cases are the string examples of TensorFlow's guide "Tensors"
(tensorflow.org/guide/tensor#string_tensors), as written there.
tests/strings/test_string_fixtures.py runs every program on tapeflow and compares.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib
import re

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "strings" / "fixtures" / \
    "strings.json"

S = 's = tf.constant(["Hello", " wOrld ", "", "h\\u00e9llo \\U0001F600"])\n'

CASES = {
    # -- TensorFlow's guide "Tensors", string tensors -------------------------------------------
    "guide_scalar": """
scalar_string_tensor = tf.constant("Gray wolf")
print(scalar_string_tensor)
""",
    "guide_vector": """
tensor_of_strings = tf.constant(["Gray wolf",
                                 "Quick brown fox",
                                 "Lazy dog"])
print(tensor_of_strings)
""",
    "guide_unicode": """
print(tf.constant("🥳👍"))
""",
    "guide_split": """
scalar_string_tensor = tf.constant("Gray wolf")
print(tf.strings.split(scalar_string_tensor, sep=" "))
tensor_of_strings = tf.constant(["Gray wolf", "Quick brown fox", "Lazy dog"])
print(tf.strings.split(tensor_of_strings))
""",
    "guide_to_number": """
text = tf.constant("1 10 100")
print(tf.strings.to_number(tf.strings.split(text, " ")))
""",
    "guide_bytes": """
byte_strings = tf.strings.bytes_split(tf.constant("Duck"))
byte_ints = tf.io.decode_raw(tf.constant("Duck"), tf.uint8)
print("Byte strings:", byte_strings)
print("Bytes:", byte_ints)
""",
    "guide_unicode_split": """
unicode_bytes = tf.constant("アヒル 🦆")
unicode_char_bytes = tf.strings.unicode_split(unicode_bytes, "UTF-8")
unicode_values = tf.strings.unicode_decode(unicode_bytes, "UTF-8")
print("\\nUnicode bytes:", unicode_bytes)
print("\\nUnicode chars:", unicode_char_bytes)
print("\\nUnicode values:", unicode_values)
""",
    # -- the dtype, conversion, printing ----------------------------------------------------
    "dtype": """
print(tf.string, repr(tf.string), tf.string.name, tf.string.is_numpy_compatible)
print(tf.string.as_numpy_dtype, tf.string.size, tf.string.as_datatype_enum)
print(tf.as_dtype(np.object_), tf.as_dtype(np.bytes_), tf.as_dtype("string"))
print(tf.string.is_floating, tf.string.is_integer, tf.string.is_bool, tf.string.is_complex)
""",
    "dtype_min": "print(tf.string.min)\n",
    "dtype_max": "print(tf.string.max)\n",
    "constants": """
for v in ["a", b"x", ["a", "bc"], [[b"a", b"b"], [b"c", b"d"]], "h\\u00e9", ["\\U0001F600"],
          b"a\\x00b"]:
    t = tf.constant(v)
    print(t)
    print(repr(t))
    print(repr(t.numpy()), t.dtype, t.shape)
print(repr(tf.constant([], dtype=tf.string)))
print(repr(tf.constant(["x" * 5] * 14)))
""",
    "numpy_arrays": """
for a in [np.array([b"a", b"bcd"]), np.array(["a", "b\\u00e9"]), np.array(["a", "b"], dtype=object),
          np.array([b"a\\x00", b"b"]), np.bytes_(b"ab"), np.str_("ab"), np.array("xy"),
          np.array([[b"a"], [b"b"]], dtype=object)]:
    t = tf.constant(a)
    print(repr(t))
    print(repr(t.numpy()))
print(repr(tf.convert_to_tensor(np.array(["a"]), dtype=tf.string)))
print(repr(tf.constant(np.array(["a", "bb"]), dtype=tf.string)))
""",
    "numpy_object_numbers": "print(tf.constant(np.array([1, 2], dtype=object)))\n",
    "numpy_object_mixed": "print(tf.constant(np.array([b'a', 2], dtype=object)))\n",
    "numpy_unicode_to_int": "print(tf.constant(np.array(['1']), dtype=tf.int32))\n",
    "constant_int_as_string": "print(tf.constant(1, dtype=tf.string))\n",
    "constant_string_as_int": "print(tf.constant('1', dtype=tf.int32))\n",
    "format_and_str": """
t = tf.constant(["a", "b"])
print(f"{tf.constant('a')}", f"{t}", str(t), t.numpy().tolist(), bool(tf.constant("a")))
print(len(t), t.ndim, t.shape, tf.shape(t), tf.size(t), tf.rank(t))
""",
    # -- ops on string tensors ----------------------------------------------------------------
    "add": """
a = tf.constant("a")
print(a + "b")
print("b" + a)
print(tf.add(tf.constant(["a", "b"]), "c"))
print(tf.constant([["x"], ["y"]]) + tf.constant(["1", "2"]))
print(tf.math.add(a, a))
""",
    "add_number": "print(tf.constant('a') + 1)\n",
    "add_tensor_number": "print(tf.add(tf.constant('a'), tf.constant(1)))\n",
    "add_number_string": "print(tf.constant(1) + tf.constant('a'))\n",
    "sub_strings": "print(tf.constant('a') - 'b')\n",
    "mul_strings": "print(tf.constant('a') * 2)\n",
    "less_strings": "print(tf.constant('a') < tf.constant('b'))\n",
    "compare": """
t = tf.constant(["a", "b", "a"])
print(t == "a")
print(t != "a")
print(tf.equal(t, tf.constant(["a", "c", "c"])))
print(tf.not_equal(t, "b"))
print(tf.constant("a") == tf.constant("a"))
""",
    "compare_number": "print(tf.constant('a') == 1)\n",
    "equal_number": "print(tf.equal(tf.constant('a'), 1))\n",
    "array_ops": """
t = tf.constant(["a", "b", "c", "d"])
print(tf.where([True, False, True, False], t, "z"))
print(tf.gather(t, [3, 0]))
print(tf.reshape(t, [2, 2]))
print(tf.concat([t, tf.constant(["e"])], 0))
print(tf.stack([tf.constant("x"), tf.constant("y")]))
print(tf.transpose(tf.reshape(t, [2, 2])))
print(tf.tile(t[:2], [2]))
print(tf.expand_dims(t, 0))
print(tf.identity(t))
print(tf.boolean_mask(t, [True, False, False, True]))
print(tf.reverse(t, [0]))
print(tf.unique(tf.constant(["a", "b", "a"])))
print(tf.zeros_like(t))
print(tf.fill([2], "x"))
print(t[1:3], t[::-1])
print(tf.gather_nd(tf.reshape(t, [2, 2]), [[1, 0]]))
print(tf.squeeze(tf.reshape(t, [1, 4])))
print(tf.split(t, 2))
""",
    "index_scalar": "print(tf.constant(['a', 'b'])[1])\n",
    "unstack": "print(tf.unstack(tf.constant(['a', 'b'])))\n",
    "zeros_string": "print(tf.zeros([2], dtype=tf.string))\n",
    "ones_like_string": "print(tf.ones_like(tf.constant('a')))\n",
    "concat_mixed": "print(tf.concat([tf.constant(['a']), tf.constant([1])], 0))\n",
    "cast_from_string": "print(tf.cast(tf.constant('1'), tf.float32))\n",
    "cast_to_string": "print(tf.cast(tf.constant(1.0), tf.string))\n",
    "cast_string_string": "print(tf.cast(tf.constant('1'), tf.string))\n",
    "reduce_sum_string": "print(tf.reduce_sum(tf.constant(['a'])))\n",
    "neg_string": "print(-tf.constant('a'))\n",
    "variable": """
v = tf.Variable(["a", "b"])
print(v)
print(v.trainable, v.dtype, v.shape)
v.assign(["c", "d"])
print(v.numpy())
print(v + "x")
print(tf.Variable("abc"))
""",
    "tensor_spec": """
spec = tf.TensorSpec(shape=[None], dtype=tf.string)
print(spec, repr(spec))
print(spec.is_compatible_with(tf.constant(["a"])), spec.is_compatible_with(tf.constant([1])))
print(tf.TensorSpec.from_tensor(tf.constant(["a"])))
print(spec == tf.TensorSpec([None], tf.string), spec.dtype, spec.shape)
print(tf.TensorSpec([], "string"), tf.TensorSpec(None, tf.string))
""",
    "function": """
n = [0]
@tf.function
def f(x):
    n[0] += 1
    return x + "!"
print(f(tf.constant("a")))
print(f(tf.constant("bb")))
print(f(tf.constant(["a", "b"])))
print(f("py"))
print(f("py2"))
print(n[0])
@tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
def g(x):
    return tf.strings.length(x), tf.strings.upper(x), tf.strings.join([x, "?"])
print(g(tf.constant(["ab", "c"])))
print(g(tf.constant(["xyz"])))
print(g.get_concrete_function().structured_outputs)
@tf.function
def h(x):
    return tf.where(x == "a", x, "z"), tf.shape(x)
print(h(tf.constant(["a", "b"])))
""",
    "function_signature_mismatch": """
@tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
def g(x):
    return x
print(g(tf.constant([1])))
""",
    "dataset": """
ds = tf.data.Dataset.from_tensor_slices(["a", "b", "c"])
print(ds.element_spec)
print(list(ds))
print(list(ds.map(lambda s: s + "?")))
print(list(ds.map(lambda s: tf.strings.length(s))))
print(list(ds.batch(2)))
print(list(ds.as_numpy_iterator()))
""",
    # -- tf.strings ---------------------------------------------------------------------------
    "join": """
print(tf.strings.join(["a", "b"]))
print(tf.strings.join(["a", "b"], separator=" "))
print(tf.strings.join([tf.constant(["x", "y"]), "-", tf.constant(["1", "2"])]))
print(tf.strings.join([]))
""",
    "join_no_broadcast": (
        "print(tf.strings.join([tf.constant(['x', 'y']), tf.constant([['1'], "
        "['2']])]))\n"),
    "join_shapes": (
        "print(tf.strings.join([tf.constant(['x', 'y']), tf.constant(['1', '2', "
        "'3'])]))\n"),
    "join_number": "print(tf.strings.join(['a', 1]))\n",
    "length": S + """
print(tf.strings.length(s))
print(tf.strings.length(s, unit="UTF8_CHAR"))
print(tf.strings.length("abc"))
print(tf.strings.length(tf.constant([["ab"], ["c"]])))
""",
    "length_bad_unit": "print(tf.strings.length('a', unit='CHAR'))\n",
    "length_number": "print(tf.strings.length(1))\n",
    "substr": 's = tf.constant(["Hello", " wOrld ", "h\\u00e9llo \\U0001F600"])\n' + """
print(tf.strings.substr(s, 1, 3))
print(tf.strings.substr(s, 0, 100))
print(tf.strings.substr(s, -2, 2))
print(tf.strings.substr("abcdef", 2, 2))
print(tf.strings.substr(tf.constant(["abcdef", "xyz"]), [1, 0], [2, 5]))
print(tf.strings.substr(tf.constant(["h\\u00e9llo"]), 1, 2, unit="UTF8_CHAR"))
print(tf.strings.substr(tf.constant(["h\\u00e9llo"]), 1, 2, unit="BYTE"))
""",
    "substr_out_of_range": "print(tf.strings.substr(tf.constant(['ab', 'abcd']), 3, 1))\n",
    "substr_negative_out_of_range": "print(tf.strings.substr('ab', -3, 1))\n",
    "lower_upper": S + """
print(tf.strings.lower(s))
print(tf.strings.upper(s))
print(tf.strings.lower("\\u00c9T\\u00c9", encoding="utf-8"))
print(tf.strings.upper("\\u00e9t\\u00e9", encoding="utf-8"))
print(tf.strings.upper("\\u00e9t\\u00e9"))
""",
    "strip": """
print(tf.strings.strip(tf.constant(["  a b  ", "\\t\\nx\\r ", "", "  "])))
print(tf.strings.strip("\\u00a0x\\u00a0"))
""",
    "regex_replace": """
t = tf.constant(["hello world", "foo bar baz", "aaa"])
print(tf.strings.regex_replace(t, "o", "0"))
print(tf.strings.regex_replace(t, "o", "0", replace_global=False))
print(tf.strings.regex_replace(t, r"(\\w+) (\\w+)", r"\\2 \\1"))
print(tf.strings.regex_replace(t, r"a+", r"<\\0>"))
print(tf.strings.regex_replace(t, r"^", "> "))
print(tf.strings.regex_replace(t, r"", "-"))
print(tf.strings.regex_replace("a.b", r"\\.", r"\\\\"))
print(tf.strings.regex_replace("abc", "[abc]", ""))
""",
    "regex_replace_bad_pattern": "print(tf.strings.regex_replace('a', '(', 'x'))\n",
    "regex_full_match": """
t = tf.constant(["abc", "abcd", "xabc", ""])
print(tf.strings.regex_full_match(t, "abc"))
print(tf.strings.regex_full_match(t, "a.*"))
print(tf.strings.regex_full_match(t, ".*"))
print(tf.strings.regex_full_match(t, "abc|abcd"))
print(tf.strings.regex_full_match("A1", "[A-Z][0-9]"))
""",
    "regex_full_match_bad": "print(tf.strings.regex_full_match('a', '[a'))\n",
    "to_number": """
print(tf.strings.to_number(tf.constant(["1.5", "-2", "1e3", "  3", "inf", "nan"])))
print(tf.strings.to_number(tf.constant(["1", "-2", "+7"]), out_type=tf.int32))
print(tf.strings.to_number(tf.constant(["12345678901"]), out_type=tf.int64))
print(tf.strings.to_number(tf.constant(["0.1"]), out_type=tf.float64))
print(tf.strings.to_number("3.25"))
""",
    "to_number_bad": "print(tf.strings.to_number(tf.constant(['1', 'abc'])))\n",
    "to_number_int_float": "print(tf.strings.to_number('1.5', out_type=tf.int32))\n",
    "to_number_int_overflow": "print(tf.strings.to_number('3000000000', out_type=tf.int32))\n",
    "to_number_bad_type": "print(tf.strings.to_number('1', out_type=tf.bool))\n",
    "as_string": """
print(tf.strings.as_string(tf.constant([1, -20, 300])))
print(tf.strings.as_string(tf.constant([1.5, -0.25, 3.0, 1e10, 1e-7])))
print(tf.strings.as_string(tf.constant([3.14159265]), precision=3))
print(tf.strings.as_string(tf.constant([3.14159265]), scientific=True))
print(tf.strings.as_string(tf.constant([3.14159265, 100000000.0]), shortest=True))
print(tf.strings.as_string(tf.constant([7]), width=4))
print(tf.strings.as_string(tf.constant([7]), width=4, fill="0"))
print(tf.strings.as_string(tf.constant([True, False])))
print(tf.strings.as_string(tf.constant([1.5], tf.float64)))
print(tf.strings.as_string(tf.constant([np.inf, -np.inf, np.nan])))
print(tf.strings.as_string(tf.constant([1+2j], tf.complex64)))
print(tf.strings.as_string(tf.constant(5, tf.int64)))
print(tf.strings.as_string(tf.constant(5, tf.uint8)))
""",
    "as_string_string": "print(tf.strings.as_string(tf.constant('a')))\n",
    "as_string_precision_int": "print(tf.strings.as_string(tf.constant([1]), precision=2))\n",
    "format": """
print(tf.strings.format("x={} y={}", (tf.constant(1), tf.constant([1.5, 2.0]))))
print(tf.strings.format("{}", tf.constant(["a", "b"])))
print(tf.strings.format("t: {}", tf.range(10)))
print(tf.strings.format("t: {}", tf.range(10), summarize=2))
print(tf.strings.format("hello", ()))
print(tf.strings.format("<>", tf.constant(3), placeholder="<>"))
print(tf.strings.format("{}", tf.constant([[1, 2], [3, 4]])))
""",
    "format_count": "print(tf.strings.format('{} {}', tf.constant(1)))\n",
    "reduce_join": """
t = tf.constant([["a", "b", "c"], ["d", "e", "f"]])
print(tf.strings.reduce_join(t))
print(tf.strings.reduce_join(t, axis=0))
print(tf.strings.reduce_join(t, axis=1, separator="-"))
print(tf.strings.reduce_join(t, axis=-1, keepdims=True))
print(tf.strings.reduce_join(tf.constant([], dtype=tf.string)))
print(tf.strings.reduce_join(t, axis=[0, 1]))
""",
    "bytes_split": """
print(tf.strings.bytes_split("abc"))
print(tf.strings.bytes_split(tf.constant(["ab", "", "c"])))
print(tf.strings.bytes_split("h\\u00e9"))
""",
    "split": """
print(tf.strings.split("a b  c"))
print(tf.strings.split("a b  c", sep=" "))
print(tf.strings.split(tf.constant(["a,b,c", "d", ""]), sep=","))
print(tf.strings.split(tf.constant(["a,b,c", "d"]), sep=",", maxsplit=1))
print(tf.strings.split(tf.constant(["  x  y ", ""])))
print(tf.strings.split("a<>b<>c", sep="<>"))
""",
    "unicode": """
print(tf.strings.unicode_decode(tf.constant(["h\\u00e9", "\\U0001F600!"]), "UTF-8"))
print(tf.strings.unicode_decode("abc", "UTF-8"))
print(tf.strings.unicode_encode(tf.constant([104, 233, 128512]), "UTF-8"))
print(tf.strings.unicode_encode(tf.ragged.constant([[104, 233], [128512]]), "UTF-8"))
print(tf.strings.unicode_encode(tf.constant([[104, 105], [106, 107]]), "UTF-8"))
print(tf.strings.unicode_split(tf.constant(["h\\u00e9", "ab"]), "UTF-8"))
print(tf.strings.unicode_decode(tf.constant([b"a\\xffb"]), "UTF-8"))
print(tf.strings.unicode_decode(tf.constant([b"a\\xffb"]), "UTF-8", replacement_char=63))
""",
    "unicode_decode_strict": (
        "print(tf.strings.unicode_decode(tf.constant([b'a\\xffb']), 'UTF-8', "
        "errors='strict'))\n"),
    "unicode_encode_strict": (
        "print(tf.strings.unicode_encode(tf.constant([104, 1114112]), 'UTF-8', "
        "errors='strict'))\n"),
    "unicode_encode_replace": (
        "print(tf.strings.unicode_encode(tf.constant([104, 1114112, 55296]), "
        "'UTF-8'))\n"),
    "to_number_more": """
print(tf.strings.to_number(tf.constant(["1e40", "-1e40", "0x10", "-0x1.8p1", "Infinity",
                                        "-inf", "NaN", ".5", "5.", " 2 "])))
""",
    "to_number_more_int": """
print(tf.strings.to_number(tf.constant([" 2 ", "+3", "-0", "007"]), out_type=tf.int64))
""",
    "to_number_underscore": "print(tf.strings.to_number('1_0'))\n",
    "to_number_hex": "print(tf.strings.to_number('0x10'))\n",
    "to_number_overflow": "print(tf.strings.to_number('1e40'))\n",
    "unsorted_segment_join": """
print(tf.strings.unsorted_segment_join(tf.constant(["a", "b", "c", "d"]), [1, 0, 1, 3], 4))
print(tf.strings.unsorted_segment_join(tf.constant(["a", "b", "c"]), [0, 0, 1], 2, separator=","))
""",
    "hash_bucket_fast": """
print(tf.strings.to_hash_bucket_fast(tf.constant(["", "a", "hello", "Hello, World!",
      "0123456789abcdef", "0123456789abcdefX", "x" * 31, "y" * 32, "z" * 33, "w" * 64,
      "v" * 65, "The quick brown fox jumps over the lazy dog. " * 5]), 1 << 30))
print(tf.strings.to_hash_bucket_fast(tf.constant(["a", "b", "c", "abc"]), 10))
print(tf.strings.to_hash_bucket_fast("h\\u00e9llo", 1000))
""",
}


def _message(exc: Exception) -> str:
    """TF's message without what tapeflow does not write: the `{{function_node ...}}`
    prefix, the eager ` name: ...` suffix, and the NodeDef detail of attr errors."""
    text = str(exc).split("\n")[0]
    text = re.sub(r"^\{\{function_node [^}]*\}\} ", "", text)
    return re.sub(r" name: .*$", "", text).strip()


def run(tf, np, program: str) -> str:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(program, {"tf": tf, "np": np})  # noqa: S102 - the recorded programs
        return out.getvalue()
    except Exception as exc:  # noqa: BLE001 - its class is the answer
        return out.getvalue() + f"ERROR {type(exc).__name__}: {_message(exc)}\n"


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    import tensorflow as tf

    cases = {name: {"program": program, "printed": run(tf, np, program)}
             for name, program in CASES.items()}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"tensorflow": tf.__version__, "cases": cases}, indent=1,
                              ensure_ascii=False) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
