"""``trample cluster``: a local Dask cluster that stays up, its address on standard output, so that commands share
it through ``--scheduler`` instead of each starting its own (docs/scale.md, "Overhead of Dask").

The cluster runs in a subprocess; the test waits for its address line (a blocking read: a condition, not a
sleep) and ends it with SIGTERM. Generous timeouts only guard against a hang. No timing assertions.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OPP = [{"id": "opp", "life": 20}]


def _board(power: int) -> dict:
    """702.19b: one trampler blocked by two 1/2s."""
    return {
        "players": OPP,
        "attackers": [
            {"id": "t", "power": power, "toughness": 5, "keywords": ["trample"], "attacking": "opp",
             "blocked_by": ["b0", "b1"]}
        ],
        "blockers": [{"id": "b0", "power": 1, "toughness": 2}, {"id": "b1", "power": 1, "toughness": 2}],
    }  # fmt: skip


def _trample(*words: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "trample", *words], capture_output=True, text=True, timeout=300, cwd=ROOT
    )


def test_cluster_bad_options_are_bad_input():
    proc = _trample("cluster", "--port", "70000")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--port" in proc.stderr


@pytest.mark.slow
def test_commands_share_a_running_cluster(tmp_path):
    pytest.importorskip("distributed")
    batch = tmp_path / "boards.jsonl"
    batch.write_text("".join(json.dumps(_board(p)) + "\n" for p in range(2, 9)) + "not json\n")
    cluster = subprocess.Popen(
        [sys.executable, "-m", "trample", "cluster", "--workers", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        address = cluster.stdout.readline().strip()  # waits until the cluster is up
        assert address.startswith("tcp://127.0.0.1:"), cluster.stderr.read() if not address else address
        plain = _trample("count", str(batch))
        for _ in range(2):  # the same cluster serves one command after another
            shared = _trample("count", str(batch), "--backend", "dask", "--scheduler", address)
            assert (shared.returncode, shared.stdout) == (plain.returncode, plain.stdout), shared.stderr
    finally:
        cluster.send_signal(signal.SIGTERM)
        out, err = cluster.communicate(timeout=300)
    assert cluster.returncode == 0, err
    assert "Traceback" not in err and "closed" in err
