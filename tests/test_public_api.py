"""The one public import name, ``trample``: its documented API exists, and a user's own ``models``/``solver``
packages cannot shadow it (the package-dir mapping of pyproject.toml and relative imports inside)."""

import os
import subprocess
import sys
from pathlib import Path

import trample

ROOT = Path(__file__).resolve().parents[1]


def test_every_public_name_exists():
    assert trample.__all__
    missing = [name for name in trample.__all__ if not hasattr(trample, name)]
    assert not missing, missing
    assert len(set(trample.__all__)) == len(trample.__all__)


def test_the_public_api_works_together():
    combat = trample.Combat(trample.load_scenario(ROOT.joinpath("examples/thrasta.json").read_text()))
    assert combat.count() == 36
    result = combat.solve("max-damage")
    assert isinstance(result, trample.SolveResult) and result.optimal
    assert isinstance(trample.open_combat(combat.scenario), trample.Combat)
    assert isinstance(
        trample.open_combat(ROOT.joinpath("examples/double_strike.json").read_text()), trample.WholeCombat
    )
    try:
        trample.load_scenario({"attackers": [{"id": "a", "power": "x"}]})
    except trample.FormatError as err:
        assert "attackers[0]" in str(err)
    else:
        raise AssertionError("a bad scenario was accepted")
    assert issubclass(trample.LimitReached, Exception)
    assert trample.__version__ and trample.__version__ != "unknown"


def test_a_users_own_models_and_solver_packages_do_not_shadow_trample(tmp_path):
    """The reproducer of the clash: a project with its own models/ and solver/ packages (common in ML projects)."""
    for name in ("models", "solver"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"WHO = 'the user project {name}'\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = (
        "import models, solver, trample, trample.models;"
        "print(trample.Combat);"
        "print(models.WHO, solver.WHO);"
        "print(trample.models.Assignment.__module__)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "<class 'trample.combat.Combat'>"
    assert lines[1] == "the user project models the user project solver"  # theirs stay theirs
    assert lines[2] == "trample.models.assignment"
    # and the exact command of the report
    proc = subprocess.run(
        [sys.executable, "-c", "import trample; print(trample.Combat)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and "trample.combat.Combat" in proc.stdout, proc.stderr


def test_the_version_is_printed():
    proc = subprocess.run([sys.executable, "-m", "trample", "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"trample {trample.__version__}"


def test_py_typed_ships_with_the_package():
    assert (Path(trample.__file__).parent / "py.typed").is_file()
    assert 'trample = ["py.typed"]' in (ROOT / "pyproject.toml").read_text()
