"""Every public op takes each tensor-able argument as a tensor whose value is known only when
the traced graph runs (issue 33), registry-driven.

The cases and TensorFlow's answers are recorded by tools/record_unknown_value_args.py with
TF 2.21 (tests/function/fixtures/unknown_value_args.json). Each case is one (op, argument): the
op is traced with that argument as an input_signature TensorSpec (its value unknown while
tracing) and the other tensor arguments with None dims where TF traced them so. Then:
  - where TF accepts it, tapeflow must too: both runs (two values of the argument) equal TF's
    outputs (eager tapeflow's alone where TF 2.21 has no CPU kernel, or where the op draws
    from a stateful stream: shapes then) and eager tapeflow's, TF's run-time errors are
    tapeflow's, and the traced static shapes never contradict TF's and are never more
    specific (a known dim where TF's is None only where SHARPER says why; a None where TF
    knows a dim only where FOLDS says why: none is needed now);
  - where TF refuses it, tapeflow refuses it too (any error) or computes the eager values;
  - traced by a call (its first values then are the trace's examples), the op never keeps
    the first value: the second call gives eager's answer or raises;
  - every public op whose signature has a tensor-able argument (TENSOR_ABLE, by name) has a
    case for it, unless NOT_TENSOR_ABLE says why not.
Cases that fail now are strict xfails in XFAIL_OTHERS and XFAIL_NOT_YET, each with its
reason. The last section differentiates through the ops this suite made read their argument
as the graph runs.
"""

from __future__ import annotations

import base64
import inspect
import json
import os

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.framework import exports

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                       "unknown_value_args.json")
with open(FIXTURE) as _file:
    RECORD = json.load(_file)

# Argument names that TF's ops take as tensors (run-time inputs) while callers mostly pass
# Python values: sizes, shapes, axes, counts, offsets. Every public op with one of these in its
# signature needs a case (the completeness check below).
TENSOR_ABLE = {
    "axes", "axis", "batch_dims", "batch_shape", "begin", "block_shape", "block_size",
    "central_fraction", "crop_size", "crops", "depth", "desired_samples", "dim", "dims", "end",
    "fft_length", "frame_length", "frame_step", "jpeg_quality", "k", "limit", "max_index",
    "max_output_size", "max_output_size_per_class", "max_total_size", "maxlen", "maxlength",
    "maxval", "minlength", "minval", "multiples", "nbins", "new_shape", "num", "num_classes",
    "num_cols", "num_columns", "num_lower", "num_mel_bins", "num_or_size_splits", "num_rows",
    "num_samples", "num_segments", "num_spectrogram_bins", "num_split", "num_upper",
    "offset_height", "offset_width", "output_shape", "paddings", "perm", "repeats", "shape",
    "shift", "size", "start", "stop", "strides", "target_height", "target_width", "vocab_size",
    "window_length", "delta", "sample_rate", "lower_edge_hertz", "upper_edge_hertz", "n",
    "min_jpeg_quality", "max_jpeg_quality",
}

# (public name, argument) -> why no case: arguments with a tensor-able name that are not one.
NOT_TENSOR_ABLE = {
    ("print", "end"): "the text print writes after the values, not a tensor",
    ("sparse.concat", "concat_dim"): "a deprecated alias of axis, which has its case",
    ("signal.inverse_stft_window_fn", "frame_step"): "returns a Python window function; "
                                                     "not an op",
}

# (op, argument) -> why tapeflow's traced shape has a None where TF's has a dim: TF folds
# arithmetic on a shape tensor (constant folding in its shape inference) where tapeflow's
# rule reads only constants and tf.shape dims.
FOLDS: dict = {}

# (op, argument) -> why tapeflow's traced shape knows a dim that TF's leaves unknown (it must
# then be right on every run, which the runs check).
SHARPER = {
    ("sparse.expand_dims", "axis"): "the indices have rank + 1 columns, known from the static "
                                    "length of dense_shape; TF concatenates slices whose "
                                    "sizes its shape function does not fold",
}

# Failures in files this suite's author could not change (another helper was editing
# ragged_ops.py): whoever fixes one removes its mark (strict: a fixed case fails until then).
_RAGGED = "ops/ragged_ops.py"
XFAIL_OTHERS = {
}

# Failures in files without another owner that are not fixed yet (each says why). They refuse
# the argument (NotImplementedError or TypeError while tracing); none computes a wrong value.
XFAIL_NOT_YET: dict = {}
XFAIL = {**XFAIL_OTHERS, **XFAIL_NOT_YET}   # keys: (op, argument[, n-th case of the pair])
_XFAIL_IDS = {"-".join(map(str, key)): reason for key, reason in XFAIL.items()}

_TF_CLASSES = {"InvalidArgumentError": tf.errors.InvalidArgumentError,
               "ValueError": ValueError, "TypeError": TypeError}


# -- building a case's call ------------------------------------------------------------------------

def _array(encoded: dict) -> np.ndarray:
    if encoded["dtype"] == "string":   # base64, flat
        return np.array([base64.b64decode(v) for v in encoded["values"]] or [],
                        dtype=object).reshape(encoded["shape"])
    values = np.asarray(encoded["values"])
    if encoded["dtype"].startswith("complex"):
        values = values[..., 0] + 1j * values[..., 1]
    return np.asarray(values, dtype=encoded["dtype"]).reshape(encoded["shape"])


class _Tested:
    """The argument under test: its two values and dtype."""

    def __init__(self, encoded: dict):
        self.values = [np.asarray(v, encoded["dtype"]) for v in encoded["__arg__"]]
        self.dtype = tf.as_dtype(encoded["dtype"])


def _decode(value, inputs: list):
    """A call argument from JSON; arrays and the tested argument become input slots (their
    index in `inputs`), rebuilt by `_rebuild`."""
    if isinstance(value, dict):
        if "__arg__" in value:
            inputs.append(_Tested(value))
            return _Slot(len(inputs) - 1)
        if "__array__" in value:
            inputs.append(_array(value["__array__"]))
            return _Slot(len(inputs) - 1)
        if "__sparse__" in value:
            return _SparseConst(value)
        if "__bytes__" in value:
            return _BytesConst(base64.b64decode(value["__bytes__"]))
        if "__dtype__" in value:
            return tf.as_dtype(value["__dtype__"])
        raise AssertionError(f"unknown fixture value {value}")
    if isinstance(value, list):
        return [_decode(v, inputs) for v in value]
    return value


class _Slot:
    def __init__(self, index: int):
        self.index = index


class _SparseConst:
    def __init__(self, encoded: dict):
        self.indices, self.values, self.shape = encoded["__sparse__"]
        self.dtype = encoded["dtype"]

    def build(self):
        return tf.sparse.SparseTensor(np.asarray(self.indices, np.int64),
                                      np.asarray(self.values, self.dtype),
                                      np.asarray(self.shape, np.int64))


class _BytesConst:
    def __init__(self, data: bytes):
        self.data = data

    def build(self):
        return tf.constant(self.data)


def _rebuild(value, tensors):
    if isinstance(value, _Slot):
        return tensors[value.index]
    if isinstance(value, (_SparseConst, _BytesConst)):
        return value.build()
    if isinstance(value, list):
        return [_rebuild(v, tensors) for v in value]
    return value


def _lookup(name: str):
    obj = tf
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


class Case:
    """One recorded (op, argument) case, ready to run on tapeflow."""

    def __init__(self, record: dict):
        self.op_name, self.arg, self.tf = record["op"], record["arg"], record["tf"]
        self.random = "random" in record["flags"]
        self.inputs: list = []
        self.args = _decode(record["args"], self.inputs)
        self.kwargs = {k: _decode(v, self.inputs) for k, v in record["kwargs"].items()}
        self.tested = next(x for x in self.inputs if isinstance(x, _Tested))

    def call(self, *tensors):
        op = _lookup(self.op_name)
        return op(*_rebuild(self.args, tensors),
                  **{k: _rebuild(v, tensors) for k, v in self.kwargs.items()})

    def specs(self, known_dims: bool) -> list:
        def spec(x):
            if isinstance(x, _Tested):
                return tf.TensorSpec(np.shape(x.values[0]), x.dtype)
            dims = x.shape if known_dims else [None] * x.ndim
            return tf.TensorSpec(dims, tf.string if x.dtype == object else tf.as_dtype(x.dtype))
        return [spec(x) for x in self.inputs]

    def feed(self, run: int) -> list:
        return [tf.constant(x.values[run], x.dtype) if isinstance(x, _Tested) else tf.constant(x)
                for x in self.inputs]


def _flat(out) -> list:
    """The output's tensors, a SparseTensor as its three components (as TF's
    nest.flatten(expand_composites=True) gives them)."""
    flat = []
    for t in tf.nest.flatten(out):
        if isinstance(t, tf.sparse.SparseTensor):
            flat += [t.indices, t.values, t.dense_shape]
        else:
            flat.append(t)
    return flat


def _params():
    seen: dict = {}
    for record in RECORD["cases"]:
        key = (record["op"], record["arg"])
        seen[key] = seen.get(key, 0) + 1
        ident = f"{key[0]}-{key[1]}" + (f"-{seen[key]}" if seen[key] > 1 else "")
        marks = [pytest.mark.xfail(strict=True, reason=_XFAIL_IDS[ident])] \
            if ident in _XFAIL_IDS else []
        yield pytest.param(record, id=ident, marks=marks)


# -- comparisons -------------------------------------------------------------------------------

def _as_numpy(t) -> np.ndarray:
    return np.asarray(t.numpy())


def _same_outputs(actual: list, expected: list, what: str, shapes_only: bool) -> None:
    assert len(actual) == len(expected), f"{what}: {len(actual)} outputs, expected {len(expected)}"
    for i, (a, e) in enumerate(zip(actual, expected)):
        a, e = np.asarray(a), np.asarray(e)
        assert a.shape == e.shape, f"{what}: output {i} has shape {a.shape}, expected {e.shape}"
        if e.dtype != object:
            assert a.dtype == e.dtype, f"{what}: output {i} is {a.dtype}, expected {e.dtype}"
        if shapes_only:
            continue
        if e.dtype.kind in "fc":
            np.testing.assert_allclose(a, e, rtol=2e-5, atol=2e-5, err_msg=f"{what}: output {i}")
        else:
            np.testing.assert_array_equal(a, e, err_msg=f"{what}: output {i}")


def _eager(case: Case, run: int):
    """Eager tapeflow's outputs for run `run` (the argument an eager tensor), or the error."""
    try:
        return [_as_numpy(t) for t in _flat(case.call(*case.feed(run)))]
    except Exception as error:  # noqa: BLE001 - compared with the traced call's error
        return error


def _static(concrete) -> list:
    return [None if t.shape.rank is None else list(t.shape.as_list())
            for t in _flat(concrete.structured_outputs)]


def _check_static(case: Case, ours: list, theirs: list) -> None:
    """Never more specific than TF's static shape, never contradicting it; a None where TF
    knows a dim only where FOLDS says why."""
    key = (case.op_name, case.arg)
    assert len(ours) == len(theirs), f"{len(ours)} outputs traced, TF traced {len(theirs)}"
    for i, (mine, tfs) in enumerate(zip(ours, theirs)):
        if tfs is None:   # a rank tapeflow knows is fine (the runs check it), a dim is not
            assert mine is None or set(mine) == {None} or mine == [], \
                f"output {i}: dims known ({mine}) where TF's rank is unknown"
            continue
        if mine is None:
            assert key in FOLDS, f"output {i}: rank unknown where TF's static shape is {tfs}"
            continue
        assert len(mine) == len(tfs), f"output {i}: static shape {mine}, TF's {tfs}"
        for d, (m, t) in enumerate(zip(mine, tfs)):
            if t is None:
                assert m is None or key in SHARPER, \
                    f"output {i}: dim {d} is {m} in {mine}, unknown in TF's {tfs}"
            elif m is None:
                assert key in FOLDS, f"output {i}: dim {d} unknown in {mine}, TF's {tfs}"
            else:
                assert m == t, f"output {i}: static shape {mine} contradicts TF's {tfs}"


def _tf_outputs(run: dict) -> list:
    return [_array(o) for o in run["outputs"]]


def _check_accepted(case: Case) -> None:
    f = tf.function(case.call, input_signature=case.specs(case.tf["known_dims"]))
    if isinstance(_eager(case, 0), tf.errors.UnimplementedError):   # the op itself is missing
        with pytest.raises(tf.errors.UnimplementedError):
            f(*case.feed(0))
        return
    concrete = f.get_concrete_function()
    _check_static(case, _static(concrete), case.tf["static"])
    for run, tf_run in enumerate(case.tf["runs"]):
        what = f"run {run} ({case.arg}={case.tested.values[run].tolist()})"
        if "error" in tf_run and not tf_run["no_kernel"]:
            with pytest.raises(_TF_CLASSES.get(tf_run["error"], Exception)):
                [_as_numpy(t) for t in _flat(f(*case.feed(run)))]
            continue
        traced = [_as_numpy(t) for t in _flat(f(*case.feed(run)))]
        eager = _eager(case, run)
        if isinstance(eager, Exception):
            raise AssertionError(f"{what}: eager raised {eager!r}, the trace did not")
        _same_outputs(traced, eager, f"{what}: traced vs eager", case.random)
        if "outputs" in tf_run:
            _same_outputs(traced, _tf_outputs(tf_run), f"{what}: traced vs TF", case.random)
        for i, (t, dims) in enumerate(zip(traced, _static(concrete))):
            assert dims is None or (len(dims) == t.ndim and all(
                d is None or d == s for d, s in zip(dims, t.shape))), \
                f"{what}: output {i} of shape {t.shape} outside the static shape {dims}"


def _check_refused(case: Case) -> None:
    """TF refuses the argument as an unknown-value tensor: tapeflow refuses it too, or its
    trace computes what eager calls compute."""
    try:
        f = tf.function(case.call, input_signature=case.specs(False))
        traced = [[_as_numpy(t) for t in _flat(f(*case.feed(run)))] for run in (0, 1)]
    except Exception:  # noqa: BLE001 - any refusal will do, as TF refuses
        return
    for run in (0, 1):
        eager = _eager(case, run)
        assert not isinstance(eager, Exception), f"run {run}: eager raised {eager!r}"
        _same_outputs(traced[run], eager, f"run {run}: traced vs eager", case.random)
        tf_run = case.tf["runs"][run]
        if "outputs" in tf_run:
            _same_outputs(traced[run], _tf_outputs(tf_run), f"run {run}: traced vs TF eager",
                          case.random)


def _check_no_baked_example(case: Case) -> None:
    """Traced by a call (the trace then has the first call's values as examples), the op must
    not keep the first value: the second call computes what eager computes, or raises."""
    f = tf.function(case.call, input_signature=case.specs(bool(case.tf.get("known_dims"))))
    try:
        first = [_as_numpy(t) for t in _flat(f(*case.feed(0)))]
        second = [_as_numpy(t) for t in _flat(f(*case.feed(1)))]
    except Exception:  # noqa: BLE001 - a refusal is not a wrong number
        return
    for run, traced in ((0, first), (1, second)):
        eager = _eager(case, run)
        assert not isinstance(eager, Exception), f"run {run}: eager raised {eager!r}"
        _same_outputs(traced, eager, f"traced by a call, run {run} vs eager", case.random)


@pytest.mark.parametrize("record", list(_params()))
def test_op_takes_an_unknown_value_argument_as_tf_does(record):
    case = Case(record)
    if case.tf["accepted"]:
        _check_accepted(case)
    else:
        _check_refused(case)
    _check_no_baked_example(case)


# -- completeness ----------------------------------------------------------------------------------

def _public_ops() -> dict:
    """Every public op object -> its public names (registry namespaces and tf.image)."""
    import tapeflow.image
    for namespace in ("audio", "ragged", "signal", "sparse", "strings"):   # lazily loaded
        getattr(tf, namespace)
    names: dict = {}
    objects: dict = {}
    for namespace, table in exports._NAMESPACES.items():
        for name, obj in table.items():
            objects[id(obj)] = obj
            names.setdefault(id(obj), []).append(f"{namespace}.{name}" if namespace else name)
    for name in tapeflow.image.__all__:
        obj = getattr(tapeflow.image, name)
        objects[id(obj)] = obj
        names.setdefault(id(obj), []).append(f"image.{name}")
    return {objects[k]: v for k, v in names.items()}


def _tensor_able_arguments() -> dict:
    """(object, its names) -> its tensor-able parameter names, for every public function."""
    found = {}
    for obj, names in _public_ops().items():
        if inspect.isclass(obj) or not callable(obj):
            continue
        try:
            params = inspect.signature(obj).parameters
        except (TypeError, ValueError):
            continue
        tensor_able = sorted(p for p in params if p in TENSOR_ABLE)
        if tensor_able:
            found[obj] = (tuple(names), tensor_able)
    return found


def test_every_public_op_with_a_tensor_able_argument_has_a_case():
    covered = {(r["op"], r["arg"]) for r in RECORD["cases"]}
    missing = []
    for names, params in _tensor_able_arguments().values():
        for param in params:
            if not any((n, param) in covered or (n, param) in NOT_TENSOR_ABLE for n in names):
                missing.append(f"{names[0]}({param})")
    assert missing == [], "add a case to tools/record_unknown_value_args.py and record again"


def test_every_case_names_a_public_op_and_its_argument():
    for record in RECORD["cases"]:
        op = _lookup(record["op"])
        assert record["arg"] in inspect.signature(op).parameters, record


def test_the_tables_name_recorded_cases():
    covered = {(r["op"], r["arg"]) for r in RECORD["cases"]}
    for table in (FOLDS, SHARPER, XFAIL):
        assert {key[:2] for key in table} <= covered, {key[:2] for key in table} - covered


# -- gradients through ops that read an argument when the graph runs ---------------------------------
#
# name -> (op of (x, argument), x, the argument, x's spec, the argument's spec). The argument is
# traced as a value unknown while tracing; the gradient of a weighted sum through the traced
# function must equal the eager gradient.

_RNG = np.random.default_rng(7)
_X = _RNG.standard_normal((2, 6)).astype(np.float32)
_SPECTRUM = (_RNG.standard_normal((2, 5)) + 1j * _RNG.standard_normal((2, 5))).astype(np.complex64)
_IMAGE = _RNG.standard_normal((1, 4, 4, 1)).astype(np.float32)
_FILTER = _RNG.standard_normal((3, 3, 1, 1)).astype(np.float32)
_I32 = tf.int32


def _spec(*dims, dtype=tf.float32):
    return tf.TensorSpec(list(dims), dtype)


GRADIENT_CASES = {
    "rfft-crops": (lambda x, n: tf.signal.rfft(x, n), _X, [4], _spec(None, None), _spec(1, dtype=_I32)),
    "rfft-pads": (lambda x, n: tf.signal.rfft(x, n), _X, [9], _spec(None, None), _spec(1, dtype=_I32)),
    "irfft": (lambda x, n: tf.signal.irfft(x, n), _SPECTRUM, [8],
              _spec(None, None, dtype=tf.complex64), _spec(1, dtype=_I32)),
    "irfft2d": (lambda x, n: tf.signal.irfft2d(x, n), _SPECTRUM, [3, 6],
                _spec(None, None, dtype=tf.complex64), _spec(2, dtype=_I32)),
    "space_to_batch_nd": (lambda x, p: tf.space_to_batch_nd(x, [2, 2], p), _IMAGE,
                          [[0, 2], [2, 0]], _spec(None, None, None, 1), _spec(2, 2, dtype=_I32)),
    "batch_to_space": (lambda x, c: tf.batch_to_space(x, [2, 1], c),
                       _RNG.standard_normal((2, 3, 3, 1)).astype(np.float32), [[1, 0], [0, 1]],
                       _spec(None, None, None, 1), _spec(2, 2, dtype=_I32)),
    "conv1d_transpose": (lambda x, o: tf.nn.conv1d_transpose(x, _FILTER[0], o, 2),
                         _RNG.standard_normal((1, 4, 1)).astype(np.float32), [1, 7, 1],
                         _spec(None, None, 1), _spec(3, dtype=_I32)),
    "atrous_conv2d_transpose": (lambda x, o: tf.nn.atrous_conv2d_transpose(x, _FILTER, o, 2,
                                                                           "SAME"),
                                _IMAGE, [1, 4, 4, 1], _spec(None, None, None, 1),
                                _spec(4, dtype=_I32)),
    "frame": (lambda x, n: tf.signal.frame(x, n, 2, pad_end=True), _X, 3, _spec(None, None),
              _spec(dtype=_I32)),
    "overlap_and_add": (lambda x, s: tf.signal.overlap_and_add(x, s),
                        _RNG.standard_normal((3, 4)).astype(np.float32), 3, _spec(None, None),
                        _spec(dtype=_I32)),
    "stft": (lambda x, n: tf.signal.stft(x, n, 2, fft_length=8), _X, 4, _spec(None, None),
             _spec(dtype=_I32)),
    "reverse": (lambda x, a: tf.reverse(x, a), _X, [1], _spec(None, None), _spec(1, dtype=_I32)),
    # The N-D transforms' adjoints (TF 2.21 has no CPU kernel for them: eager tapeflow, whose
    # per-axis rules the registry tests check, is the reference).
    "fftnd": (lambda x, n: tf.signal.fftnd(x, n, axes=[0, 1]), _SPECTRUM, [3, 7],
              _spec(None, None, dtype=tf.complex64), _spec(2, dtype=_I32)),
    "ifftnd-ortho": (lambda x, a: tf.signal.ifftnd(x, [4], axes=a, norm="ortho"), _SPECTRUM,
                     [0], _spec(None, None, dtype=tf.complex64), _spec(1, dtype=_I32)),
    "rfftnd": (lambda x, n: tf.signal.rfftnd(x, n, axes=[0, 1]), _X, [3, 4], _spec(None, None),
               _spec(2, dtype=_I32)),
    "rfftnd-forward": (lambda x, a: tf.signal.rfftnd(x, [8], axes=a, norm="forward"), _X, [1],
                       _spec(None, None), _spec(1, dtype=_I32)),
    "irfftnd": (lambda x, n: tf.signal.irfftnd(x, n, axes=[0, 1]), _SPECTRUM, [3, 7],
                _spec(None, None, dtype=tf.complex64), _spec(2, dtype=_I32)),
    "irfftnd-ortho": (lambda x, a: tf.signal.irfftnd(x, [4, 6], axes=a, norm="ortho"),
                      _SPECTRUM, [0, 1], _spec(None, None, dtype=tf.complex64),
                      _spec(2, dtype=_I32)),
}


def _weighted_gradient(f, x, arg):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x, tf.constant(arg, tf.int32))
        parts = [tf.math.real(y), tf.math.imag(y)] if y.dtype.is_complex else [y]
        loss = tf.add_n([tf.reduce_sum(p * tf.sin(3.0 * tf.cast(tf.reshape(
            tf.range(tf.size(p)), tf.shape(p)), p.dtype))) for p in parts])
    return np.asarray(tape.gradient(loss, x))


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_gradient_through_a_run_time_argument_equals_eager(name):
    f, x, arg, x_spec, arg_spec = GRADIENT_CASES[name]
    traced = tf.function(f, input_signature=[x_spec, arg_spec])
    np.testing.assert_allclose(_weighted_gradient(traced, x, arg), _weighted_gradient(f, x, arg),
                               rtol=1e-5, atol=1e-5)


# -- the argument as a tf.Variable ---------------------------------------------------------------

def _accepted_params():
    return [p for p in _params() if p.values[0]["tf"]["accepted"]]


@pytest.mark.parametrize("record", _accepted_params())
def test_op_reads_a_variable_argument_when_the_graph_runs(record):
    """A tf.Variable given as the argument is read when the graph runs, as TF reads it: an
    assignment between calls changes the result (one trace), as the eager op computes it."""
    case = Case(record)
    slot = next(i for i, x in enumerate(case.inputs) if x is case.tested)
    variable = tf.Variable(case.tested.values[0], dtype=case.tested.dtype)

    def call(*others):
        return case.call(*others[:slot], variable, *others[slot:])

    specs = case.specs(case.tf["known_dims"])
    f = tf.function(call, input_signature=specs[:slot] + specs[slot + 1:])
    if isinstance(_eager(case, 0), tf.errors.UnimplementedError):   # the op itself is missing
        with pytest.raises(tf.errors.UnimplementedError):
            f(*case.feed(0)[:slot], *case.feed(0)[slot + 1:])
        return
    for run, tf_run in enumerate(case.tf["runs"]):
        variable.assign(case.tested.values[run])
        feed = case.feed(run)
        del feed[slot]
        if "error" in tf_run and not tf_run["no_kernel"]:
            with pytest.raises(_TF_CLASSES.get(tf_run["error"], Exception)):
                [_as_numpy(t) for t in _flat(f(*feed))]
            continue
        traced = [_as_numpy(t) for t in _flat(f(*feed))]
        _same_outputs(traced, _eager(case, run), f"run {run}: traced vs eager", case.random)
        if "outputs" in tf_run:
            _same_outputs(traced, _tf_outputs(tf_run), f"run {run}: traced vs TF", case.random)
    assert f.experimental_get_tracing_count() == 1
