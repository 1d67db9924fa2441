"""The docs' figures and tables are produced by benchmarks/docs_figures.py and checked here (not pasted)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import docs_figures  # noqa: E402


def test_the_training_table_is_the_committed_run():
    run = json.loads((ROOT / "docs" / "data" / "train_ppo.json").read_text())
    text, data = docs_figures.train_figure(run)
    assert docs_figures.block(ROOT / "docs" / "arena.md", "train-ppo") == text
    assert data["regret"][0] == run["curve"][0]["regret_mean"] and data["baselines"]["optimal"] == 0


def test_a_changed_number_is_a_drift(tmp_path):
    # the check compares text: one regret changed in the run changes the table
    run = json.loads((ROOT / "docs" / "data" / "train_ppo.json").read_text())
    text, _ = docs_figures.train_figure(run)
    run["baselines"]["greedy"]["regret_mean"] += 0.5
    assert docs_figures.train_figure(run)[0] != text


@pytest.mark.slow
def test_the_300_board_table_and_report_data_reproduce():
    # docs/arena.md's 300-board leaderboard and docs/data/arena-report.json (what docs/arena-report.png draws)
    results = docs_figures.arena_results(workers=2)
    text, data = docs_figures.arena_figure(results)
    assert docs_figures.block(ROOT / "docs" / "arena.md", "arena-300") == text
    assert json.loads((ROOT / "docs" / "data" / "arena-report.json").read_text()) == data
