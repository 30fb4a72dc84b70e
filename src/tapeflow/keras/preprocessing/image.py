"""`keras.preprocessing.image`: the image file helpers of `keras.utils` and `smart_resize`."""

from tapeflow.keras.preprocessing._smart_resize import smart_resize
from tapeflow.keras.utils.image_utils import array_to_img, img_to_array, load_img, save_img

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "smart_resize"]
