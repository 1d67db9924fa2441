"""Shards by canonical index range: disjoint, in order, together exactly the whole space -- on the
stdlib process pool, serially, and on a Dask LocalCluster; a .jsonl batch counted in chunks on each backend."""

from __future__ import annotations

import json
import operator
import subprocess
import sys

import numpy as np
import pytest
from test_perf_paths import independent

from trample import Combat
from trample.engines.direct import plan_blocks
from trample.models import FormatError
from trample.shard import (
    count_documents,
    count_split,
    count_where,
    enumerate_shards,
    map_reduce,
    shard_ranges,
    top_k,
)

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
    # one scenario with --backend: its count shared by the workers (count_split), the same number
    plain = subprocess.run([*run, "count", str(sc)], capture_output=True, text=True)
    split = subprocess.run(
        [*run, "count", str(sc), "--backend", "process", "--workers", "2"], capture_output=True, text=True
    )
    assert plain.stdout == split.stdout and split.returncode == 0 and split.stderr == ""
    bad = subprocess.run([*run, "enumerate", str(sc), "--backend", "dask"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--shards" in bad.stderr
    nodir = subprocess.run([*run, "enumerate", str(sc), "--shards", "2"], capture_output=True, text=True)
    assert nodir.returncode == 2 and "--output" in nodir.stderr


# -- the programme shipped once; reducing on the workers; one count in parts (issue 21) ---------------------------


def _odd_total(block):  # module level: pickled by reference for the process pool and Dask
    return block.sum(axis=1) % 2 == 1


def _first_minus_last(block):
    return block[:, 0].astype(np.int64) * 3 - block[:, -1]


def _generated_boards():
    from benchmarks.boards import pw_cycle, random_sharing

    return [shared_board(), random_sharing(4, 5, seed=3, power=(2, 4)), pw_cycle(3, power=4)]


@pytest.mark.parametrize("backend", ["serial", "process", pytest.param("dask", marks=pytest.mark.slow)])
def test_reducers_on_the_workers_equal_the_serial_answer(backend):
    # count_where and top_k fold each shard's rows where they are made; the answer is the one over the whole
    # matrix (plan_blocks), computed here directly: ties in top_k go to the smaller canonical index
    for sc in _generated_boards():
        combat = Combat(sc, engine="direct")
        full = np.concatenate(list(plan_blocks(combat.plan)))
        opts = {"shards": 5, "backend": backend, "workers": 2}
        assert count_where(sc, _odd_total, **opts) == int(np.count_nonzero(_odd_total(full)))
        scores = _first_minus_last(full)
        best = np.argsort(-scores, kind="stable")[:7]
        want = [(int(scores[i]), int(i), tuple(full[i].tolist())) for i in best]
        assert top_k(sc, _first_minus_last, 7, **opts) == want
        rows = map_reduce(sc, _row_count, operator.add, **opts)
        assert rows == len(full) == combat.count()


def _row_count(block, first):
    return len(block)


@pytest.mark.parametrize("backend", ["serial", "process", pytest.param("dask", marks=pytest.mark.slow)])
def test_one_count_in_parts_equals_the_count(backend):
    # the contraction cut into parts by one table's entries (linear in it): the parts add up to Combat.count,
    # on generated sharing graphs (random, a cycle through planeswalkers), for any number of parts
    from benchmarks.boards import pw_cycle, random_sharing

    boards = [*_generated_boards(), random_sharing(7, 9, seed=1), pw_cycle(5)]
    for sc in boards:
        want = Combat(sc).count()
        for parts in (1, 3, 8):
            assert count_split(sc, parts, backend=backend, workers=2) == want


def test_the_shipped_programme_is_built_once(monkeypatch, tmp_path):
    # serially, the tasks read the client's plan (no programme is built in a task); a process pool's workers
    # unpickle the cargo once each (its initializer), and the shards equal the serial ones
    sc = shared_board()
    built = _built_programmes(monkeypatch)
    enumerate_shards(sc, str(tmp_path / "a"), shards=6, backend="serial")
    # one lister a component: column programmes, the shared pair's too (its splits are few: direct.FEW_SPLITS)
    assert built == ["ComponentDP", "ComponentDP"]
    monkeypatch.undo()
    enumerate_shards(sc, str(tmp_path / "b"), shards=6, backend="process", workers=2)
    for k in range(6):
        a, b = (np.load(tmp_path / d / f"shard-{k:05d}.npy") for d in "ab")
        assert np.array_equal(a, b)


def _built_programmes(monkeypatch) -> list[str]:
    """The names of the listing programmes built from now on (column programmes and source programmes)."""
    import trample.engines.direct as direct
    import trample.engines.ordered as ordered

    built: list[str] = []
    for cls in (direct.ComponentDP, ordered.SourceProgramme):

        def counting(self, *args, _real=cls.__init__, _name=cls.__name__, **kwargs):
            built.append(_name)
            _real(self, *args, **kwargs)

        monkeypatch.setattr(cls, "__init__", counting)
    return built


def test_shards_on_a_random_sharing_graph_ship_the_lister_alone(monkeypatch, tmp_path):
    # the programme shipped is the one the blocks read (the source lister where it lists): the column programme,
    # which no shard reads there, is not built (it took seconds on random sharing graphs, issue 21)
    from benchmarks.boards import random_sharing

    sc = random_sharing(6, 8, per=3, seed=1)
    built = _built_programmes(monkeypatch)
    manifest = enumerate_shards(sc, str(tmp_path), shards=4, backend="serial", limit=3000)
    assert built == ["SourceProgramme"]
    monkeypatch.undo()
    got = np.concatenate([np.load(tmp_path / s["file"]) for s in manifest["shards"]])
    want = np.concatenate(list(plan_blocks(Combat(sc, engine="direct").plan, stop=3000)))
    assert np.array_equal(got, want)
    assert manifest["count"] == Combat(sc).count()


def test_cli_solve_batch_on_a_backend_prints_the_plain_lines(tmp_path):
    # solve FILE.jsonl --backend: the same lines in the same order as the plain command (time_ms aside), error
    # lines and exit code included
    batch = tmp_path / "b.jsonl"
    lines = [json.dumps(independent(1 + k % 3, power=2 + k % 3)) for k in range(5)]
    lines.insert(2, "not json")
    batch.write_text("\n".join(lines) + "\n")
    run = [sys.executable, "-m", "trample", "solve", str(batch), "--objective", "lethal,max-kills"]
    plain = subprocess.run(run, capture_output=True, text=True, timeout=300)
    pooled = subprocess.run(
        [*run, "--backend", "process", "--workers", "2"], capture_output=True, text=True, timeout=300
    )

    def lines_of(out):
        return [{k: v for k, v in json.loads(x).items() if k != "time_ms"} for x in out.splitlines()]

    assert lines_of(plain.stdout) == lines_of(pooled.stdout) and len(lines_of(plain.stdout)) == 6
    assert plain.stderr == pooled.stderr and plain.returncode == pooled.returncode == 2
    one = tmp_path / "one.json"
    one.write_text(lines[0])
    bad = subprocess.run(
        [*run[:4], str(one), "--objective", "lethal", "--backend", "process"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--backend" in bad.stderr
    assert "solve one scenario without it" in bad.stderr


def test_a_shard_is_whole_under_its_name_or_not_there(monkeypatch, tmp_path):
    # a shard is written to NAME.part and renamed once synced: a task that fails half way leaves no file (it used
    # to leave a memory-mapped file of the full size, its header promising rows never written), and a finished
    # run leaves no .part; the manifest is renamed into place the same way
    import os

    from trample import shard

    sc = shared_board()
    manifest = enumerate_shards(sc, str(tmp_path / "ok"), shards=3, backend="serial")
    assert sorted(os.listdir(tmp_path / "ok")) == ["manifest.json", *(s["file"] for s in manifest["shards"])]
    got = np.concatenate([np.load(tmp_path / "ok" / s["file"]) for s in manifest["shards"]])
    assert np.array_equal(got, np.concatenate(list(plan_blocks(Combat(sc, engine="direct").plan))))
    assert len(got) == manifest["count"]

    real = shard._blocks

    def failing(plan, start, stop):  # the first block, then the task fails
        yield next(iter(real(plan, start, stop)))
        raise MemoryError("the worker ran out of memory")

    monkeypatch.setattr(shard, "_blocks", failing)
    with pytest.raises(MemoryError):
        enumerate_shards(sc, str(tmp_path / "cut"), shards=3, backend="serial")
    assert os.listdir(tmp_path / "cut") == []


def test_a_prefix_listers_programme_ships_to_the_workers(tmp_path):
    # on a board the source programme lists prefix by prefix (the count's joins with the prefix fixed: its lister
    # holds roots_after's answer and a Spare of blocks), the shipped programme pickles: a closure ("Can't pickle
    # local object 'SourceProgramme.roots_after.<locals>.root'") and the Spare's lock made `enumerate --shards`
    # a traceback; unpickled, it lists the same rows
    import pickle

    from benchmarks.boards import random_sharing
    from trample.engines.conditioned import PrefixLister
    from trample.shard import Cargo, built_plan

    sc = random_sharing(12, 14, 4, seed=6)
    plan = built_plan(Combat(sc, engine="direct"))
    listers = list(plan.cache._by_engine["direct"].values())
    assert any(isinstance(p, PrefixLister) for p in listers)  # the prefix lister is what is shipped
    shipped = pickle.loads(Cargo(plan).blob)
    want = np.concatenate(list(plan_blocks(Combat(sc, engine="direct").plan, stop=3000)))
    assert np.array_equal(np.concatenate(list(plan_blocks(shipped, stop=3000))), want)
    manifest = enumerate_shards(sc, str(tmp_path), shards=3, backend="process", workers=2, limit=3000)
    got = np.concatenate([np.load(tmp_path / s["file"]) for s in manifest["shards"]])
    assert np.array_equal(got, want)
