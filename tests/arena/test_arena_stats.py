"""Publishable arena results: confidence intervals on every leaderboard figure, per-level breakdowns,
the suite and the run's facts in the results file, re-scoring a results file from itself alone, `trample score -`
on JSON Lines, a leaderboard readable at 80 columns, and the PNG report."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from trample.arena import FunctionPlayer, generate, run_arena
from trample.arena.metrics import strip_timing, summarize, summarize_levels
from trample.arena.report import leaderboard_text, print_leaderboard, run_title, write_png
from trample.arena.stats import bootstrap, suite_hash, wilson
from trample.cli import main

ROOT = Path(__file__).resolve().parents[2]


def lazy(scenario, objective, seed):
    return {}  # assigns nothing: 510.1a (a source must assign all its combat damage) is broken


@pytest.fixture(scope="module")
def results():
    items = generate("tiny", 8, seed=2) + generate("shared", 8, seed=2)
    return run_arena(items, players=["random", "greedy", "optimal", FunctionPlayer("lazy", lazy)], seed=5)


def test_wilson_and_bootstrap():
    assert wilson(0, 100) == pytest.approx([0.0, 0.036994], abs=1e-5)  # the textbook 0/100 Wilson interval
    lo, hi = wilson(50, 100)
    assert lo < 0.5 < hi and hi - lo == pytest.approx(0.192, abs=0.002)
    assert wilson(0, 0) is None
    data = [0, 0, 0, 1, 2, 0, 0, 3, 0, 0] * 5
    ci = bootstrap(data, "mean", seed=1)
    assert ci == bootstrap(data, "mean", seed=1)  # seeded: the same interval on every run
    assert ci[0] < sum(data) / len(data) < ci[1]
    assert bootstrap([2, 2, 2], "mean") == [2, 2] and bootstrap([], "mean") is None


def test_bootstrap_without_scipy_is_a_seeded_numpy_percentile_bootstrap():
    code = (
        "import sys; sys.modules['scipy'] = None\n"
        "from trample.arena.stats import bootstrap, method\n"
        "print(bootstrap([0, 1, 2, 3, 4, 5, 6, 7], 'median', seed=3), method())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "numpy percentile bootstrap" in out and out.startswith("[")
    lo, hi = json.loads(out.split("]")[0] + "]")
    assert lo <= 3.5 <= hi


def test_every_leaderboard_figure_has_an_interval(results):
    for row in results["leaderboard"]:
        ci = row["ci"]
        for key in ("illegal_rate", "optimal_share"):
            assert ci[key][0] <= row[key] <= ci[key][1]
        if row["regret_mean"] is not None:
            assert ci["regret_mean"][0] <= row["regret_mean"] <= ci["regret_mean"][1]
        assert row["time_ms_median_ci"][0] <= row["time_ms_median"] <= row["time_ms_median_ci"][1]
    lazy_row = next(r for r in results["leaderboard"] if r["player"] == "lazy")
    assert lazy_row["illegal_rate"] == 1 and "510.1a" in lazy_row["illegal_rules"]


def test_per_level_breakdown(results):
    levels = results["by_level"]
    assert set(levels) == {"tiny", "shared"}
    assert all(row["decisions"] == 8 for rows in levels.values() for row in rows)
    for level, rows in levels.items():  # each level's leaderboard is that level's boards summarized
        assert rows == summarize([b for b in results["boards"] if b["level"] == level], [r["player"] for r in rows])


def test_a_level_of_every_board_has_the_leaderboard_of_the_run():
    # a generated suite is one level: its leaderboard is copied from the run's (not bootstrapped twice), and it
    # is the level's boards summarized; the copy is its own (the run's rows get "benched", the level's do not)
    results = run_arena(generate("tiny", 6, seed=4), players=["random", "greedy", "optimal"], seed=1)
    (rows,) = results["by_level"].values()
    boards = results["boards"]
    assert (
        rows
        == summarize(boards, ["random", "greedy", "optimal"])
        == summarize_levels(boards, ["random", "greedy", "optimal"])["tiny"]
    )
    assert rows is not results["leaderboard"] and all(a is not b for a, b in zip(rows, results["leaderboard"]))
    assert [r["ci"] for r in rows] == [r["ci"] for r in sorted(results["leaderboard"], key=lambda r: r["rank"])]


def test_the_results_carry_the_suite_and_the_facts(results):
    facts = results["facts"]
    for key in ("trample", "ortools", "python", "numpy", "machine", "seed", "command", "statistics"):
        assert facts[key] is not None, key
    assert facts["seed"] == 5
    assert len(facts["git_commit"]) == 40  # the tests run from a git checkout
    items = generate("tiny", 8, seed=2) + generate("shared", 8, seed=2)
    assert results["config"]["suite"]["hash"] == suite_hash(items)
    assert [b["id"] for b in results["boards"]] == [item["id"] for item in items]
    assert all("scenario" in b for b in results["boards"])


def test_a_results_file_is_rescored_from_itself(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["arena", "--level", "mixed", "--n", "6", "--seed", "4", "--out", str(out), "--format", "json"]) == 0
    arena = json.loads(capsys.readouterr().out)
    assert main(["score", str(out), "--format", "json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert strip_timing(scored["leaderboard"]) == strip_timing(arena["leaderboard"])


def test_score_reads_json_lines_on_stdin(results):
    lines = "".join(
        json.dumps({"scenario": b["scenario"], "assignment": d["assignment"], "player": d["player"],
                    "objective": b["objective"]}) + "\n"
        for b in results["boards"] for d in b["decisions"] if d["player"] in ("greedy", "random")
    )  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-m", "trample", "score", "-", "--format", "json"],
        input=lines, capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = {r["player"]: r for r in json.loads(proc.stdout)["leaderboard"]}
    for row in results["leaderboard"]:
        if row["player"] in rows:
            assert rows[row["player"]]["regret_mean"] == row["regret_mean"]
            assert rows[row["player"]]["ci"]["regret_mean"] == row["ci"]["regret_mean"]


def test_the_leaderboard_reads_at_80_columns(results):
    buf = io.StringIO()
    print_leaderboard(results, file=buf, width=80)
    text = buf.getvalue()
    assert text == leaderboard_text(results, width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    header = next(line for line in text.splitlines() if "player" in line)
    for column in ("#", "player", "illegal", "mean regret", "max", "optimal", "lethal", "ms"):
        assert column in header
    assert "…" not in text  # nothing cut
    assert "lazy: 510.1a ×16" in text  # the rules broken, in full
    assert "level tiny: 8 boards" in text and "level shared: 8 boards" in text


def test_png_report(results, tmp_path):
    path = tmp_path / "r.png"
    write_png(results, str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    results = dict(results, config={**results["config"], "suite": {"level": "tiny+shared"}})
    assert run_title(results) == (
        "trample arena: 16 boards (level tiny+shared), seed 5, objective max-damage,max-value"
    )


def test_report_of_no_board_draws_without_warnings(tmp_path):
    # a run stopped before its first board still writes its --report; matplotlib warned "No artists with labels"
    pytest.importorskip("matplotlib")
    import warnings

    results = run_arena([], players=["greedy", "optimal"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_png(results, str(tmp_path / "none.png"))
    assert (tmp_path / "none.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_drawn_while_matplotlib_is_still_imported_in_a_thread(tmp_path):
    # arena --report imports matplotlib.pyplot in a thread while the boards are played (trample.limits.import_soon);
    # a run stopped at once drew its report while that import was half done: "partially initialized module
    # 'matplotlib.pyplot' has no attribute 'switch_backend'"
    pytest.importorskip("matplotlib")
    code = (
        "from trample.limits import import_soon\n"
        "from trample.arena import run_arena\n"
        "from trample.arena.report import write_png\n"
        "results = run_arena([], players=['greedy'])\n"
        "import_soon('matplotlib.pyplot')\n"
        f"write_png(results, {str(tmp_path / 'r.png')!r})\n"
    )
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_whole_combat_results_are_rescored_from_themselves(tmp_path, capsys):
    pytest.importorskip("pyspiel")
    out = tmp_path / "c.json"
    argv = ["arena", "--game", "combat", "--n", "4", "--seed", "3", "--players", "first-legal,optimal", "--out"]
    assert main([*argv, str(out), "--format", "json"]) == 0
    arena = json.loads(capsys.readouterr().out)
    assert main(["score", str(out), "--format", "json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert strip_timing(scored["leaderboard"]) == strip_timing(arena["leaderboard"])


# A run stopped by its time limit (or an interrupt) wrote its partial results only after importing scipy.stats for
# their intervals: 0.3 s of CPU, over a second of wall time on a loaded machine, and an import cannot be cut short
# (`arena --n 400 --time-limit 1` answered at 2.0-2.5 s once boards had been played; benchmarks/bench_limits.py).
# Stopped before scipy.stats was imported, it now takes the numpy bootstrap, and says so in facts.statistics.
def test_a_stopped_run_does_not_import_scipy_stats_for_its_intervals():
    code = (
        "import sys\n"
        "from trample.limits import interrupt\n"
        "from trample.arena.stats import bootstrap, method\n"
        "interrupt()\n"
        "print(bootstrap([0, 1, 2, 3, 4, 5, 6, 7], 'median', seed=3), method(), 'scipy.stats' in sys.modules)"
    )
    stopped = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "numpy percentile bootstrap" in stopped and stopped.rstrip().endswith("False")
    hidden = "import sys; sys.modules['scipy'] = None\n" + code  # the numpy bootstrap of a machine without scipy
    without = subprocess.run([sys.executable, "-c", hidden], capture_output=True, text=True, check=True).stdout
    assert stopped.split("]")[0] == without.split("]")[0]


def test_a_stopped_run_keeps_scipy_stats_once_it_is_imported():
    pytest.importorskip("scipy.stats")
    code = (
        "import scipy.stats\n"
        "from trample.limits import interrupt\n"
        "from trample.arena.stats import bootstrap, method\n"
        "a = bootstrap([0, 1, 2, 3, 4, 5, 6, 7], 'median', seed=3)\n"
        "interrupt()\n"
        "print(a == bootstrap([0, 1, 2, 3, 4, 5, 6, 7], 'median', seed=3), method())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("True") and "scipy" in out and "numpy percentile" not in out


def test_arena_stopped_at_its_time_limit_writes_its_results_without_scipy_stats(tmp_path):
    out_file = tmp_path / "r.json"
    code = (
        "import sys\n"
        "from trample.cli import main\n"
        "code = main(['arena', '--n', '3000', '--players', 'greedy', '--time-limit', '5',"
        f" '--out', {str(out_file)!r}])\n"
        "print(code, 'scipy.stats' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.stdout.split()[-2:] == ["1", "False"], run.stderr
    assert "stopped at the time limit of 5 s" in run.stderr
    results = json.loads(out_file.read_text())
    assert results["complete"] is False and "numpy percentile bootstrap" in results["facts"]["statistics"]


def test_row_medians_are_numpys_medians():
    # the numpy bootstrap's medians (without np.median, whose first call imports numpy.ma): the same floats
    import numpy as np

    from trample.arena.stats import _row_medians

    rng = np.random.default_rng(7)
    for n in range(1, 30):
        for rows in (rng.integers(0, 9, (50, n)).astype(float), rng.random((50, n)) * 1e3):
            assert np.array_equal(_row_medians(rows), np.median(rows, axis=1)), n
