"""Records how TensorFlow takes each tensor-able argument of tapeflow's public ops as a tensor
whose value is known only when a traced graph runs (issue 33).

Run once with the reference TensorFlow (never a tapeflow dependency):

    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfenv/bin/python tools/record_unknown_value_args.py

CASES below lists call cases: an op's public name (as tapeflow's registry and tf.image's
`__all__` name it), its arguments with concrete values, and one or more arguments marked
`V(first, second)`. Each marked argument makes one case: the op is traced in a tf.function whose
input_signature holds a TensorSpec for that argument (its value unknown while tracing) and for
every other tensor argument (with None dims where TF traces it so, known dims otherwise; the
other marked arguments take their first value as Python values). The fixture
tests/function/fixtures/unknown_value_args.json records, per case, the call, whether TF accepts
the argument so (or TF's error class), TF's static output shapes and the outputs of runs with
the two values (TF's eager outputs where TF refuses the trace).
tests/function/test_unknown_value_registry.py runs the same cases on tapeflow.
"""

from __future__ import annotations

import base64
import inspect
import io
import json
import os
import wave

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "function", "fixtures", "unknown_value_args.json")


# -- the call cases --------------------------------------------------------------------------------

class V:
    """An argument under test: the two values it is run with, as a tensor of `dtype`."""

    def __init__(self, first, second, dtype=None):
        self.values = (first, second)
        self.dtype = dtype or _default_dtype(first)


class SP:
    """A SparseTensor built inside the traced function from constants."""

    def __init__(self, indices, values, dense_shape, dtype="float32"):
        self.parts = (indices, values, dense_shape)
        self.dtype = dtype


class B:
    """A bytes constant (a WAV file's contents) built inside the traced function."""

    def __init__(self, data: bytes):
        self.data = data


def _default_dtype(value) -> str:
    flat = np.asarray(value)
    if flat.dtype.kind == "b":
        return "bool"
    return "float32" if flat.dtype.kind == "f" else "int32"


def f32(*shape, offset=0.0):
    """A float32 array of `shape` whose items are all different."""
    n = int(np.prod(shape)) if shape else 1
    return (np.sin(np.arange(n, dtype=np.float64) * 1.3 + offset) * 2.0).astype(
        np.float32).reshape(shape)


def c64(*shape):
    return (f32(*shape) + 1j * f32(*shape, offset=0.7)).astype(np.complex64)


def i32(values):
    return np.asarray(values, np.int32)


def _wav_bytes() -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(np.arange(-4, 4, dtype=np.int16).tobytes())
    return buffer.getvalue()


X23, X34, X33, X44 = f32(2, 3), f32(3, 4), f32(3, 3), f32(4, 4)
X8, X46 = f32(8), f32(4, 6)
IMG = np.abs(f32(1, 6, 8, 1))
IMG3 = np.abs(f32(6, 8, 3)) / 2.0
SPARSE = SP([[0, 0], [1, 2], [2, 3]], [1.0, 2.0, 3.0], [3, 4])
SPARSE_INT = SP([[0, 0], [1, 2], [2, 3]], [1, 4, 2], [3, 4], dtype="int64")
BOXES = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11]], np.float32)
SCORES = np.array([0.9, 0.75, 0.6, 0.95], np.float32)
SEED = i32([1, 2])
LU, PERM = np.array([[4, 3, 1], [0.5, 1.5, 2], [0.25, 0.5, 3]], np.float32), i32([0, 1, 2])
CONV_IN, CONV_F = f32(1, 5, 5, 1), f32(3, 3, 1, 1)
SHAPE_A, SHAPE_B = [2, 3], [3, 1]
STRIDES = V([1, 1, 1, 1], [1, 2, 2, 1])

RANDOM = "random"       # an op whose values come from a stateful stream: shapes only compared


def C(op, *args, flags=(), **kwargs):
    return (op, args, kwargs, tuple(flags))


CASES = [
    C("argmax", X34, axis=V(0, 1)),
    C("argmin", X34, axis=V(0, 1)),
    C("argsort", X34, axis=V(0, 1)),
    C("audio.decode_wav", B(_wav_bytes()), desired_samples=V(4, 6)),
    C("batch_to_space", f32(4, 2, 2, 1), block_shape=V([2, 2], [2, 1]), crops=[[0, 0], [0, 0]]),
    C("batch_to_space", f32(4, 2, 2, 1), block_shape=[2, 2],
      crops=V([[0, 0], [0, 0]], [[0, 1], [1, 0]])),
    C("boolean_mask", X33, np.array([True, False, True]), axis=V(0, 1)),
    C("broadcast_to", f32(1, 3), shape=V([2, 3], [4, 3])),
    C("clip_by_norm", X34, 1.0, axes=V([0], [1])),
    C("concat", [X23, X23], axis=V(0, 1)),
    C("constant", 1.5, shape=V(SHAPE_A, SHAPE_B)),
    C("cumsum", X34, axis=V(0, 1)),
    C("math.cumprod", X34, axis=V(0, 1)),
    C("math.cumulative_logsumexp", X34, axis=V(0, 1)),
    C("ensure_shape", X23, shape=V([2, 3], [2, -1])),
    C("expand_dims", X23, axis=V(0, 2)),
    C("eye", num_rows=V(2, 3)),
    C("eye", num_rows=2, num_columns=V(3, 4)),
    C("eye", num_rows=2, batch_shape=V([2], [3])),
    C("fftnd", c64(2, 4), fft_length=V([4], [6]), axes=[-1]),
    C("fftnd", c64(2, 4), fft_length=[4], axes=V([-1], [0])),
    C("ifftnd", c64(2, 4), fft_length=V([4], [6]), axes=[-1]),
    C("ifftnd", c64(2, 4), fft_length=[4], axes=V([-1], [0])),
    C("rfftnd", X46, fft_length=V([6], [4]), axes=[-1]),
    C("rfftnd", X46, fft_length=[4], axes=V([-1], [0])),
    C("irfftnd", c64(4, 5), fft_length=V([8], [9]), axes=[-1]),
    C("irfftnd", c64(4, 5), fft_length=[4], axes=V([-1], [0])),
    C("signal.fftnd", c64(2, 4), fft_length=V([4], [6]), axes=[-1]),
    C("signal.fftnd", c64(2, 4), fft_length=[4], axes=V([-1], [0])),
    C("signal.ifftnd", c64(2, 4), fft_length=V([4], [6]), axes=[-1]),
    C("signal.ifftnd", c64(2, 4), fft_length=[4], axes=V([-1], [0])),
    C("signal.rfftnd", X46, fft_length=V([6], [4]), axes=[-1]),
    C("signal.rfftnd", X46, fft_length=[4], axes=V([-1], [0])),
    C("signal.irfftnd", c64(4, 5), fft_length=V([8], [9]), axes=[-1]),
    C("signal.irfftnd", c64(4, 5), fft_length=[8], axes=V([-1], [0])),
    C("signal.rfft", X46, fft_length=V([6], [4])),
    C("signal.rfft2d", f32(2, 4, 6), fft_length=V([4, 6], [3, 4])),
    C("signal.rfft3d", f32(2, 4, 6), fft_length=V([2, 4, 6], [3, 3, 4])),
    C("signal.irfft", c64(4, 5), fft_length=V([8], [9])),
    C("signal.irfft2d", c64(2, 3, 5), fft_length=V([3, 8], [4, 9])),
    C("signal.irfft3d", c64(2, 3, 5), fft_length=V([2, 3, 8], [3, 4, 9])),
    C("fill", dims=V(SHAPE_A, SHAPE_B), value=1.5),
    C("gather", X34, i32([0, 2]), axis=V(0, 1)),
    C("gather", X34, i32([[0, 1], [1, 2], [2, 3]]), axis=1, batch_dims=V(0, 1)),
    C("gather_nd", X34, i32([[0], [1], [2]]), batch_dims=V(0, 1)),
    C("histogram_fixed_width", X8, [-2.0, 2.0], nbins=V(4, 5)),
    C("histogram_fixed_width_bins", X8, [-2.0, 2.0], nbins=V(4, 5)),
    C("image.adjust_brightness", IMG3, delta=V(0.1, -0.2)),
    C("image.adjust_hue", IMG3, delta=V(0.1, -0.2)),
    C("image.adjust_jpeg_quality", IMG3, jpeg_quality=V(50, 90)),
    C("image.central_crop", IMG3, central_fraction=V(0.5, 0.75)),
    C("image.combined_non_max_suppression", BOXES.reshape(1, 4, 1, 4),
      np.stack([SCORES, SCORES[::-1]], -1).reshape(1, 4, 2),
      max_output_size_per_class=V(2, 3), max_total_size=4),
    C("image.combined_non_max_suppression", BOXES.reshape(1, 4, 1, 4),
      np.stack([SCORES, SCORES[::-1]], -1).reshape(1, 4, 2),
      max_output_size_per_class=2, max_total_size=V(3, 4)),
    C("image.crop_and_resize", IMG, np.array([[0, 0, 1, 1]], np.float32), i32([0]),
      crop_size=V([3, 3], [4, 2])),
    C("image.crop_to_bounding_box", IMG3, offset_height=V(1, 2), offset_width=1,
      target_height=3, target_width=4),
    C("image.crop_to_bounding_box", IMG3, offset_height=1, offset_width=V(1, 2),
      target_height=3, target_width=4),
    C("image.crop_to_bounding_box", IMG3, offset_height=1, offset_width=1,
      target_height=V(2, 3), target_width=4),
    C("image.crop_to_bounding_box", IMG3, offset_height=1, offset_width=1,
      target_height=3, target_width=V(3, 4)),
    C("image.pad_to_bounding_box", IMG3, offset_height=V(0, 1), offset_width=1,
      target_height=8, target_width=9),
    C("image.pad_to_bounding_box", IMG3, offset_height=1, offset_width=V(0, 1),
      target_height=8, target_width=9),
    C("image.pad_to_bounding_box", IMG3, offset_height=1, offset_width=1,
      target_height=V(8, 9), target_width=9),
    C("image.pad_to_bounding_box", IMG3, offset_height=1, offset_width=1,
      target_height=8, target_width=V(9, 10)),
    C("image.extract_glimpse", IMG, size=V([2, 3], [3, 2]),
      offsets=np.zeros((1, 2), np.float32)),
    C("image.extract_patches", IMG, sizes=[1, 2, 2, 1], strides=STRIDES, rates=[1, 1, 1, 1],
      padding="VALID"),
    C("image.non_max_suppression", BOXES, SCORES, max_output_size=V(2, 3)),
    C("image.non_max_suppression_overlaps", np.abs(f32(4, 4)) / 2.0, SCORES,
      max_output_size=V(2, 3)),
    C("image.non_max_suppression_padded", BOXES, SCORES, max_output_size=V(2, 3),
      pad_to_max_output_size=True),
    C("image.non_max_suppression_with_scores", BOXES, SCORES, max_output_size=V(2, 3)),
    C("image.random_crop", IMG3, size=V([2, 3, 3], [4, 2, 3]), seed=3, flags=[RANDOM]),
    C("image.stateless_random_crop", IMG3, size=V([2, 3, 3], [4, 2, 3]), seed=SEED),
    C("image.resize", IMG, size=V([3, 4], [5, 2])),
    C("image.resize_with_crop_or_pad", IMG3, target_height=V(4, 8), target_width=6),
    C("image.resize_with_crop_or_pad", IMG3, target_height=4, target_width=V(6, 10)),
    C("image.resize_with_pad", IMG3, target_height=V(4, 8), target_width=6),
    C("image.resize_with_pad", IMG3, target_height=4, target_width=V(6, 10)),
    C("image.rot90", IMG3, k=V(1, 2)),
    C("linalg.band_part", X44, num_lower=V(0, 1), num_upper=2),
    C("linalg.band_part", X44, num_lower=1, num_upper=V(0, 2)),
    C("linalg.diag", f32(3), k=V(0, 1)),
    C("linalg.diag", f32(3), num_rows=V(3, 4)),
    C("linalg.diag", f32(3), num_cols=V(3, 5)),
    C("linalg.diag_part", X34, k=V(0, 1)),
    C("linalg.set_diag", X34, f32(3), k=V(0, 1)),
    C("linalg.lu_matrix_inverse", LU, perm=V([0, 1, 2], [2, 0, 1])),
    C("linalg.lu_reconstruct", LU, perm=V([0, 1, 2], [2, 0, 1])),
    C("linalg.lu_solve", LU, perm=V([0, 1, 2], [2, 0, 1]), rhs=f32(3, 2)),
    C("linalg.normalize", X34, axis=V(0, 1)),
    C("linspace", V(0.0, 1.0), 5.0, 4),
    C("linspace", 0.0, V(1.0, 5.0), 4),
    C("linspace", 0.0, 5.0, V(3, 5)),
    C("linspace", np.array([0.0, 1.0], np.float32), np.array([1.0, 3.0], np.float32), 3,
      axis=V(0, 1)),
    C("math.accumulate_n", [X23, X23], shape=V([2, 3], [2, 3])),
    C("math.bincount", i32([1, 2, 2, 5]), minlength=V(3, 8)),
    C("math.bincount", i32([1, 2, 2, 5]), maxlength=V(4, 7)),
    C("math.bincount", i32([[1, 2], [2, 0]]), axis=V(-1, 0)),
    C("math.confusion_matrix", i32([0, 1, 2]), i32([0, 2, 2]), num_classes=V(3, 4)),
    C("math.count_nonzero", X34, axis=V(0, 1)),
    C("math.in_top_k", i32([0, 1, 2]), X34, k=V(1, 2)),
    C("math.l2_normalize", X34, axis=V(0, 1)),
    C("math.l2_normalize", X34, dim=V(0, 1)),
    C("math.log_softmax", X34, axis=V(0, 1)),
    C("math.softmax", X34, axis=V(0, 1)),
    C("math.reduce_euclidean_norm", X34, axis=V(0, 1)),
    C("math.top_k", X34, k=V(1, 3)),
    *[C(f"math.unsorted_segment_{kind}", f32(4, 3), i32([0, 1, 0, 2]), num_segments=V(3, 5))
      for kind in ("max", "mean", "min", "prod", "sqrt_n", "sum")],
    C("nn.atrous_conv2d_transpose", f32(1, 4, 4, 1), CONV_F, output_shape=V(
        [1, 4, 4, 1], [1, 4, 4, 1]), rate=2, padding="SAME"),
    C("nn.conv1d_transpose", f32(1, 4, 1), f32(3, 1, 1), output_shape=V([1, 8, 1], [1, 7, 1]),
      strides=2),
    C("nn.conv1d_transpose", f32(1, 4, 1), f32(3, 1, 1), output_shape=[1, 8, 1],
      strides=V(2, 1)),
    C("nn.conv2d_transpose", f32(1, 4, 4, 1), CONV_F,
      output_shape=V([1, 8, 8, 1], [1, 7, 7, 1]), strides=2),
    C("nn.conv2d_transpose", f32(1, 4, 4, 1), CONV_F, output_shape=[1, 8, 8, 1],
      strides=V(2, 1)),
    C("nn.conv3d_transpose", f32(1, 2, 2, 2, 1), f32(3, 3, 3, 1, 1),
      output_shape=V([1, 4, 4, 4, 1], [1, 3, 3, 3, 1]), strides=2),
    C("nn.conv3d_transpose", f32(1, 2, 2, 2, 1), f32(3, 3, 3, 1, 1),
      output_shape=[1, 4, 4, 4, 1], strides=V(2, 1)),
    C("nn.conv_transpose", f32(1, 4, 4, 1), CONV_F,
      output_shape=V([1, 8, 8, 1], [1, 7, 7, 1]), strides=2),
    C("nn.conv_transpose", f32(1, 4, 4, 1), CONV_F, output_shape=[1, 8, 8, 1],
      strides=V(2, 1)),
    C("nn.avg_pool", CONV_IN, 2, strides=V(1, 2), padding="VALID"),
    C("nn.avg_pool1d", f32(1, 5, 1), 2, strides=V(1, 2), padding="VALID"),
    C("nn.avg_pool2d", CONV_IN, 2, strides=V(1, 2), padding="VALID"),
    C("nn.avg_pool3d", f32(1, 4, 4, 4, 1), 2, strides=V(1, 2), padding="VALID"),
    C("nn.max_pool", CONV_IN, 2, strides=V(1, 2), padding="VALID"),
    C("nn.max_pool1d", f32(1, 5, 1), 2, strides=V(1, 2), padding="VALID"),
    C("nn.max_pool2d", CONV_IN, 2, strides=V(1, 2), padding="VALID"),
    C("nn.max_pool3d", f32(1, 4, 4, 4, 1), 2, strides=V(1, 2), padding="VALID"),
    C("nn.max_pool_with_argmax", CONV_IN, 2, strides=V(1, 2), padding="VALID"),
    C("nn.pool", CONV_IN, [2, 2], "MAX", strides=V([1, 1], [2, 2]), padding="VALID"),
    C("nn.conv2d", CONV_IN, CONV_F, strides=V(1, 2), padding="VALID"),
    C("nn.conv3d", f32(1, 4, 4, 4, 1), f32(2, 2, 2, 1, 1), strides=V([1, 1, 1, 1, 1],
                                                                     [1, 2, 2, 2, 1]),
      padding="VALID"),
    C("nn.convolution", CONV_IN, CONV_F, strides=V([1, 1], [2, 2]), padding="VALID"),
    C("nn.depthwise_conv2d", CONV_IN, CONV_F, strides=STRIDES, padding="VALID"),
    C("nn.separable_conv2d", CONV_IN, CONV_F, f32(1, 1, 1, 2), strides=STRIDES,
      padding="VALID"),
    C("nn.dilation2d", CONV_IN, f32(2, 2, 1), strides=STRIDES, padding="VALID",
      data_format="NHWC", dilations=[1, 1, 1, 1]),
    C("nn.erosion2d", CONV_IN, f32(2, 2, 1), strides=STRIDES, padding="VALID",
      data_format="NHWC", dilations=[1, 1, 1, 1]),
    C("nn.crelu", X34, axis=V(-1, 0)),
    C("nn.depth_to_space", f32(1, 2, 2, 16), block_size=V(2, 4)),
    C("nn.space_to_depth", f32(1, 4, 4, 1), block_size=V(2, 4)),
    C("nn.dropout", X34, 0.5, noise_shape=V([3, 1], [1, 4]), seed=1, flags=[RANDOM]),
    C("nn.experimental.stateless_dropout", X34, 0.5, SEED, noise_shape=V([3, 1], [1, 4])),
    C("nn.moments", X34, axes=V([0], [1])),
    C("nn.moments", X34, axes=V([0], [1]), keepdims=True),
    C("nn.moments", X34, axes=[0], shift=V(0.5, 1.0)),
    C("nn.normalize_moments", 3.0, f32(4), np.abs(f32(4)) + 3.0, shift=V(0.5, 1.0)),
    C("nn.sufficient_statistics", X34, axes=V([0], [1])),
    C("nn.sufficient_statistics", X34, axes=[0], shift=V(0.5, 1.0)),
    C("nn.weighted_moments", X34, axes=V([0], [1]), frequency_weights=np.abs(X34) + 0.5),
    C("nn.softmax_cross_entropy_with_logits", np.abs(X34), X34, axis=V(-1, 0)),
    C("norm", X34, axis=V(0, 1)),
    C("one_hot", i32([0, 2, 1]), depth=V(3, 5)),
    C("one_hot", i32([0, 2, 1]), depth=3, axis=V(-1, 0)),
    C("ones", shape=V(SHAPE_A, SHAPE_B)),
    C("zeros", shape=V(SHAPE_A, SHAPE_B)),
    C("pad", X23, paddings=V([[1, 0], [0, 2]], [[0, 1], [2, 1]])),
    C("ragged.segment_ids_to_row_splits", i32([0, 0, 1, 2]), num_segments=V(3, 5)),
    C("ragged.stack", [X23, X23], axis=V(0, 1)),
    C("random.categorical", X34, num_samples=V(2, 5), seed=3, flags=[RANDOM]),
    C("random.experimental.index_shuffle", 3, SEED, max_index=V(9, 19)),
    C("random.gamma", V([2, 4], [3, 2]), 1.5, seed=3, flags=[RANDOM]),
    C("random.poisson", V([2, 4], [3, 2]), 1.5, seed=3, flags=[RANDOM]),
    C("random.normal", V([2, 4], [3, 2]), seed=3, flags=[RANDOM]),
    C("random.truncated_normal", V([2, 4], [3, 2]), seed=3, flags=[RANDOM]),
    C("random.uniform", V([2, 4], [3, 2]), seed=3, flags=[RANDOM]),
    C("random.uniform", [3, 2], minval=V(0.0, 1.0), maxval=5.0, seed=3, flags=[RANDOM]),
    C("random.uniform", [3, 2], maxval=V(2.0, 5.0), seed=3, flags=[RANDOM]),
    C("random.split", SEED, num=V(2, 3)),
    C("random.stateless_binomial", V([2, 4], [3, 2]), SEED, 10.0, 0.5),
    C("random.stateless_categorical", X34, num_samples=V(2, 5), seed=SEED),
    C("random.stateless_gamma", V([2, 4], [3, 2]), SEED, 1.5),
    C("random.stateless_poisson", V([2, 4], [3, 2]), SEED, 1.5),
    C("random.stateless_normal", V([2, 4], [3, 2]), SEED),
    C("random.stateless_truncated_normal", V([2, 4], [3, 2]), SEED),
    C("random.stateless_uniform", V([2, 4], [3, 2]), SEED),
    C("random.stateless_uniform", [3, 2], SEED, minval=V(0.0, 1.0), maxval=5.0),
    C("random.stateless_uniform", [3, 2], SEED, maxval=V(2.0, 5.0)),
    C("random.stateless_uniform", [3, 2], SEED, minval=0, maxval=V(4, 9), dtype=tf.int32),
    C("range", V(0, 2), 7),
    C("range", 1, V(5, 9)),
    C("range", 1, 9, V(1, 2)),
    *[C(f"reduce_{kind}", X34, axis=V(0, 1))
      for kind in ("logsumexp", "max", "mean", "min", "prod", "sum")],
    C("math.reduce_std", X34, axis=V(0, 1)),
    C("math.reduce_variance", X34, axis=V(0, 1)),
    C("reduce_all", X34 > 0, axis=V(0, 1)),
    C("reduce_any", X34 > 0, axis=V(0, 1)),
    C("repeat", X23, repeats=V(2, 3), axis=0),
    C("repeat", X23, repeats=2, axis=V(0, 1)),
    C("required_space_to_batch_paddings", [4, 5], block_shape=V([2, 2], [2, 3])),
    C("reshape", X23, shape=V([3, 2], [6, 1])),
    C("reverse", X34, axis=V([0], [1])),
    C("roll", X34, shift=V(1, 2), axis=0),
    C("roll", X34, shift=1, axis=V(0, 1)),
    C("scatter_nd", i32([[0], [2]]), f32(2, 3), shape=V([3, 3], [4, 3])),
    C("sequence_mask", i32([1, 3, 2]), maxlen=V(3, 5)),
    C("signal.dct", f32(2, 8), axis=V(-1, 1)),
    C("signal.idct", f32(2, 8), axis=V(-1, 1)),
    C("signal.fftshift", X34, axes=V(0, 1)),
    C("signal.ifftshift", X34, axes=V(0, 1)),
    C("signal.frame", X46, frame_length=V(3, 4), frame_step=2),
    C("signal.frame", X46, frame_length=3, frame_step=V(2, 3)),
    C("signal.frame", X46, frame_length=3, frame_step=2, axis=V(-1, 0)),
    *[C(f"signal.{kind}_window", window_length=V(5, 8))
      for kind in ("hamming", "hann", "kaiser", "kaiser_bessel_derived", "vorbis")],
    C("signal.inverse_stft", c64(3, 5), frame_length=V(8, 6), frame_step=4, fft_length=8),
    C("signal.inverse_stft", c64(3, 5), frame_length=8, frame_step=V(4, 2), fft_length=8),
    C("signal.inverse_stft", c64(3, 5), frame_length=8, frame_step=4, fft_length=V(8, 9)),
    C("signal.linear_to_mel_weight_matrix", num_mel_bins=V(4, 6), num_spectrogram_bins=9,
      sample_rate=8000),
    C("signal.linear_to_mel_weight_matrix", num_mel_bins=4, num_spectrogram_bins=V(9, 17),
      sample_rate=8000),
    C("signal.linear_to_mel_weight_matrix", num_mel_bins=4, num_spectrogram_bins=9,
      sample_rate=V(8000, 16000)),
    C("signal.linear_to_mel_weight_matrix", num_mel_bins=4, num_spectrogram_bins=9,
      sample_rate=8000, lower_edge_hertz=V(125.0, 300.0)),
    C("signal.linear_to_mel_weight_matrix", num_mel_bins=4, num_spectrogram_bins=9,
      sample_rate=8000, upper_edge_hertz=V(3800.0, 2000.0)),
    C("signal.dct", f32(2, 8), n=V(8, 6)),
    C("signal.idct", f32(2, 8), n=V(8, 6)),
    C("image.random_jpeg_quality", IMG3, min_jpeg_quality=V(40, 50), max_jpeg_quality=90,
      seed=3, flags=[RANDOM]),
    C("image.random_jpeg_quality", IMG3, min_jpeg_quality=40, max_jpeg_quality=V(90, 95),
      seed=3, flags=[RANDOM]),
    C("image.stateless_random_jpeg_quality", IMG3, min_jpeg_quality=V(40, 50),
      max_jpeg_quality=90, seed=SEED),
    C("image.stateless_random_jpeg_quality", IMG3, min_jpeg_quality=40,
      max_jpeg_quality=V(90, 95), seed=SEED),
    C("signal.mdct", f32(2, 16), frame_length=V(8, 4)),
    C("audio.encode_wav", f32(8, 1) / 4.0, sample_rate=V(8000, 16000)),
    C("signal.overlap_and_add", f32(3, 4), frame_step=V(2, 3)),
    C("signal.stft", f32(2, 16), frame_length=V(8, 6), frame_step=4, fft_length=8),
    C("signal.stft", f32(2, 16), frame_length=8, frame_step=V(4, 2), fft_length=8),
    C("signal.stft", f32(2, 16), frame_length=8, frame_step=4, fft_length=V(8, 16)),
    C("slice", X34, begin=V([0, 1], [1, 0]), size=[2, 2]),
    C("slice", X34, begin=[0, 0], size=V([2, 2], [3, 1])),
    C("sort", X34, axis=V(0, 1)),
    C("space_to_batch", f32(1, 4, 4, 1), block_shape=V([2, 2], [2, 1]),
      paddings=[[0, 0], [0, 0]]),
    C("space_to_batch", f32(1, 4, 4, 1), block_shape=[2, 2],
      paddings=V([[0, 0], [0, 0]], [[0, 2], [2, 0]])),
    C("space_to_batch_nd", f32(1, 4, 4, 1), block_shape=V([2, 2], [2, 1]),
      paddings=[[0, 0], [0, 0]]),
    C("space_to_batch_nd", f32(1, 4, 4, 1), block_shape=[2, 2],
      paddings=V([[0, 0], [0, 0]], [[0, 2], [2, 0]])),
    C("sparse.bincount", i32([1, 2, 2, 5]), minlength=V(3, 8)),
    C("sparse.bincount", i32([1, 2, 2, 5]), maxlength=V(4, 7)),
    C("sparse.bincount", i32([[1, 2], [2, 0]]), axis=V(-1, 0)),
    C("sparse.concat", V(0, 1), [SPARSE, SPARSE]),
    C("sparse.expand_dims", SPARSE, axis=V(0, 1)),
    C("sparse.eye", num_rows=V(2, 3)),
    C("sparse.eye", num_rows=2, num_columns=V(3, 4)),
    C("sparse.reduce_max", SPARSE, axis=V(0, 1)),
    C("sparse.reduce_sum", SPARSE, axis=V(0, 1)),
    C("sparse.reset_shape", SPARSE, new_shape=V([3, 4], [4, 5])),
    C("sparse.reshape", SPARSE, shape=V([4, 3], [2, 6])),
    *[C(f"sparse.segment_{kind}", f32(4, 3), i32([0, 1, 2]), i32([0, 0, 1]),
        num_segments=V(2, 4)) for kind in ("mean", "sqrt_n", "sum")],
    C("sparse.slice", SPARSE, start=V([0, 0], [1, 1], "int64"), size=[2, 3]),
    C("sparse.slice", SPARSE, start=[0, 0], size=V([2, 3], [3, 2], "int64")),
    C("sparse.split", sp_input=SPARSE, num_split=V(2, 3), axis=0),
    C("sparse.split", sp_input=SPARSE, num_split=2, axis=V(0, 1, "int64")),
    C("sparse.to_indicator", SPARSE_INT, vocab_size=V(5, 8)),
    C("sparse.transpose", SPARSE, perm=V([1, 0], [0, 1])),
    C("split", X46, num_or_size_splits=V([1, 3], [2, 2])),
    C("split", X46, num_or_size_splits=2, axis=V(0, 1)),
    C("split", X46, num_or_size_splits=[1, 3], num=V(2, 2)),
    C("squeeze", f32(1, 3, 1), axis=V([0], [2])),
    C("stack", [X23, X23], axis=V(0, 1)),
    C("strided_slice", X34, V([0, 1], [1, 0]), [3, 4], [1, 1]),
    C("strided_slice", X34, [0, 0], V([2, 3], [3, 4]), [1, 1]),
    C("strided_slice", X34, [0, 0], [3, 4], V([1, 1], [2, 2])),
    C("strings.reduce_join", np.array([[b"a", b"b", b"c"], [b"d", b"e", b"f"]]),
      axis=V(0, 1)),
    C("strings.unsorted_segment_join", np.array([b"a", b"b", b"c"]), i32([0, 1, 0]),
      num_segments=V(2, 3)),
    C("tensordot", X33, f32(3, 3, offset=1.0), axes=V(1, 2)),
    C("tensordot", X33, f32(3, 3, offset=1.0), axes=V([[1], [0]], [[0], [1]])),
    C("tile", X23, multiples=V([1, 2], [3, 1])),
    C("transpose", f32(2, 3, 4), perm=V([1, 0, 2], [2, 1, 0])),
    C("unravel_index", i32([1, 5, 7]), dims=V([2, 4], [3, 3])),
    C("unstack", X23, axis=V(0, 1)),
    C("unstack", X23, num=V(2, 2)),
]


# -- running a case in TensorFlow --------------------------------------------------------------

def _lookup(name: str):
    obj = tf
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _leaves(value, found):
    """Appends the tensor inputs of a call (arrays, V's) to `found`, in call order."""
    if isinstance(value, (np.ndarray, V)):
        found.append(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _leaves(item, found)


def _rebuild(value, feed, tested):
    """The call's value with its arrays and V's replaced by the next tensors of `feed`."""
    if isinstance(value, V):
        return next(feed) if value is tested else value.values[0]
    if isinstance(value, np.ndarray):
        return next(feed)
    if isinstance(value, SP):
        indices, values, shape = value.parts
        return tf.sparse.SparseTensor(np.asarray(indices, np.int64),
                                      np.asarray(values, value.dtype),
                                      np.asarray(shape, np.int64))
    if isinstance(value, B):
        return tf.constant(value.data)
    if isinstance(value, dict):
        return {k: _rebuild(v, feed, tested) for k, v in value.items()}
    if isinstance(value, list):
        return [_rebuild(v, feed, tested) for v in value]
    if isinstance(value, tuple):
        return tuple(_rebuild(v, feed, tested) for v in value)
    return value


def _inputs_of(args, kwargs, tested):
    """The call's tensor inputs: arrays, and the tested V (the others are Python values)."""
    found: list = []
    _leaves(list(args) + list(kwargs.values()), found)
    return [x for x in found if not isinstance(x, V) or x is tested]


def _spec(value, tested, known_dims):
    if isinstance(value, V):
        return tf.TensorSpec(np.shape(value.values[0]), value.dtype)
    dims = value.shape if known_dims else [None] * value.ndim
    return tf.TensorSpec(dims, tf.as_dtype(value.dtype))


def _caller(op, args, kwargs, tested):
    def call(*tensors):
        feed = iter(tensors)
        return op(*_rebuild(list(args), feed, tested), **_rebuild(dict(kwargs), feed, tested))
    return call


def _feed(inputs, index):
    return [tf.constant(x.values[index], x.dtype) if isinstance(x, V) else tf.constant(x)
            for x in inputs]


def _flat(out):
    return tf.nest.flatten(out, expand_composites=True)


def _static(out) -> list:
    return [None if t.shape.rank is None else t.shape.as_list() for t in _flat(out)]


def _encode_array(x) -> dict:
    x = np.asarray(x)
    if x.dtype.kind == "c":
        values = np.stack([x.real, x.imag], -1).tolist()
    elif x.dtype.kind in "SO":   # bytes as base64 (a WAV file's are not text)
        values = [base64.b64encode(b).decode("ascii") for b in x.reshape(-1).tolist()]
    else:
        values = x.tolist()
    return {"dtype": "string" if x.dtype.kind in "SO" else x.dtype.name,
            "shape": list(x.shape), "values": values}


def _encode_value(value, tested):
    """A call argument as JSON: arrays, the tested V, SP's and B's tagged, the other V's as
    their first value, lists and scalars as is."""
    if isinstance(value, V):
        if value is not tested:
            return value.values[0]
        return {"__arg__": [np.asarray(v).tolist() for v in value.values],
                "dtype": value.dtype}
    if isinstance(value, np.ndarray):
        return {"__array__": _encode_array(value)}
    if isinstance(value, SP):
        return {"__sparse__": [np.asarray(p).tolist() for p in value.parts],
                "dtype": value.dtype}
    if isinstance(value, B):
        return {"__bytes__": base64.b64encode(value.data).decode("ascii")}
    if isinstance(value, tf.dtypes.DType):
        return {"__dtype__": value.name}
    if isinstance(value, (list, tuple)):
        return [_encode_value(v, tested) for v in value]
    return value


def _runs(fn, inputs):
    runs = []
    for index in (0, 1):
        try:
            runs.append({"outputs": [_encode_array(t.numpy()) for t in
                                     _flat(fn(*_feed(inputs, index)))]})
        except Exception as error:  # noqa: BLE001 - TF's refusal is the record
            runs.append({"error": type(error).__name__,
                         "no_kernel": "registered kernels" in str(error)})
    return runs


def _trace(op, args, kwargs, tested):
    """TF's answer for one case: accepted (with which dims) and the runs, or the error class."""
    inputs = _inputs_of(args, kwargs, tested)
    call = _caller(op, args, kwargs, tested)
    error = message = None
    for known_dims in (False, True):
        specs = [_spec(x, tested, known_dims) for x in inputs]
        try:
            concrete = tf.function(call, input_signature=specs).get_concrete_function()
        except Exception as caught:  # noqa: BLE001 - TF's refusal is the record
            error = type(caught).__name__
            message = str(caught).strip().splitlines()[-1][:200]
            continue
        return {"accepted": True, "known_dims": known_dims,
                "static": _static(concrete.structured_outputs), "runs": _runs(concrete, inputs)}
    return {"accepted": False, "error": error, "message": message,
            "runs": _runs(call, inputs)}


def _arg_name(op, args, kwargs, tested) -> str:
    """The tested argument's parameter name (a positional one's from TF's signature)."""
    name = next((k for k, v in kwargs.items() if v is tested), None)
    if name is None:
        position = next(i for i, a in enumerate(args) if a is tested)
        name = list(inspect.signature(op).parameters)[position]
    return name


def _cases():
    for op_name, args, kwargs, flags in CASES:
        found: list = []
        _leaves(list(args) + list(kwargs.values()), found)
        for tested in (x for x in found if isinstance(x, V)):
            assert np.shape(tested.values[0]) == np.shape(tested.values[1]), op_name
            name = _arg_name(_lookup(op_name), args, kwargs, tested)
            yield op_name, name, args, kwargs, flags, tested


def main() -> None:
    tf.random.set_seed(0)
    records = []
    for op_name, arg_name, args, kwargs, flags, tested in _cases():
        op = _lookup(op_name)
        record = {"op": op_name, "arg": arg_name, "flags": list(flags),
                  "args": _encode_value(list(args), tested),
                  "kwargs": {k: _encode_value(v, tested) for k, v in kwargs.items()}}
        record["tf"] = _trace(op, args, kwargs, tested)
        records.append(record)
        tf_result = record["tf"]
        print(f"{op_name:40s} {arg_name:28s} "
              f"{'accepted' if tf_result['accepted'] else tf_result['error']}")
    with open(OUT, "w") as out:
        json.dump({"tf_version": tf.__version__, "cases": records}, out, indent=None,
                  separators=(",", ":"))
        out.write("\n")
    print(f"wrote {len(records)} cases to {OUT}")


if __name__ == "__main__":
    main()
