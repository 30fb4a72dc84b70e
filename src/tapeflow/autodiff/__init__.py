"""The differentiation machinery: the dispatch point, GradientTape, custom_gradient."""

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.autodiff.custom_gradient import custom_gradient
from tapeflow.autodiff.tape import GradientTape, UnconnectedGradients

__all__ = ["Primitive", "bind", "custom_gradient", "GradientTape", "UnconnectedGradients"]
