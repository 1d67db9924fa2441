"""The best declarations (docs/declare.md, "solve"): the defending player's best blocks against the attacking
player's best damage assignment, and the attacking player's best attack against the defender's best blocks.

The objectives are the attacking player's, exactly those of ``trample solve`` (lexicographic, ``min-overkill``
minimised); the damage is solved by the whole-combat solver (:mod:`trample.whole`: both damage steps, the
defender's own damage assignment, every effect trample models) on the scenario each declaration turns into.
Three levels: the attacker declares, the defender blocks (minimising the attacker's value), the attacker assigns.

Exact over every legal declaration (the space's listing), with three savings that change no answer:

- **symmetry**: declarations whose scenarios differ only by a permutation of identical creatures (same stats,
  keywords, effects and abilities, named by nothing else) have the same value: solved once (memoised);
- **separable combats**: when the objectives are sums over independent groups (``max-damage``, ``max-damage:ID``
  of a player, ``max-kills``, ``max-value``), no blocker blocks more than one attacker, no two attackers attack
  one planeswalker or battle, the board has no damage effects, and no first-strike damage can end the game,
  the value of a declaration is the sum over the attackers of the value of that attacker with its own blockers.
  Each (attacker, blockers) group is solved once (memoised across every attack), and the best blocks are found
  by a programme over the attackers whose state is the set of blockers used and the requirements obeyed
  (509.1c is kept exactly);
- the lethal report reads the same programme with ``max-damage:P`` for each player P: "lethal through every
  block" when even the defender's best blocks let at least P's life through.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import combinations

from ..limits import LimitReached, deadline_of
from ..models import Keyword, ObjectiveKind, ObjectKind, RulesSet, Scenario, Step
from ..models.declare import AttackersDoc, Attacks, BlockersDoc, Blocks
from ..optimize import parse_objectives
from ..outcome import exact, has_effects
from ..whole import open_combat
from .legality import block_refusals, can_ever_block
from .space import DeclarationSpace

SEPARABLE = ("max-damage", "max-kills", "max-value")


@dataclass
class DeclareResult:
    status: str  # optimal | feasible (a limit stopped the proof) | unknown (nothing evaluated)
    declaration: Blocks | Attacks | None
    objectives: dict
    blocks: Blocks | None = None  # attacks: the defender's best blocks against it
    line: object = None  # the damage solve of the chosen scenario (assignment or whole-combat line)
    lethal: dict | None = None
    evaluated: int = 0  # declarations whose value was read (blocks, over every attack)
    solved: int = 0  # damage solves run (memoised)
    time_ms: float = 0.0

    def to_json(self) -> dict:
        out: dict = {
            "status": self.status,
            "declaration": None if self.declaration is None else self.declaration.to_json(),
        }
        if self.blocks is not None:
            out["blocks"] = self.blocks.to_json()
        out["objectives"] = dict(self.objectives)
        if self.line is not None:
            out["assignment"] = self.line.to_json()  # type: ignore[attr-defined]
        if self.lethal is not None:
            out["lethal"] = self.lethal
        out["solves"] = self.solved
        out["time_ms"] = round(self.time_ms, 3)
        return out


def _number(v):
    q = exact(v)
    return int(q) if q.denominator == 1 else float(q)


@dataclass
class _Search:
    objs: tuple
    deadline: object
    memo: dict = field(default_factory=dict)
    groups: dict = field(default_factory=dict)
    solved: int = 0
    evaluated: int = 0

    def oriented(self, values: dict) -> tuple:
        return tuple(exact(values[o.name]) * (1 if o.maximize else -1) for o in self.objs)

    def group(self, doc: BlockersDoc, attacker: str, blockers: tuple[str, ...], objs) -> tuple:
        """A separable combat's term, memoised by ids first (the same group in every attack), then by symmetry."""
        key = (doc.board[attacker], blockers, tuple(o.name for o in objs))  # one board per search: ids suffice
        got = self.groups.get(key)
        if got is None:
            got = self.groups[key] = self.damage(_group(doc, attacker, blockers), objs)[0]
        return got

    def damage(self, scenario: Scenario, objs=None) -> tuple[tuple, object]:
        """The attacker's best value on one scenario (oriented), and the solve result."""
        objs = self.objs if objs is None else objs
        key = (_canonical(scenario, objs), tuple(o.name for o in objs))
        got = self.memo.get(key)
        if got is None:
            self.deadline.check()  # type: ignore[attr-defined]
            left = self.deadline.remaining()  # type: ignore[attr-defined]
            result = open_combat(_one_step(scenario)).solve([o.name for o in objs], time_limit=left, tie_break=False)
            if result.status != "optimal":
                raise LimitReached("a damage solve stopped at the time limit")
            self.solved += 1
            got = (tuple(exact(result.objectives[o.name]) * (1 if o.maximize else -1) for o in objs), result)
            self.memo[key] = got
        return got


def _one_step(s: Scenario) -> Scenario:
    """A whole combat without a first-strike step (510.4: no creature in combat has first or double strike) is its
    regular step, with the same optimum (docs/combat.md): solved as one step, which is cheaper."""
    if s.step == Step.COMBAT and not any(
        c.has(Keyword.FIRST_STRIKE) or c.has(Keyword.DOUBLE_STRIKE) for c in (*s.attackers, *s.blockers)
    ):
        return s.with_step(Step.REGULAR)
    return s


# ---------------------------------------------------------------------------------------------
# Symmetry: a canonical key of a scenario up to a permutation of identical creatures
# ---------------------------------------------------------------------------------------------


def _canonical(s: Scenario, objs) -> str:
    data = s.to_json()
    named = {o.target for o in objs if o.target}
    text = json.dumps({k: v for k, v in data.items() if k not in ("attackers", "blockers")}, sort_keys=True)
    referenced = {c["id"] for c in data["attackers"] + data["blockers"] if f'"{c["id"]}"' in text} | named
    for c in data["attackers"] + data["blockers"]:  # ids named inside creatures: protection, orders, ...
        rest = json.dumps({k: v for k, v in c.items() if k not in ("id", "blocked_by")})
        referenced |= {o["id"] for o in data["attackers"] + data["blockers"] if f'"{o["id"]}"' in rest}

    blocking: dict[str, int] = {}
    for a in data["attackers"]:
        for b in a["blocked_by"]:
            blocking[b] = blocking.get(b, 0) + 1
    referenced |= {b for b, n in blocking.items() if n > 1}  # a creature blocking several: told apart by its id

    def label(c) -> str:
        if c["id"] in referenced:
            return "#" + c["id"]
        return json.dumps({k: v for k, v in c.items() if k not in ("id", "blocked_by")}, sort_keys=True)

    blockers = {b["id"]: label(b) for b in data["blockers"]}
    groups = sorted(json.dumps([label(a), sorted(blockers[b] for b in a["blocked_by"])]) for a in data["attackers"])
    return text + "|" + "|".join(groups)


# ---------------------------------------------------------------------------------------------
# The defender's best blocks
# ---------------------------------------------------------------------------------------------


def _separable(doc: BlockersDoc, objs) -> bool:
    board = doc.board
    if any(o.kind not in SEPARABLE for o in objs):
        return False
    if any(o.target is not None and o.target not in {p.id for p in board.players} for o in objs):
        return False
    if has_effects(board) or board.rules != RulesSet.CURRENT:
        return False
    if doc.bands or any(c.has(Keyword.BANDING) for c in (*board.attackers, *board.blockers)):
        return False  # a band's blockers block every member (702.22h); banding moves who divides (702.22j/k)
    if any(doc.block_cost(b.id) for b in board.blockers):
        return False  # costs to block (509.1d): the programme's states do not track what each player pays
    if any(doc.of(b.id).block_limit != 1 or doc.of(b.id).has("cant_block_alone") for b in board.blockers):
        return False  # several attackers per blocker, or 509.1b's "can't block alone": blockers are coupled
    targets = [a.attacking for a in board.attackers if board.kind(a.attacking) != ObjectKind.PLAYER]
    if len(targets) != len(set(targets)):
        return False
    if board.step != Step.REGULAR:  # no first-strike damage may end the game before the regular step (704.5a)
        first = sum(
            max(a.power, 0) for a in board.attackers if a.has(Keyword.FIRST_STRIKE) or a.has(Keyword.DOUBLE_STRIKE)
        )
        if any(first >= p.life for p in board.players):
            return False
    return True


def _may_trample(a) -> bool:
    """Whether a blocked attacker can assign damage past its blockers (702.19, "as though it weren't blocked")."""
    return a.has(Keyword.TRAMPLE) or a.as_though_unblocked


def _group(doc: BlockersDoc, attacker: str, blockers: tuple[str, ...]) -> Scenario:
    """One attacker with its blockers, alone on the board (a separable combat's term)."""
    board = doc.board
    a = board.attacker(attacker)
    a = replace(a, blocked_by=blockers, blocked=bool(blockers))
    bs = tuple(b for b in board.blockers if b.id in blockers)
    return replace(board, attackers=(a,), blockers=bs)


def _separable_best(doc: BlockersDoc, space: DeclarationSpace, search: _Search, objs) -> tuple[tuple, Blocks]:
    """min over legal blocks of the sum over attackers of their groups' values (lexicographic), 509.1c kept:
    a programme over the attackers, state (blockers used, requirements obeyed so far).

    Bounds before search: when the first objective is damage (``max-damage``, to every player or one), a blocked
    attacker that cannot trample deals none (510.1c), so that component of its groups is known without a solve.
    A first programme on that component alone (the trampling groups solved, the rest read off the rule) gives the
    least first component D and, forwards and backwards, the least first component of a legal declaration through
    each group; a group through which no legal declaration reaches D is in no lexicographically best declaration
    and is never solved. Dominance: of two groups of one attacker, the one using a superset of the other's
    blockers (none of them obeying "blocks each combat"), obeying no more requirements and worth no less to the
    attacker is dropped (the other leaves the defender more and costs no more)."""
    attackers = space.attackers
    blockers = space.choosers
    reqs = space.requirements
    each = {blockers.index(r.creature) for r in reqs if r.kind == "blocks_each_combat"}
    each_mask = sum(1 << i for i in each)
    lured = {(r.attacker, r.creature) for r in reqs if r.kind == "lure"}
    must = {r.creature for r in reqs if r.kind == "must_be_blocked"}
    able = {
        a: [i for i, b in enumerate(blockers) if not can_ever_block(doc, b) and not block_refusals(doc, a, b)]
        for a in attackers
    }
    zero = tuple(Fraction(0) for _ in objs)
    best_r = space.max_obeyed()
    players_only = all(o.kind == ObjectiveKind.MAX_DAMAGE for o in objs)  # damage to players, every objective

    def blind(a: str, ids: tuple[str, ...]) -> bool:
        """510.1c: a blocked creature without trample assigns its damage to blockers only."""
        return bool(ids) and not _may_trample(doc.board.attacker(a))

    def value(a: str, ids: tuple[str, ...]) -> tuple:
        return zero if players_only and blind(a, ids) else search.group(doc, a, ids, objs)

    groups = _attacker_groups(doc, space, able, must, lured)

    if len(objs) > 1 and objs[0].kind == ObjectiveKind.MAX_DAMAGE:
        first = [
            [(Fraction(0),) if blind(a, ids) else (value(a, ids)[0],) for _, ids, _ in mine]
            for a, mine in zip(attackers, groups)
        ]
        keep = _through_the_least(groups, first, each_mask, best_r)
        groups = [[g for g, k in zip(mine, ks) if k] for mine, ks in zip(groups, keep)]

    options = [
        _undominated([(mask, ids, obeyed, value(a, ids)) for mask, ids, obeyed in mine], each_mask)
        for a, mine in zip(attackers, groups)
    ]
    states = _programme(options, zero, best_r)
    best = None
    for (mask, r), (total, choice) in states.items():
        if r + bin(mask & each_mask).count("1") != best_r:
            continue
        blocks = Blocks({a: ids for a, ids in zip(attackers, choice) if ids})
        if best is None or total < best[0] or (total == best[0] and _rank(space, blocks) < _rank(space, best[1])):
            best = (total, blocks)
    assert best is not None  # declaring no blocks breaks no restriction: some state obeys the maximum
    search.evaluated += 1
    return best


#: An attacker's group of blockers: (blocker mask, blocker ids, requirements obeyed).
_Group = tuple[int, tuple[str, ...], int]
#: The programme's states: (blockers used, requirements obeyed) -> (value, the group chosen per attacker so far).
_States = dict[tuple[int, int], tuple[tuple, tuple]]


def _attacker_groups(doc: BlockersDoc, space: DeclarationSpace, able, must, lured) -> list[list[_Group]]:
    """Every attacker's possible groups of blockers (none, or at least the blockers it needs), each with the
    requirements it obeys (must be blocked, lure)."""
    blockers = space.choosers
    groups: list[list[_Group]] = []
    for a in space.attackers:
        need = doc.of(a).need_blockers
        mine = []
        for size in [0, *range(need, len(able[a]) + 1)]:
            for group in combinations(able[a], size):
                ids = tuple(blockers[i] for i in group)
                obeyed = int(bool(group) and a in must) + sum(1 for b in ids if (a, b) in lured)
                mine.append((sum(1 << i for i in group), ids, obeyed))
        groups.append(mine)
    return groups


def _undominated(valued: list, each_mask: int) -> list:
    """An attacker's valued groups without the dominated ones: a group using a superset of another's blockers
    (none of the extra ones obeying "blocks each combat"), obeying no more requirements and worth no less."""
    return [
        (mask, ids, obeyed, v)
        for mask, ids, obeyed, v in valued
        if not any(
            m2 != mask and m2 & mask == m2 and not (mask & ~m2 & each_mask) and o2 >= obeyed and v2 <= v
            for m2, _, o2, v2 in valued
        )
    ]


def _programme(options: list, zero: tuple, best_r: int) -> _States:
    """The programme over the attackers: the least value of every (blockers used, requirements obeyed) state,
    no more requirements than the most that can be obeyed."""
    states: _States = {(0, 0): (zero, ())}
    for opts in options:
        nxt: _States = {}
        for (mask, r), (total, choice) in states.items():
            for gmask, ids, obeyed, v in opts:
                if gmask & mask:
                    continue
                key = (mask | gmask, r + obeyed)
                if key[1] > best_r:
                    continue
                t = tuple(x + y for x, y in zip(total, v))
                old = nxt.get(key)
                if old is None or t < old[0]:  # ties: the earlier choice (canonical order) stays
                    nxt[key] = (t, (*choice, ids))
        states = nxt
    return states


def _through_the_least(groups, values, each_mask: int, best_r: int) -> list[list[bool]]:
    """For each attacker's groups: whether some legal declaration through it reaches the least total of
    ``values`` (1-tuples) over every legal declaration (509.1c's maximum of requirements kept)."""
    n = len(groups)
    forward: list[dict[tuple[int, int], Fraction]] = [{(0, 0): Fraction(0)}]
    for i in range(n):
        nxt: dict[tuple[int, int], Fraction] = {}
        for (mask, r), total in forward[i].items():
            for (gmask, _, obeyed), (v,) in zip(groups[i], values[i]):
                if gmask & mask or r + obeyed > best_r:
                    continue
                key = (mask | gmask, r + obeyed)
                t = total + v
                if key not in nxt or t < nxt[key]:
                    nxt[key] = t
        forward.append(nxt)
    inf = None
    backward: dict[tuple[int, int], Fraction | None] = {
        (mask, r): (Fraction(0) if r + bin(mask & each_mask).count("1") == best_r else inf) for mask, r in forward[n]
    }
    keep = [[False] * len(g) for g in groups]
    ends = [t for (mask, r), t in forward[n].items() if backward[mask, r] is not None]
    least = min(ends)
    for i in range(n - 1, -1, -1):
        here: dict[tuple[int, int], Fraction | None] = {}
        for (mask, r), total in forward[i].items():
            best = inf
            for k, ((gmask, _, obeyed), (v,)) in enumerate(zip(groups[i], values[i])):
                if gmask & mask or r + obeyed > best_r:
                    continue
                rest = backward.get((mask | gmask, r + obeyed))
                if rest is None:
                    continue
                if total + v + rest == least:
                    keep[i][k] = True
                if best is None or v + rest < best:
                    best = v + rest
            here[mask, r] = best
        backward = here
    return keep


def _rank(space: DeclarationSpace, blocks: Blocks) -> int:
    rank = space.rank(blocks)
    assert rank is not None  # the programme builds legal declarations only
    return rank


def _generic_best(doc: BlockersDoc, space: DeclarationSpace, search: _Search, objs) -> tuple[tuple, Blocks, bool]:
    """min over every legal block declaration, in the canonical order (ties: the first); memoised by symmetry.
    Returns (value, blocks, complete)."""
    best = None
    try:
        for blocks in space.declarations(deadline=search.deadline):  # type: ignore[arg-type]
            assert isinstance(blocks, Blocks)
            value, _ = search.damage(doc.scenario(blocks), objs)
            search.evaluated += 1
            if best is None or value < best[0]:
                best = (value, blocks)
    except LimitReached:
        if best is None:
            raise
        return best[0], best[1], False
    assert best is not None
    return best[0], best[1], True


def best_blocks(doc: BlockersDoc, search: _Search, objs=None, space: DeclarationSpace | None = None):
    objs = search.objs if objs is None else objs
    space = DeclarationSpace(doc) if space is None else space
    if _separable(doc, objs):
        value, blocks = _separable_best(doc, space, search, objs)
        return value, blocks, True
    players = doc.board.players
    if [o.kind for o in objs] == [ObjectiveKind.LETHAL] and len(players) == 1:
        # one player, no effects: the attacker has lethal against some blocks exactly when its most damage to
        # the player reaches their life (704.5a), so the defender's best blocks are those letting the least through
        probe = parse_objectives(f"max-damage:{players[0].id}", doc.board)
        if _separable(doc, probe):
            value, blocks = _separable_best(doc, space, search, probe)
            return (Fraction(int(value[0] >= players[0].life)),), blocks, True
    return _generic_best(doc, space, search, objs)


def lethal_report(doc: BlockersDoc, search: _Search, space: DeclarationSpace | None = None) -> dict:
    """Per defending player: the least damage the defender's best blocks let through against the attacker's
    best damage (``max-damage:P``), and whether that is lethal through every block; if not, the block that
    survives."""
    space = DeclarationSpace(doc) if space is None else space
    out = {}
    for p in doc.board.players:
        objs = parse_objectives(f"max-damage:{p.id}", doc.board)
        value, blocks, complete = best_blocks(doc, search, objs, space)
        least = int(value[0])
        entry: dict = {"life": p.life, "least_damage": least, "lethal_through_every_block": least >= p.life}
        if least < p.life:
            entry["surviving_block"] = blocks.to_json()
        if not complete:
            entry["complete"] = False
        out[p.id] = entry
    return out


class AttackJudge:
    """The value of attacks on one declare-attackers document, for the attack arena: the defender's best blocks
    against each (as :func:`solve_declaration`'s middle level finds them), the attacker's best damage against
    those. Oriented as the search's values (more is better for the attacking player, each objective in turn);
    the damage solves are memoised across the attacks judged."""

    def __init__(self, doc: AttackersDoc, objectives) -> None:
        self.doc = doc
        self.objs = parse_objectives(objectives, doc.board)
        self.search = _Search(self.objs, deadline_of(None))

    def value(self, attacks: Attacks) -> tuple[tuple, Blocks]:
        """The attack's value (oriented) and the defender's best blocks against it; no limit: proven."""
        value, blocks, complete = best_blocks(self.doc.blockers_doc(attacks), self.search)
        assert complete  # no deadline was set
        return value, blocks


def solve_declaration(
    doc: BlockersDoc | AttackersDoc,
    objectives,
    *,
    time_limit=None,
    progress: Callable[[int], None] | None = None,
) -> DeclareResult:
    """The defender's best blocks (a blockers document), or the attacker's best attack against them (an
    attackers document); see the module docstring. ``time_limit``: the best found so far, status
    ``feasible``."""
    start = time.perf_counter()
    deadline = deadline_of(time_limit)
    objs = parse_objectives(objectives, doc.board)
    search = _Search(objs, deadline)
    wants_lethal = any(o.kind == ObjectiveKind.LETHAL for o in objs)
    if isinstance(doc, BlockersDoc):
        space = DeclarationSpace(doc)
        try:
            value, blocks, complete = best_blocks(doc, search, objs, space)
        except LimitReached:
            return DeclareResult("unknown", None, {}, evaluated=search.evaluated, solved=search.solved)
        result = _final(doc.scenario(blocks), objs, deadline)
        lethal = None
        if wants_lethal and not deadline.expired():
            try:
                lethal = lethal_report(doc, search, space)
            except LimitReached:
                complete = False
        return DeclareResult(
            "optimal" if complete else "feasible",
            blocks,
            {o.name: _number(v * (1 if o.maximize else -1)) for o, v in zip(objs, value)},
            line=result.assignment if result is not None else None,
            lethal=lethal,
            evaluated=search.evaluated,
            solved=search.solved,
            time_ms=(time.perf_counter() - start) * 1000,
        )
    attack_space = DeclarationSpace(doc)
    best = None
    complete = True
    try:
        for attacks in attack_space.declarations(deadline=deadline):
            assert isinstance(attacks, Attacks)
            blockers_doc = doc.blockers_doc(attacks)
            value, blocks, whole = best_blocks(blockers_doc, search, objs)
            if progress is not None:
                progress(search.evaluated)
            if not whole:
                complete = False
                break
            if best is None or value > best[0]:
                best = (value, attacks, blocks, blockers_doc)
    except LimitReached:
        complete = False
    if best is None:
        return DeclareResult("unknown", None, {}, evaluated=search.evaluated, solved=search.solved)
    value, attacks, blocks, blockers_doc = best
    result = _final(blockers_doc.scenario(blocks), objs, deadline)
    lethal = None
    if wants_lethal and complete and not deadline.expired():
        try:
            lethal = lethal_report(blockers_doc, search)
        except LimitReached:
            complete = False
    return DeclareResult(
        "optimal" if complete else "feasible",
        attacks,
        {o.name: _number(v * (1 if o.maximize else -1)) for o, v in zip(objs, value)},
        blocks=blocks,
        line=result.assignment if result is not None else None,
        lethal=lethal,
        evaluated=search.evaluated,
        solved=search.solved,
        time_ms=(time.perf_counter() - start) * 1000,
    )


def _final(scenario: Scenario, objs, deadline):
    """The chosen declaration's damage, solved once more with the tie-break (its line for the answer)."""
    if deadline.expired():
        return None
    result = open_combat(scenario).solve([o.name for o in objs], time_limit=deadline.remaining())
    return result if result.assignment is not None else None
