"""The arena at scale (docs/arena.md): the same results in-process, on a process pool and on Dask distributed.

Only the wall-clock fields (``time_ms*``, ``elapsed_s``) may differ; boards come back in order and every
random choice is seeded from (seed, board, player).
"""

from __future__ import annotations

import json
import os
import shlex
import sys

import pytest
from clusters import local_cluster

from trample.arena import generate, load_suite, run_arena, strip_timing
from trample.arena.runner import Chunks

PLAYER = (
    "import json,sys\nfor line in sys.stdin:\n    s = json.loads(line)['scenario']\n"
    "    print(json.dumps({a['id']: {} for a in s['attackers']}), flush=True)\n"
)


# a loaded machine (CI runs the suite on every core) can take seconds to start the external player or answer: the
# results must not depend on it, so its limits are far beyond any wait
SLACK = {"timeout": 300, "startup_timeout": 300}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    path = tmp_path_factory.mktemp("arena") / "lazy.py"
    path.write_text(PLAYER)  # assigns nothing: illegal (510.1a) wherever an attacker has power
    players = [
        "random",
        "declaration",
        "greedy",
        "face",
        "optimal",
        f"lazy=cmd:{shlex.quote(sys.executable)} {shlex.quote(str(path))}",
    ]
    items = generate("mixed", 24, seed=8) + load_suite("known-mistakes")[:6]
    inline = run_arena(items, players=players, seed=5, chunk_size=10, **SLACK)
    return items, players, inline


def test_chunks_keep_the_order():
    assert _items(Chunks(list("abcde"), 2, {})) == [[(0, "a"), (1, "b")], [(2, "c"), (3, "d")], [(4, "e")]]
    assert _items(Chunks([], 50, {})) == []


def _items(chunks: Chunks) -> list:
    return [chunks[k]["items"] for k in range(len(chunks))]


def test_inline_results_are_reproducible(setup):
    items, players, inline = setup
    assert [b["index"] for b in inline["boards"]] == list(range(30))
    lazy = next(r for r in inline["leaderboard"] if r["player"] == "lazy")
    assert lazy["illegal_rules"] == {"510.1a": lazy["illegal"]} and lazy["illegal"] > 20
    again = run_arena(items, players=players, seed=5, chunk_size=30, **SLACK)
    assert strip_timing(again)["boards"] == strip_timing(inline)["boards"]
    other_seed = run_arena(items, players=["random"], seed=6, chunk_size=30)
    assert [b["decisions"][0]["assignment"] for b in other_seed["boards"]] != [
        b["decisions"][0]["assignment"] for b in inline["boards"]
    ]


@pytest.mark.slow
def test_process_pool_gives_the_same_results(setup):
    items, players, inline = setup
    pooled = run_arena(items, players=players, seed=5, chunk_size=10, workers=2, **SLACK)
    assert strip_timing(pooled) == strip_timing(inline)


@pytest.mark.slow
def test_dask_local_cluster_gives_the_same_results(setup):
    distributed = pytest.importorskip("distributed")
    items, players, inline = setup
    seen = []
    with local_cluster(distributed) as cluster:
        remote = run_arena(
            items,
            players=players,
            seed=5,
            chunk_size=10,
            backend="dask",
            **SLACK,
            scheduler=cluster.scheduler_address,
            progress=lambda d, t: seen.append((d, t)),
        )
    assert strip_timing(remote) == strip_timing(inline)
    assert seen[0] == (0, 30) and seen[-1] == (30, 30) and len(seen) == 4  # one step per chunk


def test_one_chunks_reaping_spares_another_chunks_running_player(tmp_path):
    # a Dask worker with threads runs two chunks in one process: when one chunk ends it kills what its players
    # left behind, never the program of a player another chunk is still using (it was killed with SIGKILL)
    import subprocess

    from trample.arena.external import become_subreaper, children_now, reap_orphans

    spare = children_now()
    become_subreaper()
    running = subprocess.Popen([sys.executable, "-c", "import signal; signal.pause()"], start_new_session=True)
    from trample.arena import external

    external._LIVE_PLAYERS.add(running.pid)  # what ExternalPlayer does when it starts its program
    try:
        reap_orphans(spare)
        assert running.poll() is None  # still alive
        external._LIVE_PLAYERS.discard(running.pid)
        reap_orphans(spare)  # no longer a running player: killed and reaped (reap_orphans collects its status)
        running.wait(timeout=10)
        assert not os.path.exists(f"/proc/{running.pid}")
    finally:
        external._LIVE_PLAYERS.discard(running.pid)
        if running.poll() is None:
            running.kill()
            running.wait()


def test_a_generated_suite_is_generate_drawn_when_read():
    from trample.arena.suites import GeneratedSuite

    suite = GeneratedSuite("mixed", 7, seed=3)
    assert len(suite) == 7 and list(suite) == generate("mixed", 7, seed=3)
    assert suite[-1] == suite[6] and suite[2:5] == generate("mixed", 3, seed=3, start=2)
    with pytest.raises(IndexError):
        suite[7]


def test_chunks_draw_their_boards_when_read_and_hash_them_in_order(monkeypatch):
    from trample.arena import suites
    from trample.arena.stats import suite_hash

    boards = generate("mixed", 12, seed=4)
    pairs = list(enumerate(boards))
    expected = [pairs[0:5], pairs[5:10], pairs[10:12]]
    drawn: list = []
    real = suites.generate_board
    monkeypatch.setattr(suites, "generate_board", lambda lv, seed, i: drawn.append(i) or real(lv, seed, i))
    chunks = Chunks(suites.GeneratedSuite("mixed", 12, seed=4), 5, {"seed": 1})
    assert len(chunks) == 3 and [chunks.boards(k) for k in range(3)] == [5, 5, 2] and drawn == []
    assert chunks[0] == {"items": expected[0], "seed": 1}
    assert drawn == [0, 1, 2, 3, 4] and chunks.hashed.boards == 5  # that chunk's boards, no others
    assert chunks[2]["items"] == expected[2]  # the chunks before it made first, each board once
    assert drawn == list(range(12)) and chunks[1]["items"] == expected[1] and drawn == list(range(12))
    assert chunks.hashed.boards == 12 and chunks.hashed.value() == suite_hash(boards)
    with pytest.raises(IndexError):
        chunks[3]


def test_run_arena_on_a_generated_suite_is_run_arena_on_its_boards():
    from trample.arena.suites import GeneratedSuite

    players = ["greedy", "random"]
    lazy = run_arena(GeneratedSuite("mixed", 12, seed=2), players=players, seed=1, chunk_size=5)
    listed = run_arena(generate("mixed", 12, seed=2), players=players, seed=1, chunk_size=5)
    assert strip_timing(lazy) == strip_timing(listed)
    assert "hashed" not in lazy["config"]["suite"]  # complete: the hash is the whole suite's


@pytest.mark.slow
def test_process_pool_and_dask_feed_a_generated_suite_chunk_by_chunk():
    # more chunks than the pool's (twice its workers) and Dask's (twice its threads) window: the chunks are made
    # and submitted as others finish, and the results are the same as in process
    distributed = pytest.importorskip("distributed")
    from trample.arena.suites import GeneratedSuite

    suite = GeneratedSuite("mixed", 14, seed=6)
    inline = strip_timing(run_arena(suite, players=["greedy"], seed=2, chunk_size=1))
    assert strip_timing(run_arena(suite, players=["greedy"], seed=2, chunk_size=1, workers=2)) == inline
    with local_cluster(distributed) as cluster:
        remote = run_arena(
            suite, players=["greedy"], seed=2, chunk_size=1, backend="dask", scheduler=cluster.scheduler_address
        )
    assert strip_timing(remote) == inline


def test_the_results_json_is_the_results_a_board_a_line(setup):
    # written with json.dump(indent=1), the pure-Python encoder: 0.25 s for 540 boards, after the time limit
    from trample.arena.report import json_text

    _, _, inline = setup
    text = json_text(inline)
    assert json.loads(text) == inline
    lines = text.splitlines()
    assert lines[0] == "{" and lines[-1] == "}" and lines[1] == ' "arena": 1,'
    boards = [line for line in lines if line.startswith('  {"index": ')]
    assert [json.loads(line.rstrip(","))["index"] for line in boards] == list(range(len(inline["boards"])))
    assert (
        json_text([]) == "[]"
        and json_text({}) == "{}"
        and json_text({"a": [1, {"b": 2}]}) == '{\n "a": [\n  1,\n  {"b": 2}\n ]\n}'
    )


@pytest.mark.parametrize("game", ["blocks", "attacks"])
def test_a_drawn_declaration_suite_is_generate_drawn_in_order(game):
    # the declaration arenas draw their boards from one seeded stream: read on, it continues; read back, it
    # starts again
    from trample.arena.declare_arena import drawn
    from trample.arena.declare_arena import generate as generate_declarations

    boards = generate_declarations(game, 25, seed=3)
    suite = drawn(game, 25, seed=3)
    assert len(suite) == 25 and suite[0:10] == boards[:10] and suite[10:25] == boards[10:]
    assert suite[3] == boards[3] and suite[-1] == boards[24] and suite[20:] == boards[20:]
    assert suite[::-5] == boards[::-5] and suite[30:] == []
    with pytest.raises(IndexError):
        suite[25]
