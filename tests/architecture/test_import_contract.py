"""The import contract: tapeflow's layers only import downward (see ARCHITECTURE.md).

Every `import` statement counts, at module level or inside a function: a hidden import that
goes up a layer still ties the lower layer to the upper one.
"""

from __future__ import annotations

import ast
import pathlib
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "src" / "tapeflow"

# Lowest first. A module may import its own layer and the layers before it.
LAYERS = ("framework", "autodiff", "graph", "ops", "autograph", "function", "data", "api")
_SUBPACKAGE_LAYERS = {"framework": "framework", "autodiff": "autodiff", "graph": "graph",
                      "ops": "ops", "autograph": "autograph", "function": "function",
                      "data": "data"}

# (importing module, imported module) pairs that go up a layer on purpose, with the reason.
ALLOWED_UPWARD: dict = {}


def layer_of(module: str) -> str:
    """The layer of a `tapeflow...` module: its subpackage's, or `api` (keras, train, the
    namespace modules, the package itself)."""
    parts = module.split(".")
    return _SUBPACKAGE_LAYERS.get(parts[1], "api") if len(parts) > 1 else "api"


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: pathlib.Path, module: str) -> list:
    """(line, imported module) for every tapeflow import in the file."""
    found = []
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            # `from tapeflow import ops` imports the subpackage `tapeflow.ops`
            found.extend((node.lineno, f"{target}.{alias.name}") for alias in node.names
                         if target == "tapeflow")
    return [(line, name) for line, name in found if name.split(".")[0] == "tapeflow"]


def upward_imports() -> list:
    """Every import that points to a higher layer, as readable lines."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        rank = LAYERS.index(layer_of(module))
        for line, target in _imported(path, module):
            if target == "tapeflow":
                target_layer = "api"
            else:
                target_layer = layer_of(target)
            if LAYERS.index(target_layer) > rank and (module, target) not in ALLOWED_UPWARD:
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {module} "
                           f"({layer_of(module)}) imports {target} ({target_layer})")
    return bad


def test_layers_only_import_downward():
    assert upward_imports() == []


def test_the_contract_sees_hidden_imports(tmp_path, monkeypatch):
    # A function-level import going up must be caught, as a module-level one is.
    fake = tmp_path / "tapeflow"
    (fake / "framework").mkdir(parents=True)
    (fake / "framework" / "x.py").write_text("def f():\n    from tapeflow.ops import math_ops\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert len(upward_imports()) == 1


@pytest.mark.parametrize("module, layer", [("tapeflow.ops.math_ops", "ops"),
                                           ("tapeflow.graph.ir", "graph"),
                                           ("tapeflow.keras.layers", "api"),
                                           ("tapeflow.math", "api")])
def test_layer_of(module, layer):
    assert layer_of(module) == layer
