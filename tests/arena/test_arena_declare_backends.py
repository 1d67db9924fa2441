"""The declaration arenas (``trample arena --game blocks|attacks``) on every backend: a process pool of two workers
and Dask (a LocalCluster on 127.0.0.1) give the results of the serial run, board for board and on the leaderboard
(each decision's seed depends on the board and the player only, never on where it is played)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from clusters import local_cluster
from test_arena_attacks import BERSERKER, PROPAGANDA

from trample.arena import attacks_arena, blocks_arena
from trample.arena.metrics import strip_timing
from trample.arena.runner import run_attacks_arena, run_blocks_arena

ROOT = Path(__file__).resolve().parents[2]

#: a band may form (702.22c): the attack arena's players and its reference read the bands' choices too
BANDED = {"declare": "attackers", "active": "me", "players": [{"id": "opp", "life": 5}],
          "attackers": [{"id": "hero", "power": 1, "toughness": 1, "keywords": ["banding"]},
                        {"id": "ogre", "power": 4, "toughness": 3}],
          "blockers": [{"id": "wall", "power": 0, "toughness": 4}]}  # fmt: skip


def _same(a: dict, b: dict) -> None:
    assert strip_timing(a)["boards"] == strip_timing(b)["boards"]
    assert strip_timing(a)["leaderboard"] == strip_timing(b)["leaderboard"]


@pytest.mark.slow
def test_both_declaration_arenas_give_the_serial_results_on_a_pool_and_on_dask():
    distributed = pytest.importorskip("distributed")
    blocks = [item["scenario"] for item in blocks_arena.generate(4, seed=11)]
    attacks = [PROPAGANDA, BERSERKER, BANDED, *[item["scenario"] for item in attacks_arena.generate(3, seed=11)]]
    runs = {"blocks": (run_blocks_arena, blocks), "attacks": (run_attacks_arena, attacks)}
    serial = {game: run(items, seed=4) for game, (run, items) in runs.items()}
    for game, (run, items) in runs.items():
        assert len(serial[game]["boards"]) == len(items)
        _same(run(items, seed=4, workers=2, chunk_size=1), serial[game])
    with local_cluster(distributed) as cluster:
        for game, (run, items) in runs.items():
            _same(run(items, seed=4, backend="dask", scheduler=cluster.scheduler_address, chunk_size=2), serial[game])


@pytest.mark.slow
def test_the_command_on_dask_prints_the_serial_leaderboard(tmp_path):
    distributed = pytest.importorskip("distributed")
    base = [sys.executable, "-m", "trample", "arena", "--n", "3", "--seed", "2", "--format", "json"]
    with local_cluster(distributed) as cluster:
        for game in ("blocks", "attacks"):
            runs = []
            for extra in (
                [],
                ["--workers", "2"],
                ["--backend", "dask", "--scheduler", cluster.scheduler_address],
                ["--backend", "dask", "--workers", "2"],  # its own LocalCluster of two processes
            ):
                out = tmp_path / f"{game}-{len(runs)}.json"
                argv = [*base, "--game", game, "--out", str(out), *extra]
                proc = subprocess.run(argv, capture_output=True, text=True, timeout=600, cwd=ROOT)
                assert proc.returncode == 0, proc.stderr
                runs.append(json.loads(out.read_text()))
            for other in runs[1:]:
                _same(other, runs[0])
