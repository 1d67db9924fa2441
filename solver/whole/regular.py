"""The regular step's lexicographic optimum as a sum over groups when the objectives read a threshold on the one
defending player (``lethal``, ``min-overkill``), without a solver (:class:`GroupedRegular`).

The regular step is the last: nothing after it reads which attackers survive. Attackers that share no blocker
(510.1c, 510.1d: a creature's damage only goes to the creatures it blocks or is blocked by, and to what its
attacker attacks) assign independently, and on a board with one player, no planeswalker or battle, and no damage
effects, every objective this module accepts is a sum over the groups of a part that reads the group alone,
plus a term that reads only ``D``, the damage all groups assign the player:

- ``lethal``: [D >= life] (the term; the groups add nothing);
- ``max-kills``: the kills, a sum over creatures;
- ``min-overkill``: the creatures' overkill (a sum), plus max(0, D - max(0, life)) (the player's);
- ``max-damage`` (no target): D.

Per group, every legal assignment of its board is scored with numpy (the direct engine's blocks,
:class:`trample.optimize.linear.BlockScorer`, on the group's board with the player's life set out of reach so
that the scorer counts no player term), and for each amount ``d`` it assigns the player the best part
(lexicographically) is kept: the group's *front*, memoised by the group's board, so a group met in many states is
scored once. The groups' fronts are then added up by a dynamic programme over ``D``: for a fixed ``D`` the term
is fixed, and the lexicographic order is compatible with adding vectors, so the best sum for each ``D`` is made
of best parts; the answer is the best over ``D`` of the sum and the term. It is exact: the same values as the
one-step solve (tests/whole/test_whole_regular.py checks it against CP-SAT and the two-step brute force).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..combat import Combat
from ..models import Assignment, ObjectiveKind, RulesSet, Scenario, Side
from ..optimize import STATUS_OPTIMAL, Objective, SolveResult
from ..optimize.linear import BlockScorer
from ..outcome import after_step, has_effects, reaches
from ..rules import division_moved, linked_groups

#: The objective kinds :class:`GroupedRegular` adds up by groups (untargeted).
KINDS = frozenset({"lethal", "max-kills", "min-overkill", "max-damage"})

#: A group whose regular step has more legal assignments than this is not scored row by row (the caller solves
#: the state with the one-step solver instead).
ROWS = 1 << 18

#: The player's life on a group's board: more than any damage, so that no player term counts there.
_OUT_OF_REACH = 1 << 40


@dataclass(frozen=True)
class _Front:
    """One group's front: per damage to the player, the best part (one int per objective, oriented: larger is
    better, 0 for ``lethal``) and the row of the group's plan that reaches it; ``number``: its place in the memo."""

    best: dict[int, tuple[tuple[int, ...], tuple[int, ...]]]
    plan: Any
    number: int
    #: the assignments of its rows, as read (row -> the assignment's JSON)
    rows: dict = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class _Part:
    """One group of the first step's board (attackers sharing blockers): its board, its attackers, and where its
    blockers' numbers are in a first-strike candidate's capped effect (:func:`trample.whole.search._effect_rows`)."""

    board: Scenario
    attackers: frozenset[str]
    sources: frozenset[str]
    positions: tuple[int, ...]


class GroupedRegular:
    """The regular step's optimum by groups (see the module) for one board's objectives; :meth:`solve` answers a
    state, or None when the state is not one this applies to (the caller then solves it with the one-step solver)."""

    def __init__(self, scenario: Scenario, objs: tuple[Objective, ...], engine: str):
        self.objs = objs
        self.engine = engine
        self.applies = applies(scenario, objs)
        self.fronts: dict[Scenario, _Front | None] = {}
        self.by_part: dict[tuple, list[_Front] | None] = {}
        self.by_fronts: dict[tuple, SolveResult] = {}
        self.sums: dict[tuple, dict] = {}  # the fronts' sums (:func:`_added`) by their numbers
        self.parts: list[_Part] | None = None
        self.player_at: int | None = None
        # the group's board is scored for the additive parts: kills and the creatures' overkill
        self._parts = tuple(o for o in objs if o.kind in (ObjectiveKind.MAX_KILLS, ObjectiveKind.MIN_OVERKILL))

    def solve(self, state: Scenario, deadline: Any = None) -> SolveResult | None:
        """The regular step's values on ``state`` and one assignment reaching them (status optimal), or None."""
        if not self.applies or state.players[0].life <= 0:  # 704.5a, 104.3b: the game may be over (not here)
            return None
        fronts = self._fronts_of(state, deadline)
        if fronts is None:
            return None
        return self._combined(fronts, state.players[0].life, tuple(a.id for a in state.attackers))

    def prepare(self, scenario: Scenario, at: dict[str, tuple[int, ...]]) -> None:
        """Key the regular step by the first step's candidates (:meth:`after`): ``at`` gives, per recipient of
        the first step, the positions of its numbers in a candidate's capped effect (its damage, and its
        deathtouch flag when a deathtouch source may assign it any)."""
        if not self.applies:
            return
        player = at.get(scenario.players[0].id, ())
        self.player_at = player[0] if player else None
        self.parts = []
        for members in linked_groups(range(len(scenario.attackers)), lambda i: scenario.attackers[i].blocked_by):
            board = part_board(scenario, members, first=not self.parts)
            blockers = frozenset(b.id for b in board.blockers)
            positions = tuple(k for r in sorted(blockers) for k in at.get(r, ()))
            attackers = frozenset(a.id for a in board.attackers)
            self.parts.append(_Part(board, attackers, attackers | blockers, positions))

    def after(self, a1: Callable[[], Assignment], capped: tuple, d1: Assignment, killed: frozenset, deadline: Any):
        """The regular step's answer after a first-strike candidate whose capped effect is ``capped`` (``a1``
        builds its assignment) and the reply ``d1`` that kills the attackers ``killed`` (plain boards: nothing
        else of the reply changes the regular step), or None. Each group's state is only built when its part of
        the effect (its blockers' numbers, the attackers it loses) is new; the player's life is what is left."""
        life = self._life - (0 if self.player_at is None else capped[self.player_at])
        if self.parts is None or life <= 0:  # 704.5a, 104.3b: the game may be over (the one-step solver's case)
            return None
        fronts: list[_Front] = []
        attackers: list[str] = []
        built: dict[str, dict[str, int]] | None = None
        for k, part in enumerate(self.parts):
            key = (k, tuple(capped[p] for p in part.positions), killed & part.attackers)
            if key not in self.by_part:
                if built is None:
                    built = {**a1().to_json(), **d1.to_json()}
                first = Assignment({s: v for s, v in built.items() if s in part.sources})
                self.by_part[key] = self._fronts_of(after_step(part.board, first), deadline)
            got = self.by_part[key]
            if got is None:
                return None
            fronts += got
            attackers += [a.id for a in part.board.attackers if a.id not in killed]
        return self._combined(fronts, life, tuple(attackers))

    @property
    def _life(self) -> int:
        return self.parts[0].board.players[0].life if self.parts else 0

    def _fronts_of(self, state: Scenario, deadline: Any) -> list[_Front] | None:
        live = live_board(state)
        fronts: list[_Front] = []
        for members in linked_groups(range(len(live.attackers)), lambda i: live.attackers[i].blocked_by):
            front = self._front(part_board(live, members, first=not fronts), deadline)
            if front is None:
                return None
            fronts.append(front)
        return fronts

    def _combined(self, fronts: list[_Front], life: int, attackers: tuple[str, ...]) -> SolveResult:
        """The groups' fronts added up against a player at ``life`` (memoised)."""
        key = (tuple(f.number for f in fronts), life)
        if key in self.by_fronts:
            return self.by_fronts[key]
        numbers = key[0]
        if numbers not in self.sums:
            self.sums[numbers] = _added(fronts, len(self.objs))
        best = None
        for d, (part, rows) in self.sums[numbers].items():
            value = self._value(life, d, part)
            if best is None or value > best[0]:
                best = (value, rows)
        assert best is not None  # every group has at least one legal assignment
        value, rows = best
        assignment: dict[str, dict[str, int]] = {a: {} for a in attackers}
        for front, row in zip(fronts, rows):
            if row not in front.rows:
                front.rows[row] = front.plan.assignment([(front.plan.columns, list(row))]).to_json()
            assignment.update(front.rows[row])
        values = {o.name: (-v if o.kind == ObjectiveKind.MIN_OVERKILL else v) for o, v in zip(self.objs, value)}
        result = SolveResult(STATUS_OPTIMAL, Assignment(assignment), values, None, 0.0, 0)
        self.by_fronts[key] = result
        return result

    def _value(self, life: int, d: int, part: tuple[int, ...]) -> tuple[int, ...]:
        """The oriented values of a regular step assigning ``d`` to a player at ``life``, the groups' parts
        ``part`` (702.19b: the player's overkill is past their life, at least 0: trample.outcome.overkill_threshold)."""
        out = []
        for o, p in zip(self.objs, part):
            if o.kind == ObjectiveKind.LETHAL:
                out.append(int(reaches(d, life)))
            elif o.kind == ObjectiveKind.MAX_DAMAGE:
                out.append(d)
            elif o.kind == ObjectiveKind.MIN_OVERKILL:
                out.append(p - max(0, d - max(0, life)))
            else:
                out.append(p)
        return tuple(out)

    def _front(self, board: Scenario, deadline: Any) -> _Front | None:
        """The group's front (memoised by its board; None: too many assignments to score)."""
        player = board.players[0]
        key = replace(board, players=(replace(player, life=_OUT_OF_REACH),))
        if key not in self.fronts:
            self.fronts[key] = _scored(
                Combat(key, side=Side.ATTACKING, engine=self.engine), self, player.id, deadline, len(self.fronts)
            )
        return self.fronts[key]


def _scored(step: Combat, grouped: GroupedRegular, player: str, deadline: Any, number: int) -> _Front | None:
    """Every legal assignment of one group's step scored: per damage to the player, the best part and its row."""
    if step.count() > ROWS:
        return None
    scorer = BlockScorer(step, grouped._parts)
    column = scorer.recipients.index(player) if player in scorer.recipients else None
    where = [grouped._parts.index(o) if o in grouped._parts else None for o in grouped.objs]
    best: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
    for block in step.assignment_blocks(time_limit=deadline):
        values = scorer.values(block) if grouped._parts else np.zeros((len(block), 0), dtype=np.int64)
        d = np.zeros(len(block), dtype=np.int64) if column is None else scorer.total(block, column)
        parts = np.stack(
            [values[:, k] if k is not None else np.zeros(len(block), dtype=np.int64) for k in where], axis=1
        )
        # per distinct d, the lexicographically largest part (the first row of it in the block's order)
        order = np.lexsort([-parts[:, k] for k in reversed(range(parts.shape[1]))] + [d])
        firsts = order[np.concatenate(([True], d[order][1:] != d[order][:-1]))]
        for i in firsts.tolist():
            part = tuple(parts[i].tolist())
            held = best.get(int(d[i]))
            if held is None or part > held[0]:
                best[int(d[i])] = (part, tuple(block[i].tolist()))
    return _Front(best, step.plan, number) if best else None


def _added(fronts: list[_Front], width: int) -> dict[int, tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]]:
    """The groups' fronts added up: per total damage to the player, the best sum of parts and the rows of it."""
    totals: dict[int, tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]] = {0: ((0,) * width, ())}
    for front in fronts:
        grown: dict[int, tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]] = {}
        for big_d, (have, rows) in totals.items():
            for d, (part, row) in front.best.items():
                summed = tuple(a + b for a, b in zip(have, part))
                held = grown.get(big_d + d)
                if held is None or summed > held[0]:
                    grown[big_d + d] = (summed, (*rows, row))
        totals = grown
    return totals


def applies(s: Scenario, objs: tuple[Objective, ...]) -> bool:
    """Does :class:`GroupedRegular` answer this board's regular step for these objectives? One player, no
    planeswalker or battle, no damage effects, the current rules, no division moved to the other player, and only
    the untargeted objectives of :data:`KINDS`, at least one reading the player's threshold (without one, the
    objectives are plain sums and the caller's groups do)."""
    return (
        len(s.players) == 1
        and not s.planeswalkers
        and not s.battles
        and s.rules == RulesSet.CURRENT
        and all(o.kind in KINDS and o.target is None for o in objs)
        and any(o.kind in (ObjectiveKind.LETHAL, ObjectiveKind.MIN_OVERKILL) for o in objs)
        and not has_effects(s)
        and not division_moved(s)
    )


def live_board(s: Scenario) -> Scenario:
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


def part_board(s: Scenario, members: list[int], first: bool = True) -> Scenario:
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
