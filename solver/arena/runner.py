"""Running a suite of boards past a set of players, in chunks, in-process, on a process pool, or on Dask.

The unit of work is a *chunk* of consecutive boards (50 by default): a worker builds the players from their
specs, judges every board of the chunk, closes the players (stopping external programs) and returns plain
JSON data. Chunks are put back in board order, and every random choice is seeded from ``(seed, board,
player)``, so the results are the same whatever the backend and the number of workers (only the wall-clock
fields ``time_ms*`` differ).
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import shlex
import signal
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

from .. import cluster
from ..limits import interrupted as was_interrupted
from ..models import FormatError, load_scenario
from .external import PlayerFailure, become_subreaper, children_now, reap_orphans
from .metrics import board_size, decision_seed, judge, objectives_of, reference, summarize, summarize_levels
from .objectives import DEFAULT_OBJECTIVE, objective_text
from .players import DEFAULT_PLAYERS, Player, chunk_player, close_all, make_player
from .stats import SuiteHash, run_facts, setup_facts
from .suites import LazySuite, one_step

DEFAULT_CHUNK = 50
BACKENDS = ("local", "dask")
#: seconds a stopped pool's workers get to end after SIGTERM before SIGKILL: with external players, to close their
#: programs themselves (what a killed worker leaves behind is reaped by this process all the same); without, they
#: have nothing to close, and a worker inside a CP-SAT solve only sees SIGTERM when the solve returns (1.5 s on 2
#: loaded cores: arena --workers 2 --time-limit 8 ended 2.3-2.6 s past its limit)
STOP_GRACE, STOP_GRACE_EXTERNAL = 0.1, 2.0


def evaluate_chunk(payload: dict) -> list[dict]:
    """Judge every board of one chunk. ``payload``: items [(index, item)], players, objective, seed, timeout,
    startup_timeout, max_failures; ``"game": "combat"`` plays whole combats (:mod:`trample.arena.whole_arena`),
    ``"blocks"`` and ``"attacks"`` declarations (:mod:`trample.arena.declare_arena`)."""
    if payload.get("game") in ("combat", "blocks", "attacks"):
        if payload["game"] == "combat":
            from .whole_arena import evaluate_combat_chunk
        else:
            from .declare_arena import evaluate_chunk as evaluate_combat_chunk

        spare = children_now()
        try:
            return evaluate_combat_chunk(payload)
        finally:
            reap_orphans(spare)
    spare = children_now()
    players = [chunk_player(p, payload) for p in payload["players"]]
    out = []
    try:
        for index, item in payload["items"]:
            out.append(evaluate_board(index, item, players, payload["objective"], payload["seed"]))
    finally:
        close_all(players)
        reap_orphans(spare)
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


class Chunks:
    """A run's payloads, chunk ``k`` holding boards ``k * size ..`` (as ``(index, item)`` pairs) with ``common``'s
    fields, each made when first read, in order. A :class:`~trample.arena.suites.LazySuite` draws its boards then,
    so play starts at once and a stop leaves no drawing behind it; ``hashed`` takes the boards as they are
    reached (:func:`~trample.arena.stats.suite_hash` of every board once the last chunk is made)."""

    def __init__(self, items: Sequence[dict], size: int, common: dict):
        self.items, self.size, self.common = items, max(1, int(size)), common
        self.hashed = SuiteHash()
        self._made: list[dict] = []

    def __len__(self) -> int:
        return -(-len(self.items) // self.size)

    def boards(self, k: int) -> int:
        """How many boards chunk ``k`` holds (without making it)."""
        return min(self.size, len(self.items) - k * self.size)

    def __getitem__(self, k: int) -> dict:
        if not 0 <= k < len(self):
            raise IndexError(f"chunk {k} of {len(self)}")
        while len(self._made) <= k:
            start = len(self._made) * self.size
            chunk = list(enumerate(self.items[start : start + self.size], start))
            for _, item in chunk:
                self.hashed.add(item)
            self._made.append({"items": chunk, **self.common})
        return self._made[k]


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
    startup_timeout: float | None = None,
    max_failures: int | None = None,
    keep_on_interrupt: bool = False,
    game: str = "step",
) -> dict:
    """Score ``players`` on ``items`` and return the results (JSON-ready).

    ``items``: suite items (``{"scenario": ..., "objective": ...}``), scenario dicts or :class:`trample.Scenario`
    objects. ``game="combat"``: whole combats (:func:`run_whole_arena`); ``"blocks"``, ``"attacks"``: declarations
    (:func:`run_blocks_arena`, :func:`run_attacks_arena`).

    ``players``: specs (``"greedy"``, ``"cmd:..."``, ``"py:module:attr"``) or :class:`Player` objects (with
    ``workers > 1`` or Dask they must pickle). ``backend="local"`` runs in this process when ``workers == 1``
    and on a process pool otherwise; ``backend="dask"`` submits the chunks to ``scheduler`` (an address, a
    ``distributed.Client``, or None for a local cluster of ``workers`` processes).
    ``progress(done, total)`` is called as boards are finished. ``timeout``, ``startup_timeout`` and
    ``max_failures`` configure external players (docs/arena.md).

    ``"complete"`` says whether every board was played. A worker process that dies has its boards played again
    (``"retried"``: how many boards); boards that could not be played are left out (``"complete": false``).
    ``keep_on_interrupt``: on KeyboardInterrupt (SIGINT, SIGTERM) return the boards finished so far, with
    ``"complete": false`` and ``"interrupted": true``, instead of raising.
    """
    items = items if isinstance(items, LazySuite) else suite_items(items)
    specs = _specs(players, backend, game)
    names = _names_of(specs, game, timeout)
    options = {"timeout": timeout, "startup_timeout": startup_timeout, "max_failures": max_failures}
    common = {"players": specs, "objective": objective, "seed": seed, "game": game, **options}
    payloads = Chunks(items, chunk_size, common)
    started = time.perf_counter()
    setup_facts()  # read now: a run stopped by Ctrl-C or its time limit writes its results without that work
    total = len(items)
    if progress:
        progress(0, total)
    run = _play(payloads, specs, backend, scheduler, workers, progress, total, keep_on_interrupt)
    boards = [b for i in sorted(run.parts) for b in run.parts[i]]
    leaderboard = summarize(boards, names)
    levels = summarize_levels(boards, names, leaderboard)  # before mark_benched adds to the rows
    config = {"objective": objective, "seed": seed, "players": names, "boards": total, "chunk_size": chunk_size}
    hashed = payloads.hashed  # the boards reached: every board unless the run stopped first
    described = {**(suite or {}), "hash": hashed.value()}
    if hashed.boards < total:  # the hash is of the boards drawn before the stop: the suite of --n hashed.boards
        described["hashed"] = hashed.boards
    config.update(options, suite=described)  # timeout, startup_timeout, max_failures
    results = {
        "arena": 1,
        "config": config,
        "facts": run_facts(seed),
        "leaderboard": mark_benched(leaderboard, boards),
        "boards": boards,
        "complete": len(boards) == total,
        "played": len(boards),
        "retried": run.tally["retried"],
        "elapsed_s": round(time.perf_counter() - started, 3),
    }
    if levels:
        results["by_level"] = levels
    if run.interrupted:
        results["interrupted"] = True
    if run.lost is not None:
        results["workers_lost"] = run.lost
    return results


def _specs(players: Iterable, backend: str, game: str) -> list:
    """The players' specs, checked against the backend and the game (a Dask worker runs a command by its
    absolute path)."""
    specs = list(players)
    if backend not in BACKENDS:
        raise ValueError(f"backend: expected one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "dask":
        specs = absolute_commands(specs)
    if game not in ("step", "combat", "blocks", "attacks"):
        raise ValueError(f"game: expected 'step', 'combat', 'blocks' or 'attacks', got {game!r}")
    return specs


def _names_of(specs: list, game: str, timeout: float | None) -> list:
    """The players' names as the results list them (each game names its players its own way)."""
    if game in ("blocks", "attacks"):
        from .declare_arena import player_names as declaration_player_names

        return declaration_player_names(specs, game)
    if game == "combat":
        from .whole_arena import player_names

        return player_names(specs)
    return _player_names(specs, timeout)


@dataclass
class _Run:
    """What playing the chunks left: each chunk's boards by chunk number (filled as chunks finish), how many
    boards were played again, whether an interrupt stopped it, and why every Dask worker was lost (or None)."""

    parts: dict[int, list] = field(default_factory=dict)
    tally: dict[str, int] = field(default_factory=lambda: {"retried": 0})
    interrupted: bool = False
    lost: str | None = None


def _play(payloads, specs, backend, scheduler, workers, progress, total, keep_on_interrupt: bool) -> _Run:
    """Play every chunk on the backend; the chunks finished are kept when every Dask worker is lost and, with
    ``keep_on_interrupt``, on an interrupt."""
    run = _Run()
    external = any(isinstance(s, str) and "cmd:" in s for s in specs)
    spare = children_now()
    if external:
        become_subreaper()  # from now on, what a worker's players leave behind when it dies comes to this process
    try:
        if backend == "dask":
            _run_dask(payloads, scheduler, workers, progress, total, run.parts, run.tally)
        elif workers > 1 and len(payloads) > 1:
            grace = STOP_GRACE_EXTERNAL if external else STOP_GRACE
            _run_pool(payloads, workers, progress, total, run.parts, run.tally, grace=grace)
        else:
            _run_inline(payloads, progress, total, run.parts)
    except cluster.WorkersLost as err:  # every Dask worker gone: the chunks finished are kept, "complete": false
        run.lost = str(err)
    except BaseException as err:
        # An interrupt, or an error it caused (a module import cut short by it raises ImportError)
        if not keep_on_interrupt or not (isinstance(err, KeyboardInterrupt) or was_interrupted()):
            raise
        run.interrupted = True
    finally:
        if external:
            reap_orphans(spare)
    return run


def run_whole_arena(
    items: Sequence,
    players: Sequence = ("optimal", "openspiel-mcts", "openspiel-random"),
    objective: str = "max-damage",
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    suite: dict | None = None,
    **options,
) -> dict:
    """Score attacking players on whole combats (:mod:`trample.arena.whole_arena`); the results have run_arena's
    shape. ``options``: those of :func:`run_arena` (``workers``, ``backend``, ``scheduler``, ``chunk_size``,
    ``timeout``, ``startup_timeout``, ``max_failures``, ``keep_on_interrupt``)."""
    results = run_arena(
        items, players=players, objective=objective, seed=seed, progress=progress, suite=suite, game="combat", **options
    )
    results["config"] = {"game": "combat", **results["config"], "defender": "best reply (minimax)"}
    return results


def run_blocks_arena(
    items: Sequence,
    players: Sequence = ("optimal", "no-blocks", "chump", "survive", "random"),
    objective: str = "max-damage",
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    suite: dict | None = None,
    **options,
) -> dict:
    """Score defending players' block declarations (:mod:`trample.arena.blocks_arena`) against the proven-best
    blocks; ``items`` are declare-blockers documents (or items ``{"scenario": document, ...}``). The results
    have run_arena's shape; ``options``: those of :func:`run_arena`."""
    results = run_arena(
        items, players=players, objective=objective, seed=seed, progress=progress, suite=suite, game="blocks", **options
    )
    results["config"] = {"game": "blocks", **results["config"], "attacker": "best damage assignment (whole combat)"}
    return results


def run_attacks_arena(
    items: Sequence,
    players: Sequence = ("optimal", "all", "none", "survivors", "random"),
    objective: str = "max-damage",
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    suite: dict | None = None,
    **options,
) -> dict:
    """Score attacking players' attack declarations (:mod:`trample.arena.attacks_arena`) against the proven-best
    attack; ``items`` are declare-attackers documents (or items ``{"scenario": document, ...}``). The defender
    answers each attack with its proven-best blocks. The results have run_arena's shape; ``options``: those of
    :func:`run_arena`."""
    results = run_arena(
        items,
        players=players,
        objective=objective,
        seed=seed,
        progress=progress,
        suite=suite,
        game="attacks",
        **options,
    )
    results["config"] = {
        "game": "attacks",
        **results["config"],
        "defender": "best blocks (509.1c kept), then the attacker's best damage assignment (whole combat)",
    }
    return results


def suite_items(items) -> list[dict]:
    """The suite as items ``{"id", "scenario", ...}``: each of ``items`` may be an item (a dict with a ``scenario``),
    a scenario dict (docs/format.md), or a :class:`trample.Scenario`; anything else is a FormatError naming it."""
    from ..models import Scenario

    if isinstance(items, (str, bytes, dict, Scenario)):
        raise FormatError("items", f"expected a list of boards, got {type(items).__name__}")
    out = []
    for i, item in enumerate(items):
        if isinstance(item, Scenario):
            out.append({"id": str(i), "scenario": item.to_json()})
        elif isinstance(item, dict) and "scenario" in item:
            scenario = item["scenario"]
            out.append({**item, "scenario": scenario.to_json() if isinstance(scenario, Scenario) else scenario})
        elif isinstance(item, dict) and "attackers" in item:
            out.append({"id": str(i), "scenario": item})
        else:
            raise FormatError(
                f"items[{i}]",
                f'expected a Scenario, a scenario dict or an item {{"scenario": ...}}, got {type(item).__name__}',
            )
    return out


def failed_everywhere(results: dict) -> list[tuple[str, int, str]]:
    """Players that returned no assignment at all (every decision raised, crashed, timed out, was bad output or
    benched): ``(name, decisions, the first failure's message)`` each. A harness problem, not a weak player."""
    seen: dict[str, list] = {}
    for board in results.get("boards", []):
        for d in board["decisions"]:
            entry = seen.setdefault(d["player"], [0, True, ""])
            entry[0] += 1
            failed = bool(d["rules"]) and d["rules"][0] in FAILURES and d.get("values") is None
            entry[1] = entry[1] and failed
            if failed and not entry[2] and d.get("violations"):
                entry[2] = d["violations"][0].get("message", "")
    return [(name, n, msg) for name, (n, all_failed, msg) in seen.items() if n and all_failed]


FAILURES = ("error", "crash", "timeout", "bad-output", "benched")


def mark_benched(leaderboard: list[dict], boards: list[dict]) -> list[dict]:
    """Leaderboard rows of benched players get ``"benched"``: how many decisions were scored as failures without
    asking the player, and why it was benched."""
    for row in leaderboard:
        n, why = 0, ""
        for b in boards:
            for d in b["decisions"]:
                if d["player"] == row["player"] and d["rules"] == ["benched"]:
                    n += 1
                    why = why or d["violations"][0]["message"]
        if n:
            row["benched"] = {"decisions": n, "reason": why}
    return leaderboard


def absolute_commands(specs: list) -> list:
    """External player commands with their relative paths made absolute against this process's directory (a
    Dask worker runs elsewhere). A word is a path when it names an existing file or folder here. The player
    keeps its name."""
    out = []
    for spec in specs:
        if not isinstance(spec, str):
            out.append(spec)
            continue
        head, eq, rest = spec.partition("=")
        name = None
        body = spec
        if eq and head and ":" not in head and " " not in head and rest:
            name, body = head, rest
        if not body.startswith("cmd:"):
            out.append(spec)
            continue
        command = body[4:].strip()
        try:
            words = shlex.split(command)
        except ValueError:
            out.append(spec)
            continue
        fixed = [os.path.abspath(w) if not os.path.isabs(w) and os.path.exists(w) else w for w in words]
        if fixed == words:
            out.append(spec)
            continue
        out.append(f"{name or 'cmd:' + command}=cmd:{shlex.join(fixed)}")
    return out


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


def _run_inline(payloads, progress, total, parts):
    """In this process: the players are built once for the whole run (an external program keeps running)."""
    if not len(payloads):
        return
    first = payloads[0]
    spare = children_now()
    game = first.get("game")
    combat = game in ("combat", "blocks", "attacks")
    if combat:
        if game == "combat":
            from .whole_arena import build_players
            from .whole_arena import play_board as play_combat

            play_board: Callable[..., dict] = play_combat
        else:
            from .declare_arena import build_players
            from .declare_arena import play_board as play_declaration

            play_board = functools.partial(play_declaration, game=game)
        built = build_players(first["players"], first)
        players = [p for *_, p in built if p is not None]
    else:
        players = [chunk_player(p, first) for p in first["players"]]
    done = 0
    try:
        for i in range(len(payloads)):  # each chunk made as play reaches it
            payload = payloads[i]
            part = parts.setdefault(i, [])
            for index, item in payload["items"]:
                if was_interrupted():  # an interrupt a player swallowed (or turned into another error)
                    raise KeyboardInterrupt
                if combat:
                    part.append(play_board(index, item, built, payload["objective"], payload["seed"]))
                else:
                    part.append(evaluate_board(index, item, players, payload["objective"], payload["seed"]))
                done += 1
                if progress:
                    progress(done, total)
    finally:  # also on an interrupt: every external program (and what it started) is killed
        close_all([p for *_, p in built] if combat else players)
        reap_orphans(spare)


def _worker_init() -> None:
    """A pool worker: SIGTERM raises KeyboardInterrupt, so that its chunk's players are closed (their programs
    killed) before it exits; SIGINT is left to the parent, which stops the workers itself."""

    def stop(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_pool(payloads, workers, progress, total, parts, tally, attempts: int = 2, grace: float = STOP_GRACE_EXTERNAL):
    """On a process pool. A worker that dies (killed, out of memory) breaks the pool: the chunks that did not
    finish are played again on a new pool (``tally["retried"]`` counts their boards), once; the finished ones
    are kept."""
    ctx = multiprocessing.get_context("spawn")  # no fork of a process that may hold solver threads
    todo = list(range(len(payloads)))
    done = [0]
    for attempt in range(attempts):
        if not todo:
            return
        if attempt:
            tally["retried"] += sum(payloads.boards(i) for i in todo)
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init)
        try:
            _pool_pass(
                pool, payloads, todo, 2 * workers, parts, lambda i: _tick(done, payloads.boards(i), progress, total)
            )
            todo = [i for i in todo if i not in parts]
        except BaseException:
            _stop_pool(pool, grace=grace)
            raise
        else:
            _stop_pool(pool, wait=not todo, grace=grace)


def _tick(done: list, boards: int, progress, total) -> None:
    done[0] += boards
    if progress:
        progress(done[0], total)


def _pool_pass(pool, payloads, todo, window: int, parts, finished) -> None:
    """Play the chunks ``todo`` on ``pool``, at most ``window`` submitted at a time (a chunk is made when it is
    submitted: the workers are never waiting on boards drawn for chunks far ahead); stop at a broken pool."""
    queue = iter(todo)
    running: dict = {}
    try:
        while True:
            while len(running) < window and (i := next(queue, None)) is not None:
                running[pool.submit(evaluate_chunk, payloads[i])] = i
            if not running:
                return
            ready, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in ready:
                i = running.pop(fut)
                parts[i] = fut.result()
                finished(i)
    except BrokenProcessPool:
        return


def _stop_pool(pool, wait: bool = False, grace: float = STOP_GRACE_EXTERNAL) -> None:
    """Shut a pool down; unless ``wait``, its workers get SIGTERM (they close their players), then, ``grace``
    seconds later, SIGKILL."""
    procs = list(getattr(pool, "_processes", {}).values())
    if wait:
        pool.shutdown(wait=True)
        return
    manager = getattr(pool, "_executor_manager_thread", None)  # the shutdown forgets it
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        try:
            os.kill(p.pid, signal.SIGTERM)
        except (ProcessLookupError, OSError, AttributeError):
            pass
    end = time.monotonic() + grace
    for p in procs:
        p.join(max(0.0, end - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join(1)
    if manager is not None:  # it closes the pool's wake-up pipe as it ends: joined, the exit does not write to it
        manager.join(max(1.0, end - time.monotonic()))  # (its workers gone, it ends at once: 0.0 s measured)


def _scheduler_suspicious(dask_scheduler=None, keys=()):
    """On the scheduler: how many times each task's worker died while running it."""
    out = {}
    for k in keys:
        ts = dask_scheduler.tasks.get(k)
        if ts is not None:
            out[k] = int(getattr(ts, "suspicious", 0))
    return out


def _run_dask(payloads, scheduler, workers, progress, total, parts, tally, retries: int = 2):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise RuntimeError("the dask backend needs dask[distributed] (pip install 'trample[dask]')") from None
    with cluster.quiet():  # distributed's logging silenced: the command's own lines only (trample.cluster)
        _run_dask_quietly(Client, LocalCluster, payloads, scheduler, workers, progress, total, parts, tally, retries)


def _run_dask_quietly(Client, LocalCluster, payloads, scheduler, workers, progress, total, parts, tally, retries):
    own_cluster = own_client = None
    if scheduler is None:
        own_cluster = cluster.start_local(  # its workers leave Ctrl-C to the command
            LocalCluster, **cluster.local_options(max(1, workers))
        )
        client = own_client = Client(own_cluster)
    elif isinstance(scheduler, str):
        client = own_client = Client(scheduler, timeout="10s")
    else:
        client = scheduler
    futures: list = []
    try:
        # A worker that dies mid-chunk: the scheduler runs the chunk again elsewhere (up to its allowed-failures);
        # an exception in a chunk is retried `retries` times. The chunks are made and submitted a few ahead of
        # the workers (twice their threads), each as one finishes.
        where: dict = {}
        window = 2 * max(1, sum(client.nthreads().values()))
        queue = iter(range(len(payloads)))

        def more() -> list:
            fresh = []
            while len(where) - len(parts) < window and (i := next(queue, None)) is not None:
                fresh.append(client.submit(evaluate_chunk, payloads[i], pure=False, retries=retries))
                where[fresh[-1].key] = i
            futures.extend(fresh)
            return fresh

        done = [0]
        # every worker gone: trample.cluster.WorkersLost (the chunks finished are kept), never a hang
        for fut in cluster.completed(client, more(), more=more):
            i = where[fut.key]
            parts[i] = fut.result()
            _tick(done, payloads.boards(i), progress, total)
        try:
            suspicious = client.run_on_scheduler(_scheduler_suspicious, keys=list(where))
        except Exception:  # an older scheduler without the count: say nothing was retried rather than fail
            suspicious = {}
        tally["retried"] += sum(payloads.boards(where[k]) for k, n in suspicious.items() if n)
    finally:
        for f in futures:
            try:
                f.cancel()
            except Exception:
                pass
        if own_client is not None:
            own_client.close()
        if own_cluster is not None:
            own_cluster.close()
