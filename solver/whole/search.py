"""The adversarial search of a whole combat (:func:`solve_whole`): the attacker's best line against the defender's
best first-strike reply."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from ..combat import Combat
from ..limits import LimitReached, deadline_of
from ..models import Assignment, Scenario
from ..optimize import (
    STATUS_FEASIBLE,
    STATUS_INFEASIBLE,
    STATUS_OPTIMAL,
    STATUS_UNKNOWN,
    SolveResult,
    parse_objectives,
    score,
)
from ..optimize import solve as solve_step
from ..optimize.outcomes import step_values
from ..outcome import creature_dies, damage_dealt, exact, has_effects, lethal_report, resolve
from .line import CombatLine


def solve_whole(whole, objectives, *, time_limit: float | None = None, **options):
    """The best whole-combat line for lexicographic ``objectives``, the defender's choices being adversarial.

    Order of play (510.1, 510.4): the attacking player assigns the attackers' first-strike damage (A1), then
    the defending player assigns the blockers' (D1), knowing A1; the damage is dealt and the state-based actions
    happen; then the same for the regular step (A2, then D2). Objectives are the attacking player's (docs/format.md,
    defined for one step in :mod:`trample.optimize`), summed over both steps: ``max-damage``, ``max-kills``,
    ``max-value`` and ``min-overkill`` add the first-strike step's value (on the board as given) and the regular
    step's (on the state after the SBAs, so a blocker killed in the first step is not counted again and damage
    already marked lowers what is needed); ``lethal`` is read on the regular step's state, whose life totals
    already include the first-strike damage (so it is "total damage >= life" over the combat). Without a
    first-strike step, the whole combat's values are the regular step's.

    The value of the combat is ``max over A1 of min over D1 of (first-step value(A1) + max over A2 of
    regular-step value(A2))``, compared lexicographically. D2 changes no objective (blockers' damage only
    reaches attackers), and neither does D1 except through which attackers survive, so defender replies are
    grouped by the set of attackers they kill. The search enumerates A1 (the first-strike step's attacking
    assignments), tries each distinct defender outcome, and asks :func:`trample.optimize.solve` for the regular
    step (memoised per state); a reply that already makes A1 no better than the best found ends A1's search
    (alpha-beta). Ties, as in :mod:`trample.optimize` (whatever the engines' enumeration order): the A1, then the
    D1, whose vector of amounts over the step plan's columns is lexicographically smallest; A2 is the one-step
    solver's canonical optimum (the search itself solves without the tie-break, then the chosen state is solved
    once more with it); D2 puts each blocker's damage on its last route (the smallest vector again).

    ``time_limit`` (wall-clock seconds, the whole search, checked all along: listing the defender's replies,
    each one-step solve gets the time left): when it runs out, the best line whose every defender reply was
    searched is returned with status ``feasible``; when no line was searched completely, status ``unknown`` and
    no line. Other options go to each one-step solve.
    """
    start = time.perf_counter()
    deadline = deadline_of(time_limit)

    def left() -> dict:
        """The time_limit option of a one-step solve: the time left (None: no limit)."""
        rest = deadline.remaining()
        return {} if rest is None else {"time_limit": max(rest, 1e-3)}

    scenario = whole.scenario
    objs = parse_objectives(objectives, scenario)
    engine = whole.engine
    has_fs = whole.has_first_strike_step
    first_board = scenario.with_step("first_strike")
    attacking_first = Combat(first_board, side="attacking", engine=engine)
    defending_first = Combat(first_board, side="defending", engine=engine)

    def oriented(values: dict) -> tuple:
        return tuple(values[o.name] if o.maximize else -values[o.name] for o in objs)

    # Defender replies in the first-strike step, one per distinct set of attackers killed.
    def vector(combat: Combat, assignment: Assignment) -> tuple[int, ...]:
        return combat.plan.vector(assignment)

    effects = has_effects(scenario)
    by_outcome: dict[object, tuple[tuple, Assignment]] = {}
    try:
        for d in defending_first.assignments(time_limit=deadline):  # streamed: flat memory
            killed: object = frozenset()
            if has_fs and effects:  # lifelink, wither, prevention...: what the reply alone leaves
                killed = resolve(scenario, d.to_json()).state
            elif has_fs:
                totals, touched = damage_dealt(scenario, d)
                killed = frozenset(
                    a.id
                    for a in scenario.attackers
                    if a.in_combat and creature_dies(a, totals.get(a.id, 0), a.id in touched)
                )
            vec = vector(defending_first, d)
            if killed not in by_outcome or vec < by_outcome[killed][0]:
                by_outcome[killed] = (vec, d)
    except LimitReached:  # the defender's replies are not all known: no line can be judged
        return SolveResult(STATUS_UNKNOWN, None, {}, None, (time.perf_counter() - start) * 1000, 0)
    replies = [d for _, d in sorted(by_outcome.values(), key=lambda item: item[0])]

    # The search only needs values: no tie-break there; the chosen state is solved again with the caller's options.
    search_options = dict(options, tie_break=False)
    memo: dict[Scenario, object] = {}
    stats: dict[str, Any] = {"solves": 0, "status": STATUS_OPTIMAL}

    def regular_best(state: Scenario):
        key = (
            state if effects else replace(state, attackers=tuple(replace(a, damage_marked=0) for a in state.attackers))
        )
        if key not in memo:
            result = solve_step(Combat(state, side="attacking", engine=engine), objs, **search_options, **left())
            stats["solves"] += 1
            if result.status != STATUS_OPTIMAL:
                stats["status"] = STATUS_FEASIBLE if result.assignment is not None else result.status
            memo[key] = result
        return memo[key]

    best = None  # (oriented total, A1's vector, values, A1, D1, regular result)
    stopped = False
    attacker_lines = attacking_first.assignments(time_limit=deadline)
    while not stopped:
        try:
            a1 = next(attacker_lines)
        except StopIteration:
            break
        except LimitReached:
            stopped = True
            break
        a1_vec = vector(attacking_first, a1)
        first_values = score(attacking_first, a1, objs) if has_fs and not effects else {}
        worst = None
        for d1 in replies:
            if deadline.expired():  # this A1's replies were not all searched: it is not a result
                stopped, worst = True, None
                break
            if has_fs and effects:  # the first step's values on its outcome, with this reply dealt too
                first_values = step_values(attacking_first, a1, objs, d1)[0]
            first = Assignment({**a1.to_json(), **d1.to_json()})
            result = regular_best(whole.state_after(first))
            if result.assignment is None:
                continue
            values = {}
            for o in objs:
                v = exact(result.objectives[o.name])
                if o.kind != "lethal":
                    v += exact(first_values.get(o.name, 0))
                values[o.name] = v
            key = oriented(values)
            if worst is None or key < worst[0]:
                worst = (key, a1_vec, values, a1, d1, result)
            if best is not None and not _beats(worst, best):
                break  # the defender already holds this A1 to no better than the best so far
        if worst is not None and (best is None or _beats(worst, best)):
            best = worst
        if deadline.expired():
            stopped = True
    close = getattr(attacker_lines, "close", None)  # a generator: stop its search now
    if close is not None:
        close()

    elapsed = (time.perf_counter() - start) * 1000
    if best is None:
        status = STATUS_UNKNOWN if stopped else STATUS_INFEASIBLE
        return SolveResult(status, None, {}, None, elapsed, stats["solves"])
    _, _, values, a1, d1, result = best
    first = Assignment({**a1.to_json(), **d1.to_json()})
    state = whole.state_after(first)
    if options.get("tie_break", True) and not deadline.expired():
        final = solve_step(Combat(state, side="attacking", engine=engine), objs, **options, **left())
        stats["solves"] += 1
        if final.assignment is not None and oriented(
            {o.name: exact(final.objectives[o.name]) for o in objs}
        ) == oriented({o.name: exact(result.objectives[o.name]) for o in objs}):
            result = final
    d2 = _canonical_division(Combat(state, side="defending", engine=engine))
    line = CombatLine(first, Assignment({**result.assignment.to_json(), **d2.to_json()}))
    status = stats["status"]
    if stopped and status == STATUS_OPTIMAL:
        status = STATUS_FEASIBLE
    out_values = {name: (int(v) if v.denominator == 1 else float(v)) for name, v in values.items()}
    lethal = None
    if any(o.kind == "lethal" for o in objs) and effects:
        lethal = _outcome_lethal_report(whole, line)
    elif any(o.kind == "lethal" for o in objs):
        damage = {p.id: line.first_strike.total_to(p.id) + line.regular.total_to(p.id) for p in scenario.players}
        best_to = {}
        for p in scenario.players:  # the most damage the whole combat can deal this player, the defender replying
            probe = solve_whole(whole, [f"max-damage:{p.id}"], **dict(options, tie_break=False), **left())
            stats["solves"] += probe.solves
            if probe.assignment is not None:
                best_to[p.id] = int(probe.objectives[f"max-damage:{p.id}"])
            if probe.status != STATUS_OPTIMAL and status == STATUS_OPTIMAL:
                status = STATUS_FEASIBLE
        lethal = lethal_report(scenario, damage, best_to)
    return SolveResult(status, line, out_values, lethal, (time.perf_counter() - start) * 1000, stats["solves"])


def _outcome_lethal_report(whole, line: CombatLine) -> dict:
    """Per listed player, over both steps of the line (boards with effects): the attackers' damage dealt, life,
    poison and commander damage at the end, and whether and why they lose (704.5a, 704.5c, 704.6c)."""
    scenario = whole.scenario
    attackers = {a.id for a in scenario.attackers}
    first = resolve(scenario, line.first_strike.to_json())
    outcomes = [first] if whole.has_first_strike_step else []
    if not (whole.has_first_strike_step and first.game_over):
        state = whole.state_after(line.first_strike)
        outcomes.append(resolve(state, line.regular.to_json()))
    last = outcomes[-1]
    out = {}
    for p in scenario.players:
        dealt = sum(e.dealt for o in outcomes for e in o.events if e.recipient == p.id and e.source in attackers)
        assigned = line.first_strike.total_to(p.id) + line.regular.total_to(p.id)
        end = last.player(p.id)
        out[p.id] = {
            "life": p.life,
            "damage": dealt,
            "margin": dealt - p.life,
            "reached": any(o.player(p.id).loses for o in outcomes),
            "assigned": assigned,
            "life_after": end.life,
            "poison": end.poison,
            "commander_damage": dict(end.commander_damage),
            "because": end.to_json()["because"],
        }
    return out


def _beats(candidate: tuple, best: tuple) -> bool:
    """(oriented value, A1 vector, ...): a higher value wins; on a tie, the lexicographically smaller A1."""
    return candidate[0] > best[0] or (candidate[0] == best[0] and candidate[1] < best[1])


def _canonical_division(combat: Combat) -> Assignment:
    """The defending side's lexicographically smallest legal assignment over the plan's columns: each blocker
    puts all its damage on its last route (510.1d: blockers' routes carry no gates)."""
    plan = combat.plan
    if any(r.gate is not None for s in plan.sources for r in s.routes):
        return next(iter(combat.assignments()))
    return Assignment({s.source: ({s.routes[-1].recipient: s.damage} if s.damage else {}) for s in plan.sources})
