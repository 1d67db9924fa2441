"""Every optional extra is optional: with rich, matplotlib, dask and distributed hidden (the core install:
ortools and numpy only), every command works or says in one line which extra to install, exit 2, no traceback.

The packages are hidden by a ``sitecustomize`` module on PYTHONPATH that puts a meta-path finder in front of the
import system: importing a hidden package raises ModuleNotFoundError, as it would when it is not installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HIDDEN = ("rich", "matplotlib", "dask", "distributed", "gymnasium", "scipy")

SITECUSTOMIZE = f"""
import sys

HIDDEN = {set(HIDDEN)!r}


class _HideExtras:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, _HideExtras())
"""

THRASTA = "examples/thrasta.json"
LINE = '{"thrasta":{"wall":3,"bear":2,"teferi":2,"opp":3},"cub":{"teferi":2}}'
ARENA = ["arena", "--level", "tiny", "--n", "2", "--players", "greedy,optimal"]

# (arguments, the extra named when the command cannot work without one, else None: it must work)
COMMANDS = [
    (["--version"], None),
    (["count", THRASTA], None),
    (["enumerate", THRASTA, "--limit", "3"], None),
    (["check", THRASTA, LINE], None),
    (["solve", THRASTA, "--objective", "lethal,max-value"], None),
    (["sample", THRASTA, "--n", "2", "--seed", "1"], None),
    (["rank", THRASTA, LINE], None),
    (["unrank", THRASTA, "3"], None),
    (["mill", "examples/library.json", "2"], None),
    (["discover", "examples/library.json", "3", "--seed", "1"], None),
    (["seek-thrills", "examples/library.json"], None),
    (["gnome", "examples/gnome.json", "examples/library.json"], None),
    (ARENA, None),
    (ARENA + ["--no-progress", "--format", "json"], None),
    (ARENA + ["--format", "table"], None),  # the plain table
    (ARENA + ["--progress"], "progress"),
    (ARENA + ["--report", "REPORT.png"], "report"),
    (ARENA + ["--backend", "dask", "--workers", "1"], "dask"),
    (["count", THRASTA, "--backend", "dask"], "dask"),  # one scenario: refused too, not counted in this process
    (["count", "examples/boards.jsonl", "--backend", "dask"], "dask"),
    (["solve", "examples/boards.jsonl", "--objective", "lethal", "--backend", "dask"], "dask"),
    (["enumerate", "examples/p20k5.json", "--shards", "2", "-o", "SHARDS", "--backend", "dask"], "dask"),
    (["cluster", "--workers", "1"], "dask"),
    (["score", "benchmarks/arena/decisions/example.jsonl"], None),
    (["score", "benchmarks/arena/decisions/example.jsonl", "--format", "table"], None),
]


@pytest.fixture(scope="module")
def hidden_env(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hide-extras")
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(folder)] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


def test_the_extras_are_really_hidden(hidden_env):
    for name in HIDDEN:
        proc = subprocess.run(
            [sys.executable, "-c", f"import {name}"], env=hidden_env, capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 1 and "ModuleNotFoundError" in proc.stderr, name
    proc = subprocess.run(
        [sys.executable, "-c", "import trample.cli, trample.arena, trample.library, trample.whole"],
        env=hidden_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr  # importing the package needs no extra


def _check(proc, args, extra, tmp_path):
    assert "Traceback" not in proc.stderr, (args, proc.stderr)
    if extra is None:
        assert proc.returncode in (0, 1), (args, proc.returncode, proc.stderr)
        assert proc.stdout.strip(), args
    else:
        assert proc.returncode == 2, (args, proc.returncode, proc.stdout, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1, (args, proc.stderr)
        assert lines[0].startswith("trample: ") and f"pip install 'trample[{extra}]'" in lines[0], lines[0]
        assert not (tmp_path / "REPORT.png").exists()  # refused before any work


@pytest.mark.slow
@pytest.mark.parametrize("args, extra", COMMANDS, ids=[" ".join(a[:1] + a[-2:]) for a, _ in COMMANDS])
def test_command_without_extras(hidden_env, tmp_path, args, extra):
    args = [str(tmp_path / a) if a in ("REPORT.png", "SHARDS") else a for a in args]
    proc = subprocess.run(
        [sys.executable, "-m", "trample", *args], cwd=ROOT, env=hidden_env, capture_output=True, text=True, timeout=300
    )
    _check(proc, args, extra, tmp_path)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
@pytest.mark.parametrize("args", [ARENA, ["score", "benchmarks/arena/decisions/example.jsonl"]])
def test_on_a_terminal_without_rich(hidden_env, args):
    """On a terminal the progress bar and the table are the defaults: without rich, no bar, and the arena's
    leaderboard as the plain table (score prints its lines)."""
    leader, follower = os.openpty()
    chunks = []
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "trample", *args],
            cwd=ROOT,
            env=hidden_env,
            stdout=follower,
            stderr=follower,
            stdin=subprocess.DEVNULL,
        )
        os.close(follower)
        follower = -1
        while True:  # read while it runs: a full terminal buffer would block it
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed (Linux reports EIO)
                break
            if not chunk:
                break
            chunks.append(chunk)
        code = proc.wait(timeout=300)
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    out = b"".join(chunks).decode("utf-8", "replace")
    assert "Traceback" not in out, out
    assert code == 0, out
    if args[0] == "arena":
        assert "mean regret" in out and "greedy" in out and "optimal" in out and "{" not in out, out
    else:
        assert '"player"' in out, out


@pytest.mark.slow
@pytest.mark.parametrize("args", [ARENA, ["score", "benchmarks/arena/decisions/example.jsonl"]])
def test_plain_table_without_rich(hidden_env, args):
    """--format table without rich: the plain table has the rich table's cells, one row per player, the
    confidence intervals on the line under each figure, and the caption; each player's figures agree with the JSON
    leaderboard of the same run."""
    import json

    run = [sys.executable, "-m", "trample", *args]
    table = subprocess.run(
        run + ["--format", "table"], cwd=ROOT, env=hidden_env, capture_output=True, text=True, timeout=300
    )
    assert table.returncode == 0 and "Traceback" not in table.stderr, table.stderr
    data = subprocess.run(run + ["--format", "json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    board = json.loads(data.stdout)["leaderboard"]
    lines = table.stdout.splitlines()
    assert lines[0].startswith(("trample arena:", "trample score:"))
    assert lines[1].split() == ["#", "player", "illegal", "mean", "regret", "max", "optimal", "lethal", "ms"]
    assert set(lines[2]) == {"-"}
    end = next(k for k, line in enumerate(lines) if line.startswith("under each figure: its 95% confidence interval"))
    rows = [line.split() for line in lines[3:end] if line.split() and line.split()[0].isdigit()]
    assert [r[1] for r in rows] == [p["player"] for p in board]
    for r, p in zip(rows, board):
        assert r[0] == str(p["rank"])
        assert r[2] == f"{100 * p['illegal_rate']:.1f}%"
        assert r[5] == f"{100 * p['optimal_share']:.1f}%"
