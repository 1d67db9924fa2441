"""Running a suite of boards past a set of players, in chunks, in-process, on a process pool, or on Dask.

The unit of work is a *chunk* of consecutive boards (50 by default): a worker builds the players from their
specs, judges every board of the chunk, closes the players (stopping external programs) and returns plain
JSON data. Chunks are put back in board order, and every random choice is seeded from ``(seed, board,
player)``, so the results are the same whatever the backend and the number of workers (only the wall-clock
fields ``time_ms*`` differ).
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed

from ..models import FormatError, load_scenario
from .external import PlayerFailure
from .metrics import board_size, decision_seed, judge, objectives_of, reference, summarize, summarize_levels
from .objectives import DEFAULT_OBJECTIVE, objective_text
from .players import DEFAULT_PLAYERS, Player, make_player
from .stats import run_facts, suite_hash
from .suites import one_step

DEFAULT_CHUNK = 50
BACKENDS = ("local", "dask")


def evaluate_chunk(payload: dict) -> list[dict]:
    """Judge every board of one chunk. ``payload``: items [(index, item)], players, objective, seed, timeout."""
    players = [make_player(p, timeout=payload.get("timeout")) for p in payload["players"]]
    out = []
    try:
        for index, item in payload["items"]:
            out.append(evaluate_board(index, item, players, payload["objective"], payload["seed"]))
    finally:
        for p in players:
            try:
                p.close()
            except Exception:  # a player that cannot even close must not lose the chunk
                pass
    return out


def evaluate_board(index: int, item: dict, players: Sequence[Player], objective: str, seed: int) -> dict:
    scenario = load_scenario(item["scenario"], f"board {index}: scenario")
    one_step(scenario, f"board {index}: scenario.step")
    objectives = objectives_of(item, objective, scenario, f"board {index}: objective")
    text = objective_text(objectives)
    ref = reference(scenario, objectives)
    decisions = []
    for player in players:
        failure = output = None
        start = time.perf_counter()
        try:
            output = player.decide(scenario, text, decision_seed(seed, index, player.name))
        except PlayerFailure as err:
            failure = (err.kind, err.message)
        except Exception as err:  # an in-process player's bug is its illegal decision, not the run's end
            failure = ("error", f"{type(err).__name__}: {err}")
        elapsed = (time.perf_counter() - start) * 1000
        decisions.append(judge(scenario, objectives, ref, player.name, output, failure, round(elapsed, 3)))
    board = {
        "index": index,
        "id": item.get("id", str(index)),
        "scenario": scenario.to_json(),  # the board itself: the results can be re-scored from themselves
        "objective": text,
        "size": board_size(scenario),
        "reference": ref,
        "decisions": decisions,
    }
    for key in ("rule", "level"):
        if key in item:
            board[key] = item[key]
    return board


def chunked(items: Sequence[dict], size: int) -> list[list[tuple[int, dict]]]:
    size = max(1, int(size))
    indexed = list(enumerate(items))
    return [indexed[i : i + size] for i in range(0, len(indexed), size)]


def run_arena(
    items: Sequence[dict],
    players: Iterable = DEFAULT_PLAYERS,
    objective: str = DEFAULT_OBJECTIVE,
    seed: int = 0,
    workers: int = 1,
    backend: str = "local",
    scheduler=None,
    chunk_size: int = DEFAULT_CHUNK,
    timeout: float | None = None,
    progress: Callable[[int, int], None] | None = None,
    suite: dict | None = None,
) -> dict:
    """Score ``players`` on ``items`` and return the results (JSON-ready).

    ``players``: specs (``"greedy"``, ``"cmd:..."``, ``"py:module:attr"``) or :class:`Player` objects (with
    ``workers > 1`` or Dask they must pickle). ``backend="local"`` runs in this process when ``workers == 1``
    and on a process pool otherwise; ``backend="dask"`` submits the chunks to ``scheduler`` (an address, a
    ``distributed.Client``, or None for a local cluster of ``workers`` processes).
    ``progress(done, total)`` is called as boards are finished.
    """
    items = list(items)
    specs = list(players)
    names = _player_names(specs, timeout)
    if backend not in BACKENDS:
        raise ValueError(f"backend: expected one of {', '.join(BACKENDS)}, got {backend!r}")
    payloads = [
        {"items": chunk, "players": specs, "objective": objective, "seed": seed, "timeout": timeout}
        for chunk in chunked(items, chunk_size)
    ]
    started = time.perf_counter()
    total = len(items)
    if progress:
        progress(0, total)
    if backend == "dask":
        parts = _run_dask(payloads, scheduler, workers, progress, total)
    elif workers > 1 and len(payloads) > 1:
        parts = _run_pool(payloads, workers, progress, total)
    else:
        parts = _run_inline(payloads, progress, total)
    boards = [b for part in parts for b in part]
    results = {
        "arena": 1,
        "config": {
            "objective": objective,
            "seed": seed,
            "players": names,
            "boards": total,
            "chunk_size": chunk_size,
            "timeout": timeout,
            "suite": {**(suite or {}), "hash": suite_hash(items)},
        },
        "facts": run_facts(seed),
        "leaderboard": summarize(boards, names),
        "boards": boards,
        "elapsed_s": round(time.perf_counter() - started, 3),
    }
    levels = summarize_levels(boards, names)
    if levels:
        results["by_level"] = levels
    return results


def _player_names(specs, timeout) -> list[str]:
    names = []
    for spec in specs:
        p = make_player(spec, timeout=timeout)
        if p.name in names:
            raise FormatError("players", f'two players are named "{p.name}"; rename one (NAME=spec)')
        names.append(p.name)
        if not isinstance(spec, Player):
            p.close()
    return names


def _run_inline(payloads, progress, total):
    """In this process: the players are built once for the whole run (an external program keeps running)."""
    if not payloads:
        return []
    first = payloads[0]
    players = [make_player(p, timeout=first.get("timeout")) for p in first["players"]]
    parts, done = [], 0
    try:
        for payload in payloads:
            part = []
            for index, item in payload["items"]:
                part.append(evaluate_board(index, item, players, payload["objective"], payload["seed"]))
                done += 1
                if progress:
                    progress(done, total)
            parts.append(part)
    finally:
        for p in players:
            try:
                p.close()
            except Exception:
                pass
    return parts


def _run_pool(payloads, workers, progress, total):
    ctx = multiprocessing.get_context("spawn")  # no fork of a process that may hold solver threads
    parts: list = [None] * len(payloads)
    done = 0
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = {pool.submit(evaluate_chunk, p): i for i, p in enumerate(payloads)}
        for fut in as_completed(futures):
            i = futures[fut]
            parts[i] = fut.result()
            done += len(payloads[i]["items"])
            if progress:
                progress(done, total)
    return parts


def _run_dask(payloads, scheduler, workers, progress, total):
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise RuntimeError("the dask backend needs dask[distributed] (pip install 'trample[dask]')") from None
    own_cluster = own_client = None
    if scheduler is None:
        own_cluster = LocalCluster(
            n_workers=max(1, workers),
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        )  # no fixed port 8787
        client = own_client = Client(own_cluster)
    elif isinstance(scheduler, str):
        client = own_client = Client(scheduler, timeout="10s")
    else:
        client = scheduler
    try:
        futures = client.map(evaluate_chunk, payloads, pure=False)
        where = {f.key: i for i, f in enumerate(futures)}
        parts: list = [None] * len(payloads)
        done = 0
        for fut in as_completed(futures):
            i = where[fut.key]
            parts[i] = fut.result()
            done += len(payloads[i]["items"])
            if progress:
                progress(done, total)
        return parts
    finally:
        if own_client is not None:
            own_client.close()
        if own_cluster is not None:
            own_cluster.close()
