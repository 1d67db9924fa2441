"""The arena for whole combats: attacking players scored against the game's minimax value.

Each board is a whole combat (:mod:`trample.arena.combat_game`). A player plays the attacking side, decision by
decision; the defending side is played by the defender's best reply (:meth:`CombatGame.best_reply`: the blockers'
first-strike assignment that leaves the attacker the least, the reply :func:`trample.whole.solve_whole` assumes).
A player's value is the primary objective over the whole combat; its **regret** is the minimax value
(``WholeCombat.solve``) minus that value, so 0 is optimal play and a positive number is what was left on the table
against a perfect defender. Every play is legal (the actions are masked), so the leaderboard's illegal column is 0.

Players: ``optimal`` (trample's own minimax line: regret 0, a check on the harness), ``openspiel-random`` and
``openspiel-mcts`` (OpenSpiel's uniform random and UCT bots, ``openspiel-mcts:N`` for N simulations per move;
need ``pip install 'trample[multiagent]'``), ``first-legal`` (always the smallest legal amount, no dependency),
and every player of the one-step arena (:func:`trample.arena.players.make_player`: the baselines, ``py:`` objects,
``cmd:`` programs, a trained policy as a :class:`trample.arena.policy.PolicyPlayer`): such a player is asked for
the attacker's assignment of each step (``decide(board of the step, objective, seed)``; the regular step's board
is the state after the first-strike damage and the state-based actions), and its assignment is played. A step
assignment that is not legal, or a player that fails (raises, crashes, times out), makes the decision illegal, as
in the one-step arena.

:func:`trample.arena.runner.run_whole_arena` plays boards in chunks like ``run_arena``'s (``workers`` processes,
or Dask), with the same results whatever the backend. The results have the same shape as ``run_arena``'s, so the
leaderboard, ``--out`` and ``--report`` work the same.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ..check import check
from ..models import FormatError, Side, Step, load_assignment, load_scenario
from ..rules import derive
from .external import PlayerFailure
from .metrics import blank_decision, decision_seed, summarize, summarize_levels
from .player import Player
from .players import BASELINES, chunk_player, close_all, make_player
from .stats import run_facts

PLAYERS = ("optimal", "openspiel-mcts", "openspiel-random")
WHOLE_KINDS = ("optimal", "first-legal", "openspiel-random", "openspiel-mcts")
DEFAULT_SIMULATIONS = 200


def _spec(spec) -> tuple[str, str, int]:
    """(name, kind, simulations) of a player spec; kind ``"player"`` is a one-step arena player (make_player)."""
    if not isinstance(spec, str):
        return make_player(spec).name, "player", 0
    name, eq, rest = spec.partition("=")
    if not eq or ":" in name or " " in name:
        name, rest = spec, spec
    kind, colon, n = rest.partition(":")
    if kind not in WHOLE_KINDS:
        if not rest.startswith(("cmd:", "py:")) and rest not in BASELINES:
            raise FormatError(
                "--players",
                f'unknown whole-combat player "{spec}" (expected {", ".join(WHOLE_KINDS)}, '
                f"{', '.join(b for b in BASELINES if b != 'optimal')}, cmd:COMMAND or py:module:attr)",
            )
        player = make_player(spec)
        player.close()
        return player.name, "player", 0
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


def player_names(specs: Sequence) -> list[str]:
    names = []
    for s in specs:
        name = _spec(s)[0]
        if name in names:
            raise FormatError("players", f'two players are named "{name}"; rename one (NAME=spec)')
        names.append(name)
    return names


def build_players(specs: Sequence, payload: dict) -> list:
    """(name, kind, simulations, Player or None) of each spec; one-step players are built (external programs
    configured by the payload's timeouts)."""
    out = []
    for spec in specs:
        name, kind, sims = _spec(spec)
        player = None
        if kind == "player":
            player = chunk_player(spec, payload)
            name = player.name
        out.append((name, kind, sims, player))
    return out


def evaluate_combat_chunk(payload: dict, built=None) -> list[dict]:
    """Play every board of one chunk (``payload`` as :func:`trample.arena.runner.evaluate_chunk`'s, with
    ``"game": "combat"``); the players are built here (and closed) unless ``built`` is given."""
    players = built if built is not None else build_players(payload["players"], payload)
    try:
        return [play_board(i, item, players, payload["objective"], payload["seed"]) for i, item in payload["items"]]
    finally:
        if built is None:
            close_all(p for *_, p in players)


def _play_steps(game, player: Player, seed: int):
    """A one-step player as the attacker of a whole combat (the defender: its best reply). Returns the final
    position, or ``(rule, message, assignment)`` of the step where it failed."""
    from .combat_game import ATTACKER
    from .metrics import plain_output

    pos = game.initial()
    step_no = 0
    while not pos.terminal:
        if pos.player != ATTACKER:
            pos = pos.apply(game.best_reply(pos))
            continue
        board, phase = pos.board, pos.phase
        step = game.phases[phase][0]
        try:
            output = player.decide(board, game.objective, (seed + step_no) % 2**63)
        except PlayerFailure as err:
            return (err.kind, f"{step} step: {err.message}", None)
        except Exception as err:  # an in-process player's bug is its illegal decision, not the run's end
            return ("error", f"{step} step: {type(err).__name__}: {err}", None)
        step_no += 1
        try:
            assignment = load_assignment(plain_output(output), board)
        except (FormatError, TypeError, ValueError, AttributeError) as err:
            return ("bad-output", f"{step} step: not an assignment: {err}", None)
        verdict = check(derive(board, Side.ATTACKING), assignment)
        if not verdict.legal:
            v = verdict.violations[0]
            return (v.rule, f"{step} step: {v.message}", assignment.to_json())
        # the player's assignment divides the attackers the attacking player divides; an attacker blocked by a
        # creature with banding is the defending player's to divide (702.22j: its division is the defender's
        # reply, whatever the player wrote), a blocker blocking a creature with banding the attacking player's
        # (702.22k: the optimal player's division, the player's decision covering attackers only)
        amounts = pos.decoder.amounts_of(assignment)
        while not pos.terminal and pos.phase == phase:
            k = pos.start + len(pos.amounts)
            source = pos.decoder.plan.sources[pos.decoder.columns[k].source]
            action = amounts[k] if source.side == Side.ATTACKING else game.optimal_action(pos)
            if action not in pos.legal_actions():
                src, rec = pos.current()
                return ("510.1", f"{step} step: {src} cannot assign {action} to {rec}", assignment.to_json())
            pos = pos.apply(action)
    return pos


def play_board(index: int, item: dict, players, objective: str, seed: int) -> dict:
    from ..whole import WholeCombat
    from .combat_game import CombatGame

    scenario = load_scenario(item["scenario"], f"board {index}: scenario")
    objective = item.get("objective") or objective
    game = CombatGame(scenario.with_step(Step.COMBAT), objective)
    minimax = game.minimax()
    whole = WholeCombat(game.scenario)
    decisions = []
    loaded: dict = {}  # the OpenSpiel game, loaded once for every OpenSpiel bot
    for name, kind, sims, player in players:
        started = time.perf_counter()
        final = _final_position(game, name, kind, sims, player, decision_seed(seed, index, name), loaded)
        if isinstance(final, tuple):  # failed or illegal in one step: an illegal decision
            rule, message, _partial = final
            decisions.append(_illegal_decision(name, rule, message, (time.perf_counter() - started) * 1000))
            continue
        elapsed = (time.perf_counter() - started) * 1000
        line = final.line()
        if not whole.check(line).legal:  # never score an illegal line: the encoding promises legality
            raise RuntimeError(f"board {index}: {name} produced an illegal line")
        decisions.append(_legal_decision(game, name, final, line, minimax, elapsed))
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
        "reference": {
            "values": {game.primary.name: plain_output(minimax)},
            "lethal_exists": False,
            "status": "minimax",
        },
        "decisions": decisions,
    }
    for key in ("rule", "level"):
        if key in item:
            board[key] = item[key]
    return board


def _final_position(game, name: str, kind: str, sims, player, seed: int, loaded: dict):
    """The position at the end of the combat as one player plays the attacker (the defender replying at best);
    a ``(rule, message, partial)`` triple when a player object fails or is illegal in one step."""
    from .combat_game import ATTACKER

    if player is not None:
        return _play_steps(game, player, seed)
    if kind.startswith("openspiel"):
        from . import openspiel_game as og

        if "game" not in loaded:
            loaded["game"] = og.load(game.scenario.to_json(), game.objective)
        bot = og.make_bot(kind.split("-", 1)[1], loaded["game"], ATTACKER, seed, sims)
        return og.play(loaded["game"], bot).position
    pos = game.initial()
    while not pos.terminal:
        if pos.player == ATTACKER:
            action = game.optimal_action(pos) if kind == "optimal" else pos.legal_actions()[0]
        else:
            action = game.best_reply(pos)
        pos = pos.apply(action)
    return pos


def _illegal_decision(name: str, rule: str, message: str, elapsed_ms: float) -> dict:
    return {
        **blank_decision(name, round(elapsed_ms, 3)),
        "rules": [rule],
        "violations": [{"rule": rule, "message": message}],
    }


def _legal_decision(game, name: str, final, line, minimax, elapsed_ms: float) -> dict:
    """A legal line's decision: its values and its regret against the minimax value."""
    values = {k: plain_output(v) for k, v in final.values().items()}
    achieved = game.utility(final.values())
    regret = plain_output(minimax - achieved)
    return {
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
        "time_ms": round(elapsed_ms, 3),
    }


def plain_output(v):
    f = float(v)
    return int(f) if f.is_integer() else round(f, 6)


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
        game = CombatGame(scenario.with_step(Step.COMBAT), board.get("objective") or "max-damage")
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
                regret = plain_output(minimax - game.utility(values))
                rec.update(
                    legal=True,
                    rules=[],
                    values={n: plain_output(v) for n, v in values.items()},
                    regret={game.primary.name: regret},
                    primary_regret=regret,
                    optimal=regret == 0,
                )
            decisions.append(rec)
        boards.append(
            {**board, "reference": {**board.get("reference", {}), "values": {game.primary.name: plain_output(minimax)}},
             "decisions": decisions}
        )  # fmt: skip
    out = {
        "arena": 1,
        "config": {**results.get("config", {}), "recorded": True, "suite": {"files": [path]}},
        "facts": run_facts(),
        "leaderboard": (leaderboard := summarize(boards, names)),
        "boards": boards,
    }
    levels = summarize_levels(boards, names, leaderboard)
    if levels:
        out["by_level"] = levels
    return out
