"""`python -m tapeflow`: runs the demo programs beside TensorFlow 2.21's output for them."""

import sys

from tapeflow.demo import run_all


def main() -> int:
    """Runs the demo; exits 0 (the verdict per program is printed, not signalled)."""
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8")  # the seed programs print Chinese text
    run_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
