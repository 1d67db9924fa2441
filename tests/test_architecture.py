"""docs/architecture.md stays true: its table of layers is the import-linter ``layers`` contract of
pyproject.toml (the same modules, in the same layers, in the same order), and every module of the package is in
the contract."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULE = re.compile(r"`(trample\.[a-z_]+)`")


def _toml(path: Path) -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    return tomllib.loads(path.read_text(encoding="utf-8"))


def contract_layers() -> list[set[str]]:
    """The package's layers contract, bottom first, with trample.models (the folder models/, which import-linter
    cannot walk: tests/test_layers.py checks it) as the bottom layer."""
    contracts = _toml(ROOT / "pyproject.toml")["tool"]["importlinter"]["contracts"]
    (main,) = [c for c in contracts if c["type"] == "layers" and not c.get("containers")]
    layers = [{m.strip() for m in layer.split("|")} for layer in main["layers"]]
    return [{"trample.models"}, *reversed(layers)]


def documented_layers(text: str) -> list[set[str]]:
    """The rows of the table under "The layers, bottom to top", in their order: the modules of each."""
    section = text.split("## The layers, bottom to top", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].isdigit():
            rows.append((int(cells[0]), set(MODULE.findall(cells[1]))))
    assert [n for n, _ in rows] == list(range(1, len(rows) + 1)), "the layers are numbered 1, 2, ... in order"
    return [modules for _, modules in rows]


def test_the_layer_table_is_the_import_contract():
    documented = documented_layers((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    contract = contract_layers()
    only_docs = set().union(*documented) - set().union(*contract)
    only_contract = set().union(*contract) - set().union(*documented)
    assert not only_docs, f"in docs/architecture.md, not in the contract: {sorted(only_docs)}"
    assert not only_contract, f"in the contract, not in docs/architecture.md: {sorted(only_contract)}"
    assert documented == contract, "the same modules, but not in the same layers or order"


def test_every_module_is_in_the_contract():
    listed = set().union(*contract_layers())
    here = {
        f"trample.{p.stem}"
        for p in (ROOT / "solver").iterdir()
        if (p.suffix == ".py" and p.stem not in ("__init__", "__main__")) or (p / "__init__.py").exists()
    }
    assert here - listed == set(), f"modules in no layer: {sorted(here - listed)}"


def test_the_parsers_see_a_difference():
    # the comparison is not vacuous: a table with a layer missing, or two layers swapped, is told apart
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = documented_layers(text)
    assert len(rows) == len(contract_layers()) > 10
    dropped = text.replace("| `trample.conformance` |", "| (nothing) |")
    assert documented_layers(dropped) != contract_layers()
    swapped = text.replace("`trample.combat`", "`trample.TMP`").replace("`trample.whole`", "`trample.combat`")
    assert documented_layers(swapped.replace("`trample.TMP`", "`trample.whole`")) != contract_layers()


def private_imports(roots=("solver", "models")) -> list[tuple[str, str, str]]:
    """(importing file, module, name) for every private name (one leading underscore) imported from another module
    of the package: a seam between modules is public and documented (issue 23)."""
    import ast

    found = []
    for root in roots:
        for path in sorted((ROOT / root).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.level:  # the package's own (relative) imports
                    for alias in node.names:
                        if alias.name.startswith("_") and not alias.name.startswith("__"):
                            found.append(
                                (str(path.relative_to(ROOT)), "." * node.level + (node.module or ""), alias.name)
                            )
    return found


def test_no_private_name_crosses_a_module():
    # (a public name bound under a private alias, as the package's __init__ does with the Gym hook, is not one)
    assert private_imports() == []


def test_the_private_import_scan_sees_one(tmp_path, monkeypatch):
    pkg = tmp_path / "solver"
    pkg.mkdir()
    (pkg / "a.py").write_text("from .b import _hidden, shown\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert private_imports(("solver",)) == [("solver/a.py", ".b", "_hidden")]


# The package (issue 23): no function over 80 lines in it; ruff holds the same files to complexity 20 and 50
# statements (C901, PLR0915: the per-file-ignores of pyproject.toml leave out only tests, benchmarks, examples).
PACKAGE = ("models", "solver")
MAX_LINES = 80


def long_functions(roots=PACKAGE, limit=MAX_LINES) -> list[tuple[str, str, int]]:
    """(file, function, lines) for every function or method of the package longer than ``limit`` lines (from its
    ``def`` to its last line, decorators left out)."""
    import ast

    found = []
    for root in roots:
        path = ROOT / root
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > limit:
                        found.append((str(file.relative_to(ROOT)), node.name, lines))
    return found


def test_no_function_in_the_package_is_over_80_lines():
    assert long_functions() == []


def test_the_length_scan_sees_a_long_function(tmp_path, monkeypatch):
    pkg = tmp_path / "solver" / "engines"
    pkg.mkdir(parents=True)
    body = [f"x += {k}" for k in range(MAX_LINES - 1)]
    method = "\n".join(["class C:", "    def long(self, x):", *(f"        {b}" for b in body), "        return x"])
    (pkg / "a.py").write_text("def short(x):\n    return x\n\n\n" + method + "\n")  # long: 81 lines
    edge = "\n".join(["def edge(x):", *(f"    {b}" for b in body)])  # exactly 80 lines: allowed
    (tmp_path / "solver" / "step.py").write_text(edge + "\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert long_functions(("solver/engines", "solver/step.py")) == [("solver/engines/a.py", "long", MAX_LINES + 1)]


# The vocabulary (docs/architecture.md, "Where the bare words are"): the lines of each module that still quote a
# word of the vocabulary, computed here and held equal to the page's table, so the counts cannot go stale.
BARE_WORD_TABLE = "Where the bare words are"


def vocabulary_words() -> set[str]:
    """Every word of trample.models.vocabulary: the values of its StrEnums, the keyword table's among them."""
    from trample.models import vocabulary

    words = set()
    for name in vocabulary.__all__:
        enum = getattr(vocabulary, name)
        if isinstance(enum, type) and issubclass(enum, vocabulary.StrEnum) and enum is not vocabulary.StrEnum:
            if enum is not vocabulary.KeywordGroup:  # what trample does with a keyword: not a domain word
                words |= {member.value for member in enum}
    return words


def bare_word_lines(root: str = "solver", leave_out: tuple[str, ...] = ("schemas",)) -> dict[str, int]:
    """{module path under ``root``: the number of its lines quoting a vocabulary word ('first_strike', "player")},
    for every module with one; ``leave_out``: folders not counted (the schema builder spells the formats)."""
    words = sorted(vocabulary_words(), key=len, reverse=True)
    alternatives = "|".join(re.escape(w) for w in words)
    quoted = re.compile(r"""(["'])(?:""" + alternatives + r""")\1""")
    out = {}
    for path in sorted((ROOT / root).rglob("*.py")):
        name = path.relative_to(ROOT / root).as_posix()
        if name.split("/")[0] in leave_out:
            continue
        n = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if quoted.search(line))
        if n:
            out[name] = n
    return out


def documented_bare_words(text: str) -> dict[str, int]:
    """The table under "Where the bare words are": a row a folder (`arena/`, or `solver/` for the top), its
    modules each with its count (`runner.py` 19)."""
    section = text.split(f"### {BARE_WORD_TABLE}", 1)[1].split("\n#", 1)[0]
    out = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0].startswith("`"):
            folder = cells[0].strip("`")
            prefix = "" if folder == "solver/" else folder
            for module, n in re.findall(r"`([\w/]+\.py)` (\d+)", cells[1]):
                out[prefix + module] = int(n)
    return out


def test_the_bare_word_counts_are_true():
    documented = documented_bare_words((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert documented == bare_word_lines()


def test_the_bare_word_scan_sees_one(tmp_path, monkeypatch):
    pkg = tmp_path / "solver" / "arena"
    pkg.mkdir(parents=True)
    (pkg / "a.py").write_text('if step == "first_strike":\n    pass\nx = "firstly"\ny = Step.REGULAR\n')
    (tmp_path / "solver" / "b.py").write_text("k = 'trample'\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert bare_word_lines() == {"arena/a.py": 1, "b.py": 1}
    table = "### Where the bare words are\n\n| `solver/` | `b.py` 1 |\n| `arena/` | `a.py` 1 |\n"
    assert documented_bare_words(table) == bare_word_lines()
