"""Solving by listing: the objectives on boards with outcome effects (docs/effects.md), scored on what the damage
*does*, over every legal assignment and reply.

On a board where damage dealt can differ from damage assigned (prevention, protection, doubling), or has results
beyond marked damage and lost life (lifelink, infect, wither, toxic, commander damage), the objectives are read on
the step's outcome (:mod:`trample.outcome`):

- ``max-damage`` (``:ID``): damage *dealt* by the solved side's sources to every listed player (to ``ID``);
- ``lethal``: players who lose the game after the step's state-based actions (0 life after lifelink and
  prevention, 704.5a; 10 poison, 704.5c; 21 damage from one commander, 704.6c);
- ``max-kills`` / ``max-value``: creatures of the other side put into the graveyard by the step (704.5f/g/h, so
  -1/-1 counters count and protection saves), and planeswalkers that reach 0 loyalty (704.5i): the outcome's
  ``destroyed`` (leaving the game with a player who lost, 800.4a, is no kill);
- ``min-overkill``: damage dealt beyond what each recipient needed (as on plain boards, on dealt damage).

Both sides' creatures deal their damage at once (510.2): the other side's assignment in the same step is read as
its player's best reply (the worst for the solved side, lexicographically), so that a lifelink blocker's life
gain always counts. Here the legal assignments are listed and scored one by one (exact; the time limit is checked
by the clock at every line), and the tie-break is the one of plain boards: the smallest vector of amounts over the
plan's columns. :mod:`.effects` (and :mod:`.bands`, where the other player divides part of the solved side's
damage) answers the same question on the CP-SAT model; this listing answers where each player divides some of the
other's damage (banding, 702.22j and k at once) or the model's bounds are passed, and is the reference the tests
compare the model with.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any, overload

import numpy as np

from ..engines import blocks_engine
from ..limits import LimitReached, deadline_of
from ..models import Assignment, ObjectiveKind, Side, value_of
from ..outcome import Outcome, overkill_threshold, remembered, resolve
from ..outcome import exact as _exact
from ..rules import plan_lists
from ..step import DamageStep
from .objectives import Objective, json_number, oriented
from .results import (
    STATUS_FEASIBLE,
    STATUS_INFEASIBLE,
    STATUS_OPTIMAL,
    STATUS_UNKNOWN,
    SolveResult,
)

OTHER_SIDE = {"attacking": "defending", "defending": "attacking", "both": None}


def step_values(step: DamageStep, assignment, objs, reply=None) -> tuple[dict, Outcome]:
    """The objectives' values of one assignment of the step (its side's keys), with ``reply`` (the other side's
    keys, or none) dealt at the same time; and the step's outcome."""
    s = step.scenario
    own = dict(assignment.to_json() if isinstance(assignment, Assignment) else assignment)
    full = {**own, **(reply.to_json() if isinstance(reply, Assignment) else (reply or {}))}
    outcome = resolve(s, full)
    dealt: dict[str, int] = {}
    for e in outcome.events:
        if e.source in own and e.dealt:
            dealt[e.recipient] = dealt.get(e.recipient, 0) + e.dealt
    died = set(outcome.destroyed)  # put into the graveyard; leaving with a loser (800.4a) is no kill
    other = {"attacking": s.blockers, "defending": s.attackers, "both": (*s.attackers, *s.blockers)}[step.side]
    killable = [c.id for c in other if c.in_combat]
    walkers = [p.id for p in s.planeswalkers if p.in_combat]
    out = {}
    for o in objs:
        if o.kind == ObjectiveKind.MAX_DAMAGE:
            out[o.name] = dealt.get(o.target, 0) if o.target else sum(dealt.get(p.id, 0) for p in s.players)
        elif o.kind == ObjectiveKind.LETHAL:
            out[o.name] = len(outcome.losers)  # (player, rule) pairs
        elif o.kind == ObjectiveKind.MAX_KILLS:
            out[o.name] = sum(1 for c in killable if c in died)
        elif o.kind == ObjectiveKind.MAX_VALUE:
            q = sum((_exact(value_of(s[c])) for c in killable if c in died), Fraction(0))
            q += sum((_exact(s.planeswalker(p).value) for p in walkers if p in died), Fraction(0))
            out[o.name] = json_number(q)
        elif o.kind == ObjectiveKind.MIN_OVERKILL:
            out[o.name] = sum(max(0, n - overkill_threshold(s, r, r in outcome.deathtouched)) for r, n in dealt.items())
        else:  # pragma: no cover - parse_objectives knows every kind
            raise ValueError(o.kind)
    return out, outcome


def vector_of(step: DamageStep, assignment: Assignment) -> tuple[int, ...]:
    plan = step.plan
    return tuple(assignment.amount(plan.sources[i].source, r) for i, r in plan.columns)


def other_side_step(step: DamageStep) -> DamageStep | None:
    """The step of the other side's creatures (None when the solved side is ``both``): one per board, side and
    engine (kept on the board with the lists of rules its plan reads, :func:`trample.rules.derive`), so that its
    plan, its layout and its replies are made once however many readers -- and combat objects of the board -- ask."""
    held = step.__dict__.get("_other_side")
    if held is None:
        side = OTHER_SIDE[step.side]
        sc, engine = step.scenario, step.engine
        other = None
        if side is not None:
            name = f"other side {side} {engine}"
            other = remembered(sc, name, plan_lists(), lambda: DamageStep(sc, side=side, engine=engine))
        held = step.__dict__["_other_side"] = (other,)
    return held[0]


#: the most replies kept on a step once listed (a step's replies are listed again past it)
KEPT_REPLIES = 4096


def every_reply(step: DamageStep, deadline) -> Sequence[Assignment | None]:
    """Every reply of the other side, listed (kept on the step when at most KEPT_REPLIES): a :class:`Replies`, or
    ``[None]`` when the other side has no creature or no legal assignment."""
    held = step.__dict__.get("_replies")
    if held is not None:
        return held
    other = other_side_step(step)
    if other is None:
        return [None]
    replies = Replies(other, deadline)
    if not len(replies):
        return [None]
    if len(replies) <= KEPT_REPLIES:
        step.__dict__["_replies"] = replies
    return replies


class Replies(Sequence[Assignment]):
    """The other side's legal assignments, held as the blocks of rows the step lists (in the smallest integer
    type that holds their amounts, ``engines.direct.dtype_for`` of the largest source's damage), each read as an
    :class:`~trample.models.Assignment` when it is taken. Not a list of assignment objects: millions of those (a
    banding blocker on ``random_sharing(12, 14, 4)``: 7 x 10^6 replies in 10 s) held 1.4 GB, and the collector's
    passes over them took 7.6 of those 10 s, the last one past the time limit by 0.5 s."""

    def __init__(self, other: DamageStep, deadline) -> None:
        self._layout = other._layout
        self._blocks: list[np.ndarray] = []
        self._starts = [0]
        small = blocks_engine("direct").dtype_for(max((s.damage for s in other.plan.sources), default=0))
        for block in other.assignment_blocks(time_limit=deadline):
            if not len(block):
                continue
            self._blocks.append(block.astype(small, copy=False))
            self._starts.append(self._starts[-1] + len(block))

    def __len__(self) -> int:
        return self._starts[-1]

    def __iter__(self) -> Iterator[Assignment]:
        assignment = self._layout.assignment
        for block in self._blocks:
            yield from map(assignment, block.tolist())

    @overload
    def __getitem__(self, i: int) -> Assignment: ...

    @overload
    def __getitem__(self, i: slice) -> list[Assignment]: ...

    def __getitem__(self, i: int | slice) -> Assignment | list[Assignment]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        b = bisect.bisect_right(self._starts, i) - 1
        return self._layout.assignment(self._blocks[b][i - self._starts[b]].tolist())


def _division(step: DamageStep) -> _Division:
    """The step's :class:`_Division` (kept on the step: the plans it reads are the step's)."""
    held = step.__dict__.get("_division")
    if held is None:
        held = step.__dict__["_division"] = _Division(step)
    return held


class _Division:
    """Who chooses which part of a line of the step (:func:`trample.rules.divider`): the solved player divides
    the damage of the sources the rules give them, on both sides (their own creatures', and with banding some of
    the other side's, 702.22j/k); the other player divides the rest, as a reply made knowing the solved player's
    part. ``mine(assignment, reply)`` is the solved player's part of a line: lines with the same part are one
    choice of the solved player, worth its worst line."""

    def __init__(self, step: DamageStep):
        player = step.side if step.side != Side.BOTH else None
        plan = step.plan
        self.own = [k for k, (i, _) in enumerate(plan.columns) if player is None or plan.sources[i].chooser == player]
        self.simple = len(self.own) == len(plan.columns)  # the solved side's sources are all the solved player's
        self.theirs = _theirs(step)
        self.simple = self.simple and not self.theirs.columns

    def mine(self, vec: tuple[int, ...], reply) -> tuple:
        return tuple(vec[k] for k in self.own), self.theirs.part(reply)


class _Theirs:
    """The other side's columns whose damage the solved player divides (banding, 702.22j/k; none without)."""

    def __init__(self, step: DamageStep):
        player = step.side if step.side != Side.BOTH else None
        other = other_side_step(step)
        self.plan = None if other is None else other.plan
        self.columns: list[int] = []
        if self.plan is not None and player is not None:
            op = self.plan
            self.columns = [k for k, (i, _) in enumerate(op.columns) if op.sources[i].chooser == player]

    def part(self, reply) -> tuple:
        """The solved player's part of ``reply`` (the other side's assignment): its amounts on :attr:`columns`."""
        if not self.columns or reply is None:
            return ()
        assert self.plan is not None
        rvec = self.plan.vector(reply)
        return tuple(rvec[k] for k in self.columns)


def _theirs(step: DamageStep) -> _Theirs:
    """The step's :class:`_Theirs` (kept on the step; it reads the other side's plan, not the step's own)."""
    held = step.__dict__.get("_theirs")
    if held is None:
        held = step.__dict__["_theirs"] = _Theirs(step)
    return held


def evaluate(step: DamageStep, assignment, objs, replies) -> Any:
    """(oriented key, values, outcome, reply) of one assignment of the step: the solved player divides their part
    of the other side's damage (banding, 702.22k/j) at best, the other player the rest at worst (ties: the first
    reply listed)."""
    theirs = _theirs(step)  # only the other side's part: the step's own plan is not read
    parts: dict[tuple, tuple] = {}
    floor = None if theirs.columns else _floor(objs)
    for reply in replies:
        values, outcome = step_values(step, assignment, objs, reply)
        key = oriented(objs, values)
        g = theirs.part(reply)
        if g not in parts or key < parts[g][0]:
            parts[g] = (key, values, outcome, reply)
            if key == floor:  # one part (no banding choice of the solved player) and no reply can be worse
                break
    best = None
    for cand in parts.values():
        if best is None or cand[0] > best[0]:
            best = cand
    return best


#: the objectives whose values are counts of what happened (losers, damage, kills), never below zero
_COUNTS = frozenset({ObjectiveKind.LETHAL, ObjectiveKind.MAX_DAMAGE, ObjectiveKind.MAX_KILLS})


def _floor(objs) -> tuple | None:
    """The lowest key :func:`oriented` can give ``objs`` when each of them counts something (all zero), else None:
    a reply reaching it is a worst reply, and the later ones need not be read (ties go to the first)."""
    return tuple(Fraction(0) for _ in objs) if all(o.kind in _COUNTS for o in objs) else None


def solve_by_outcome(step: DamageStep, objs, time_limit=None, tie_break: bool = True) -> SolveResult:
    """The best assignment of the step for lexicographic ``objs``, scored on the outcome (see the module).

    Who divides what is :func:`trample.rules.divider`'s: each line of the step (the solved side's assignment and
    the other side's, dealt at once, 510.2) is split into the solved player's part (the sources whose damage
    they divide, on either side: with banding, 702.22j/k, some of the other side's) and the other player's.
    A part is worth its worst line (the other player replies knowing it; ties: the smaller vector of the solved
    side, then the first reply listed); the best part's worst line is returned (ties: its smaller vector).
    Without banding a part is one assignment of the solved side, worth its worst reply."""
    start = time.perf_counter()
    deadline = deadline_of(time_limit)
    best = None
    stopped = False
    division = _division(step)
    groups: dict[tuple, list] = {}  # part -> [worst line, the losers of its every line]
    can_lose: set[str] = set()  # players whom some part makes lose on every line

    def better(cand, than) -> bool:
        return than is None or cand[0] > than[0] or (tie_break and cand[0] == than[0] and cand[1] < than[1])

    try:
        replies = every_reply(step, deadline)
        for assignment in step.assignments(time_limit=deadline):
            vec = vector_of(step, assignment)
            for reply in replies:
                if deadline:  # by the clock, every line (a line costs a fraction of a millisecond)
                    deadline.check()
                values, outcome = step_values(step, assignment, objs, reply)
                # a part keeps its worst line's key and choices, not its outcome (recomputed for the best alone):
                # with banding every part is held to the end, and thousands of outcomes held made the collector's
                # passes over them 0.15-0.2 s long, past the deadline checked between lines
                line = (oriented(objs, values), vec, assignment, reply)
                losers = {p for p, _ in outcome.losers}
                g = division.mine(vec, reply)
                held = groups.get(g)
                if held is None:
                    groups[g] = [line, losers]
                else:
                    if line[0] < held[0][0] or (line[0] == held[0][0] and vec < held[0][1]):
                        held[0] = line
                    held[1] &= losers
            if division.simple:  # one part per assignment: settled once its replies are read
                for held in groups.values():
                    can_lose |= held[1]
                    if better(held[0], best):
                        best = held[0]
                groups.clear()
    except LimitReached:
        stopped = True
    for held in groups.values():
        can_lose |= held[1]
        if better(held[0], best):
            best = held[0]
    elapsed = (time.perf_counter() - start) * 1000
    if best is None:
        return SolveResult(STATUS_UNKNOWN if stopped else STATUS_INFEASIBLE, None, {}, None, elapsed, 0)
    _, _, assignment, reply = best
    values, outcome = step_values(step, assignment, objs, reply)
    lethal = None
    if any(o.kind == ObjectiveKind.LETHAL for o in objs):
        reachable = None if stopped else {p.id: p.id in can_lose for p in step.scenario.players}
        lethal = lethal_report(step, assignment, outcome, reachable)
    status = STATUS_FEASIBLE if stopped else STATUS_OPTIMAL
    return SolveResult(status, assignment, values, lethal, elapsed, 0, reply=reply)


def lethal_report(step: DamageStep, assignment, outcome, reachable: dict | None) -> dict:
    """Per listed player: the chosen line's damage dealt by the solved side, life, poison and commander damage
    after the step, whether they lose and why (704.5a life, 704.5c poison, 704.6c commander damage)."""
    own = assignment.to_json()
    out = {}
    for p in step.scenario.players:
        after = outcome.player(p.id)
        dealt = sum(e.dealt for e in outcome.events if e.recipient == p.id and e.source in own)
        assigned = sum(split.get(p.id, 0) for split in own.values())
        report = {
            "life": p.life,
            "damage": dealt,
            "margin": dealt - p.life,
            "reached": bool(after.loses),
            "assigned": assigned,
            "life_after": after.life,
            "poison": after.poison,
            "commander_damage": dict(after.commander_damage),
            "because": after.to_json()["because"],
        }
        if reachable is not None:
            report["reachable"] = reachable[p.id]
        out[p.id] = report
    return out


def all_optimal_by_outcome(step: DamageStep, objs, time_limit=None, replies=None) -> list[Assignment]:
    """Every assignment of the solved side that an optimal line can hold (:func:`solve_by_outcome`'s parts whose
    worst line reaches the optimum; with banding, whatever the other player puts on the sources they divide),
    in the engine's order. ``replies``: the other side's replies among which each one's worst is found (default:
    every reply listed; :func:`trample.optimize.effects.worst_candidates` gives the same worst lines)."""
    deadline = deadline_of(time_limit)
    replies = every_reply(step, deadline) if replies is None else replies
    division = _division(step)
    listed = list(step.assignments(time_limit=deadline))
    worst: dict[tuple, tuple] = {}
    for a in listed:
        vec = vector_of(step, a)
        for reply in replies:
            if deadline:
                deadline.check()
            key = oriented(objs, step_values(step, a, objs, reply)[0])
            g = division.mine(vec, reply)
            if g not in worst or key < worst[g]:
                worst[g] = key
    if not worst:
        return []
    top = max(worst.values())
    chosen = {g[0] for g, k in worst.items() if k == top}
    return [a for a in listed if division.mine(vector_of(step, a), None)[0] in chosen]


__all__ = [
    "solve_by_outcome",
    "all_optimal_by_outcome",
    "step_values",
    "Objective",
]
