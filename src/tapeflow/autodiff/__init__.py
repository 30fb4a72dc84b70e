"""The differentiation machinery: the dispatch point, GradientTape, custom_gradient."""

from tapeflow.autodiff.core import Primitive, bind
from tapeflow.autodiff.custom_gradient import custom_gradient
from tapeflow.autodiff.tape import GradientTape, UnconnectedGradients
from tapeflow.autodiff.forward import ForwardAccumulator
from tapeflow.autodiff.hessian import hessian, hessian_vector_product
from tapeflow.autodiff.diagnostics import NoneGradientWarning

__all__ = ["Primitive", "bind", "custom_gradient", "GradientTape", "UnconnectedGradients",
           "ForwardAccumulator", "hessian", "hessian_vector_product", "NoneGradientWarning"]
