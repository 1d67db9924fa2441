"""The command line's start-up (issue 21): ``import trample`` and ``trample count`` on a plain board import neither
OR-Tools nor the solver, and a command line naming one command builds the parser of its registration alone.
What these imports cost is measured in benchmarks/bench_startup.py, not here."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from trample import cli

BOARD = {
    "players": [{"id": "opp", "life": 20}],
    "attackers": [
        {"id": "a", "power": 3, "toughness": 3, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["b"]}
    ],
    "blockers": [{"id": "b", "power": 2, "toughness": 2}],
}
HEAVY = ("ortools", "trample.optimize", "trample.whole.search", "trample.arena", "trample.shard", "asyncio")


def _modules_after(code: str) -> tuple[str, set[str]]:
    """(standard output before the marker, the modules imported) of a fresh interpreter running ``code``."""
    script = f"import sys\n{code}\nprint('@@', ' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    before, _, names = out.rpartition("@@ ")
    return before, set(names.split())


def _heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in HEAVY or any(m.startswith(h + ".") or m == h for h in HEAVY)}


def test_import_trample_imports_neither_numpy_nor_ortools():
    _, modules = _modules_after("import trample")
    assert not _heavy(modules) and "numpy" not in modules, sorted(_heavy(modules))


@pytest.mark.parametrize("step", ["regular", "combat"])
def test_count_on_a_plain_board_imports_no_solver(tmp_path, step):
    path = tmp_path / "board.json"
    path.write_text(json.dumps({**BOARD, "step": step}))
    out, modules = _modules_after(f"from trample.cli import main\nmain(['count', {str(path)!r}])")
    assert json.loads(out) == {"count": 2}  # the count ran: {"b": 2, "opp": 1}, {"b": 3}
    assert not _heavy(modules), sorted(_heavy(modules))


def _registered(name: str, register: str) -> tuple[str, ...]:
    import importlib

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    getattr(importlib.import_module(f"trample.cli.commands.{name}"), register)(sub)
    return tuple(sub.choices)


def test_the_table_of_registrations_is_what_they_register():
    assert set(cli.REGISTERS) == set(cli.COMMANDS)
    for reg in cli.COMMANDS:
        assert _registered(*reg) == cli.REGISTERS[reg], reg


def _choices(parser: argparse.ArgumentParser) -> list[str]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(action.choices)


def test_a_named_command_builds_its_registration_alone():
    assert _choices(cli.build_parser(["count", "x.json"])) == ["count", "enumerate", "check"]
    assert _choices(cli.build_parser(["rank", "x.json", "{}"])) == ["sample", "rank", "unrank"]
    every = [c for reg in cli.COMMANDS for c in cli.REGISTERS[reg]]
    for argv in ([], ["--help"], ["nonsense"]):  # no known command named: every command
        assert _choices(cli.build_parser(argv)) == every
    assert _choices(cli.build_parser()) == every
    assert _choices(cli.build_parser(["--version"])) == []  # answered before any command is needed


def test_version_imports_no_command():
    out, modules = _modules_after(
        "from trample.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass"
    )
    assert out.startswith("trample "), out
    commands = {m for m in modules if m.startswith("trample.cli.commands")}
    assert not commands and not _heavy(modules) and "numpy" not in modules, sorted(commands | _heavy(modules))


def test_unknown_command_still_lists_every_command(capsys):
    assert cli.main(["cont", "x.json"]) == cli.EXIT_BAD
    err = capsys.readouterr().err
    assert "invalid choice: 'cont'" in err and "'conformance'" in err and "'count'" in err


@pytest.mark.parametrize("whole", [False, True])
def test_a_solve_imports_the_renderer_only_when_its_picture_is_shown(whole):
    # a solver result carries _repr_svg_ (trample.shown); trample.render (about 10 ms of imports) comes with the
    # picture, not with the solve
    make = (
        f"from trample.whole import WholeCombat as C\nb = {{**{BOARD!r}, 'step': 'combat'}}"
        if whole
        else (f"from trample import Combat as C\nb = {BOARD!r}")
    )
    code = f"{make}\nr = C(b).solve('max-damage')\nprint('trample.render' in sys.modules)"
    out, modules = _modules_after("import sys\n" + code + "\nsvg = r._repr_svg_()\nassert svg.startswith('<svg')")
    assert out.strip() == "False"
    assert "trample.render" in modules
