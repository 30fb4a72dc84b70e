"""`tf.linalg`: matrix products, solves, factorizations, determinants, diagonals and norms,
and the `LinearOperator` classes (loaded on first use)."""

import tapeflow.ops  # noqa: F401 - the op families declare their public names on import
from tapeflow.framework.exports import populate as _populate

_populate(globals(), "linalg")

# Defined in tapeflow.ops.linear_operator, imported when one of them is first looked up so
# that `import tapeflow` does not pay for them.
_LINEAR_OPERATORS = (
    "LinearOperator", "LinearOperatorFullMatrix", "LinearOperatorDiag",
    "LinearOperatorIdentity", "LinearOperatorScaledIdentity", "LinearOperatorLowerTriangular",
    "LinearOperatorZeros", "LinearOperatorComposition", "LinearOperatorAdjoint",
    "LinearOperatorInversion", "LinearOperatorBlockDiag", "LinearOperatorKronecker",
    "LinearOperatorLowRankUpdate", "LinearOperatorPermutation", "LinearOperatorHouseholder",
    "LinearOperatorToeplitz", "LinearOperatorTridiag", "LinearOperatorCirculant",
    "LinearOperatorCirculant2D", "LinearOperatorCirculant3D",
    "LinearOperatorBlockLowerTriangular",
)
__all__ += [_name for _name in _LINEAR_OPERATORS if _name not in __all__]  # noqa: F821


def __getattr__(name: str):
    if name in _LINEAR_OPERATORS:
        import tapeflow.ops.linear_operator  # noqa: F401 - declares the classes
        from tapeflow.framework.exports import exported

        value = globals()[name] = exported("linalg")[name]
        return value
    raise AttributeError(f"module 'tapeflow.linalg' has no attribute '{name}'")


def __dir__() -> list:
    return sorted(set(globals()) | set(_LINEAR_OPERATORS))
