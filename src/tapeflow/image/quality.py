"""`tf.image`'s image-quality measures and image gradients: `psnr`, `ssim`, `ssim_multiscale`,
`total_variation`, `image_gradients` and `sobel_edges`, composed of differentiable ops in TF's
order, so their gradients are TF's."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

import tapeflow as tf
from tapeflow.image.color import convert_image_dtype

__all__ = ["psnr", "ssim", "ssim_multiscale", "total_variation", "image_gradients",
           "sobel_edges"]

_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _compatible_images(a: Any, b: Any) -> tuple:
    """TF's _verify_compatible_image_shapes: rank >= 3, equal last three dimensions, batch
    dimensions that broadcast."""
    a, b = tf.convert_to_tensor(a), tf.convert_to_tensor(b)
    for image in (a, b):
        if image.shape.rank is not None and image.shape.rank < 3:
            raise ValueError(f"Shape {image.shape} must have rank at least 3")
    if a.shape.rank is not None and b.shape.rank is not None:
        if not a.shape[-3:].is_compatible_with(b.shape[-3:]):
            raise ValueError(f"Shapes {a.shape[-3:]} and {b.shape[-3:]} are incompatible")
        for d1, d2 in zip(reversed(a.shape.as_list()[:-3]), reversed(b.shape.as_list()[:-3])):
            if not (d1 == 1 or d2 == 1 or d1 is None or d2 is None or d1 == d2):
                raise ValueError(f"Two images are not compatible: {a.shape} and {b.shape}")
    return a, b


def psnr(a: Any, b: Any, max_val: Any, name: Optional[str] = None) -> Any:
    """Peak signal-to-noise ratio per image (over the last three axes), in float32."""
    a, b = _compatible_images(a, b)
    max_val = convert_image_dtype(tf.cast(max_val, a.dtype), tf.float32)
    a = convert_image_dtype(a, tf.float32)
    b = convert_image_dtype(b, tf.float32)
    mse = tf.reduce_mean(tf.math.squared_difference(a, b), [-3, -2, -1])
    return tf.subtract(20 * tf.math.log(max_val) / tf.math.log(10.0),
                       np.float32(10 / np.log(10)) * tf.math.log(mse))


def _ssim_helper(x: Any, y: Any, reducer: Any, max_val: Any, compensation: float = 1.0,
                 k1: float = 0.01, k2: float = 0.03) -> tuple:
    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0, mean1 = reducer(x), reducer(y)
    num0 = mean0 * mean1 * 2.0
    den0 = tf.square(mean0) + tf.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(x * y) * 2.0
    den1 = reducer(tf.square(x) + tf.square(y))
    c2 *= compensation
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    return luminance, cs


def _fspecial_gauss(size: int, sigma: Any) -> Any:
    coords = tf.cast(tf.range(size), sigma.dtype)
    coords -= tf.cast(size - 1, sigma.dtype) / 2.0
    g = tf.square(coords)
    g *= -0.5 / tf.square(sigma)
    g = tf.reshape(g, [1, -1]) + tf.reshape(g, [-1, 1])
    g = tf.nn.softmax(tf.reshape(g, [1, -1]))
    return tf.reshape(g, [size, size, 1, 1])


def _ssim_per_channel(img1: Any, img2: Any, max_val: Any, filter_size: int = 11,
                      filter_sigma: float = 1.5, k1: float = 0.01, k2: float = 0.03,
                      return_index_map: bool = False) -> tuple:
    shape = img1.shape.as_list()
    for image in (img1, img2):
        height, width = image.shape.as_list()[-3:-1]
        if (height is not None and height < filter_size) or \
                (width is not None and width < filter_size):
            raise tf.errors.InvalidArgumentError(
                f"assertion failed: [{image.shape.as_list()}] [{filter_size}] (the images' "
                f"height and width must be at least filter_size)")
    sigma = tf.constant(filter_sigma, dtype=img1.dtype)
    kernel = tf.tile(_fspecial_gauss(int(filter_size), sigma), [1, 1, shape[-1], 1])

    def reducer(x: Any) -> Any:
        dims = tf.shape(x)
        flat = tf.reshape(x, tf.concat([[-1], dims[-3:]], 0))
        y = tf.nn.depthwise_conv2d(flat, kernel, strides=[1, 1, 1, 1], padding="VALID")
        return tf.reshape(y, tf.concat([dims[:-3], tf.shape(y)[1:]], 0))

    luminance, cs = _ssim_helper(img1, img2, reducer, max_val, 1.0, k1, k2)
    if return_index_map:
        ssim_val = luminance * cs
    else:
        ssim_val = tf.reduce_mean(luminance * cs, [-3, -2])
    return ssim_val, tf.reduce_mean(cs, [-3, -2])


def _as_float_pair(img1: Any, img2: Any, max_val: Any) -> tuple:
    img1, img2 = _compatible_images(img1, img2)
    max_val = convert_image_dtype(tf.cast(max_val, img1.dtype), tf.float32)
    return convert_image_dtype(img1, tf.float32), convert_image_dtype(img2, tf.float32), max_val


def ssim(img1: Any, img2: Any, max_val: Any, filter_size: int = 11, filter_sigma: float = 1.5,
         k1: float = 0.01, k2: float = 0.03, return_index_map: bool = False) -> Any:
    """Structural similarity per image (a Gaussian window of `filter_size`, `filter_sigma`),
    averaged over the channels, as TF; differentiable."""
    img1, img2, max_val = _as_float_pair(img1, img2, max_val)
    per_channel, _ = _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2,
                                       return_index_map)
    return tf.reduce_mean(per_channel, [-1])


def ssim_multiscale(img1: Any, img2: Any, max_val: Any,
                    power_factors: Sequence[float] = _MSSSIM_WEIGHTS, filter_size: int = 11,
                    filter_sigma: float = 1.5, k1: float = 0.01, k2: float = 0.03) -> Any:
    """Multi-scale SSIM: one scale per power factor, each 2x2-average-pooled from the last
    (symmetric padding to even sizes), as TF."""
    img1, img2, max_val = _as_float_pair(img1, img2, max_val)
    imgs = [img1, img2]
    heads = [tf.shape(x)[:-3] for x in imgs]
    mcs = []
    for k in range(len(power_factors)):
        if k > 0:
            tails = [x.shape.as_list()[-3:] for x in imgs]
            flat = [tf.reshape(x, [-1] + t) for x, t in zip(imgs, tails)]
            remainder = [tails[0][0] % 2, tails[0][1] % 2]
            if any(remainder):
                padding = [[0, 0], [0, remainder[0]], [0, remainder[1]], [0, 0]]
                flat = [tf.pad(x, padding, mode="SYMMETRIC") for x in flat]
            down = [tf.nn.avg_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                                   padding="VALID") for x in flat]
            imgs = [tf.reshape(x, tf.concat([h, tf.shape(x)[1:]], 0))
                    for x, h in zip(down, heads)]
        per_channel, cs = _ssim_per_channel(*imgs, max_val=max_val, filter_size=filter_size,
                                            filter_sigma=filter_sigma, k1=k1, k2=k2)
        mcs.append(tf.nn.relu(cs))
    mcs.pop()
    stacked = tf.stack(mcs + [tf.nn.relu(per_channel)], axis=-1)
    ms_ssim = tf.reduce_prod(tf.pow(stacked, tf.constant(power_factors, stacked.dtype)), [-1])
    return tf.reduce_mean(ms_ssim, [-1])


def total_variation(images: Any, name: Optional[str] = None) -> Any:
    """Sum of absolute differences of neighbouring pixels (per image for a batch)."""
    images = tf.convert_to_tensor(images)
    rank = images.shape.rank
    if rank == 3:
        dif1 = images[1:, :, :] - images[:-1, :, :]
        dif2 = images[:, 1:, :] - images[:, :-1, :]
        axis = None
    elif rank == 4:
        dif1 = images[:, 1:, :, :] - images[:, :-1, :, :]
        dif2 = images[:, :, 1:, :] - images[:, :, :-1, :]
        axis = [1, 2, 3]
    else:
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    return tf.reduce_sum(tf.abs(dif1), axis=axis) + tf.reduce_sum(tf.abs(dif2), axis=axis)


def image_gradients(image: Any) -> tuple:
    """(dy, dx): forward differences along height and width, zero in the last row/column."""
    image = tf.convert_to_tensor(image)
    if image.shape.rank != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{image.shape}.")
    batch, height, width, depth = tf.unstack(tf.shape(image))
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    dy = tf.concat([dy, tf.zeros(tf.stack([batch, 1, width, depth]), image.dtype)], 1)
    dx = tf.concat([dx, tf.zeros(tf.stack([batch, height, 1, depth]), image.dtype)], 2)
    return dy, dx


_SOBEL = np.expand_dims(np.transpose(np.asarray(
    [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]]), (1, 2, 0)),
    -2)


def sobel_edges(image: Any) -> Any:
    """Sobel (dy, dx) responses per channel, shape [batch, h, w, d, 2] (reflect padding)."""
    image = tf.convert_to_tensor(image)
    kernels = tf.tile(tf.constant(_SOBEL, dtype=image.dtype), [1, 1, image.shape[-1], 1])
    padded = tf.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    output = tf.nn.depthwise_conv2d(padded, kernels, [1, 1, 1, 1], "VALID")
    return tf.reshape(output, tf.concat([tf.shape(image), [2]], 0))
