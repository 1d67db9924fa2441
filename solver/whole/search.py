"""The adversarial search of a whole combat (:func:`solve_whole`): the attacker's best line against the defender's
best first-strike reply."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

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
from ..optimize.linear import BlockScorer
from ..optimize.outcomes import step_values
from ..outcome import (
    creature_dies,
    damage_dealt,
    exact,
    has_effects,
    lethal_need,
    lethal_report,
    reaches,
    resolve,
)
from ..rules import division_moved, linked_groups
from .line import CombatLine


def solve_whole(
    whole,
    objectives,
    *,
    time_limit: float | None = None,
    split: bool = True,
    progress: Callable[[int, int], None] | None = None,
    **options,
):
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

    Independent parts (``split``, on by default; see :func:`independent_parts`): when the objectives are sums over
    objects each of which only one group of attackers and blockers can touch, and no first-strike damage can end
    the game or change a planeswalker or battle another group attacks, the groups' searches are independent: each
    group's first step is searched alone, the chosen first steps are put together, and the regular step is solved
    once on the whole state. The line and values are the same as the joint search's (the optimal first steps of
    the whole are the product of the groups' optimal first steps, and the smallest vector of a product is made of
    the smallest vectors of its factors); ``split=False`` searches jointly.

    ``progress``: called now and then with (first-strike assignments searched, how many there are to search).

    ``time_limit`` (wall-clock seconds, the whole search, checked all along: listing the defender's replies,
    each one-step solve gets the time left): when it runs out, the best line whose every defender reply was
    searched is returned with status ``feasible``; when no line was searched completely, status ``unknown`` and
    no line. Other options go to each one-step solve.
    """
    start = time.perf_counter()
    deadline = deadline_of(time_limit)
    scenario = whole.scenario
    objs = parse_objectives(objectives, scenario)
    engine = whole.engine
    stats: dict[str, Any] = {"solves": 0, "status": STATUS_OPTIMAL}
    wants_lethal = any(o.kind == "lethal" for o in objs)
    best_to: dict[str, int] | None = None
    probes_proven = True
    searched = objs
    if wants_lethal and not has_effects(scenario):
        # the most damage the whole combat can deal each player, the defender replying (the lethal report's)
        best_to = {}
        for p in scenario.players:
            probe = solve_whole(
                whole, [f"max-damage:{p.id}"], split=split, **dict(options, tie_break=False), **_left(deadline)
            )
            stats["solves"] += probe.solves
            if probe.assignment is not None:
                best_to[p.id] = int(probe.objectives[f"max-damage:{p.id}"])
            probes_proven &= probe.status == STATUS_OPTIMAL
    # One defending player (704.5a): lethal is [the combat's damage to them >= their life], and the probe is the
    # most damage they can be dealt whatever the defender does, so it bounds lethal on every line. (With several
    # players it does not: a reply that saves one player may doom another.)
    reach = None
    if best_to is not None and probes_proven and len(scenario.players) == 1 and scenario.players[0].id in best_to:
        only = scenario.players[0]
        reach = int(reaches(best_to[only.id], only.life))
        rest = tuple(o for o in objs if o.kind != "lethal")
        if split and reach == 0 and rest and rest[0].kind == "max-damage" and rest[0].target in (None, only.id):
            # no line kills: a reply that would let the player die leaves more damage than any that does not, so
            # the defender's worst replies, and with them the line, are the same without lethal
            searched = rest
    parts = independent_parts(whole, searched, deadline) if split else None
    track = _Track(progress, whole, parts)
    ceiling = None
    if split and searched[0].kind == "lethal" and len(searched) == 1:
        # lethal alone: at most the players listed, at most the probe's answer with one player
        ceiling = (len(scenario.players) if reach is None else reach,)
    elif split and searched[0].kind == "lethal" and len(searched) == 2 and reach == 1:
        # "lethal,X" with one player who can be killed: an A1 whose worst reply kills kills on every reply, and its
        # X is then at most X alone's optimum (a probe, when X splits into parts: cheap)
        second = searched[1]
        if second.kind != "lethal" and independent_parts(whole, (second,), deadline) is not None:
            probe = solve_whole(whole, [second], split=split, **dict(options, tie_break=False), **_left(deadline))
            stats["solves"] += probe.solves
            if probe.status == STATUS_OPTIMAL and probe.assignment is not None:
                ceiling = (1, *_oriented((second,), {second.name: exact(probe.objectives[second.name])}))
    if parts is None:
        best, stopped = _search(whole, searched, deadline, options, stats, split, ceiling, track)
        final = options.get("tie_break", True)  # the chosen state is solved again with the tie-break
    else:
        chosen = []
        stopped = False
        for part in parts:
            got, stopped = _search(type(whole)(part, engine=engine), searched, deadline, options, stats, track=track)
            if got is None or stopped:
                best = None
                break
            chosen.append(got)
        else:
            best = _joined(whole, searched, chosen, deadline, options, stats)
            stopped = best is None
        final = False  # the regular step was solved on the whole state, with the caller's options
    if not stopped:
        track.finish()
    elapsed = (time.perf_counter() - start) * 1000
    if best is None:
        status = STATUS_UNKNOWN if stopped else STATUS_INFEASIBLE
        return SolveResult(status, None, {}, None, elapsed, stats["solves"])
    _, _, values, a1, d1, result = best
    first = Assignment({**a1.to_json(), **d1.to_json()})
    state = whole.state_after(first)
    if final and not deadline.expired():
        again = solve_step(Combat(state, side="attacking", engine=engine), searched, **options, **_left(deadline))
        stats["solves"] += 1
        if again.assignment is not None and _oriented(
            searched, {o.name: exact(again.objectives[o.name]) for o in searched}
        ) == _oriented(searched, {o.name: exact(result.objectives[o.name]) for o in searched}):
            result = again
    # D2: the defending player's reply the regular step's solve read (boards with effects or banding: their best,
    # with the active player's part of it, 702.22k); where the blockers' damage changes nothing, the smallest vector
    d2 = (
        result.reply
        if result.reply is not None
        else _canonical_division(Combat(state, side="defending", engine=engine))
    )
    line = CombatLine(first, Assignment({**result.assignment.to_json(), **d2.to_json()}))
    status = stats["status"]
    if stopped and status == STATUS_OPTIMAL:
        status = STATUS_FEASIBLE
    if not probes_proven and status == STATUS_OPTIMAL:
        status = STATUS_FEASIBLE
    values = {o.name: values.get(o.name, Fraction(0)) for o in objs}  # lethal, when it was 0 on every line
    out_values = {name: (int(v) if v.denominator == 1 else float(v)) for name, v in values.items()}
    lethal = None
    if wants_lethal and best_to is None:
        lethal = _outcome_lethal_report(whole, line)
        if len(scenario.players) == 1:  # as the one-step report: can some line make them lose, whatever the replies?
            if objs[0].kind == "lethal":
                reached = values[objs[0].name] >= 1
                proven = status == STATUS_OPTIMAL
            else:
                can = solve_whole(whole, ["lethal"], split=split, **dict(options, tie_break=False), **_left(deadline))
                stats["solves"] += can.solves
                reached = can.assignment is not None and can.objectives["lethal"] >= 1
                proven = can.status == STATUS_OPTIMAL
            if proven:
                lethal[scenario.players[0].id]["reachable"] = bool(reached)
    elif wants_lethal and best_to is not None:
        damage = {p.id: line.first_strike.total_to(p.id) + line.regular.total_to(p.id) for p in scenario.players}
        lethal = lethal_report(scenario, damage, best_to)
    return SolveResult(status, line, out_values, lethal, (time.perf_counter() - start) * 1000, stats["solves"])


def _left(deadline) -> dict:
    """The time_limit option of a one-step solve: the time left (None: no limit)."""
    rest = deadline.remaining()
    return {} if rest is None else {"time_limit": max(rest, 1e-3)}


def _oriented(objs, values: dict) -> tuple:
    return tuple(values[o.name] if o.maximize else -values[o.name] for o in objs)


class _Track:
    """Calls ``progress(done, total)`` as first-strike assignments are searched (every 64, and at the end)."""

    def __init__(self, progress, whole, parts):
        self.progress = progress
        self.done = 0
        self.total = 0
        if progress is not None:
            boards = parts if parts is not None else [whole.scenario]
            for b in boards:
                self.total += Combat(b.with_step("first_strike"), side="attacking", engine=whole.engine).count()
            progress(0, self.total)

    def step(self, n: int = 1) -> None:
        before, self.done = self.done, self.done + n
        if self.progress is not None and before >> 6 != self.done >> 6:
            self.progress(self.done, self.total)

    def finish(self) -> None:
        """Every assignment searched or known not to matter (a search that proved its answer early)."""
        if self.progress is not None:
            self.progress(self.total, self.total)


def _search(
    whole,
    objs,
    deadline,
    options: dict,
    stats: dict,
    split: bool = True,
    ceiling: tuple | None = None,
    track: _Track | None = None,
):
    """The joint search of one whole combat: (best, stopped), best being (oriented total, A1's vector, values, A1,
    D1, the regular step's result without the tie-break) or None. ``ceiling``: a value no line can beat; when
    the A1s come in the canonical order (smallest vector first), the first A1 that reaches it is the answer."""
    scenario = whole.scenario
    engine = whole.engine
    has_fs = whole.has_first_strike_step
    first_board = scenario.with_step("first_strike")
    attacking_first = Combat(first_board, side="attacking", engine=engine)
    defending_first = Combat(first_board, side="defending", engine=engine)

    # Defender replies in the first-strike step, one per distinct set of attackers killed.
    def vector(combat: Combat, assignment: Assignment) -> tuple[int, ...]:
        return combat.plan.vector(assignment)

    effects = has_effects(scenario)
    # Who divides each source's first-strike damage (trample.rules.divider): with banding (702.22j/k) some of it
    # is the other player's, and the first step is searched as a game over both sides' lines.
    divided = has_fs and (attacking_first.plan.moved or defending_first.plan.moved)
    by_outcome: dict[object, tuple[tuple, Assignment]] = {}
    try:
        for d in () if divided else defending_first.assignments(time_limit=deadline):  # streamed: flat memory
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
        return None, True
    replies = [d for _, d in sorted(by_outcome.values(), key=lambda item: item[0])]
    order = list(range(len(replies)))  # the order replies are tried in (alpha-beta; the result does not depend on it)

    # The search only needs values: no tie-break there; the chosen state is solved again with the caller's options.
    search_options = dict(options, tie_break=False)
    memo: dict[Scenario, object] = {}

    # Integer sums (max-damage, max-kills, min-overkill) of a regular step whose attackers fall into groups are
    # the sums of the groups' optima (the same groups as independent_parts, with no step after this one): each
    # group is solved alone and memoised, so a group met in many states is solved once.
    split_regular = split and _separable(scenario, objs) and all(o.kind in _INTEGER_SUMS for o in objs)

    def regular_best(state: Scenario):
        if split_regular and len(state.attackers) > 1:
            live = _in_combat(state)
            reach = _reach(live)
            groups = _groups(live, reach, {r for r in reach if live.kind(r) in _shared_kinds(objs)})
            if len(groups) > 1:
                parts = [solved(_board(live, g, first=k == 0)) for k, g in enumerate(groups)]
                return _summed(parts, objs, [a.id for a in state.attackers])
        return solved(state)

    def solved(state: Scenario):
        key = state
        if not effects:  # what no objective reads: attackers' marked damage, creatures out of combat (506.4)
            key = replace(
                state,
                attackers=tuple(replace(a, damage_marked=0) if a.damage_marked else a for a in state.attackers),
                blockers=tuple(
                    replace(b, damage_marked=0) if b.damage_marked and not b.in_combat else b for b in state.blockers
                ),
            )
        if key not in memo:
            result = solve_step(
                Combat(state, side="attacking", engine=engine), objs, **search_options, **_left(deadline)
            )
            stats["solves"] += 1
            if result.status != STATUS_OPTIMAL:
                stats["status"] = STATUS_FEASIBLE if result.assignment is not None else result.status
            memo[key] = result
        return memo[key]

    if divided:
        return _divided_search(whole, objs, deadline, attacking_first, defending_first, regular_best, effects, track)

    # A1s that deal the same damage (creatures' capped at what makes them lethal, 702.19b: more changes nothing
    # for the regular step, unless an objective reads the excess) are worth the same: only the one with the
    # smallest vector can be chosen, the others are skipped.
    grouped = has_fs and not effects
    capped = {
        c.id: lethal_need(c) for c in (*scenario.attackers, *scenario.blockers)
    }  # creatures only: a player's life, a planeswalker's loyalty are read exactly
    if any(o.kind == "min-overkill" or (o.target is not None and o.target in capped) for o in objs):
        capped = {}
    classes: dict[tuple, tuple[int, ...]] = {}

    def effect_of(a1: Assignment) -> tuple:
        totals, touched = damage_dealt(scenario, a1)
        return tuple(
            sorted((r, min(n, capped[r]) if r in capped else n, r in touched) for r, n in totals.items() if n > 0)
        )

    best = None  # (oriented total, A1's vector, values, A1, D1, regular result)
    stopped = False
    try:
        canonical = attacking_first.canonical(deadline=deadline)  # may build the direct engine's programme
    except LimitReached:
        return None, True
    ordered = ceiling is not None and canonical
    if grouped and canonical:  # the smallest A1 of each effect, read from the direct engine's blocks in bulk
        attacker_lines = _distinct_effects(attacking_first, capped, deadline, track)
    else:
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
        if grouped and not canonical:
            if track is not None:
                track.step()
            effect = effect_of(a1)
            seen = classes.get(effect)
            if seen is not None and seen <= a1_vec:
                continue  # an A1 with the same effect and a smaller vector was searched: this one cannot win
            classes[effect] = a1_vec
        elif not grouped and track is not None:
            track.step()
        first_values = score(attacking_first, a1, objs) if has_fs and not effects else {}
        worst = None
        worst_rank = -1
        for rank in order:
            d1 = replies[rank]
            if deadline.expired():  # this A1's replies were not all searched: it is not a result
                stopped, worst = True, None
                break
            if has_fs and effects:  # the first step's values on its outcome, with this reply dealt too
                first_values = step_values(attacking_first, a1, objs, d1)[0]
            first = Assignment({**a1.to_json(), **d1.to_json()})
            result = regular_best(whole.state_after(first))
            if result.assignment is None:
                continue
            values = _total(objs, first_values, result)
            key = _oriented(objs, values)
            if worst is None or key < worst[0] or (key == worst[0] and rank < worst_rank):
                worst, worst_rank = (key, a1_vec, values, a1, d1, result), rank  # ties: the smallest vector
            if best is not None and not _beats(worst, best):
                break  # the defender already holds this A1 to no better than the best so far
        if worst_rank > 0 and order[0] != worst_rank:  # try the reply that held this A1 first next time
            order.remove(worst_rank)
            order.insert(0, worst_rank)
        if worst is not None and (best is None or _beats(worst, best)):
            best = worst
            if ceiling is not None and best[0] >= ceiling and ordered:
                break  # nothing beats it, and every A1 still to come has a larger vector
        if deadline.expired():
            stopped = True
    close = getattr(attacker_lines, "close", None)  # a generator: stop its search now
    if close is not None:
        close()
    return best, stopped


def _divided_search(whole, objs, deadline, attacking_first, defending_first, regular_best, effects, track):
    """The first step as a game when a rule gives some first-strike damage to the other player to divide
    (:func:`trample.rules.divider`; banding, 702.22j/k): every line of the step (A1 with D1) is split into the
    active player's part (the sources they divide, on both sides) and the defending player's; a part is worth
    its worst line (the defending player replies knowing it), the best part wins. Ties as in :func:`_search`: the
    worst line of a part is the one with the smaller (A1, D1) vectors, the best part the one whose worst line has
    the smaller vectors. Returns (best, stopped) as :func:`_search`."""
    a_plan, d_plan = attacking_first.plan, defending_first.plan
    a_mine = [k for k, (i, _) in enumerate(a_plan.columns) if a_plan.sources[i].chooser == "attacking"]
    d_mine = [k for k, (i, _) in enumerate(d_plan.columns) if d_plan.sources[i].chooser == "attacking"]
    parts: dict[tuple, tuple] = {}
    try:
        replies = [(d_plan.vector(d), d) for d in defending_first.assignments(time_limit=deadline)]
        for a1 in attacking_first.assignments(time_limit=deadline):
            if track is not None:
                track.step()
            a1_vec = a_plan.vector(a1)
            plain_first = score(attacking_first, a1, objs) if not effects else {}
            for d1_vec, d1 in replies:
                if deadline.expired():
                    raise LimitReached("whole-combat search")
                first_values = step_values(attacking_first, a1, objs, d1)[0] if effects else plain_first
                first = Assignment({**a1.to_json(), **d1.to_json()})
                result = regular_best(whole.state_after(first))
                if result.assignment is None:
                    continue
                values = _total(objs, first_values, result)
                line = (_oriented(objs, values), (a1_vec, d1_vec), values, a1, d1, result)
                g = (tuple(a1_vec[k] for k in a_mine), tuple(d1_vec[k] for k in d_mine))
                held = parts.get(g)
                if held is None or line[0] < held[0] or (line[0] == held[0] and line[1] < held[1]):
                    parts[g] = line
    except LimitReached:
        return None, True
    best = None
    for line in parts.values():
        if best is None or _beats(line, best):
            best = line
    return best, False


def _distinct_effects(step: Combat, capped: dict[str, int], deadline, track) -> Iterator[Assignment]:
    """The first-strike assignments of ``step`` with distinct effects (per recipient: the damage, a creature's
    capped at ``capped``, and whether a deathtouch source deals it any), each the first of its effect in the
    canonical order, i.e. the one with the smallest vector (``step.canonical()`` must hold). The same classes as
    the search's ``effect_of`` on boards without damage effects (damage dealt = damage assigned), found with numpy
    on the direct engine's blocks instead of one assignment at a time."""
    plan = step.plan
    scorer = BlockScorer(step, ())
    caps = [capped.get(r) for r in scorer.recipients]
    seen: set[tuple] = set()
    for block in step.assignment_blocks(time_limit=deadline):
        if block.shape[1] == 0:  # nothing assigns in this step: one empty assignment per row
            keys = np.zeros((len(block), 1), dtype=np.int64)
        else:
            parts = []
            for c, cap in enumerate(caps):
                x = scorer.total(block, c).astype(np.int64)
                parts.append(x if cap is None else np.minimum(x, cap))
                t = scorer.touched(block, c)
                if t is not None:
                    parts.append(t.astype(np.int64))
            keys = np.stack(parts, axis=1) if parts else np.zeros((len(block), 1), dtype=np.int64)
        _, first = np.unique(keys, axis=0, return_index=True)
        for i in np.sort(first).tolist():
            key = tuple(keys[i].tolist())
            if key not in seen:
                seen.add(key)
                yield plan.assignment([(plan.columns, block[i].tolist())])
        if track is not None:
            track.step(len(block))


def _summed(results: list, objs, attackers: list[str]) -> SolveResult:
    """The regular step's result as the sum of its groups' results (integer objectives; the worst status; the
    groups' assignments together, ``attackers`` left out of every group assigning nothing)."""
    if any(r.assignment is None for r in results):
        return next(r for r in results if r.assignment is None)
    status = STATUS_OPTIMAL
    for r in results:
        if r.status != STATUS_OPTIMAL:
            status = r.status
    values = {o.name: sum(int(r.objectives[o.name]) for r in results) for o in objs}
    joined: dict[str, dict[str, int]] = {a: {} for a in attackers}
    joined.update((k, v) for r in results for k, v in r.assignment.to_json().items())
    return SolveResult(
        status, Assignment(joined), values, None, sum(r.time_ms for r in results), sum(r.solves for r in results)
    )


def _total(objs, first_values: dict, result) -> dict:
    """Each objective over both steps: the regular step's value plus the first step's (``lethal``: the regular
    step's alone, read on a state whose life totals include the first step's damage)."""
    values = {}
    for o in objs:
        v = exact(result.objectives[o.name])
        if o.kind != "lethal":
            v += exact(first_values.get(o.name, 0))
        values[o.name] = v
    return values


# -- independent parts ------------------------------------------------------------------------------------------

#: Per objective kind, the kinds of object whose value is a threshold on the damage *all* attackers deal them
#: (a player's life, a planeswalker's loyalty): attackers that reach one of them are searched together.
_SHARED_BY = {
    "max-damage": (),
    "max-kills": (),
    "max-value": ("planeswalker",),
    "min-overkill": ("player", "planeswalker", "battle"),
}

#: Objectives whose values are integer sums over objects (the regular step's groups are added up exactly).
_INTEGER_SUMS = frozenset({"max-damage", "max-kills", "min-overkill"})

#: Parts whose first steps multiply to at most this many (attacking assignments x defending ones) are searched
#: together, and so is a part with a single first step: one search of a few lines costs less than several
#: searches. 0: no packing (every group its own part).
PACK = 64


def independent_parts(whole, objs, deadline=None) -> list[Scenario] | None:
    """The whole combat's board cut into parts whose searches are independent, or None when it is searched whole.

    Attackers and the blockers blocking them form groups (510.1c, 510.1d: a creature's damage only goes to the
    creatures it blocks or is blocked by, and to what its attacker attacks). Two groups stay together when:

    - they attack the same planeswalker or battle (702.19c: a trampler over planeswalkers must first assign the
      loyalty left after every attacker's damage to it; its loyalty or defense after the first step depends on
      every attacker's first-strike damage);
    - an objective reads a threshold on a player both can damage (``lethal``: a player's life, so it is never
      split; ``min-overkill``); ``max-damage`` and ``max-kills`` are sums over objects;
    - the first-strike step can make a player they both damage lose (704.5a: the game ends and the regular step
      is not played) -- found by solving ``max-damage:ID`` for the first step.

    Never split: boards with damage effects (lifelink, prevention...: :func:`trample.outcome.has_effects`),
    a division moved to the other player (banding, :func:`trample.rules.divider`), the legacy damage assignment order,
    an objective naming a creature. Parts whose first steps are
    small are packed together (:data:`PACK`)."""
    s = whole.scenario
    if len(s.attackers) < 2 or not whole.has_first_strike_step or not _separable(s, objs):
        return None
    reach = _reach(s)
    shared = {r for r in reach if s.kind(r) in _shared_kinds(objs)}
    first = None
    for r, who in reach.items():
        if r in shared or len(who) < 2:
            continue
        threshold = max(1, s[r].life)  # a player (planeswalkers and battles are always shared)
        bound = sum(max(0, s.attackers[i].combat_damage) for i in who if s.attackers[i].deals_damage_in("first_strike"))
        if bound < threshold:
            continue
        if first is None:
            first = Combat(s.with_step("first_strike"), side="attacking", engine=whole.engine)
        most = solve_step(first, [f"max-damage:{r}"], tie_break=False, **_left(deadline or deadline_of(None)))
        if most.status != STATUS_OPTIMAL or most.objectives[f"max-damage:{r}"] >= threshold:
            shared.add(r)
    groups = _groups(s, reach, shared)
    if len(groups) < 2:
        return None

    def size(members: list[int]) -> int:  # the joint search's work: A1 lines x defender replies
        part = _board(s, members).with_step("first_strike")
        return Combat(part, side="attacking", engine=whole.engine).count() * max(
            1, Combat(part, side="defending", engine=whole.engine).count()
        )

    packed: list[tuple[list[int], int]] = []
    for members in groups:
        n = size(members)
        for k, (have, m) in enumerate(packed):
            if PACK and (n == 1 or m * n <= PACK):  # a part with one first step adds no work
                packed[k] = (have + members, m * n)
                break
        else:
            packed.append((members, n))
    if len(packed) < 2:
        return None
    return [_board(s, sorted(members), first=k == 0) for k, (members, _) in enumerate(packed)]


def _separable(s: Scenario, objs) -> bool:
    """Can the board be cut into groups at all for these objectives (see :func:`independent_parts`)?"""
    return not (
        s.rules != "current"
        or has_effects(s)
        or any(o.kind not in _SHARED_BY for o in objs)
        or any(o.target is not None and s.kind(o.target) in ("attacker", "blocker") for o in objs)
        or division_moved(s)  # 702.22j/k: the other player divides some damage (trample.rules.divider)
    )


def _shared_kinds(objs) -> set[str]:
    """The kinds of recipient whose attackers are kept together: those the objectives read a threshold on, and
    always planeswalkers and battles (702.19c: a trampler over planeswalkers must assign the loyalty left after
    every attacker's damage to it before its controller; their loyalty or defense after the first step depends
    on every attacker's first-strike damage)."""
    return {"planeswalker", "battle"} | {k for o in objs for k in _SHARED_BY[o.kind]}


def _reach(s: Scenario) -> dict[str, list[int]]:
    """Each player, planeswalker and battle -> the attackers that may assign damage to it (what they attack; the
    controller or protector of an attacked planeswalker or battle, 702.19c/e)."""
    reach: dict[str, list[int]] = {}
    for i, a in enumerate(s.attackers):
        if a.attacking not in s:
            continue
        reach.setdefault(a.attacking, []).append(i)
        if s.kind(a.attacking) in ("planeswalker", "battle"):
            owner = s.controller_of(a.attacking)
            if owner is not None and owner in s:
                reach.setdefault(owner, []).append(i)
    return reach


def _groups(s: Scenario, reach: dict[str, list[int]], shared) -> list[list[int]]:
    """Attackers (indices) in groups: joined by a blocker they share (510.1c/d) and by a ``shared`` recipient."""
    through: dict[int, list[str]] = {}
    for r in shared:
        for i in reach.get(r, []):
            through.setdefault(i, []).append(r)
    return linked_groups(
        range(len(s.attackers)),
        lambda i: [("blocker", b) for b in s.attackers[i].blocked_by] + [("shared", r) for r in through.get(i, [])],
    )


def _in_combat(s: Scenario) -> Scenario:
    """The board without the creatures removed from combat (506.4: they neither deal nor are assigned combat damage,
    and no objective counts them); an attacker whose blockers all left stays blocked (510.1c)."""
    if all(c.in_combat for c in (*s.attackers, *s.blockers)):
        return s
    gone = {b.id for b in s.blockers if not b.in_combat}
    return replace(
        s,
        attackers=tuple(
            replace(a, blocked_by=tuple(b for b in a.blocked_by if b not in gone)) if gone & set(a.blocked_by) else a
            for a in s.attackers
            if a.in_combat
        ),
        blockers=tuple(b for b in s.blockers if b.in_combat),
    )


def _board(s: Scenario, members: list[int], first: bool = True) -> Scenario:
    """The board of some attackers: them, the blockers blocking them, every player, planeswalker and battle; the
    ``first`` part also keeps the blockers that block nothing (they deal and take no damage)."""
    attackers = tuple(s.attackers[i] for i in members)
    names = {b for a in attackers for b in a.blocked_by}
    blocking = {b for a in s.attackers for b in a.blocked_by}
    return replace(
        s,
        attackers=attackers,
        blockers=tuple(b for b in s.blockers if b.id in names or (first and b.id not in blocking)),
    )


def _joined(whole, objs, chosen: list, deadline, options: dict, stats: dict):
    """The parts' first steps put together, and the regular step solved on the whole state (the caller's options,
    tie-break included): the same tuple as :func:`_search`'s best, or None when time ran out."""
    a1 = Assignment({k: v for got in chosen for k, v in got[3].to_json().items()})
    d1 = Assignment({k: v for got in chosen for k, v in got[4].to_json().items()})
    attacking_first = Combat(whole.scenario.with_step("first_strike"), side="attacking", engine=whole.engine)
    a1 = Assignment({s.source: dict(a1.get(s.source, {})) for s in attacking_first.plan.sources})
    state = whole.state_after(Assignment({**a1.to_json(), **d1.to_json()}))
    if deadline.expired():
        return None
    result = solve_step(Combat(state, side="attacking", engine=whole.engine), objs, **options, **_left(deadline))
    stats["solves"] += 1
    if result.status != STATUS_OPTIMAL:
        stats["status"] = STATUS_FEASIBLE if result.assignment is not None else result.status
    if result.assignment is None:
        return None
    values = _total(objs, score(attacking_first, a1, objs), result)
    return (_oriented(objs, values), attacking_first.plan.vector(a1), values, a1, d1, result)


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
