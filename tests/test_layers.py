"""The import layers (README.md, Layout): imports only point down and there is no import cycle.

import-linter (``make lint-imports``, the contracts in pyproject.toml) checks the layers of ``trample``; it
cannot walk ``trample.models`` (the folder models/, mapped by setuptools), so the bottom layer is checked here:
nothing in models/ imports from outside models/.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):  # function-level imports included
        if isinstance(node, ast.ImportFrom):
            yield node.level, node.module or ""
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield 0, alias.name


@pytest.mark.parametrize("path", sorted((ROOT / "models").glob("*.py")), ids=lambda p: p.name)
def test_models_import_nothing_of_the_solver(path):
    for level, module in _imports(path):
        assert level <= 1, f"{path.name}: relative import leaves models/ ({'.' * level}{module})"
        assert level == 1 or not module.startswith(("trample", "solver", "models")), f"{path.name}: imports {module}"


def test_the_layer_contracts_hold():
    linter = Path(sys.executable).with_name("lint-imports")
    if not linter.exists():
        pytest.skip("import-linter is not installed (pip install -e '.[dev]')")
    run = subprocess.run([str(linter)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr


def test_no_import_cycle():
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("trample")
    modules = sorted(graph.modules)
    for m in modules:
        for other in graph.find_modules_directly_imported_by(m):
            if other == m or other.startswith(m + ".") or m.startswith(other + "."):
                continue  # a package and its own submodules
            assert not graph.chain_exists(importer=other, imported=m), f"import cycle: {m} <-> {other}"
