"""The arena for whole combats: attacking players scored against the game's minimax value.

Each board is a whole combat (:mod:`trample.arena.combat_game`). A player plays the attacking side, decision by
decision; the defending side is played by the defender's best reply (:meth:`CombatGame.best_reply`: the blockers'
first-strike assignment that leaves the attacker the least, the reply :func:`trample.whole.solve_whole` assumes).
A player's value is the primary objective over the whole combat; its **regret** is the minimax value
(``WholeCombat.solve``) minus that value, so 0 is optimal play and a positive number is what was left on the table
against a perfect defender. Every play is legal (the actions are masked), so the leaderboard's illegal column is 0.

Players: ``optimal`` (trample's own minimax line: regret 0, a check on the harness), ``openspiel-random`` and
``openspiel-mcts`` (OpenSpiel's uniform random and UCT bots, ``openspiel-mcts:N`` for N simulations per move;
need ``pip install 'trample[multiagent]'``), and ``first-legal`` (always the smallest legal amount, no dependency).
The results have the same shape as :func:`trample.arena.runner.run_arena`'s, so the leaderboard, ``--out`` and
``--report`` work the same.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from ..models import FormatError, load_scenario
from .metrics import decision_seed, summarize, summarize_levels
from .stats import run_facts, suite_hash

PLAYERS = ("optimal", "openspiel-mcts", "openspiel-random")
DEFAULT_SIMULATIONS = 200


def _spec(spec: str) -> tuple[str, str, int]:
    """(name, kind, simulations) of a player spec."""
    name, eq, rest = spec.partition("=")
    if not eq:
        name, rest = spec, spec
    kind, colon, n = rest.partition(":")
    known = ("optimal", "first-legal", "openspiel-random", "openspiel-mcts")
    if kind not in known:
        raise FormatError("--players", f'unknown whole-combat player "{spec}" (expected one of {", ".join(known)})')
    sims = DEFAULT_SIMULATIONS
    if colon:
        if kind != "openspiel-mcts" or not n.isdigit() or int(n) < 1:
            raise FormatError("--players", f'"{spec}": only openspiel-mcts:N takes a number of simulations (N >= 1)')
        sims = int(n)
    if kind.startswith("openspiel"):
        try:
            import pyspiel  # noqa: F401
        except ImportError:
            raise FormatError("--players", f"{kind} needs open-spiel (pip install 'trample[multiagent]')") from None
    return name, kind, sims


def player_names(specs: Sequence[str]) -> list[str]:
    names = []
    for s in specs:
        name = _spec(s)[0]
        if name in names:
            raise FormatError("players", f'two players are named "{name}"; rename one (NAME=spec)')
        names.append(name)
    return names


def play_board(index: int, item: dict, specs: Sequence[str], objective: str, seed: int) -> dict:
    from ..whole import WholeCombat
    from .combat_game import ATTACKER, CombatGame

    scenario = load_scenario(item["scenario"], f"board {index}: scenario")
    objective = item.get("objective") or objective
    game = CombatGame(scenario.with_step("combat"), objective)
    minimax = game.minimax()
    whole = WholeCombat(game.scenario)
    decisions = []
    os_game = None
    for spec in specs:
        name, kind, sims = _spec(spec)
        started = time.perf_counter()
        if kind.startswith("openspiel"):
            from . import openspiel_game as og

            os_game = os_game or og.load(game.scenario.to_json(), game.objective)
            bot = og.make_bot(kind.split("-", 1)[1], os_game, ATTACKER, decision_seed(seed, index, name), sims)
            final = og.play(os_game, bot).position
        else:
            pos = game.initial()
            while not pos.terminal:
                if pos.player == ATTACKER:
                    action = game.optimal_action(pos) if kind == "optimal" else pos.legal_actions()[0]
                else:
                    action = game.best_reply(pos)
                pos = pos.apply(action)
            final = pos
        elapsed = (time.perf_counter() - started) * 1000
        line = final.line()
        if not whole.check(line).legal:  # never score an illegal line: the encoding promises legality
            raise RuntimeError(f"board {index}: {name} produced an illegal line")
        values = {k: _plain(v) for k, v in final.values().items()}
        achieved = game.utility(final.values())
        regret = _plain(minimax - achieved)
        decisions.append(
            {
                "player": name,
                "legal": True,
                "rules": [],
                "violations": [],
                "values": values,
                "regret": {game.primary.name: regret},
                "primary_regret": regret,
                "optimal": regret == 0,
                "lethal": None,
                "assignment": line,
                "time_ms": round(elapsed, 3),
            }
        )
    board = {
        "index": index,
        "id": item.get("id", str(index)),
        "scenario": game.scenario.to_json(),
        "objective": game.objective,
        "size": {
            "attackers": len(scenario.attackers),
            "blockers": len(scenario.blockers),
            "creatures": len(scenario.attackers) + len(scenario.blockers),
            "power": sum(max(0, a.power) for a in scenario.attackers),
            "first_strike_step": game.has_first_strike_step,
        },
        "reference": {"values": {game.primary.name: _plain(minimax)}, "lethal_exists": False, "status": "minimax"},
        "decisions": decisions,
    }
    for key in ("rule", "level"):
        if key in item:
            board[key] = item[key]
    return board


def _plain(v):
    f = float(v)
    return int(f) if f.is_integer() else round(f, 6)


def run_whole_arena(
    items: Sequence[dict],
    players: Sequence[str] = PLAYERS,
    objective: str = "max-damage",
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    suite: dict | None = None,
) -> dict:
    """Score attacking players on whole combats (in this process); the results have run_arena's shape."""
    items = list(items)
    specs = list(players)
    names = player_names(specs)
    started = time.perf_counter()
    boards = []
    if progress:
        progress(0, len(items))
    for index, item in enumerate(items):
        boards.append(play_board(index, item, specs, objective, seed))
        if progress:
            progress(index + 1, len(items))
    results = {
        "arena": 1,
        "config": {
            "game": "combat",
            "objective": objective,
            "seed": seed,
            "players": names,
            "boards": len(items),
            "defender": "best reply (minimax)",
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


def rescore(results: dict, path: str = "results") -> dict:
    """Re-score a whole-combat results file from itself alone: every recorded line is checked
    (``WholeCombat.check``) and valued again, against the minimax value recomputed from the board."""
    from ..whole import WholeCombat
    from .combat_game import CombatGame

    boards, names = [], []
    for k, board in enumerate(results.get("boards", [])):
        where = f"{path}: boards[{k}]"
        if not isinstance(board, dict) or "scenario" not in board:
            raise FormatError(where, "has no scenario (a results file written before boards were recorded)")
        scenario = load_scenario(board["scenario"], f"{where}.scenario")
        game = CombatGame(scenario.with_step("combat"), board.get("objective") or "max-damage")
        minimax = game.minimax()
        whole = WholeCombat(game.scenario)
        decisions = []
        for d in board.get("decisions", []):
            name = d.get("player", "recorded")
            if name not in names:
                names.append(name)
            verdict = whole.check(d["assignment"]) if d.get("assignment") is not None else None
            rec = dict(d)
            if verdict is None or not verdict.legal:
                rules = [v.rule for v in verdict.violations] if verdict is not None else ["bad-output"]
                rec.update(legal=False, rules=rules, values=None, regret=None, primary_regret=None, optimal=False)
            else:
                values = game.values(d["assignment"])
                regret = _plain(minimax - game.utility(values))
                rec.update(
                    legal=True,
                    rules=[],
                    values={n: _plain(v) for n, v in values.items()},
                    regret={game.primary.name: regret},
                    primary_regret=regret,
                    optimal=regret == 0,
                )
            decisions.append(rec)
        boards.append(
            {**board, "reference": {**board.get("reference", {}), "values": {game.primary.name: _plain(minimax)}},
             "decisions": decisions}
        )  # fmt: skip
    out = {
        "arena": 1,
        "config": {**results.get("config", {}), "recorded": True, "suite": {"files": [path]}},
        "facts": run_facts(),
        "leaderboard": summarize(boards, names),
        "boards": boards,
    }
    levels = summarize_levels(boards, names)
    if levels:
        out["by_level"] = levels
    return out
