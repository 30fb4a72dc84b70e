"""`tf.linalg`: matrix products, solves, factorizations, determinants, diagonals and norms."""

import tapeflow.ops  # noqa: F401 - the op families declare their public names on import
from tapeflow.framework.exports import populate as _populate

_populate(globals(), "linalg")

# The LinearOperator classes load on first use (their modules cost ~30 ms to import).
_LINEAR_OPERATORS = (
    "LinearOperator", "LinearOperatorAdjoint", "LinearOperatorBlockDiag",
    "LinearOperatorBlockLowerTriangular", "LinearOperatorCirculant", "LinearOperatorCirculant2D",
    "LinearOperatorCirculant3D", "LinearOperatorComposition", "LinearOperatorDiag",
    "LinearOperatorFullMatrix", "LinearOperatorHouseholder", "LinearOperatorIdentity",
    "LinearOperatorInversion", "LinearOperatorKronecker", "LinearOperatorLowRankUpdate",
    "LinearOperatorLowerTriangular", "LinearOperatorPermutation", "LinearOperatorScaledIdentity",
    "LinearOperatorToeplitz", "LinearOperatorTridiag", "LinearOperatorZeros",
)
__all__ += [name for name in _LINEAR_OPERATORS if name not in __all__]  # noqa: F821


def __getattr__(name: str):
    if name in _LINEAR_OPERATORS:
        import tapeflow.ops.linear_operator  # noqa: F401 - declares the classes
        _populate(globals(), "linalg")
        return globals()[name]
    raise AttributeError(f"module 'tapeflow.linalg' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(_LINEAR_OPERATORS))
