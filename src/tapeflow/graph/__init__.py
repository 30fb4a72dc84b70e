"""The graph layer: the IR that traces build, its optimizing passes, the compiler to NumPy
programs, the renderer, and compiled backward passes for eager tapes.

It sits below the ops (which trace sub-graphs for control flow) and above autodiff (whose
`bind` hands ops to the active trace). `tf.function`, the user-facing API, lives in
`tapeflow.function` above the ops.
"""

from tapeflow.graph import backward as _backward  # noqa: F401 - installs the compiled-backprop hook
from tapeflow.graph import render as _render  # noqa: F401 - installs the tape renderer
