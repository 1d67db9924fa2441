"""Shards by canonical index range: disjoint, in order, together exactly the whole space -- on the
stdlib process pool, serially, and on a Dask LocalCluster; a .jsonl batch counted in chunks on each backend."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from test_perf_paths import independent

from trample import Combat
from trample.engines.direct import plan_blocks
from trample.models import FormatError
from trample.shard import count_documents, enumerate_shards, shard_ranges

OPP = [{"id": "opp", "life": 20}]


def shared_board():
    # two tramplers sharing a blocker, and an independent third: two components
    return {
        "players": OPP,
        "attackers": [
            {
                "id": "a",
                "power": 4,
                "toughness": 3,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": ["x", "s"],
            },
            {
                "id": "b",
                "power": 3,
                "toughness": 3,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": ["s", "y"],
            },
            {"id": "c", "power": 3, "toughness": 3, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["z"]},
        ],
        "blockers": [
            {"id": "x", "power": 1, "toughness": 2},
            {"id": "s", "power": 1, "toughness": 3},
            {"id": "y", "power": 1, "toughness": 1},
            {"id": "z", "power": 1, "toughness": 2},
        ],
    }


def test_shard_ranges_cover_the_space_in_order():
    for total in (0, 1, 7, 10**40):
        for n in (1, 3, 8):
            r = shard_ranges(total, n)
            assert r[0][0] == 0 and r[-1][1] == total and len(r) == n
            assert all(a <= b for a, b in r) and all(r[k][1] == r[k + 1][0] for k in range(n - 1))
    with pytest.raises(FormatError):
        shard_ranges(5, 0)


@pytest.mark.parametrize("backend", ["serial", "process", "dask"])
def test_shards_are_exactly_the_whole_space(tmp_path, backend):
    sc = shared_board()
    combat = Combat(sc, engine="direct")
    full = np.concatenate(list(plan_blocks(combat.plan)))
    assert len(full) == combat.count()
    manifest = enumerate_shards(sc, str(tmp_path), shards=5, backend=backend, workers=2)
    parts = [np.load(tmp_path / s["file"]) for s in manifest["shards"]]
    assert [len(p) for p in parts] == [s["stop"] - s["start"] for s in manifest["shards"]]
    assert np.array_equal(np.concatenate(parts), full)  # disjoint, in order, nothing missing
    assert json.loads((tmp_path / "manifest.json").read_text()) == manifest
    assert manifest["columns"] == [list(c) for c in combat.columns]


def test_shards_of_a_limited_huge_space(tmp_path):
    sc = independent(60)  # 2**60 assignments: shards of the first 1000 rows only
    manifest = enumerate_shards(sc, str(tmp_path), shards=3, backend="serial", limit=1000)
    got = np.concatenate([np.load(tmp_path / s["file"]) for s in manifest["shards"]])
    combat = Combat(sc)
    want = np.concatenate(list(plan_blocks(combat.plan, stop=1000)))
    assert manifest["count"] == 2**60 and np.array_equal(got, want)


@pytest.mark.parametrize("backend", ["process", "dask"])
def test_counting_a_batch_in_chunks(backend):
    docs = [(f"line {k + 1}", independent(1 + k % 3, power=2 + k % 4)) for k in range(120)]
    docs.append(("line 121", {"bad": 1}))
    got = list(count_documents(docs, backend=backend, workers=2, chunk=50))
    assert got[:-1] == [("count", Combat(d).count()) for _, d in docs[:-1]]
    assert got[-1][0] == "error" and got[-1][1].startswith("line 121: bad")


def test_cli_shards_and_distributed_count(tmp_path):
    sc = tmp_path / "s.json"
    sc.write_text(json.dumps(shared_board()))
    out = tmp_path / "out"
    run = [sys.executable, "-m", "trample"]
    r = subprocess.run([*run, "enumerate", str(sc), "--shards", "3", "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert json.loads(r.stdout) == {"shards": 3, "rows": manifest["rows"], "count": manifest["count"]}
    batch = tmp_path / "b.jsonl"
    batch.write_text("\n".join(json.dumps(independent(k + 1)) for k in range(3)) + "\nnot json\n")
    plain = subprocess.run([*run, "count", str(batch)], capture_output=True, text=True)
    pooled = subprocess.run([*run, "count", str(batch), "--backend", "process"], capture_output=True, text=True)
    assert plain.stdout == pooled.stdout and plain.returncode == pooled.returncode == 2
    bad = subprocess.run([*run, "enumerate", str(sc), "--backend", "dask"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--shards" in bad.stderr
    nodir = subprocess.run([*run, "enumerate", str(sc), "--shards", "2"], capture_output=True, text=True)
    assert nodir.returncode == 2 and "--output" in nodir.stderr
