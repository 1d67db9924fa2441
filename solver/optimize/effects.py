"""The objectives on boards with outcome effects, solved inside the CP-SAT model (docs/solve.md, "Boards with
effects").

What the damage does (:mod:`trample.outcome`, stages 2 to 5 of ``resolve``) is piecewise linear in the amounts
assigned, so it is encoded on the reference model of the solved side's assignment:

- **dealt** (stage 2, :class:`trample.outcome.ReplacementsAndPrevention`): protection and ``prevent_combat``
  (702.16e, 615.1a) deal nothing and leave the shield; a ``prevent`` shield (615.7) stops, of the hits to its
  recipient in the outcome's order, ``min(shield, running total) - min(shield, previous running total)``; the
  modifiers (614.1a) make ``m`` into ``times * m + plus * [m >= 1]`` (0 stays 0, 120.8), before the shield or
  after it as the affected player orders them (616.1: ``least`` shield first, ``most`` shield last);
- **results** (stage 3): marked damage, -1/-1 counters (702.90c infect, 702.80b wither), loyalty, defense, life
  lost, poison (702.90b infect to a player, 702.164c toxic: ``toxic * [dealt >= 1]``), commander damage
  (903.10a), life gained (702.15b lifelink: what the source dealt);
- **deaths** (stage 4): a creature with counters >= toughness (704.5f, even indestructible), or, not
  indestructible, marked + counters + damage already marked >= toughness (704.5g) or dealt damage by a
  deathtouch source (704.5h); a planeswalker dealt at least its loyalty (704.5i);
- **losers** (stage 5): a player whose life after damage and lifelink is 0 or less (704.5a), with ten poison
  counters (704.5c), or dealt 21 by one commander (704.6c); with more than two players a loser's blockers and
  planeswalkers, and the attackers attacking them, leave combat (800.4a).

Both sides' creatures deal damage at once (510.2), and the other player's reply is read at its worst for the
solved side. The two sides' damage reaches disjoint recipients (attackers hit blockers, players, planeswalkers
and battles; blockers hit attackers), so each reply's part of the outcome does not depend on the solved side's
assignment (510.1: each player's assignment is legal on its own): it is read once per reply as a *profile* (what
it changes for each listed player -- life, poison, commander damage -- and which objects it kills), the profiles
dominated by another (at least as good for the solved side on every count) are dropped, and the solved side's
value is the lexicographic minimum over the rest (``AddMinEquality`` on exactly weighted terms). On most boards
one profile is left (a lifelink blocker: the reply that deals the most), and the objectives are the plain
boards' separate terms. Where the reply's listing is long (:data:`FRONTIER_ROWS`), its undominated profiles are
found on the other side's model instead (:func:`_frontier_groups`).

When the other player divides *all* of the solved side's damage (a banding blocker, 702.22j), the solved player
has no choice: the worst line is minimised on the same model. When the solved player divides some of the other
side's damage (a banding attacker, 702.22k: the blockers blocking it), that part of the reply is theirs to choose,
like their own assignment: the replies are grouped by it, and the value is the best choice's minimum over the
profiles of the replies left to the other player (``AddMaxEquality`` over one ``AddMinEquality`` per choice).
When the other player divides only *part* of the solved side's damage (702.22j/k), the parts interact (shared
recipients, gates counting both, 510.1e): :mod:`.bands` solves it on the same encoding. Where the model cannot
answer -- each player divides some of the other's damage, recipients shared by both sides, an effect or a way to
lose this module does not know, weights beyond exact packing, more groups than the bounds -- :func:`solve_by_model`
returns None and the listing of :mod:`.listing` answers (it is also the reference the tests compare with: set
:data:`USE_MODEL` to False; ``"separable"`` leaves only the interacting shape to it).
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import outcome as _outcome
from ..limits import Deadline, LimitReached, deadline_of, import_within
from ..models import (
    Assignment,
    Attacker,
    Battle,
    Blocker,
    Creature,
    DamageOrder,
    Keyword,
    ObjectiveKind,
    ObjectKind,
    Planeswalker,
    Player,
    Side,
    value_of,
)
from ..models.vocabulary import Modifier
from ..outcome import exact, lethal_need, resolve
from ..step import DamageStep
from .listing import KEPT_REPLIES, evaluate, every_reply, lethal_report, other_side_step, vector_of
from .model import (
    CORE_PARAMS,
    LEAN_PARAMS,
    PACK_LIMIT,
    STRONG_PARAMS,
    Budget,
    Lin,
    ObjectiveModel,
    Runner,
    Term,
    lex_optimise,
)
from .objectives import VALUE_LIMIT, Definitions, json_number
from .results import (
    STATUS_FEASIBLE,
    STATUS_INFEASIBLE,
    STATUS_OPTIMAL,
    STATUS_UNKNOWN,
    SolveResult,
    assignment_of_vector,
)

#: solve boards with effects on the model (False: always list, the reference path the tests compare with)
USE_MODEL: bool | str = True

#: the most reply profiles kept after dominance (more: the listing answers)
MAX_PROFILES = 64


class NotSeparable(Exception):
    """The board's two parts do not separate, or it has something the model does not encode: list it."""


def _known_outcome() -> bool:
    """Are the outcome's lists the ones encoded here (the conformance tests add made-up items)?"""
    effects = _outcome.DAMAGE_EFFECTS
    conditions = _outcome.LOSS_CONDITIONS
    return (
        len(effects) == 1
        and type(effects[0]) is _outcome.ReplacementsAndPrevention
        and tuple(type(c) for c in conditions) == (_outcome.LifeZero, _outcome.TenPoison, _outcome.CommanderDamage)
    )


class _Profile:
    """What one reply of the other side does, for the solved side's objectives: per listed player the change of
    life (damage and lifelink), poison and commander damage; and the objects it kills (no player loses here: the
    losers are read on both parts together)."""

    __slots__ = ("life", "poison", "commander", "died", "key")

    def __init__(self, life: dict, poison: dict, commander: dict, died: frozenset):
        self.life = life
        self.poison = poison
        self.commander = commander  # (player, commander) -> damage
        self.died = died
        self.key = (tuple(sorted(life.items())), tuple(sorted(poison.items())), tuple(sorted(commander.items())), died)

    def dominates(self, other: _Profile, monotone_deaths: bool) -> bool:
        """Is this reply at least as bad for the solved side as ``other`` whatever the solved side assigns?"""
        if any(self.life[p] < other.life[p] or self.poison[p] > other.poison[p] for p in self.life):
            return False
        keys = set(self.commander) | set(other.commander)
        if any(self.commander.get(k, 0) > other.commander.get(k, 0) for k in keys):
            return False
        return self.died <= other.died if monotone_deaths else self.died == other.died


def _profile(step: DamageStep, reply, interesting: set[str]) -> _Profile:
    s = step.scenario
    out = resolve(s, reply.to_json() if reply is not None else {}, loss_conditions=())
    life, poison, commander = {}, {}, {}
    for p in s.players:
        after = out.player(p.id)
        life[p.id] = after.life - p.life
        poison[p.id] = after.poison - p.poison
        before = dict(p.commander_damage)
        for c, n in after.commander_damage.items():
            if n != before.get(c, 0):
                commander[p.id, c] = n - before.get(c, 0)
    return _Profile(life, poison, commander, frozenset(out.destroyed) & interesting)


def reply_groups(
    step: DamageStep, other: DamageStep | None, interesting: set[str], deadline, theirs: Sequence[int] = ()
) -> list[tuple]:
    """The other side's replies grouped by what they can change for the solved side: ``(the first reply of the
    group in the listing's order, its profile, its part divided by the solved player)``, in order. Only the
    replies' amounts from the *relevant* sources tell the groups apart: lifelink sources of a listed player
    (702.15b), sources reaching a listed player or an object the objectives count, and the sources sharing a
    ``prevent`` shield with those (615.7); the others' damage changes nothing the objectives read. Of a relevant
    source, all its amounts where it has lifelink, else only those to players, counted objects and shielded
    recipients (its split among other blockers changes no profile). Past :data:`FRONTIER_ROWS` rows to read,
    the undominated groups only, from the other side's model (:func:`_frontier_groups`). ``theirs``:
    the other side's columns whose damage the solved player divides (banding, 702.22j/k): their amounts are the
    solved player's choice, so they tell the groups apart too, and are the group's third item. Kept on the step
    (at most KEPT_REPLIES groups): ``solve`` and then ``all_optimal`` or a reader of the same step ask again (the
    frontier of a banding board: seconds)."""
    if other is None:
        return [(None, _profile(step, None, interesting), ())]
    held = step.__dict__.setdefault("_reply_groups", {})
    key = (frozenset(interesting), tuple(theirs))
    if key not in held:
        groups = _reply_groups(step, other, interesting, deadline, theirs)
        if len(groups) > KEPT_REPLIES:
            return groups
        held[key] = groups
    return held[key]


def _reply_groups(
    step: DamageStep, other: DamageStep, interesting: set[str], deadline, theirs: Sequence[int]
) -> list[tuple]:
    """:func:`reply_groups`, made."""
    s = step.scenario
    players = {p.id for p in s.players}
    plan = other.plan
    relevant: set[int] = set()
    lifelinked: set[int] = set()
    for i, src in enumerate(plan.sources):
        obj = s.creature(src.source)
        owner = s.blocker_controller(obj.id) if isinstance(obj, Blocker) else None
        reach = {r.recipient for r in src.all_routes}
        if obj.has(Keyword.LIFELINK) and owner in players:
            lifelinked.add(i)
        if i in lifelinked or reach & (players | interesting):
            relevant.add(i)
    shielded = {r for i in relevant for r in (x.recipient for x in plan.sources[i].all_routes)}
    shielded = {r for r in shielded if s.receiving(r).prevent > 0}
    relevant |= {i for i, src in enumerate(plan.sources) if {r.recipient for r in src.all_routes} & shielded}
    # a relevant source's amounts that can change the profile: all of a lifelink source's (702.15b: the life gained
    # is all the damage it deals), else only those to players, counted objects and shielded recipients (615.7) --
    # its damage to another blocker changes nothing the profile reads (an attacker's reply: every trampler reaches
    # the player, and its split among blockers no one counts made every reply a group of its own)
    keep = players | interesting | shielded
    where = {c: k for k, c in enumerate(other.columns)}
    idx = [
        where[plan.sources[i].source, r] for i, r in plan.columns if i in lifelinked or (i in relevant and r in keep)
    ]
    mine = [where[plan.sources[plan.columns[k][0]].source, plan.columns[k][1]] for k in theirs]
    idx = [*mine, *(c for c in idx if c not in mine)]  # the solved player's part first (the key's head)
    # the frontier solves at least once per division of the solved player's part (about 0.7 ms each): past as many
    # rows as those divisions' bound times ROWS_PER_PART only
    parts = _parts_bound(other, mine) if mine else 1
    least = max(FRONTIER_ROWS, parts * ROWS_PER_PART) if mine else FRONTIER_ROWS
    # (with a division: the bound on the rows, not their count -- both ways cost about the same near the threshold,
    # and the count's programme took 2/3 of a 90 ms solve)
    rows = (
        0 if not idx or parts > MAX_FRONTIER << 1 else _listing_rows(other, idx, deadline_of(deadline), least, not mine)
    )
    if rows > least:
        frontier = _frontier_groups(step, other, interesting, deadline_of(deadline), mine)
        if frontier is not None:
            return frontier
    found: dict[tuple, list[int]] = {}  # the relevant amounts -> the first row of the listing that has them
    if not idx:  # one group: the listing's first reply (each component's first vector, nothing else listed)
        row = other.first_row(time_limit=deadline)
        if row is not None:
            found[()] = row
    else:
        found = _first_rows(other, idx, deadline_of(deadline))
    if not found:
        return [(None, _profile(step, None, interesting), ())]
    out = []
    clock = deadline_of(deadline)
    for n, (key, row) in enumerate(found.items()):
        if not n & 63:  # each profile is resolved (about 0.1 ms): 10^5 groups took 10 s past a limit
            clock.check()
        reply = other._layout.assignment(row)
        out.append((reply, _profile(step, reply, interesting), key[: len(mine)]))
    return out


def worst_candidates(step: DamageStep, deadline) -> Sequence[Assignment | None]:
    """The replies among which every assignment's worst is found first (kept on the step when at most
    KEPT_REPLIES): where the players' parts separate (:func:`separable`, not the interacting banding shape), the
    representatives of :func:`reply_groups`, in order -- replies of one group are worth the same to every
    assignment, and a group's first reply is the first listed of its replies, so
    :func:`~trample.optimize.listing.evaluate` over them finds the first worst reply the listing would (on long
    listings, the undominated profiles' first replies: the reply the model's solve reports); else every reply
    listed (:func:`trample.optimize.listing.every_reply`). The readers of one assignment (:mod:`.readers`) and
    ``all_optimal`` read them."""
    held = step.__dict__.get("_worst_candidates")
    if held is not None:
        return held
    try:
        other, _, theirs, partial = separable(step)
    except NotSeparable:
        return every_reply(step, deadline)
    if partial or other is None:  # (no other side: every_reply's [None])
        return every_reply(step, deadline)
    groups = reply_groups(step, other, counted_objects(step), deadline, theirs)
    replies = [reply for reply, _, _ in groups]
    if len(replies) <= KEPT_REPLIES:
        step.__dict__["_worst_candidates"] = replies
    return replies


def _first_rows(other: DamageStep, idx: list[int], deadline: Deadline) -> dict[tuple, list[int]]:
    """Each distinct tuple of amounts at columns ``idx`` of the other side's listing and the first row that has it,
    in the order of those rows -- component by component: the listing is the product of the components' orders
    (first component slowest), so the first row with given amounts is each component's first vector with its part
    of them (a component that no column of ``idx`` reads: its first vector alone), and those rows come in the
    order of the product of each component's distinct parts. Not row by row of the whole listing: with a lifelink
    blocker among fourteen (``random_sharing(12, 14, 5)``) that listed 3 x 10^8 replies, 40 s."""
    plan = other.plan
    where = {c: k for k, c in enumerate(plan.columns)}
    asked = set(idx)
    per: list[tuple[list[int], list[list[int]]]] = []  # each component's columns and its distinct parts' vectors
    for comp in plan.components:
        cols = [where[c] for c in plan.component_columns(comp)]
        read = [n for n, j in enumerate(cols) if j in asked]
        firsts: dict[tuple, list[int]] = {}
        # blocks of 2^14 rows: the deadline is read between blocks (65 536 rows took 0.1-0.2 s to sort by rows)
        for block in other.component_blocks(comp, rows=1 << 14, time_limit=deadline):
            if not len(block):
                continue
            if not read:
                firsts[()] = block[0].tolist()
                break
            sub = block[:, read]
            for n in _first_of_each(sub).tolist():
                firsts.setdefault(tuple(sub[n].tolist()), block[n].tolist())
        if not firsts:  # a component without a legal vector: no reply at all
            return {}
        per.append((cols, list(firsts.values())))
    found: dict[tuple, list[int]] = {}
    for n, vectors in enumerate(itertools.product(*(vs for _, vs in per))):
        if deadline and not n & 1023:
            deadline.check()
        row = [0] * len(plan.columns)
        for (cols, _), vec in zip(per, vectors):
            for j, v in zip(cols, vec):
                row[j] = v
        found[tuple(row[j] for j in idx)] = row
    return found


#: the most rows of the other side's components read for the reply's groups: past it the groups are the
#: undominated profiles found on the other side's model (:func:`_frontier_groups`)
FRONTIER_ROWS = 1 << 8


def _first_of_each(rows: np.ndarray) -> np.ndarray:
    """The index of the first of each distinct row of ``rows`` (non-negative integers), in increasing order: by one
    integer key per row where the product of the columns' ranges fits in an int64 (20-40 times faster than
    ``np.unique(..., axis=0)``, which sorts the rows as records: 0.1-0.2 s a block of 65 536), else by a stable
    sort of the rows (the first of equal rows stays first)."""
    if not len(rows):
        return np.zeros(0, dtype=np.intp)
    radix = [int(r) + 1 for r in rows.max(axis=0).tolist()]
    if math.prod(radix) < 1 << 62:
        mult = np.ones(len(radix), dtype=np.int64)
        for c in range(len(radix) - 2, -1, -1):
            mult[c] = mult[c + 1] * radix[c + 1]
        _, first = np.unique(rows.astype(np.int64) @ mult, return_index=True)
        return np.sort(first)
    order = np.lexsort(rows.T[::-1])
    ordered = rows[order]
    starts = np.flatnonzero(np.any(ordered[1:] != ordered[:-1], axis=1)) + 1
    return np.sort(order[np.concatenate(([0], starts))])


#: where the solved player divides part of the reply (banding): the frontier is solved past this many rows to read
#: (bounded) per division of that part (bounded, ``_parts_bound``); the listing reads about 10^7 rows a second,
#: the frontier takes about 0.7 ms a division, one lean solve where the profile is one count (random_sharing(4, 6,
#: 2) seed 1 defending, 125 divisions: its 8 866 rows read in 0.08 s)
ROWS_PER_PART = 1 << 13


def _parts_bound(other: DamageStep, mine: Sequence[int]) -> int:
    """At most how many divisions of the columns ``mine`` the replies have: the product of the splits of the
    sources holding them (``SourcePlan.splits``)."""
    plan = other.plan
    return math.prod(plan.sources[i].splits for i in {plan.columns[j][0] for j in mine})


def _listing_rows(other: DamageStep, idx: list[int], deadline: Deadline, cap: int, exact: bool = True) -> int:
    """How many rows :func:`_first_rows` would read, as far as it matters: 0 where a creature may assign as though
    it weren't blocked (the listing goes way by way: kept); else the rows of the components holding a column of
    ``idx``, from an upper bound (the product of each source's ways to split its damage, ``SourcePlan.splits``:
    10-20 times the count on random sharing graphs) where it is at most ``cap`` or far past it (or not ``exact``),
    else from the components' counting programmes."""
    plan = other.plan
    if plan.has_options:
        return 0
    asked = {plan.columns[j] for j in idx}
    comps = [c for c in plan.components if not asked.isdisjoint(plan.component_columns(c))]
    bound = sum(math.prod(plan.sources[i].splits for i in comp) for comp in comps)
    if bound <= cap or bound > cap << 12 or not exact:
        return bound
    from ..engines import PROGRAMME, get_engine

    engine = get_engine("direct", needs=[PROGRAMME])
    return sum(engine.programme(plan, comp, deadline).count() for comp in comps)  # type: ignore[attr-defined]


def _frontier_groups(
    step: DamageStep, other: DamageStep, interesting: set[str], deadline: Deadline, mine: Sequence[int] = ()
) -> list[tuple] | None:
    """The reply's groups when its listing is too long to read (:data:`FRONTIER_ROWS`): not every distinct
    profile but the undominated ones, found on the other side's model with what its damage does encoded
    (:class:`EffectsModel` of ``other``), each represented by its first reply in the canonical order
    (lexicographic over the columns: the listing's, wherever the direct engine lists the reply). ``mine``: the
    other side's columns the solved player divides (banding, 702.22j/k): a profile is then undominated among the
    replies with the same amounts there (the solved player's choice, the group's part), and the groups of a
    choice another is at least as good as are dropped (:func:`choices_of`).

    A profile is counted on the model (:func:`_counts`): per listed player the life, poison and commander damage
    the reply leaves, and the counted objects it kills (704.5f-i), each oriented worse for the solved side when
    larger. On one model (with ``mine``: one per division, its amounts fixed, the divisions walked by
    :func:`_divisions`), each solve asks for a reply that no profile found so far dominates -- some count strictly
    worse, or another set of deaths (deaths are compared as sets, so each class of them keeps its own frontier: a
    superset of what :func:`_pareto` keeps, which it then prunes) -- with the counts' sum at its largest: so each
    answer is undominated (a reply dominating it would be allowed and have a larger sum). Then each kept profile's
    first reply: the smallest vector over the columns with its counts (and division), on a model of its own
    (:func:`_first_with`). Every profile kept is the outcome's (:func:`_profile` of its reply), held to the model's
    counts. None past :data:`MAX_PROFILES` profiles, or :data:`MAX_FRONTIER` divisions (:func:`reply_groups` then
    reads the listing).

    The answer's reply is then the first listed of these representatives that is worst for it: a worst reply,
    where the listing reports the first of all the worst (a dominated profile that ties for the answer may be
    listed earlier)."""
    found = _profiles_found(step, other, interesting, deadline, mine)
    if found is None:
        return None
    if not found:
        return [(None, _profile(step, None, interesting), ())]
    reads = [read for _, read, _ in _counts(step.scenario, EffectsModel(other), interesting)]
    groups = []
    for counted, part in found:
        row = _first_with(step, other, interesting, deadline, counted, mine, part)
        reply = other._layout.assignment(row)
        prof = _profile(step, reply, interesting)
        if [read(prof) for read in reads] != counted:  # the model and the outcome must agree
            raise RuntimeError(f"the effects model disagrees with the outcome on the reply {reply.to_json()}")
        groups.append((row, prof, tuple(part)))
    groups.sort(key=lambda g: g[0])  # the canonical order: lexicographic over the columns
    return [(other._layout.assignment(row), prof, part) for row, prof, part in groups]


def _profiles_found(
    step: DamageStep, other: DamageStep, interesting: set[str], deadline: Deadline, mine: Sequence[int]
) -> list[tuple[list[int], list[int]]] | None:
    """:func:`_frontier_groups`' profiles, as (their counts, the division of ``mine``): the undominated ones, or
    with ``mine`` those of each division worth choosing (:func:`kept_choices`). None past the caps."""
    if not mine:
        every = _undominated(step, other, interesting, deadline, MAX_PROFILES)
        return None if every is None else [(v, []) for v in every]
    parts = _divisions(step, other, interesting, mine, deadline)
    if parts is None:
        return None
    found: list[tuple[tuple, tuple]] = []  # (the division, the counts)
    for n, (part, worst) in enumerate(parts):
        these = worst or _undominated(step, other, interesting, deadline, MAX_PROFILES, list(zip(mine, part)))
        if n == MAX_FRONTIER or these is None:
            return None
        found += [(tuple(part), tuple(v)) for v in these]
    deaths = [d for _, _, d in _counts(step.scenario, EffectsModel(other), interesting)]

    def worse(p: tuple, q: tuple) -> bool:  # at least as bad for the solved side, the same deaths (every objective)
        return all(a == b if d else a >= b for a, b, d in zip(p, q, deaths))

    return [(list(v), list(part)) for part, vs in kept_choices(found, worse, lambda v: v) for v in vs]


def _undominated(
    step: DamageStep,
    other: DamageStep,
    interesting: set[str],
    deadline: Deadline,
    cap: int,
    fix: Sequence[tuple[int, int]] = (),
) -> list[list[int]] | None:
    """The counts (:func:`_counts`) of the undominated profiles of the other side's replies whose columns ``fix``
    (column, amount) hold those amounts, on one model: each solve asks for a reply that no profile found so far
    dominates, with the counts' sum at its largest. None past ``cap`` profiles."""
    em = EffectsModel(other)
    counts = _counts(step.scenario, em, interesting)
    for k, v in fix:
        x = em._x(k)
        if x.terms:
            em.m.add(x.expr() == v)
    total = Lin()
    for lin, _, _ in counts:
        total.add(lin, 1)
    # one count that is not a death: its largest value is the only undominated profile
    single = sum(1 for lin, _, _ in counts if lin.terms) == 1 and not any(d for lin, _, d in counts if lin.terms)
    # the LP relaxation from the start: the largest sum is a bound that propagation proves slowly (the default
    # settings, escalating: 9.4 -> 6.2 s over 18 defending-side boards of random_sharing with effects)
    runner = Runner(em.om, Budget(deadline, None), 1, False, False, STRONG_PARAMS)
    found: list[list[int]] = []
    while True:
        deadline.check()
        if found and (single or not _exclude_dominated(em, counts, found[-1:])):
            break  # every reply is dominated by one found
        if total.terms:
            em.m.maximize(total.expr())
        status = runner.run()
        if status == STATUS_INFEASIBLE:
            break
        if status != STATUS_OPTIMAL or runner.vec is None:
            raise LimitReached(f"stopped at the time limit of {deadline.seconds:g} s", deadline.seconds)
        if len(found) == cap:
            return None
        found.append([runner.value(lin) for lin, _, _ in counts])
    return found


def _divisions(
    step: DamageStep, other: DamageStep, interesting: set[str], mine: Sequence[int], deadline: Deadline
) -> Iterator[tuple[list[int], list[list[int]] | None]] | None:
    """Each division of the columns ``mine`` that some reply of the other side has, in lexicographic order: one
    solve each, the smallest code of those amounts past the last one's. With it, where the profile is one count
    that is not a death, that division's undominated profile (its largest count, the same solve: packed after the
    code), else None (:func:`_undominated` solves them). None where the code would pass
    :data:`~trample.optimize.model.PACK_LIMIT`."""
    hi = EffectsModel(other).om.hi
    weights, w = [], 1
    for k in reversed(mine):
        weights.append(w)
        w *= hi[k] + 1
    if w > PACK_LIMIT:
        return None
    weights.reverse()

    def walk() -> Iterator[tuple[list[int], list[list[int]] | None]]:
        last = -1
        while True:
            deadline.check()
            em = EffectsModel(other)
            counts = _counts(step.scenario, em, interesting)
            code = Lin()
            for k, wk in zip(mine, weights):
                code.add(em._x(k), wk)
            if not code.terms:  # every amount fixed: one division
                yield [em._x(k).const for k in mine], None
                return
            em.m.add(code.expr() >= last + 1)
            live = [lin for lin, _, _ in counts if lin.terms]
            single = len(live) == 1 and not any(d for lin, _, d in counts if lin.terms)
            terms = [Term(code, False, True), *([Term(live[0], True, True)] if single else [])]
            runner = Runner(em.om, Budget(deadline, None), 1, False, False, LEAN_PARAMS)
            status, _ = lex_optimise(runner, terms)
            if status == STATUS_INFEASIBLE:
                return
            if status != STATUS_OPTIMAL or runner.vec is None:
                raise LimitReached(f"stopped at the time limit of {deadline.seconds:g} s", deadline.seconds)
            last = runner.value(code)
            worst = [[runner.value(lin) for lin, _, _ in counts]] if single else None
            yield [runner.vec[k] for k in mine], worst

    return walk()


def _first_with(
    step: DamageStep,
    other: DamageStep,
    interesting: set[str],
    deadline: Deadline,
    values: list[int],
    mine: Sequence[int],
    part: Sequence[int],
) -> list[int]:
    """The smallest vector over the columns of the other side's replies whose counts (:func:`_counts`) are
    ``values`` and whose amounts in the columns ``mine`` are ``part``: the first listed reply of that group."""
    em = EffectsModel(other)
    for (lin, _, _), v in zip(_counts(step.scenario, em, interesting), values):
        if lin.terms:
            em.m.add(lin.expr() == v)
    for k, v in zip(mine, part):
        x = em._x(k)
        if x.terms:
            em.m.add(x.expr() == v)
    runner = Runner(em.om, Budget(deadline, None), 1, False, False, STRONG_PARAMS)
    status, _ = lex_optimise(runner, [Term(em._x(k), False, False) for k in range(len(em.cols))])
    if status != STATUS_OPTIMAL or runner.vec is None:  # it was found once: only the limit can stop it here
        raise LimitReached(f"stopped at the time limit of {deadline.seconds:g} s", deadline.seconds)
    return list(runner.vec)


#: the most divisions of the solved player's part of the reply (banding) :func:`_frontier_groups` reads, each
#: found and its undominated profiles solved (one or two solves of about 0.7 ms); not tried where the bound on
#: those divisions passes twice this (:func:`reply_groups`)
MAX_FRONTIER = 1 << 13


#: one count of a reply's profile: its expression on the other side's model (larger: worse for the solved side),
#: how to read it from a :class:`_Profile`, and whether it is a death (compared as sets: any other value escapes)
_Count = tuple[Lin, Callable[[_Profile], int], bool]


def _counts(s, em: EffectsModel, interesting: set[str]) -> list[_Count]:
    """What a reply's profile holds (:data:`_Count`), oriented as :meth:`_Profile.dominates` reads it (the
    objectives count the listed players' losses and the other side's deaths as gains, docs/solve.md): per listed
    player the life left (damage taken negated, 702.15b lifelink gains added), poison and commander damage
    negated (702.90b, 702.164c, 903.10a); then for each counted object the reply can reach 1 when it lives."""
    out: list[_Count] = []
    for p in s.players:
        out.append((Lin().add(em.life_loss(p.id), -1), functools.partial(_life_left, p.id), False))
        out.append((Lin().add(em.poison(p.id), -1), functools.partial(_poison_given, p.id), False))
        for c, lin in sorted(em.commander(p.id).items()):
            out.append((Lin().add(lin, -1), functools.partial(_commander_given, (p.id, c)), False))
    for c in sorted(interesting):
        if c in em.incoming:
            out.append((Lin(1).add(em.dies(c), -1), functools.partial(_lives, c), True))
    return out


# how :func:`_counts` reads each count from a _Profile, oriented as there
def _life_left(p: str, prof: _Profile) -> int:
    return prof.life[p]


def _poison_given(p: str, prof: _Profile) -> int:
    return -prof.poison[p]


def _commander_given(key: tuple[str, str], prof: _Profile) -> int:
    return -prof.commander.get(key, 0)


def _lives(c: str, prof: _Profile) -> int:
    return int(c not in prof.died)


def _exclude_dominated(em: EffectsModel, counts: list[_Count], found: list[list[int]]) -> bool:
    """Allow on ``em`` only the replies that no profile of ``found`` (their counts) dominates: some count strictly
    worse for the solved side, or another set of deaths. False when no reply can be (a constant case)."""
    for values in found:
        escapes = []
        for n, (lin, _, death) in enumerate(counts):
            escapes.append(em._at_least(lin, values[n] + 1, f"worse[{n}]"))
            if death and values[n] == 1:  # a death this one does not have (lives -> 0)
                escapes.append(Lin(1).add(lin, -1))
        escapes = [e for e in escapes if e.terms or e.const]
        if any(not e.terms for e in escapes):
            continue  # a constant 1: every reply escapes this one
        if not escapes:
            return False
        some = Lin()
        for e in escapes:
            some.add(e, 1)
        em.m.add(some.expr() >= 1)  # 0/1 expressions: one of them holds
    return True


def _pareto(profiles: Sequence[_Profile], monotone_deaths: bool) -> list[_Profile]:
    return _undominated_of(profiles, lambda p, q: p.dominates(q, monotone_deaths), lambda p: p.key)


def _undominated_of(items: Sequence, dominates: Callable, key: Callable) -> list:
    """The distinct items (by ``key``: one of each) that no other one dominates, in order."""
    unique = list({key(p): p for p in items}.values())
    return [p for p in unique if not any(q is not p and dominates(q, p) for q in unique)]


def choices_of(groups: Sequence[tuple], monotone_deaths: bool) -> list[list[_Profile]]:
    """The replies' undominated profiles per choice of the solved player's part of the reply (the other side's
    damage they divide, 702.22j/k; one choice without banding): :func:`kept_choices`' profiles."""
    parts = [(part, prof) for _, prof, part in groups]
    return [ps for _, ps in kept_choices(parts, lambda p, q: p.dominates(q, monotone_deaths), lambda p: p.key)]


def kept_choices(parts: Sequence[tuple[tuple, object]], dominates: Callable, key: Callable) -> list[tuple[tuple, list]]:
    """Each choice worth making of the solved player's part of the reply and its undominated profiles, from
    ``parts`` (each a part and the profile of one of its replies), in their order: the choices with the same
    profiles once (the first), and a choice dropped where another is at least as good for the solved player
    whatever they assign -- each of the other's profiles dominates one of its own (the other player then holds it
    at least as low; a choice whose profiles include another's is one such). ``dominates(p, q)``: is ``p`` at
    least as bad for the solved side as ``q``; ``key``: a profile's identity."""
    by_part: dict[tuple, list] = {}
    for part, prof in parts:
        by_part.setdefault(part, []).append(prof)
    distinct: dict[frozenset, tuple[tuple, list]] = {}
    for part, profs in by_part.items():
        best = _undominated_of(profs, dominates, key)
        distinct.setdefault(frozenset(key(p) for p in best), (part, best))

    def no_better(a: list, b: list) -> bool:  # a holds the solved player as low as b does
        return all(any(dominates(p, q) for p in a) for q in b)

    kept: list[tuple[tuple, list]] = []  # the choices not yet found no better than another, in order
    for part, a in distinct.values():  # one pass: each against those kept so far (not every pair of choices)
        if any(no_better(a, b) for _, b in kept):
            continue  # an earlier one as good (the first of equals is kept), or one better
        kept = [(q, b) for q, b in kept if not no_better(b, a)]
        kept.append((part, a))
    return kept


def _layout(step: DamageStep) -> tuple:
    """What every encoding of the step reads (kept on the step): each column's source, the columns into each
    recipient, each recipient's hits in the outcome's order (615.7: ``shield_order`` first), the creatures the
    solved side can kill and the planeswalkers in combat."""
    held = step.__dict__.get("_effects_layout")
    if held is not None:
        return held
    s = step.scenario
    plan = step.plan
    cols = plan.columns
    src = [s.creature(plan.sources[i].source) for i, _ in cols]
    order = {c.id: n for n, c in enumerate((*s.attackers, *s.blockers))}
    incoming: dict[str, list[int]] = {}
    for k, (_, r) in enumerate(cols):
        incoming.setdefault(r, []).append(k)
    hits = {}
    for r, ks in incoming.items():
        rec = s.receiving(r)
        first = {c: n for n, c in enumerate(rec.shield_order)}
        hits[r] = (rec, sorted(ks, key=lambda k: (first.get(src[k].id, len(first)), order.get(src[k].id, 0))))
    other = {"attacking": s.blockers, "defending": s.attackers, "both": (*s.attackers, *s.blockers)}[step.side]
    killable = [c.id for c in other if c.in_combat]
    walkers = [p.id for p in s.planeswalkers if p.in_combat]
    held = step.__dict__["_effects_layout"] = (src, incoming, hits, killable, walkers)
    return held


def counted_objects(step: DamageStep) -> set[str]:
    """The objects whose deaths the objectives count (the other side's creatures in combat and the planeswalkers in
    combat): what a reply's profile keeps of its kills."""
    _, _, _, killable, walkers = _layout(step)
    return set(killable) | set(walkers)


def _lifelinked(step: DamageStep) -> dict[str, list[int]]:
    """Per player, the columns of their blockers with lifelink (702.15b), in column order (kept on the step)."""
    held = step.__dict__.get("_effects_lifelinked")
    if held is None:
        s = step.scenario
        held = {}
        for k, c in enumerate(_layout(step)[0]):
            if c.has(Keyword.LIFELINK) and s.kind(c.id) == ObjectKind.BLOCKER:
                held.setdefault(s.blocker_controller(c.id), []).append(k)
        step.__dict__["_effects_lifelinked"] = held
    return held


class EffectsModel:
    """The solved side's assignment on the reference model, with what its damage does encoded (module text)."""

    def __init__(
        self,
        step: DamageStep,
        om: ObjectiveModel | None = None,
        fixed: dict[int, int] | None = None,
        only: set[str] | None = None,
    ):
        """``om``: the model to encode on (default: a new one); ``fixed``: columns read as these constants instead
        of their variables; ``only``: the recipients whose damage is encoded (the others' columns deal nothing
        here and must not be read: the interacting banding shape, :mod:`.bands`)."""
        s = step.scenario
        self.step = step
        self.s = s
        plan = step.plan
        self.om = ObjectiveModel(plan, Definitions(plan)) if om is None else om
        self.m = self.om.m
        self._memo = self.om.memo  # helper variables by what they equal, shared by every encoding on ``om``
        self.fixed = fixed or {}
        cols = plan.columns
        self.cols = cols
        self.src, incoming, hits, self.killable, self.walkers = _layout(step)
        self.dealt: list[Lin] = [Lin() for _ in cols]
        self.dealt_hi: list[int] = [0] * len(cols)
        self.incoming = incoming
        for r, (rec, ks) in hits.items():
            if only is None or r in only:
                self._deal(r, rec, ks)
        self._cache: dict = {}

    def _memoised(self, key: tuple, make):
        """The helper for ``key`` (what it equals), made once per model: the encodings of one model that read the
        same expression (:mod:`.bands`: one per group of divisions) share its variable."""
        held = self._memo.get(key)
        if held is None:
            held = self._memo[key] = make()
        return held

    def _iff_at_least(self, lin: Lin, need: int, name: str) -> Lin:
        return self._memoised(("ge", content(lin), need), lambda: self.om._bool_iff_at_least(lin, need, name))

    # -- stage 2: dealt ---------------------------------------------------------------------------------------
    def _x(self, k: int) -> Lin:
        if k in self.fixed:
            return Lin(self.fixed[k])
        return Lin.of(self.om.built.x[k], 0, self.om.hi[k])

    def _hi(self, k: int) -> int:
        return self.fixed.get(k, self.om.hi[k])

    def _var(self, lin: Lin, lo: int, hi: int, name: str) -> Lin:
        """An integer variable equal to ``lin`` (values in [lo, hi]), or ``lin`` itself when it is one variable."""
        if not lin.terms or (len(lin.terms) == 1 and lin.const == 0 and next(iter(lin.terms.values()))[1] == 1):
            return lin

        def make() -> Lin:
            v = self.m.new_int_var(lo, hi, name)
            self.m.add(v == lin.expr())
            return Lin.of(v, lo, hi)

        return self._memoised(("var", content(lin)), make)

    def _modify(self, m: Lin, hi: int, mods, order: str, name: str) -> tuple[Lin, int]:
        """614.1a on an amount ``m`` in [0, hi] (0 stays 0, 120.8): (the expression, its upper bound)."""
        times = math.prod(n for kind, n in mods if kind == Modifier.TIMES)
        plus = sum(n for kind, n in mods if kind == Modifier.PLUS)
        if order == DamageOrder.MOST:
            plus *= times
        out = Lin().add(m, times)
        if plus:
            out.add(self._iff_at_least(m, 1, f"some[{name}]"), plus)
        return out, hi * times + plus if hi > 0 else 0

    def _deal(self, r: str, rec, ks: list[int]) -> None:
        """The damage each column into ``r`` deals, in the outcome's order of its hits (615.7)."""
        live = []
        for k in ks:
            if rec.prevent_combat or rec.protected_from(self.src[k]):
                continue  # 615.1a, 702.16e: prevented, and the shield is not used
            live.append(k)
        shield = rec.prevent
        before = Lin(0)  # min(shield, running total) after the previous hit
        running = Lin(0)
        for k in live:
            mods = (*self.src[k].deals, *rec.takes)
            if not mods and shield <= 0:  # nothing changes the amount: it is dealt as assigned (no helper)
                self.dealt[k] = self._x(k)
                self.dealt_hi[k] = self._hi(k)
                continue
            name = f"{self.src[k].id},{r}"
            x, hi = self._x(k), self._hi(k)
            if rec.order == DamageOrder.MOST:
                amount, hi = self._modify(x, hi, mods, "most", name)
            else:
                amount = x
            if shield > 0:
                running = Lin().add(running).add(amount)
                if running.terms:
                    now = self._memoised(("shield", shield, content(running)), self._shielded(running, shield, name))
                else:  # constants (fixed columns): folded
                    now = Lin(min(shield, running.const))
                stop = Lin().add(now).add(before, -1)
                before = now
                amount = self._var(Lin().add(amount).add(stop, -1), 0, hi, f"through[{name}]")
            if rec.order != DamageOrder.MOST:
                amount, hi = self._modify(amount, hi, mods, "least", name)
            self.dealt[k] = self._var(amount, 0, hi, f"dealt[{name}]")
            self.dealt_hi[k] = hi

    def _shielded(self, running: Lin, shield: int, name: str):
        def make() -> Lin:
            upto = self.m.new_int_var(0, shield, f"shielded[{name}]")
            self.m.add_min_equality(upto, [shield, running.expr()])
            return Lin.of(upto, 0, shield)

        return make

    # -- stage 3: results ---------------------------------------------------------------------------------
    def _sum(self, ks, weight=lambda k: 1) -> Lin:
        out = Lin()
        for k in ks:
            out.add(self.dealt[k], weight(k))
        return out

    def dealt_to(self, r: str) -> Lin:
        return self._sum(self.incoming.get(r, ()))

    def _some(self, k: int) -> Lin:
        """1 when column ``k`` deals at least 1 (after the effects)."""
        key = ("some", k)
        if key not in self._cache:
            self._cache[key] = self._iff_at_least(self.dealt[k], 1, f"dealt1[{k}]")
        return self._cache[key]

    def touched(self, r: str) -> Lin:
        """1 when a deathtouch source deals ``r`` damage (704.5h)."""
        key = ("touched", r)
        if key not in self._cache:
            dt = self._sum(k for k in self.incoming.get(r, ()) if self.src[k].has(Keyword.DEATHTOUCH))
            self._cache[key] = self._iff_at_least(dt, 1, f"dt[{r}]")
        return self._cache[key]

    def life_loss(self, p: str) -> Lin:
        """Life lost to damage (not infect, 702.90b) minus life gained by lifelink of the player's blockers."""
        key = ("loss", p)
        if key not in self._cache:
            out = self._sum(k for k in self.incoming.get(p, ()) if not self.src[k].has(Keyword.INFECT))
            for k in _lifelinked(self.step).get(p, ()):
                out.add(self.dealt[k], -1)  # 702.15b
            self._cache[key] = out
        return self._cache[key]

    def poison(self, p: str) -> Lin:
        out = self._sum(k for k in self.incoming.get(p, ()) if self.src[k].has(Keyword.INFECT))  # 702.90b
        for k in self.incoming.get(p, ()):
            if self.src[k].toxic:
                out.add(self._some(k), self.src[k].toxic)  # 702.164c
        return out

    def commander(self, p: str) -> dict[str, Lin]:
        out: dict[str, Lin] = {}
        for k in self.incoming.get(p, ()):
            source = self.src[k]
            if isinstance(source, Attacker) and source.commander is not None:
                out.setdefault(self.src[k].id, Lin()).add(self.dealt[k])  # 903.10a
        return out

    # -- stages 4 and 5: deaths and losers ----------------------------------------------------------------
    def _any(self, parts: Sequence[Lin], name: str) -> Lin:
        """The boolean OR of 0/1 expressions (constants folded)."""
        if any(not p.terms and p.const for p in parts):
            return Lin(1)
        parts = [p for p in parts if p.terms]
        if not parts:
            return Lin(0)
        if len(parts) == 1:
            return parts[0]
        return self._memoised(("any", *sorted(map(content, parts))), self._bool_of(parts, name, True))

    def _all(self, parts: Sequence[Lin], name: str) -> Lin:
        if any(not p.terms and not p.const for p in parts):
            return Lin(0)
        parts = [p for p in parts if p.terms]
        if not parts:
            return Lin(1)
        if len(parts) == 1:
            return parts[0]
        return self._memoised(("all", *sorted(map(content, parts))), self._bool_of(parts, name, False))

    def _bool_of(self, parts: Sequence[Lin], name: str, any_of: bool):
        def make() -> Lin:
            b = self.m.new_bool_var(name)
            exprs = [p.expr() for p in parts]
            (self.m.add_max_equality if any_of else self.m.add_min_equality)(b, exprs)
            return Lin.of(b, 0, 1)

        return make

    def _at_least(self, lin: Lin, need: int, name: str) -> Lin:
        return self._iff_at_least(lin, need, f"{name}>={need}")

    def dies(self, c: str) -> Lin:
        """1 when the solved side's damage puts creature or planeswalker ``c`` out of combat (704.5f/g/h/i)."""
        key = ("dies", c)
        if key in self._cache:
            return self._cache[key]
        obj = self.s[c]
        ks = self.incoming.get(c, ())
        if isinstance(obj, Planeswalker):
            out = self._at_least(self.dealt_to(c), obj.loyalty, f"loyalty[{c}]")  # 704.5i
        elif not isinstance(obj, Creature):
            raise TypeError(f"{c!r} is neither a creature nor a planeswalker: it cannot die")
        else:
            counters = self._sum(k for k in ks if self.src[k].has(Keyword.INFECT) or self.src[k].has(Keyword.WITHER))
            parts = [self._at_least(counters, obj.toughness, f"counters[{c}]")]  # 704.5f
            if not obj.has(Keyword.INDESTRUCTIBLE):  # 702.12b
                total = self.dealt_to(c)
                parts.append(self._at_least(total, lethal_need(obj), f"lethal[{c}]"))  # 704.5g
                parts.append(self.touched(c))  # 704.5h
            out = self._any(parts, f"dies[{c}]")
        self._cache[key] = out
        return out

    def loses(self, p: str, prof: _Profile) -> Lin:
        """1 when listed player ``p`` loses after both parts (704.5a, 704.5c, 704.6c)."""
        player = self.s.player(p)
        parts = [self._at_least(self.life_loss(p), player.life + prof.life[p], f"life[{p}]")]  # 704.5a
        parts.append(self._at_least(self.poison(p), 10 - player.poison - prof.poison[p], f"poison[{p}]"))  # 704.5c
        mine = self.commander(p)
        names = set(mine) | {c for c, _ in player.commander_damage} | {c for q, c in prof.commander if q == p}
        for c in sorted(names):
            have = player.commander_damage_from(c) + prof.commander.get((p, c), 0)
            parts.append(self._at_least(mine.get(c, Lin()), 21 - have, f"commander[{p},{c}]"))  # 704.6c
        return self._any(parts, f"loses[{p}]")

    def killed(self, c: str, prof: _Profile) -> Lin:
        """1 when ``c`` (a creature or planeswalker in combat) is put into the graveyard after both parts (704.5f-i):
        :attr:`trample.outcome.Outcome.destroyed`. Leaving the game with a player who lost (800.4a) is no kill."""
        if c in self.incoming:
            return self.dies(c)
        return Lin(int(c in prof.died))  # only the other side's damage (or nothing) reaches it

    def overkill(self, r: str) -> Lin:
        """Damage dealt to ``r`` beyond what it needed (trample.outcome.overkill_threshold on dealt damage)."""
        total = self.dealt_to(r)
        _, hi = total.bounds()
        obj = self.s[r]
        touched = Lin(0)
        if isinstance(obj, Player):
            t = max(0, obj.life)
        elif isinstance(obj, Planeswalker):
            t = obj.loyalty
        elif isinstance(obj, Battle):
            t = obj.defense
        else:
            t = lethal_need(obj)
            if t > 1:
                touched = self.touched(r)
        excess = Lin().add(total)
        excess.const -= t
        excess.add(touched, t - 1)
        lo, ehi = excess.bounds()
        if ehi <= 0:
            return Lin(0)
        if lo >= 0:
            return excess

        def make() -> Lin:
            o = self.m.new_int_var(0, max(0, ehi), f"overkill[{r}]")
            self.m.add_max_equality(o, [0, excess.expr()])
            return Lin.of(o, 0, max(0, ehi))

        return self._memoised(("overkill", content(excess)), make)


def content(lin: Lin) -> tuple:
    """What ``lin`` is, hashable: its constant and its (variable index, coefficient) pairs in order."""
    return (lin.const, *sorted((i, t[1]) for i, t in lin.terms.items()))


def value_scale_of(s, ids: Sequence[str]) -> int:
    scale = 1
    for i in ids:
        scale = math.lcm(scale, exact(value_of(s[i])).denominator)
    if sum(abs(exact(value_of(s[i]))) for i in ids) * scale > VALUE_LIMIT:
        raise NotSeparable("values too large to weigh exactly")
    return scale


def objective_of(em: EffectsModel, obj, prof: _Profile, scale: int, keep=None) -> Lin:
    """One objective's value (as the listing's step_values reads it) for the solved side's part and one reply.
    ``keep(player, id)``: only the terms of the units it keeps (a recipient's damage, kill or overkill: ``player``
    False; a player's loss: True); the value is their sum."""
    s = em.s
    out = Lin()

    def kept(player: bool, i: str) -> bool:
        return keep is None or keep(player, i)

    if obj.kind == ObjectiveKind.MAX_DAMAGE:
        for r in [obj.target] if obj.target else [p.id for p in s.players]:
            if kept(False, r):
                out.add(em.dealt_to(r))
    elif obj.kind == ObjectiveKind.LETHAL:
        for p in s.players:
            if kept(True, p.id):
                out.add(em.loses(p.id, prof))
    elif obj.kind == ObjectiveKind.MAX_KILLS:
        for c in em.killable:
            if kept(False, c):
                out.add(em.killed(c, prof))
    elif obj.kind == ObjectiveKind.MAX_VALUE:
        for c in [*em.killable, *em.walkers]:
            if kept(False, c):
                out.add(em.killed(c, prof), int(exact(value_of(s[c])) * scale))
    elif obj.kind == ObjectiveKind.MIN_OVERKILL:
        for r in em.incoming:
            if kept(False, r):
                out.add(em.overkill(r))
    else:  # pragma: no cover - parse_objectives knows every kind
        raise ValueError(obj.kind)
    return out


def unit_objective(em: EffectsModel, obj, prof: _Profile, scale: int, unit: tuple[bool, str]) -> Lin:
    """:func:`objective_of` with ``keep`` the one unit ``unit`` (``(True, player)``: their loss; ``(False, id)``: a
    recipient's damage, kill or overkill), read directly instead of filtering every unit (:mod:`.bands` reads
    each unit on its own model)."""
    s = em.s
    player, i = unit
    out = Lin()
    if player:  # a player's loss: only lethal reads it
        if obj.kind == ObjectiveKind.LETHAL:
            for _ in range(sum(p.id == i for p in s.players)):
                out.add(em.loses(i, prof))
        return out
    # as often as objective_of's lists name it (once each)
    if obj.kind == ObjectiveKind.MAX_DAMAGE:
        for _ in range(([obj.target] if obj.target else [p.id for p in s.players]).count(i)):
            out.add(em.dealt_to(i))
    elif obj.kind == ObjectiveKind.LETHAL:
        pass
    elif obj.kind == ObjectiveKind.MAX_KILLS:
        for _ in range(em.killable.count(i)):
            out.add(em.killed(i, prof))
    elif obj.kind == ObjectiveKind.MAX_VALUE:
        for _ in range([*em.killable, *em.walkers].count(i)):
            out.add(em.killed(i, prof), int(exact(value_of(s[i])) * scale))
    elif obj.kind == ObjectiveKind.MIN_OVERKILL:
        if i in em.incoming:
            out.add(em.overkill(i))
    else:  # pragma: no cover - parse_objectives knows every kind
        raise ValueError(obj.kind)
    return out


def separable(step: DamageStep) -> tuple[DamageStep | None, bool, list[int], bool]:
    """(the other side's step, None for ``side="both"``; does the other player divide *all* of the solved side's
    damage; the other side's columns whose damage the solved player divides; does the other player divide only
    *part* of the solved side's damage, the interacting shape of :mod:`.bands`) when the model can answer; else
    NotSeparable."""
    if not _known_outcome():
        raise NotSeparable("an effect or a way to lose the model does not encode")
    plan = step.plan
    moved = [plan.sources[i].chooser != step.side for i, _ in plan.columns] if step.side != Side.BOTH else []
    partial = any(moved) and not all(moved)  # 702.22j/k: the other player divides some of the solved side's damage
    no_choice = bool(moved) and all(moved)
    other = other_side_step(step)
    theirs: list[int] = []
    if other is not None:
        op = other.plan
        # 702.22j/k: the solved player divides these of the other side's sources: a choice made with their own
        theirs = [k for k, (i, _) in enumerate(op.columns) if op.sources[i].chooser == step.side]
        if theirs and (no_choice or partial):
            raise NotSeparable("each player divides some of the other side's damage (banding, 702.22j and k)")
        if {r for _, r in plan.columns} & {r for _, r in op.columns}:
            raise NotSeparable("both sides deal damage to one recipient")
    return other, no_choice, theirs, partial


def solve_by_model(step: DamageStep, objs, time_limit=None, deterministic_time=None, tie_break=True, settings=None):
    """:func:`.listing.solve_by_outcome`'s answer solved on the CP-SAT model (see :func:`_solve_by_model`); None
    when the board needs the listing, which includes a board whose numbers pass CP-SAT's 64-bit integers (damage
    doubled hundreds of times: ortools refuses such a bound or coefficient with a TypeError or an OverflowError;
    the listing counts with Python's exact integers)."""
    try:
        return _solve_by_model(step, objs, time_limit, deterministic_time, tie_break, settings)
    except (TypeError, OverflowError):
        if USE_MODEL == "strict":  # tests: a TypeError of our own must not hide behind the listing
            raise
        return None


def _solve_by_model(step: DamageStep, objs, time_limit=None, deterministic_time=None, tie_break=True, settings=None):
    """:func:`.listing.solve_by_outcome`'s answer (the same values, the same assignment with the tie-break),
    solved on the CP-SAT model (module text); None when the board needs the listing."""
    settings = settings or {}
    start = time.perf_counter()
    try:
        other, no_choice, theirs, partial = separable(step)
    except NotSeparable:
        return None
    if partial:  # the other player divides part of the solved side's damage (702.22j/k): optimize.bands
        return None
    ready = prepare(step, objs, other, theirs, start, time_limit, deterministic_time)
    if not isinstance(ready, Prepared):
        return ready
    em, groups, choices, scale, budget, elapsed = (
        ready.em,
        ready.groups,
        ready.choices,
        ready.scale,
        ready.budget,
        ready.elapsed,
    )
    profiles = list({p.key: p for ps in choices for p in ps}.values())

    per = {p.key: [objective_of(em, o, p, scale) for o in objs] for p in profiles}
    terms = _reply_terms(em, objs, per, choices, no_choice)
    if terms is None:
        return None
    if tie_break:  # the smallest vector over the plan's columns (the listing's tie-break)
        terms += [Term(em._x(k), False, False) for k in range(len(em.cols))]

    runner = Runner(
        em.om,
        budget,
        settings.get("workers", 1),
        settings.get("presolve", False),
        False,
        settings.get("params"),
        # the cores prove a maximised packed value from below; where the other player divides it all (no_choice,
        # the worst line minimised) they are slower (a banding blocker on the power-20 trampler: 2.1 -> 5.4 ms)
        CORE_PARAMS if tie_break and not no_choice else LEAN_PARAMS,
    )
    wants_lethal = any(o.kind == ObjectiveKind.LETHAL for o in objs)
    reachable = _reachable(em, runner, choices, no_choice) if wants_lethal else {}
    status, proven = lex_optimise(runner, terms)
    if runner.vec is None:
        st = STATUS_INFEASIBLE if status == STATUS_INFEASIBLE else STATUS_UNKNOWN
        return SolveResult(st, None, {}, None, elapsed(), runner.solves)
    assignment = assignment_of_vector(step.plan, runner.vec)
    # the worst reply for this assignment, the first listed; with banding the solved player's best part of it
    # (as the listing reads it)
    _, values, outcome, reply = evaluate(step, assignment, objs, [reply for reply, _, _ in groups])
    _agree(runner, objs, per, choices, scale, values, assignment)
    assert tuple(runner.vec) == vector_of(step, assignment)
    lethal = lethal_report(step, assignment, outcome, reachable if proven else None) if wants_lethal else None
    final = STATUS_OPTIMAL if proven and (reachable is not None or not wants_lethal) else STATUS_FEASIBLE
    return SolveResult(final, assignment, values, lethal, elapsed(), runner.solves, reply=reply)


def optimal_vectors(step: DamageStep, objs, time_limit=None) -> Iterator[tuple[int, ...]] | None:
    """Every assignment of the solved side whose value is the optimum (:func:`.listing.all_optimal_by_outcome`'s
    set), as vectors over the plan's columns, from the model: the objective terms of :func:`_solve_by_model`
    optimised and fixed, then CP-SAT lists the model's solutions (one worker), each assignment once, in its order.
    None where the model does not answer (:func:`_solve_by_model`'s cases, and where the other player divides
    some or all of the solved side's damage: the listing's reading). :class:`~trample.limits.LimitReached` when the
    limit ends the optimisation or the listing."""
    from ..engines.cpsat import enumeration_solver, stream_solutions

    deadline = deadline_of(time_limit)
    try:
        other, no_choice, theirs, partial = separable(step)
    except NotSeparable:
        return None
    if partial or no_choice:
        return None
    try:
        ready = prepare(step, objs, other, theirs, time.perf_counter(), deadline)
        if not isinstance(ready, Prepared):
            if ready is not None:  # the limit ran out on the way
                raise LimitReached(f"stopped at the time limit of {deadline.seconds:g} s", deadline.seconds)
            return None
        em = ready.em
        profiles = list({p.key: p for ps in ready.choices for p in ps}.values())
        per = {p.key: [objective_of(em, o, p, ready.scale) for o in objs] for p in profiles}
        terms = _reply_terms(em, objs, per, ready.choices, False)
    except (TypeError, OverflowError):
        if USE_MODEL == "strict":
            raise
        return None
    if terms is None:
        return None
    runner = Runner(em.om, ready.budget, 1, False, False, None, LEAN_PARAMS)
    status, proven = lex_optimise(runner, terms)  # the objective terms fixed at their optimum (no tie-break)
    if status == STATUS_INFEASIBLE:
        return iter(())
    if status != STATUS_OPTIMAL or not proven:
        raise LimitReached(f"stopped at the time limit of {deadline.seconds:g} s", deadline.seconds)
    em.m.clear_objective()

    def listed() -> Iterator[tuple[int, ...]]:
        seen: set[tuple[int, ...]] = set()  # (a helper variable left free would repeat an assignment)
        for vec in stream_solutions(em.m, em.om.built.x, enumeration_solver(), deadline=deadline):
            if vec not in seen:
                seen.add(vec)
                yield vec

    return listed()


@dataclass(frozen=True)
class Prepared:
    """What both models of a board with effects start from (:func:`prepare`)."""

    em: EffectsModel
    groups: list[tuple]  # reply_groups
    choices: list[list[_Profile]]  # choices_of: the profiles per choice of the solved player's part of the reply
    scale: int  # of the values (max-value), value_scale_of
    deadline: Deadline | None
    budget: Budget
    elapsed: Callable[[], float]  # milliseconds since ``start``


def prepare(
    step: DamageStep, objs, other, theirs, start: float, time_limit=None, deterministic_time=None
) -> Prepared | SolveResult | None:
    """The start shared by :func:`_solve_by_model` and :func:`.bands.solve_interacting`: OR-Tools imported within
    the limit, the solved side's encoding, the replies' groups and profiles, the values' scale. A SolveResult
    (unknown) when the limit runs out; None when the board needs the listing (too many profiles or choices,
    values too large to weigh exactly)."""
    s = step.scenario
    deadline = deadline_of(time_limit)
    budget = Budget(time_limit, deterministic_time)

    def elapsed() -> float:
        return (time.perf_counter() - start) * 1000

    if not import_within("trample.engines.cpsat", deadline or None):  # the limit ran out while OR-Tools was imported
        return SolveResult(STATUS_UNKNOWN, None, {}, None, elapsed(), 0)
    em = EffectsModel(step)
    interesting = counted_objects(step)
    try:
        groups = reply_groups(step, other, interesting, deadline, theirs)
    except LimitReached:
        return SolveResult(STATUS_UNKNOWN, None, {}, None, elapsed(), 0)
    monotone = all(exact(value_of(s[c])) >= 0 for c in interesting) or all(
        o.kind != ObjectiveKind.MAX_VALUE for o in objs
    )
    choices = choices_of(groups, monotone)  # per choice of the solved player's part of the reply: its profiles
    profiles = {p.key for ps in choices for p in ps}
    if len(profiles) > MAX_PROFILES or len(choices) > MAX_PROFILES:
        return None
    try:
        wants_value = any(o.kind == ObjectiveKind.MAX_VALUE for o in objs)
        scale = value_scale_of(s, [*em.killable, *em.walkers]) if wants_value else 1
    except NotSeparable:
        return None
    return Prepared(em, groups, choices, scale, deadline, budget, elapsed)


def _reply_terms(em: EffectsModel, objs, per, choices, no_choice: bool) -> list[Term] | None:
    """The objective terms over the replies: with one profile (no_choice: the other player divides it all,
    702.22j) the worst line, objective by objective; else the lexicographic minimum over the replies of the
    oriented values as one exactly weighted sum, and with a part of the reply divided by the solved player
    (702.22j/k) the best of their choices' minima. None when the packed sum is too wide (the listing solves it)."""
    if len(per) == 1:
        (only,) = per.values()
        return [Term(lin, o.maximize != no_choice, True) for o, lin in zip(objs, only)]
    lows, highs = [], []
    for j, o in enumerate(objs):
        bs = [p[j].bounds() for p in per.values()]
        lo, hi = min(b[0] for b in bs), max(b[1] for b in bs)
        lows.append(lo if o.maximize else -hi)
        highs.append(hi if o.maximize else -lo)
    weights, w = [], 1
    for j in reversed(range(len(objs))):
        weights.append(w)
        w *= highs[j] - lows[j] + 1
    weights.reverse()
    if w > PACK_LIMIT:
        return None
    sums = {}
    for key, p in per.items():
        lin = Lin()
        for j, o in enumerate(objs):
            lin.add(p[j], weights[j] if o.maximize else -weights[j])
            lin.const -= weights[j] * lows[j]
        sums[key] = lin.expr()
    worst = []
    for n, ps in enumerate(choices):
        v = em.m.new_int_var(0, w - 1, f"worst reply[{n}]")
        em.m.add_min_equality(v, [sums[p.key] for p in ps])
        worst.append(v)
    if len(worst) > 1:
        v = em.m.new_int_var(0, w - 1, "best choice")
        em.m.add_max_equality(v, worst)
    return [Term(Lin.of(v, 0, w - 1), not no_choice, True)]


def _reachable(em: EffectsModel, runner: Runner, choices, no_choice: bool) -> dict | None:
    """lethal_report's "reachable": for each listed player, can they be made to lose (704.5a/c, 704.6c) whatever
    the reply (or, with no choice, on every line)? None when a solve was not proven."""
    reachable: dict | None = {}
    for player in em.s.players:
        every = em._any(
            [
                em._all([em.loses(player.id, prof) for prof in ps], f"reachable[{player.id},{n}]")
                for n, ps in enumerate(choices)
            ],
            f"reachable[{player.id}]",
        )
        if not every.terms:
            if reachable is not None:
                reachable[player.id] = bool(every.const)
            continue
        if no_choice:  # on every line
            em.m.minimize(every.expr())
        else:  # for some assignment, whatever the reply
            em.m.maximize(every.expr())
        st = runner.run()
        if st != STATUS_OPTIMAL or reachable is None:
            reachable = None
        else:
            reachable[player.id] = runner.value(every) == 1
    em.m.clear_objective()
    return reachable


def _agree(runner: Runner, objs, per, choices, scale: int, values, assignment) -> None:
    """The model's values for its answer (the worst reply, with banding the solved player's best part of it) must
    be the outcome's: a disagreement is an error, not an answer."""

    def oriented_values(vs):
        return tuple(v if o.maximize else -v for o, v in zip(objs, vs))

    found = {
        k: [Fraction(runner.value(lin), scale if o.kind == ObjectiveKind.MAX_VALUE else 1) for o, lin in zip(objs, p)]
        for k, p in per.items()
    }
    best = max((min((found[p.key] for p in ps), key=oriented_values) for ps in choices), key=oriented_values)
    if {o.name: json_number(v) for o, v in zip(objs, best)} != values:  # the model and the outcome must agree
        raise RuntimeError(
            f"the effects model disagrees with the outcome on {assignment.to_json()}: {best} != {values}"
        )
