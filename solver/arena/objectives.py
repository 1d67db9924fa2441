"""Objectives as the arena uses them: parsed and scored by ``trample.optimize`` (one definition).

The arena never optimises and never re-defines an objective: the optimum comes from ``Combat.solve``, and
the value of any player's (legal) assignment from :func:`trample.optimize.score`, so the player's value and
the optimum's are read the same way.

Lexicographic objectives ``"max-damage,max-kills"``: regret is computed objective by objective; the
*primary* regret (the first objective's) is the headline number, and a decision is *optimal* when its whole
vector of values equals the optimum's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..models import Assignment, Chooser, FormatError, ObjectKind, Scenario, Side, load_assignment
from ..optimize import losers_of, score
from ..optimize import parse_objectives as parse
from ..optimize.listing import step_values
from ..outcome import has_effects
from ..rules import division_moved

DEFAULT_OBJECTIVE = "max-damage,max-value"


def parse_objectives(text, scenario: Scenario | None = None, path: str = "objective"):
    """``"max-damage:opp,max-kills"`` -> ``trample.optimize.Objective`` tuple (FormatError naming ``path``)."""

    if not isinstance(text, (str, list, tuple)):
        raise FormatError(path, f'expected a string such as "{DEFAULT_OBJECTIVE}", got {type(text).__name__}')
    if not (text.strip() if isinstance(text, str) else text):  # "" and [] were taken for the default (the schema
        # says at least one objective): an empty objective is a mistake, said so; a missing one is the default
        raise FormatError(path, f'expected at least one objective, such as "{DEFAULT_OBJECTIVE}"')
    try:
        objs = parse(text, scenario)
    except FormatError as err:
        if path == "objective":
            raise
        raise FormatError(path, err.message) from None
    for o in objs:
        if o.target is not None and scenario is not None and scenario.kind(o.target) != ObjectKind.PLAYER:
            raise FormatError(path, f'{o.name}: "{o.target}" is not a player')
    return objs


def objective_text(objectives) -> str:
    if isinstance(objectives, str):
        return objectives
    return ",".join(o if isinstance(o, str) else o.name for o in objectives)


def sense(objective) -> int:
    """+1 when larger is better, -1 when smaller is better."""
    return 1 if objective.maximize else -1


def score_all(scenario_or_combat, assignment: Mapping, objectives) -> dict:
    """``{objective name: value}`` for one legal assignment (:func:`trample.optimize.score`)."""

    return score(scenario_or_combat, assignment, list(objectives))


def losers(scenario_or_combat, assignment: Mapping) -> frozenset[str]:
    """The players who lose the game after the attacking player's ``assignment`` (704.5a life, 704.5c poison,
    704.6c commander damage), read on what the damage does (:func:`trample.optimize.outcome_of`: prevention,
    lifelink gains with the defending player's best reply, infect and toxic poison, commander damage), never on
    the damage assigned."""
    return losers_of(scenario_or_combat, assignment)


def is_lethal(scenario_or_combat, assignment: Mapping) -> bool:
    """Every defending player loses the game (the ``lethal`` objective fully reached): :func:`losers`."""
    scenario = scenario_or_combat if isinstance(scenario_or_combat, Scenario) else scenario_or_combat.scenario
    lost = losers(scenario_or_combat, assignment)
    return bool(scenario.players) and all(p.id in lost for p in scenario.players)


def as_divided(scenario_or_combat, assignment: Mapping, objectives) -> Assignment:
    """:func:`played_line`'s assignment."""
    return played_line(scenario_or_combat, assignment, objectives)[0]


def played_line(scenario_or_combat, assignment: Mapping, objectives) -> tuple[Assignment, Mapping | None, Any]:
    """The attacking side's assignment as played when a rule gives some attacker's damage to the defending player
    to divide (:func:`trample.rules.divider`; 702.22j: an attacker blocked by a creature with banding): the
    attacking player's part of ``assignment`` (the attackers they divide) with the defending player's division
    of the rest, the worst for the attacking player by ``objectives`` (ties: the smaller vector), as
    ``Combat.solve`` reads a part (:func:`trample.optimize.solve_by_outcome`). Whatever ``assignment`` put on the
    defending player's sources is not the attacking player's choice and is replaced. Unchanged (loaded) when the
    attacking player divides every attacker; ``assignment`` must be legal.

    Returns ``(assignment as played, values, outcome)``; ``values`` and ``outcome`` are None where the line's
    values are :func:`score_all`'s and its verdict :func:`is_lethal`'s on that assignment, and are the chosen
    line's when the attacking player also divides some blockers' damage on a board with effects (702.22k: then
    the whole step is one game, the attacking player's part first, and the line holds both sides' damage)."""
    from ..combat import Combat

    combat = scenario_or_combat if isinstance(scenario_or_combat, Combat) else Combat(scenario_or_combat)
    if not isinstance(assignment, Assignment):
        assignment = load_assignment(assignment, combat.scenario)
    if not division_moved(combat.scenario):  # the usual board: nothing to replace (and no plan to derive)
        return assignment, None, None
    plan = combat.plan
    if all(plan.sources[i].chooser == Chooser.ACTIVE_PLAYER for i in plan.active):
        return assignment, None, None
    mine = [k for k, (i, _) in enumerate(plan.columns) if plan.sources[i].chooser == Chooser.ACTIVE_PLAYER]
    given = plan.vector(assignment)
    want = tuple(given[k] for k in mine)
    objs = list(objectives)
    candidates = []
    for candidate in combat.assignments():
        vec = plan.vector(candidate)
        if tuple(vec[k] for k in mine) == want:
            candidates.append((vec, candidate))
    if not candidates:
        return assignment, None, None
    blockers = Combat(combat.scenario, side=Side.DEFENDING)
    theirs = [
        k for k, (i, _) in enumerate(blockers.plan.columns) if blockers.plan.sources[i].chooser == Chooser.ACTIVE_PLAYER
    ]
    if not theirs or not has_effects(combat.scenario):
        # the blockers' damage is all the defending player's (or changes nothing): the worst candidate, each read
        # with the defender's worst reply (score)
        return min(candidates, key=lambda c: (_oriented(score_all(combat, c[1], objs), objs), c[0]))[1], None, None
    # 702.22k too: the attacking player divides some blockers' damage, knowing only their own part (the attackers
    # they divide and those blockers'), and the defending player the rest (the banded attackers' and the other
    # blockers' damage) knowing it: a part of the blockers' is worth its worst line, the best part is played
    parts: dict[tuple, tuple] = {}
    for reply in blockers.assignments():
        rvec = blockers.plan.vector(reply)
        g = tuple(rvec[k] for k in theirs)
        for vec, candidate in candidates:
            values, outcome = step_values(combat, candidate, objs, reply)
            key = (_oriented(values, objs), vec)
            if g not in parts or key < parts[g][0]:
                parts[g] = (key, candidate, values, outcome)
    _, played, values, outcome = max(parts.values(), key=lambda p: (p[0][0], tuple(-x for x in p[0][1])))
    return played, values, outcome


def _oriented(values: Mapping, objs) -> tuple:
    """Larger is better for the attacking player, objective by objective."""
    return tuple(sense(o) * values[o.name] for o in objs)


def regrets(objectives, values: Mapping, optimum: Mapping) -> dict:
    """Per objective, how far ``values`` falls short of ``optimum`` (>= 0 on the primary objective)."""
    return {o.name: _tidy((optimum[o.name] - values[o.name]) * sense(o)) for o in objectives}


def _tidy(x):
    if isinstance(x, float):
        x = round(x, 9)
        if x == int(x):
            return int(x)
    return x
