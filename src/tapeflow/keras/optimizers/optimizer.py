"""The Keras 3 optimizer base class: building slots, clipping, weight decay, `iterations`.

Follows keras/src/optimizers/base_optimizer.py: slots ("optimizer variables") are created on
the first `apply_gradients`, from the variables it is given; `None` gradients are skipped with
a warning; clipping and weight decay happen before the update step; `iterations` (int64)
counts applied steps. Every update goes through tapeflow ops and `Variable.assign*`, so a
`tf.function` tracing a training step records the updates.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from tapeflow.framework import dtypes as _dtypes
from tapeflow.framework.context import context, init_scope
from tapeflow.framework.indexed_slices import IndexedSlices
from tapeflow.ops.indexed_slices_ops import densify
from tapeflow.framework.tensor import Tensor
from tapeflow.framework.tensor_conversion import convert_to_tensor
from tapeflow.framework.variables import Variable
from tapeflow.distribute.distribute_lib import aggregate_gradients
from tapeflow.ops import array_ops, control_flow_ops, math_ops, reduce_ops
from tapeflow.keras.backend import auto_name
from tapeflow.keras.optimizers.fused import apply_fused
from tapeflow.keras.optimizers.gradient_shapes import GradientShapeRefusal, check_gradient_shapes
from tapeflow.keras.optimizers.schedules import LearningRateSchedule

def _variable_label(variable: Any) -> str:
    return getattr(variable, "path", None) or variable.name


class Optimizer:
    """Base class of Keras optimizers; subclasses define `build` and `update_step`.

    Args:
      learning_rate: a float, a `LearningRateSchedule`, or a callable with no arguments.
      weight_decay: if set, each step first does `v -= v * weight_decay * learning_rate`.
      clipnorm / clipvalue / global_clipnorm: gradient clipping (at most one of them).
      use_ema: keep an exponential moving average of each variable (after each step,
        `average = ema_momentum * average + (1 - ema_momentum) * variable`); `fit` ends by
        assigning the averages to the variables (`finalize_variable_values`).
      ema_momentum: the average's momentum (default 0.99).
      ema_overwrite_frequency: if set, every that many steps the variables take their
        averages' values.
      loss_scale_factor: `scale_loss` multiplies the loss by it (`fit` does, before taking
        gradients) and `apply` divides the gradients by it before anything else.
      gradient_accumulation_steps: if set (an int >= 2), a step adds its gradients to
        per-variable accumulators, and every that many steps the mean of the accumulated
        gradients is applied (then clipped, weight decay done) and the accumulators cleared.
        `iterations` then counts applied updates (steps // gradient_accumulation_steps), which
        the update formulas and EMA see; learning rate schedules see every step.
      name: the optimizer's name (auto-numbered from the class name by default).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Keras's TF-backend Optimizer takes (*args, **kwargs) and hands them to
        # BaseOptimizer.__init__, whose parameters `_init_base` has.
        self._init_base(*args, **kwargs)

    def _init_base(self, learning_rate: Any, weight_decay: Optional[float] = None,
                 clipnorm: Optional[float] = None, clipvalue: Optional[float] = None,
                 global_clipnorm: Optional[float] = None, use_ema: bool = False,
                 ema_momentum: float = 0.99, ema_overwrite_frequency: Optional[int] = None,
                 loss_scale_factor: Optional[float] = None,
                 gradient_accumulation_steps: Optional[int] = None,
                 name: Optional[str] = None, **kwargs: Any) -> None:
        if kwargs.pop("decay", None) is not None:
            warnings.warn("Argument `decay` is no longer supported and will be ignored.",
                          stacklevel=2)
        if kwargs:
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        if gradient_accumulation_steps and not gradient_accumulation_steps >= 2:
            raise ValueError("`gradient_accumulation_steps` must be an integer >= 2. "
                             f"Received: gradient_accumulation_steps={gradient_accumulation_steps}")
        if use_ema:
            _check_ema_arguments(ema_momentum, ema_overwrite_frequency)
        clip_args = sum(a is not None for a in (clipnorm, clipvalue, global_clipnorm))
        if clip_args > 1:
            raise ValueError(
                "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. "
                f"Received: clipnorm={clipnorm}, clipvalue={clipvalue}, "
                f"global_clipnorm={global_clipnorm}")
        self.name = name if name is not None else auto_name(self.__class__.__name__)
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self.use_ema = use_ema
        self.ema_momentum = ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.loss_scale_factor = loss_scale_factor
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.built = False
        self._variables: list = []
        self._trainable_variables: list = []
        self._trainable_variables_indices: dict = {}
        self._iterations = Variable(0, dtype=_dtypes.int64, trainable=False, name="iteration")
        self._variables.append(self._iterations)
        self._learning_rate = self._make_learning_rate(learning_rate)

    def _make_learning_rate(self, learning_rate: Any) -> Any:
        if isinstance(learning_rate, LearningRateSchedule) or callable(learning_rate):
            return learning_rate
        if not isinstance(learning_rate, float):
            raise ValueError(
                "Argument `learning_rate` should be float, or an instance of "
                "LearningRateSchedule, or a callable (that takes in the current iteration "
                "value and returns the corresponding learning rate value). "
                f"Received instead: learning_rate={learning_rate}")
        variable = Variable(learning_rate, dtype=_dtypes.float32, trainable=False,
                            name="learning_rate")
        self._variables.append(variable)
        return variable

    # -- state ------------------------------------------------------------------------------
    @property
    def iterations(self) -> Any:
        """The number of steps applied so far (an int64 Variable); with gradient accumulation,
        the number of updates applied (steps // gradient_accumulation_steps, a tensor)."""
        if self.gradient_accumulation_steps:
            return math_ops.floordiv(self._iterations, self.gradient_accumulation_steps)
        return self._iterations

    @property
    def variables(self) -> list:
        """All of the optimizer's variables: iterations, learning rate, then the slots."""
        return self._variables[:]

    @property
    def learning_rate(self) -> Any:
        """The current learning rate: the variable, or the schedule's value at this step."""
        return self._get_current_learning_rate()

    @learning_rate.setter
    def learning_rate(self, learning_rate: Any) -> None:
        if isinstance(learning_rate, LearningRateSchedule) or callable(learning_rate):
            if isinstance(self._learning_rate, Variable):
                self._variables.remove(self._learning_rate)
            self._learning_rate = learning_rate
        elif isinstance(self._learning_rate, LearningRateSchedule):
            raise TypeError(
                "This optimizer was created with a `LearningRateSchedule` object as its "
                "`learning_rate` constructor argument, hence its learning rate is not "
                "settable. If you need the learning rate to be settable, you should "
                "instantiate the optimizer with a float `learning_rate` argument.")
        elif isinstance(self._learning_rate, Variable):
            self._learning_rate.assign(math_ops.cast(learning_rate, _dtypes.float32))
        else:
            self._learning_rate = self._make_learning_rate(float(learning_rate))

    def _get_current_learning_rate(self) -> Any:
        if isinstance(self._learning_rate, LearningRateSchedule):
            return self._learning_rate(self._iterations)
        if isinstance(self._learning_rate, Variable):
            return self._learning_rate
        if callable(self._learning_rate):
            return self._learning_rate()
        return self._learning_rate

    # -- building ---------------------------------------------------------------------------
    def build(self, variables: Sequence[Variable]) -> None:
        """Records the variables this optimizer updates and creates, as Keras orders them
        before the slots subclasses add, their moving averages (`use_ema`), then their
        gradient accumulators (`gradient_accumulation_steps`)."""
        if self.use_ema:
            self._model_variables_moving_average = self.add_optimizer_variables(
                variables, "average")
        if self.gradient_accumulation_steps:
            self._accumulated_gradients = self.add_optimizer_variables(
                variables, "gradient_accumulator")
        for i, variable in enumerate(variables):
            self._trainable_variables_indices[id(variable)] = i
        self._trainable_variables = list(variables)
        self.built = True

    def add_variable(self, shape: Any, initializer: Any = "zeros", dtype: Any = None,
                     aggregation: str = "none", name: Optional[str] = None) -> Variable:
        """Adds a non-trainable optimizer variable filled by `initializer` ('zeros', 'ones',
        a number, or a callable `(shape, dtype)`)."""
        dtype = _dtypes.as_dtype(dtype or _dtypes.float32)
        shape = tuple(int(d) for d in shape)
        if initializer == "zeros":
            value = np.zeros(shape, dtype.as_numpy_dtype)
        elif initializer == "ones":
            value = np.ones(shape, dtype.as_numpy_dtype)
        elif isinstance(initializer, (int, float)):
            value = np.full(shape, initializer, dtype.as_numpy_dtype)
        else:
            value = initializer(shape, dtype)
        variable = Variable(value, dtype=dtype, trainable=False, name=name)
        self._variables.append(variable)
        return variable

    def add_variable_from_reference(self, reference_variable: Variable,
                                    name: Optional[str] = None,
                                    initializer: Any = "zeros") -> Variable:
        """A slot shaped and typed like `reference_variable`, named
        '<reference path>_<name>' as Keras names it."""
        label = _variable_label(reference_variable).replace("/", "_").replace(":", "_")
        return self.add_variable(reference_variable.shape, initializer,
                                 reference_variable.dtype, name=f"{label}_{name or 'var'}")

    def add_optimizer_variables(self, trainable_variables: Sequence[Variable], name: Any,
                                initializer: Any = "zeros") -> Any:
        """One slot per variable for `name` (a list), or one list per name (a tuple).

        With several names the slots are made variable by variable (the first variable's
        slot of each name, then the second's), as Keras does: `variables` and the files
        that store it keep Keras's order. `initializer` is one for all names or a list."""
        names = [name] if isinstance(name, str) else list(name)
        initializers = (list(initializer) if isinstance(initializer, (list, tuple))
                        else [initializer] * len(names))
        if len(names) != len(initializers):
            raise ValueError(
                "The number of provided names must match the number of provided "
                f"initializers.  Received name='{name}', initializer='{initializer}'")
        lists: tuple = tuple([] for _ in names)
        for variable in trainable_variables:
            for slots, slot_name, init in zip(lists, names, initializers):
                slots.append(self.add_variable_from_reference(variable, slot_name, init))
        return lists[0] if isinstance(name, str) else lists

    def _defer_restore(self, values: list) -> None:
        """Called by tf.train.Checkpoint when it holds more values than this optimizer has
        variables (slots not created yet): restores `iterations` and the learning rate now and
        the slots when `build` creates them."""
        for variable, value in zip(self._variables, values):
            variable.assign(np.asarray(value).astype(variable.dtype.as_numpy_dtype))
        self._deferred_values = list(values)

    def _restore_deferred(self) -> None:
        values = getattr(self, "_deferred_values", None)
        if values is None:
            return
        self._deferred_values = None
        if len(values) != len(self._variables):
            raise ValueError(f"The checkpoint holds {len(values)} values for optimizer "
                             f"'{self.name}' but it has {len(self._variables)} variables once "
                             "built: was it saved from a different optimizer or model?")
        # The slots' starting values, set eagerly even when `fit`'s traced step builds the
        # optimizer: an assignment inside the trace would be an op of the step (or lost).
        with init_scope():
            self.set_weights(values)

    def _get_variable_index(self, variable: Variable) -> int:
        return self._trainable_variables_indices[id(variable)]

    # -- applying ---------------------------------------------------------------------------
    def apply_gradients(self, grads_and_vars: Iterable) -> Variable:
        """Applies `(gradient, variable)` pairs (a `zip`); returns `iterations`."""
        pairs = list(grads_and_vars)
        # Inside strategy.run of a multi-replica strategy: summed over the replicas.
        grads = aggregate_gradients([g for g, _ in pairs])
        variables = [v for _, v in pairs]
        self.apply(grads, variables)
        return self._iterations

    def apply(self, grads: Sequence[Any], trainable_variables: Optional[Sequence] = None) -> None:
        """Updates `trainable_variables` (default: those it was built with) from `grads`."""
        grads = list(grads)
        if not grads:
            return
        if trainable_variables is None:
            if not self.built:
                raise ValueError(
                    "When passing `grads` without `variables`, the optimizer must already be "
                    "built on a list of variables. Call `optimizer.build(trainable_variables)` "
                    "first. ")
            trainable_variables = self._trainable_variables
        else:
            trainable_variables = list(trainable_variables)
            if self.built:
                self._check_variables_are_known(trainable_variables)
        # Before anything changes (slots built, variables updated): a gradient the update
        # would fail on leaves the optimizer and the variables as they were.
        check_gradient_shapes(self._gradient_shape_refusal(), grads, trainable_variables)
        if not self.built:
            self.build(trainable_variables)
            self.built = True
            self._restore_deferred()
        grads, trainable_variables = self._filter_empty_gradients(grads, trainable_variables)
        # IndexedSlices stay sparse up to the update step, where Keras 3 squares their values
        # before summing repeated indices (see `dense_and_square`).
        grads = [g if isinstance(g, IndexedSlices) else convert_to_tensor(g) for g in grads]
        if self.loss_scale_factor is not None:
            grads = [_map_values(g, lambda x: x / self.loss_scale_factor) for g in grads]
        if self.gradient_accumulation_steps:
            self._accumulate_or_update(grads, trainable_variables)
        else:
            self._clip_decay_and_update(grads, trainable_variables)
        if self.use_ema:
            self._update_model_variables_moving_average(self._trainable_variables)
            if self.ema_overwrite_frequency:
                self._overwrite_every_ema_frequency()
        for variable in trainable_variables:
            if getattr(variable, "constraint", None) is not None:
                variable.assign(variable.constraint(variable))
        self._iterations.assign_add(np.int64(1))

    # How this optimizer's update meets a gradient of another shape than its variable's
    # (Keras 3.15.1 / TF 2.21): Adam's `m += (g - m) * (1 - beta_1)` subtracts first.
    _gradient_refusal = GradientShapeRefusal("Sub")

    def _gradient_shape_refusal(self) -> GradientShapeRefusal:
        """This optimizer's GradientShapeRefusal; accumulating gradients, the first op adds
        each one to its accumulator (`accumulator + g`)."""
        if self.gradient_accumulation_steps:
            return GradientShapeRefusal("AddV2", gradient_first=False, name_suffix=True,
                                        assign_op="AssignVariableOp")
        return self._gradient_refusal

    def _clip_decay_and_update(self, grads: list, trainable_variables: list) -> None:
        grads = self._clip_gradients(grads)
        self._apply_weight_decay(trainable_variables)
        self._backend_update_step(grads, trainable_variables, self.learning_rate)

    def _backend_update_step(self, grads: list, trainable_variables: list,
                             learning_rate: Any) -> None:
        """The update of every variable from its (clipped) gradient: one fused kernel each
        where the optimizer has one, else `update_step` op by op. Subclasses with state shared
        by all variables (Nadam) update it here first."""
        # Not fused when accumulating: the kernels' scalars read the step count directly.
        if self._fused_updates and not self.gradient_accumulation_steps and \
                apply_fused(self, grads, trainable_variables, learning_rate):
            return
        for grad, variable in zip(grads, trainable_variables):
            self.update_step(grad, variable, learning_rate)

    # -- gradient accumulation (gradient_accumulation_steps) -----------------------------------
    def _accumulate_or_update(self, grads: list, trainable_variables: list) -> None:
        """On every `gradient_accumulation_steps`-th step (counting this one), applies
        (g + accumulated) / steps and clears the accumulators; else adds g to them. A cond,
        as Keras: traced, both branches are recorded and the step count picks one."""
        steps = self.gradient_accumulation_steps
        grads = [densify(g) for g in grads]
        accumulators = [self._accumulated_gradients[self._get_variable_index(v)]
                        for v in trainable_variables]

        def update() -> Tensor:
            means = [(g + a) / steps for g, a in zip(grads, accumulators)]
            self._clip_decay_and_update(means, trainable_variables)
            for a in self._accumulated_gradients:
                a.assign(array_ops.zeros(a.shape, a.dtype))
            return _nothing()

        def accumulate() -> Tensor:
            for g, a in zip(grads, accumulators):
                a.assign(a + g)
            return _nothing()

        is_update_step = math_ops.equal((self._iterations + 1) % steps, 0)
        control_flow_ops.cond(is_update_step, update, accumulate)

    def scale_loss(self, loss: Any) -> Any:
        """`loss * loss_scale_factor` (the loss unchanged without one): what `fit` takes
        gradients of, `apply` dividing them by the factor again."""
        if self.loss_scale_factor is not None:
            return loss * self.loss_scale_factor
        return loss

    # -- the exponential moving average (use_ema) ---------------------------------------------
    def _update_model_variables_moving_average(self, trainable_variables: Sequence) -> None:
        """average = m * average + (1 - m) * variable, m = ema_momentum (0 on the first
        step: the average starts at the variable), with Keras's ops in its order."""
        not_first_step = math_ops.not_equal(self.iterations, 0)
        for variable, average in zip(trainable_variables,
                                     self._model_variables_moving_average):
            momentum = math_ops.cast(not_first_step, variable.dtype) * self.ema_momentum
            average.assign(momentum * average + (1 - momentum) * variable)

    def _overwrite_every_ema_frequency(self) -> None:
        """Every `ema_overwrite_frequency` steps (counting this one; with gradient
        accumulation, whenever `iterations + 1` is a multiple, as Keras) the model's variables
        take their averages' values."""
        due = (self.iterations + 1) % self.ema_overwrite_frequency == 0
        if context.state.graph is None:
            if bool(due.numpy()):
                self._overwrite_model_variables_with_average_value(self._trainable_variables)
            return
        # Traced: a select of the same values instead of a cond with assignments inside.
        averages = self._model_variables_moving_average
        self._check_average_count(self._trainable_variables)
        for variable, average in zip(self._trainable_variables, averages):
            variable.assign(math_ops.where(due, average.value(), variable.value()))

    def _check_average_count(self, variables: Sequence) -> None:
        averages = self._model_variables_moving_average
        if len(variables) != len(averages):
            raise ValueError(
                f"The length of model variables ({len(variables)}) to override does not "
                "match the length of model variables stored in the optimizer "
                f"({len(averages)}). Please check if the optimizer was called on your model.")

    def _overwrite_model_variables_with_average_value(self, trainable_variables: Sequence
                                                      ) -> None:
        """Assigns each moving average to its model variable."""
        self._check_average_count(trainable_variables)
        for variable, average in zip(trainable_variables,
                                     self._model_variables_moving_average):
            variable.assign(average)

    def finalize_variable_values(self, var_list: Sequence[Variable]) -> None:
        """Called at the end of `fit`: with `use_ema`, the model's variables take their
        moving averages' values."""
        if self.use_ema:
            self._overwrite_model_variables_with_average_value(var_list)

    def _check_variables_are_known(self, variables: Sequence[Variable]) -> None:
        for v in variables:
            if id(v) not in self._trainable_variables_indices:
                raise ValueError(
                    f"Unknown variable: {v}. This optimizer can only be called for the "
                    "variables it was originally built with. When working with a new set of "
                    "variables, you should recreate a new optimizer instance.")

    def _filter_empty_gradients(self, grads: list, variables: list) -> tuple:
        kept = [(g, v) for g, v in zip(grads, variables) if g is not None]
        if not kept:
            raise ValueError("No gradients provided for any variable.")
        if len(kept) < len(grads):
            missing = [_variable_label(v) for g, v in zip(grads, variables) if g is None]
            warnings.warn(
                f"Gradients do not exist for variables {missing} when minimizing the loss. "
                "If using `model.compile()`, did you forget to provide a `loss` argument?",
                stacklevel=2)
        return [g for g, _ in kept], [v for _, v in kept]

    def _clip_gradients(self, grads: list) -> list:
        if self.clipnorm and self.clipnorm > 0:
            return [self._clip_by_norm(g) for g in grads]
        if self.global_clipnorm and self.global_clipnorm > 0:
            return clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue and self.clipvalue > 0:
            v = self.clipvalue
            return [_map_values(g, lambda x: math_ops.minimum(math_ops.maximum(x, -v), v))
                    for g in grads]
        return grads

    def _clip_by_norm(self, values: Tensor) -> Tensor:
        """values * clipnorm / max(||values||, clipnorm), with a NaN-free gradient at 0.
        IndexedSlices stay IndexedSlices, the norm taken over their values (as Keras 3)."""
        l2sum = reduce_ops.reduce_sum(dense_and_square(values)[1], keepdims=True)
        positive = l2sum > 0
        safe = math_ops.where(positive, l2sum, math_ops.ones_like(l2sum))
        l2norm = math_ops.where(positive, math_ops.sqrt(safe), l2sum)
        clipnorm = math_ops.cast(self.clipnorm, values.dtype)
        return _map_values(values, lambda x: x * clipnorm / math_ops.maximum(l2norm, clipnorm))

    def exclude_from_weight_decay(self, var_list: Optional[Sequence] = None,
                                  var_names: Optional[Sequence[str]] = None) -> None:
        """Exempts these variables, or those whose name contains one of `var_names`, from
        weight decay. Call before the optimizer is built."""
        if self.built:
            raise ValueError("`exclude_from_weight_decay()` can only be configured before "
                             "the optimizer is built.")
        self._excluded_ids = {id(v) for v in (var_list or [])}
        self._excluded_pattern = re.compile("|".join(set(var_names))) if var_names else None

    def _use_weight_decay(self, variable: Variable) -> bool:
        if id(variable) in getattr(self, "_excluded_ids", ()):
            return False
        pattern = getattr(self, "_excluded_pattern", None)
        return pattern is None or pattern.search(variable.name) is None

    def _apply_weight_decay(self, variables: Sequence[Variable]) -> None:
        if self.weight_decay is None:
            return
        for variable in variables:
            if self._use_weight_decay(variable):
                lr = math_ops.cast(self.learning_rate, variable.dtype)
                wd = math_ops.cast(self.weight_decay, variable.dtype)
                variable.assign(variable - variable * wd * lr)

    def update_step(self, gradient: Tensor, variable: Variable, learning_rate: Any) -> None:
        """Updates one variable from its gradient; subclasses implement it."""
        raise NotImplementedError

    # -- the fused path (see fused.py) ------------------------------------------------------
    # False on an instance: every step op by op, as `update_step` (the reference path).
    _fused_updates = True

    def _fused_update(self) -> Optional[tuple]:
        """`(primitive, attrs)` of this optimizer's fused update step (ops/optimizer_ops.py),
        or None: it has none, or its configuration is not covered."""
        return None

    def _fused_slots(self, index: int) -> tuple:
        """The slots of variable `index`, in the order the fused kernel takes them."""
        return ()

    def _fused_scalars(self, dtype: Any, learning_rate: Any) -> tuple:
        """The step's scalars in `dtype`, for the fused kernel: the same values (the same
        ops) as `update_step` computes for each variable."""
        raise NotImplementedError

    @staticmethod
    def _step_inputs(gradient: Any, variable: Variable, learning_rate: Any) -> tuple:
        """`(learning_rate, dense gradient, squared gradient)` in the variable's dtype: the
        inputs of an update step (squared as `dense_and_square`)."""
        lr = math_ops.cast(learning_rate, variable.dtype)
        gradient, squared = dense_and_square(math_ops.cast(gradient, variable.dtype))
        return lr, gradient, squared

    # -- weights and config -------------------------------------------------------------------
    def get_weights(self) -> list:
        """The values of `variables`, as NumPy arrays."""
        return [np.array(v._value) for v in self._variables]

    def set_weights(self, weights: Sequence[Any]) -> None:
        """Assigns values to `variables` in order (the optimizer must be built)."""
        if not self.built:
            raise ValueError(
                "You are calling `set_weights()` on an optimizer that has not yet been built. "
                "Please call `optimizer.build(trainable_variables)` to create the optimizer "
                "weights before calling `set_weights()`.")
        for variable, weight in zip(self._variables, weights):
            weight = np.asarray(weight)
            if tuple(variable.shape) != weight.shape:
                raise ValueError(f"Optimizer variable {variable.name} has shape "
                                 f"{variable.shape} not compatible with provided weight "
                                 f"shape {weight.shape}.")
            variable.assign(weight.astype(variable.dtype.as_numpy_dtype))

    def get_config(self) -> dict:
        """The constructor arguments, as a dict (learning_rate as a float or schedule config)."""
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            learning_rate: Any = {"class_name": type(lr).__name__, "config": lr.get_config()}
        elif isinstance(lr, Variable):
            learning_rate = float(lr.numpy())
        else:
            learning_rate = lr
        return {"name": self.name, "learning_rate": learning_rate,
                "weight_decay": self.weight_decay, "clipnorm": self.clipnorm,
                "global_clipnorm": self.global_clipnorm, "clipvalue": self.clipvalue,
                "use_ema": self.use_ema, "ema_momentum": self.ema_momentum,
                "ema_overwrite_frequency": self.ema_overwrite_frequency,
                "loss_scale_factor": self.loss_scale_factor,
                "gradient_accumulation_steps": self.gradient_accumulation_steps}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> "Optimizer":
        """An optimizer built from `get_config()`'s dict (schedules included)."""
        config = dict(config)
        lr = config.get("learning_rate")
        if isinstance(lr, dict):
            from tapeflow.keras.optimizers import schedules
            config["learning_rate"] = getattr(schedules, lr["class_name"])(**lr["config"])
        return cls(**config)


def _nothing() -> Tensor:
    # What the branches of a cond run for their assignments return: tapeflow's traced cond
    # needs a tensor output (TensorFlow's also takes None).
    return convert_to_tensor(np.int32(0))


def _check_ema_arguments(ema_momentum: Any, ema_overwrite_frequency: Any) -> None:
    if ema_momentum > 1 or ema_momentum < 0:
        raise ValueError("`ema_momentum` must be in the range [0, 1]. "
                         f"Received: ema_momentum={ema_momentum}")
    if ema_overwrite_frequency and (not isinstance(ema_overwrite_frequency, int)
                                    or ema_overwrite_frequency < 1):
        raise ValueError("`ema_overwrite_frequency` must be an integer >= 1 or None. "
                         f"Received: ema_overwrite_frequency={ema_overwrite_frequency}")


def global_norm(values: Sequence[Any]) -> Tensor:
    """sqrt of the sum of squares of all elements of all (non-None) tensors."""
    squares = [reduce_ops.reduce_sum(dense_and_square(v)[1]) for v in values if v is not None]
    return math_ops.sqrt(reduce_ops.reduce_sum(array_ops.stack(squares)))


def clip_by_global_norm(values: Sequence[Any], clip_norm: float) -> list:
    """Scales all tensors by clip_norm / max(global_norm, clip_norm) (NaN if the norm is not
    finite), as Keras's global_clipnorm."""
    use_norm = global_norm(values)
    scale = clip_norm * math_ops.minimum(1.0 / use_norm, 1.0 / clip_norm)
    scale = scale + (use_norm - use_norm)
    return [densify(v) * math_ops.cast(scale, v.dtype) if v is not None else v for v in values]


def dense_and_square(gradient: Any) -> tuple:
    """`(dense gradient, its square)` as Keras 3's TF backend computes them: for
    IndexedSlices the values are squared before repeated indices are summed."""
    if isinstance(gradient, IndexedSlices):
        squared = IndexedSlices(math_ops.square(gradient.values), gradient.indices,
                                gradient.dense_shape)
        return densify(gradient), densify(squared)
    return gradient, math_ops.square(gradient)


def dense_of(gradient: Any, fn: Any) -> Tensor:
    """`fn(gradient)` dense, as Keras 3's TF backend computes an elementwise function of a
    gradient (a product with a scalar, a square, an abs): for IndexedSlices, applied to the
    values before repeated indices are summed."""
    return densify(_map_values(gradient, fn))


def _map_values(gradient: Any, fn: Any) -> Any:
    # An elementwise function of a gradient; IndexedSlices map their values (as Keras 3).
    if isinstance(gradient, IndexedSlices):
        return IndexedSlices(fn(gradient.values), gradient.indices, gradient.dense_shape)
    return fn(gradient)


__all__ = ["Optimizer", "global_norm", "clip_by_global_norm", "dense_and_square", "dense_of"]
