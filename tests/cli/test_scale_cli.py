"""``trample sample | rank | unrank`` and ``trample enumerate --format npy | --output`` (docs/scale.md)."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import trample.cli.commands.step as cli_step
from trample import Combat
from trample.cli import main
from trample.cli.progress import Progress
from trample.engines.npy import NPY_HEADER, npy_header

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "thrasta.json"

# 702.19b: a 5/5 trampler blocked by a 2-toughness creature: (x, opp) = (2,3) (3,2) (4,1) (5,0)
TRAMPLE_2_2 = {
    "players": [{"id": "opp", "life": 20}],
    "attackers": [
        {"id": "a", "power": 5, "toughness": 5, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]}
    ],
    "blockers": [{"id": "x", "power": 1, "toughness": 2}],
}
ORDER = [{"a": {"x": 2, "opp": 3}}, {"a": {"x": 3, "opp": 2}}, {"a": {"x": 4, "opp": 1}}, {"a": {"x": 5}}]


def trample(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def scen(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(TRAMPLE_2_2))
    return f


def test_unrank_and_rank(capsys, scen):
    for i, a in enumerate(ORDER):
        code, out, err = trample(capsys, "unrank", scen, i)
        assert (code, json.loads(out), err) == (0, {"index": i, "count": 4, "assignment": a}, "")
        code, out, err = trample(capsys, "rank", scen, json.dumps(a))
        assert (code, json.loads(out), err) == (0, {"index": i, "count": 4}, "")


def test_rank_unrank_bad_input_is_one_line_exit_2(capsys, scen):
    code, out, err = trample(capsys, "unrank", scen, 4)
    assert code == 2 and out == "" and err.strip().count("\n") == 0 and "out of range" in err
    code, out, err = trample(capsys, "rank", scen, '{"a": {"opp": 5}}')  # 702.19b: x lacks lethal damage
    assert code == 2 and out == "" and "702.19b" in err and err.strip().count("\n") == 0
    code, out, err = trample(capsys, "unrank", scen, "-3")
    assert code == 2 and err.strip().count("\n") == 0
    combat_step = dict(TRAMPLE_2_2, step="combat")
    scen.write_text(json.dumps(combat_step))
    code, out, err = trample(capsys, "sample", scen)
    assert code == 2 and err.startswith("trample: step:")


def test_sample_reproducible_and_uniform_by_unrank(capsys, scen):
    code, out, err = trample(capsys, "sample", scen, "--n", 12, "--seed", 99)
    assert code == 0 and err == ""
    got = [json.loads(line) for line in out.splitlines()]
    rng = random.Random(99)
    assert got == [ORDER[rng.randrange(4)] for _ in range(12)]
    assert trample(capsys, "sample", scen, "--n", 12, "--seed", 99)[1] == out


def test_batches_one_line_per_scenario(capsys, tmp_path):
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps(TRAMPLE_2_2) + "\n" + "{not json\n" + json.dumps(TRAMPLE_2_2) + "\n")
    code, out, err = trample(capsys, "unrank", batch, 1)
    lines = [json.loads(x) for x in out.splitlines()]
    assert code == 2 and len(lines) == 3 and lines[0]["assignment"] == ORDER[1] and "error" in lines[1]
    code, out, err = trample(capsys, "sample", batch, "--n", 2, "--seed", 1)
    lines = [json.loads(x) for x in out.splitlines()]
    assert code == 2 and len(lines[0]["assignments"]) == 2 and "error" in lines[1]
    code, out, err = trample(capsys, "rank", batch, json.dumps(ORDER[3]))
    assert [json.loads(x).get("index") for x in out.splitlines()] == [3, None, 3]


def test_enumerate_npy_matrix_and_sidecar(capsys, tmp_path):
    out_path = tmp_path / "all.npy"
    code, out, err = trample(capsys, "enumerate", EXAMPLE, "--format", "npy", "--output", out_path)
    assert (code, out, err) == (0, "", "")
    mat = np.load(out_path)
    meta = json.loads((tmp_path / "all.columns.json").read_text())
    combat = Combat(json.loads(EXAMPLE.read_text()))
    assert mat.shape == (combat.count(), len(meta["columns"])) and meta["rows"] == meta["count"] == len(mat)
    expected = list(combat.assignments())  # the canonical order
    for row, a in zip(mat.tolist(), expected):
        assert {(s, r): x for (s, r), x in zip(meta["columns"], row) if x} == {
            (s, r): x for s, split in a.items() for r, x in split.items()
        }


@pytest.mark.slow
def test_enumerate_npy_limit_engine_and_stdout(capsys, tmp_path):
    out_path = tmp_path / "few.npy"
    cols = tmp_path / "cols.json"
    code, _, _ = trample(
        capsys,
        "enumerate",
        EXAMPLE,
        "--format",
        "npy",
        "-o",
        out_path,
        "--limit",
        7,
        "--columns",
        cols,
        "--engine",
        "cpsat",
    )
    assert code == 0
    few = np.load(out_path)
    assert few.shape == (7, 5) and json.loads(cols.read_text())["rows"] == 7
    combat = Combat(json.loads(EXAMPLE.read_text()))
    legal = {tuple(r) for r in np.load(_full(capsys, tmp_path)).tolist()}
    assert {tuple(r) for r in few.tolist()} <= legal and combat.count() == len(legal)
    # binary to standard output (not a terminal): the same bytes as the file
    proc = subprocess.run(
        [sys.executable, "-m", "trample", "enumerate", str(EXAMPLE), "--format", "npy"],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0 and proc.stdout == (tmp_path / "full.npy").read_bytes()


def _full(capsys, tmp_path):
    path = tmp_path / "full.npy"
    assert trample(capsys, "enumerate", EXAMPLE, "--format", "npy", "-o", path)[0] == 0
    return path


def test_enumerate_npy_refusals(capsys, tmp_path, monkeypatch):
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps(TRAMPLE_2_2) + "\n")
    code, out, err = trample(capsys, "enumerate", batch, "--format", "npy", "-o", tmp_path / "x.npy")
    assert code == 2 and "not a .jsonl batch" in err and err.strip().count("\n") == 0
    code, out, err = trample(capsys, "enumerate", EXAMPLE, "--format", "npy", "--time-limit", "5")
    assert code == 2 and "--output" in err
    code, out, err = trample(capsys, "enumerate", EXAMPLE, "--format", "npy", "-o", tmp_path / "no" / "x.npy")
    assert code == 2 and "cannot write" in err
    monkeypatch.setattr(cli_step, "is_terminal", lambda stream: True)  # binary to a terminal: refused
    code, out, err = trample(capsys, "enumerate", EXAMPLE, "--format", "npy")
    assert code == 2 and "--output" in err


def test_enumerate_npy_time_limit_rewrites_the_shape(capsys, tmp_path):
    path = tmp_path / "cut.npy"
    code, out, err = trample(capsys, "enumerate", EXAMPLE, "--format", "npy", "-o", path, "--time-limit", "1e-9")
    assert code == 0 and "incomplete" in err
    mat = np.load(path)
    assert mat.shape[1] == 5 and mat.shape[0] == json.loads((tmp_path / "cut.columns.json").read_text())["rows"]


def test_npy_header_is_fixed_size_and_valid():
    for shape in ((0, 3), (10**12, 40)):
        h = npy_header(np.int16, shape)
        assert len(h) == NPY_HEADER
        version = np.lib.format.read_magic(io.BytesIO(h))
        got = np.lib.format.read_array_header_1_0(io.BytesIO(h[8:])) if version == (1, 0) else None
        assert got == (shape, False, np.dtype(np.int16))


def test_enumerate_jsonl_to_output_file(capsys, scen, tmp_path):
    path = tmp_path / "all.jsonl"
    code, out, err = trample(capsys, "enumerate", scen, "--output", path)
    assert (code, out) == (0, "")
    assert [json.loads(x) for x in path.read_text().splitlines()] == ORDER  # direct engine: canonical order


def test_enumerate_limit_asks_no_larger_block(capsys, scen, monkeypatch):
    # --limit 3 on a board listed at milliseconds a row (the closed form's lister: HUGE) listed a whole block of
    # rows, or 0.25 s of them, before writing three: the blocks asked for are now no larger than the limit
    from trample.step import DamageStep

    asked, blocks = [], DamageStep.assignment_blocks

    def recorded(self, rows=1 << 16, **kwargs):
        asked.append(rows)
        return blocks(self, rows=rows, **kwargs)

    monkeypatch.setattr(DamageStep, "assignment_blocks", recorded)
    code, out, err = trample(capsys, "enumerate", scen, "--limit", 3)
    assert (code, [json.loads(x) for x in out.splitlines()], err) == (0, ORDER[:3], "")
    assert asked == [3]


def test_progress_bar_renders_with_rich():
    rich_console = pytest.importorskip("rich.console")
    buf = io.StringIO()
    console = rich_console.Console(file=buf, force_terminal=True, width=80)
    with Progress(100, "enumerate", True, console=console) as bar:
        bar.advance(60)
        bar.advance(40)
    assert "100/100" in buf.getvalue()
    with Progress(100, "enumerate", False) as bar:  # disabled: a no-op
        bar.advance(5)
        bar(7, 100)
    buf = io.StringIO()
    console = rich_console.Console(file=buf, force_terminal=True, width=80)
    with Progress(None, "searched", True, console=console) as bar:  # the total known once work starts
        bar(0, 30)
        bar(30, 30)
    assert "30/30" in buf.getvalue()


@pytest.mark.parametrize("option", [["--time-limit", "1"], ["--columns", "a"]])
def test_shards_refuse_their_options_before_any_work(capsys, scen, tmp_path, monkeypatch, option):
    # the refusal is checked before trample.shard (numpy, the pool) is imported: on a loaded machine that import
    # took past a 1 s limit, and the command said "stopped at the time limit" instead of naming the option
    monkeypatch.setitem(sys.modules, "trample.shard", None)  # importing it now fails
    code, out, err = trample(capsys, "enumerate", scen, "--shards", 2, "--output", tmp_path / "d", *option)
    assert code == 2 and out == "" and err.startswith(f"trample: {option[0]}: not with --shards")
