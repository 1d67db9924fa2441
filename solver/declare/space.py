"""The legal declarations of a document: counted, listed (lazily, each once), ranked, sampled, and the 509.1c /
508.1d maximum of requirements obeyed, by a direct counting programme and by CP-SAT (the reference).

The declaration is built chooser by chooser in document order: each potential blocker chooses the attackers it
blocks (none, or a set of attackers it may block, at most its limit: 509.1a), each potential attacker what it
attacks (nothing, or a target: 508.1a-b). The only restrictions that couple choosers are the attackers' minimum
numbers of blockers (menace, 702.111b); the requirements obeyed add up chooser by chooser, except "must be
blocked", read at the end. So a programme over (chooser, the blockers each tracked attacker has so far, capped)
counts, for each number of requirements obeyed, the restriction-legal completions; the legal declarations are
those that obey the maximum (509.1c). The counts give the canonical order: chooser by chooser, options in order
(none first, then sets by attacker order, targets by document order), so rank, unrank and uniform sampling
follow.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cache
from itertools import combinations
from math import comb

from ..limits import NEVER, Deadline
from ..models.declare import AttackersDoc, Attacks, BlockersDoc, Blocks
from ..models.errors import FormatError
from ..models.mana import Mana
from ..models.vocabulary import ManaType
from .legality import (
    Requirement,
    attack_refusals,
    band_refusals,
    block_refusals,
    can_ever_block,
    may_band,
    requirements,
)


@cache
def bell(n: int) -> int:
    """The number of ways to split n things into groups (Bell numbers: 1, 1, 2, 5, 15, ...)."""
    return 1 if n == 0 else sum(comb(n - 1, j) * bell(j) for j in range(n))


@cache
def band_splits(with_banding: int, without: int) -> int:
    """The choices of bands of creatures attacking one target, ``with_banding`` of them with banding and
    ``without`` without (702.22c: a band holds at most one creature without banding): each creature without banding
    is alone or the one of its band; ``j`` of those with banding join them (``without ** j`` ways), the rest split
    among themselves (``bell``)."""
    k, m = with_banding, without
    return sum(comb(k, j) * m**j * bell(k - j) for j in range(k + 1))


@dataclass(frozen=True)
class Option:
    picks: tuple[int, ...]  # blocks: indices of the attackers blocked; attacks: () or (target index,)
    adds: tuple[int, ...]  # indices into the tracked attackers, one per blocker added
    obeyed: int  # requirements this choice obeys on its own
    alone: bool = False  # the chooser acts, and "can't attack alone" / "can't block alone" (508.1c, 509.1b)
    cost: tuple[int, ...] = ()  # what it costs in each of DeclarationSpace.dims (508.1h, 509.1d)
    slot: int = -1  # weighted bands: the state's counter it adds one to (its target, with or without banding)


class DeclarationSpace:
    """Every legal declaration of a document (blocks or attacks)."""

    def __init__(self, doc: BlockersDoc | AttackersDoc):
        self.doc = doc
        self.blocks = isinstance(doc, BlockersDoc)
        self.requirements: list[Requirement] = requirements(doc)
        board = doc.board
        if self.blocks:
            assert isinstance(doc, BlockersDoc)
            self.attackers = [a.id for a in board.attackers]
            self.choosers = [b.id for b in board.blockers]
            needs = [doc.of(a).need_blockers for a in self.attackers]
            must = [doc.of(a).has("must_be_blocked") for a in self.attackers]
            caps = [max(n if n > 1 else 0, 1 if m else 0) for n, m in zip(needs, must)]
            self.tracked = [i for i, c in enumerate(caps) if c > 0]
            self.caps = tuple(caps[i] for i in self.tracked)
            self.needs = tuple(needs[i] for i in self.tracked)
            self.must = tuple(must[i] for i in self.tracked)
            self.options = [self._block_options(b) for b in self.choosers]
            for band in doc.bands:  # declared already: a band 702.22c does not allow is a bad document
                for rule, why in band_refusals(doc, band):
                    where = f"attackers[{self.attackers.index(band[1])}].band"
                    raise FormatError(where, f"{why} ({rule})")
        else:
            assert isinstance(doc, AttackersDoc)
            self.targets = list(doc.targets)
            self.choosers = [a.id for a in board.attackers]
            self.tracked, self.caps, self.needs, self.must = [], (), (), ()
            self.options = [self._attack_options(c) for c in self.choosers]
        #: "can't block alone" (509.1b) / "can't attack alone" (508.1c) couple every chooser: the programme then
        #: also tracks how many choosers act (capped at 2) and whether one of them can't act alone
        alone = "cant_block_alone" if self.blocks else "cant_attack_alone"
        self.couples = any(doc.of(c).has(alone) for c in self.choosers)
        self._costs_setup()
        #: attacking bands (702.22c): each attack's bands are listed per attack (see :meth:`band_choices`)
        self.banding = not self.blocks and sum(may_band(doc, c) for c in self.choosers) >= 1 and len(self.choosers) > 1
        #: without "bands with other", an attack's number of choices of bands depends only on how many creatures
        #: with and without banding attack each target (:func:`band_splits`): the programme then tracks those
        #: numbers and weighs each attack by its choices, so bands are counted, ranked and unranked without a walk
        self.weighted = self.banding and not any(doc.of(c).bands_with_other for c in self.choosers)
        self._c0 = len(self.tracked)  # where the state's "can't act alone" counters start
        self._w0 = self._c0 + (2 if self.couples else 0)  # where its per-target band counters start
        if self.weighted:
            slot = {c: self._w0 + (0 if may_band(doc, c) else 1) for c in self.choosers}
            self.options = [
                [replace(o, slot=slot[c] + 2 * o.picks[0] if o.picks else -1) for o in opts]
                for c, opts in zip(self.choosers, self.options)
            ]
        self._memo: dict = {}
        self._legal_memo: dict = {}
        self._bands_memo: dict = {}

    def _costs_setup(self) -> None:
        """Costs to attack or block (508.1h, 509.1d): the players who pay, and the mana each has; the programme
        adds up what each pays (capped one above the mana: beyond it nothing is affordable)."""
        doc, board = self.doc, self.doc.board
        if self.blocks:
            assert isinstance(doc, BlockersDoc)
            paying = {doc.controller(b) for b in self.choosers if doc.block_cost(b)}
            self.payers = [p.id for p in board.players if p.id in paying]
        else:
            assert isinstance(doc, AttackersDoc)
            costly = any(doc.attack_cost(c, t) for c in self.choosers for t in self.targets)
            self.payers = [doc.active] if costly else []
        #: a total cost is payable when it is at most the pool in every dimension (models/mana.py, ``payable``):
        #: per paying player, the whole amount of mana, and the symbols of each type some cost names
        self.dims: list[tuple[str, ManaType | None]] = []
        for p in self.payers:
            named = {t for cost in self._costs_of(p) for t in ManaType if cost.of(t)}
            self.dims += [(p, None), *((p, t) for t in ManaType if t in named)]
        pools = {p: doc.costs.available(p) for p in self.payers}
        self.budget = tuple(pools[p].total if t is None else pools[p].of(t) for p, t in self.dims)
        self._free = (0,) * len(self.dims)
        if self.payers:
            self.options = [[replace(o, cost=self._cost_of(n, o)) for o in opts] for n, opts in enumerate(self.options)]

    def _costs_of(self, player: str) -> list[Mana]:
        """Every cost this player may pay for one creature (to block with it, or to attack one target)."""
        doc = self.doc
        if isinstance(doc, BlockersDoc):
            return [doc.block_cost(b) for b in self.choosers if doc.controller(b) == player]
        assert isinstance(doc, AttackersDoc)
        return [doc.attack_cost(c, t) for c in self.choosers for t in self.targets]

    def _cost_of(self, n: int, opt: Option) -> tuple[int, ...]:
        doc = self.doc
        if not opt.picks:
            return self._free
        if isinstance(doc, BlockersDoc):
            b = self.choosers[n]
            payer, cost = doc.controller(b), doc.block_cost(b)
        else:
            assert isinstance(doc, AttackersDoc)
            payer, cost = doc.active, doc.attack_cost(self.choosers[n], self.targets[opt.picks[0]])
        return tuple(0 if p != payer else cost.total if t is None else cost.of(t) for p, t in self.dims)

    def _add(self, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(min(x + y, m + 1) for x, y, m in zip(a, b, self.budget))

    # -- options ----------------------------------------------------------------------------------
    def _block_options(self, blocker: str) -> list[Option]:
        doc = self.doc
        assert isinstance(doc, BlockersDoc)
        options = [Option((), (), 0)]
        if can_ever_block(doc, blocker):
            return options
        able = [i for i, a in enumerate(self.attackers) if not block_refusals(doc, a, blocker)]
        limit = doc.of(blocker).block_limit
        top = len(able) if limit is None else min(limit, len(able))
        each = any(r.kind == "blocks_each_combat" and r.creature == blocker for r in self.requirements)
        lured = {
            self.attackers.index(r.attacker)
            for r in self.requirements
            if r.kind == "lure" and r.creature == blocker and r.attacker is not None
        }
        position = {i: k for k, i in enumerate(self.tracked)}
        for size in range(1, top + 1):
            for picks in combinations(able, size):
                adds = tuple(position[i] for i in picks if i in position)
                obeyed = int(each) + sum(1 for i in picks if i in lured)
                options.append(Option(picks, adds, obeyed, doc.of(blocker).has("cant_block_alone")))
        return options

    def _attack_options(self, creature: str) -> list[Option]:
        doc = self.doc
        assert isinstance(doc, AttackersDoc)
        each = any(r.creature == creature for r in self.requirements)
        options = [Option((), (), 0)]
        for t, target in enumerate(self.targets):
            if not attack_refusals(doc, creature, target):
                options.append(Option((t,), (), int(each), doc.of(creature).has("cant_attack_alone")))
        return options

    def declaration(self, choice: tuple[int, ...]) -> Blocks | Attacks:
        """The declaration of one option index per chooser."""
        if self.blocks:
            of: dict[str, list[str]] = {}
            for n, (b, k) in enumerate(zip(self.choosers, choice)):
                for i in self.options[n][k].picks:
                    of.setdefault(self.attackers[i], []).append(b)
            return Blocks({a: tuple(of[a]) for a in self.attackers if a in of})
        return Attacks(
            {c: self.targets[self.options[n][k].picks[0]] for n, (c, k) in enumerate(zip(self.choosers, choice)) if k}
        )

    # -- the counting programme --------------------------------------------------------------------
    def _final(self, state: tuple[int, ...]) -> int | None:
        """Requirements the end state obeys ("must be blocked"), or None if a minimum of blockers is broken."""
        obeyed = 0
        for n, need, must in zip(state, self.needs, self.must):
            if 0 < n < need:
                return None
            obeyed += int(must and n > 0)
        if self.couples and state[self._c0 + 1] and state[self._c0] < 2:
            return None  # 509.1b / 508.1c: a creature that can't act alone acts alone
        return obeyed

    def _weight(self, state: tuple[int, ...]) -> int:
        """The declarations one end state stands for: 1, or with weighted bands each target's choices of bands."""
        if not self.weighted:
            return 1
        out = 1
        for t in range(len(self.targets)):
            out *= band_splits(state[self._w0 + 2 * t], state[self._w0 + 2 * t + 1])
        return out

    def _completions(self, i: int, state: tuple[int, ...]) -> Counter:
        """{(requirements obeyed, cost to each payer) from chooser i on: the number of restriction-legal
        completions} (costs capped one above each payer's mana)."""
        key = (i, state)
        got = self._memo.get(key)
        if got is not None:
            return got
        out: Counter = Counter()
        if i == len(self.choosers):
            final = self._final(state)
            if final is not None:
                out[final, self._free] = self._weight(state)
        else:
            for opt in self.options[i]:
                for (r, c), n in self._completions(i + 1, self._step(state, opt)).items():
                    out[r + opt.obeyed, self._add(opt.cost, c) if self.payers else c] += n
        self._memo[key] = out
        return out

    def _legal(self, i: int, state: tuple[int, ...], acc: tuple[int, tuple[int, ...]]) -> int:
        """The legal completions from chooser i on, given (requirements obeyed, costs) so far: restriction-legal,
        affordable (508.1h-j, 509.1d-f) and obeying at least the maximum (508.1d, 509.1c)."""
        key = (i, state, acc)
        got = self._legal_memo.get(key)
        if got is None:
            best, (r0, c0) = self.max_obeyed(), acc
            got = 0
            for (r, c), n in self._completions(i, state).items():
                if r0 + r >= best and all(x <= m for x, m in zip(self._add(c0, c), self.budget)):
                    got += n
            self._legal_memo[key] = got
        return got

    def _then(self, acc: tuple[int, tuple[int, ...]], opt: Option) -> tuple[int, tuple[int, ...]]:
        return acc[0] + opt.obeyed, (self._add(acc[1], opt.cost) if self.payers else acc[1])

    def _step(self, state: tuple[int, ...], opt: Option) -> tuple[int, ...]:
        if not opt.adds and not (self.couples and opt.picks) and opt.slot < 0:
            return state
        s = list(state)
        for k in opt.adds:
            s[k] = min(s[k] + 1, self.caps[k])
        if self.couples and opt.picks:
            s[self._c0] = min(s[self._c0] + 1, 2)
            s[self._c0 + 1] = max(s[self._c0 + 1], int(opt.alone))
        if opt.slot >= 0:
            s[opt.slot] += 1
        return tuple(s)

    @property
    def _start(self) -> tuple[int, ...]:
        return (0,) * (self._w0 + (2 * len(self.targets) if self.weighted else 0))

    def max_obeyed(self) -> int:
        """The most requirements a restriction-legal declaration obeys (509.1c, 508.1d), among those that cost
        nothing: a player is not required to pay a cost to attack or block, even to obey more requirements. There
        is always one (declaring nothing breaks no restriction)."""
        got = self._memo.get("max")
        if got is None:
            got = self._memo["max"] = max(r for r, c in self._completions(0, self._start) if c == self._free)
        return got

    def count(self) -> int:
        """The number of legal declarations: restriction-legal, affordable, obeying the maximum of requirements
        (with banding, each attack once per legal choice of its bands: weighed by the programme, or, with "bands
        with other", by walking every attack)."""
        if self.banding and not self.weighted:
            starts, _ = self._band_table()
            return starts[-1]
        return self._legal(0, self._start, (0, self._free))

    def _band_table(self) -> tuple[list[int], dict]:
        """With banding: the index of each attack's first declaration (and the total last), and each attack's
        key -> (its position, its choices of bands). Built once, walking every attack."""
        got = self._memo.get("bands")
        if got is None:
            starts, where = [0], {}
            for n, choice in enumerate(self._base_choices()):
                base = self.declaration(choice)
                bands = self.band_choices(base)  # type: ignore[arg-type]
                where[base] = (n, bands)
                starts.append(starts[-1] + len(bands))
            got = self._memo["bands"] = (starts, where)
        return got

    def obeyed(self, declaration) -> int:
        return sum(1 for r in self.requirements if r.obeyed(declaration))

    # -- listing, rank, unrank, sampling -------------------------------------------------------------
    def _base_choices(self, deadline: Deadline = NEVER) -> Iterator[tuple[int, ...]]:
        """Every legal declaration's option indices (without bands), each once, in the canonical order, lazily
        (no dead end: a branch is entered only when it has a legal completion)."""
        n = len(self.choosers)
        stack: list = [(0, self._start, (0, self._free), ())]
        while stack:
            deadline.check()
            i, state, acc, prefix = stack.pop()
            if i == n:
                yield prefix
                continue
            children = []
            for k, opt in enumerate(self.options[i]):
                nxt, then = self._step(state, opt), self._then(acc, opt)
                if self._legal(i + 1, nxt, then):
                    children.append((i + 1, nxt, then, (*prefix, k)))
            stack.extend(reversed(children))

    def legal_options(self, prefix: tuple[int, ...]) -> list[int]:
        """The options of chooser ``len(prefix)`` (indices into ``options``) after which a legal declaration can
        still be completed, the choosers before it having chosen ``prefix`` (a declaration made creature by
        creature, as the games of ``trample.arena.declare_game`` make it; bands aside)."""
        state, acc = self._start, (0, self._free)
        for i, k in enumerate(prefix):
            opt = self.options[i][k]
            state, acc = self._step(state, opt), self._then(acc, opt)
        i = len(prefix)
        return [
            k
            for k, opt in enumerate(self.options[i])
            if self._legal(i + 1, self._step(state, opt), self._then(acc, opt))
        ]

    def choices(self, deadline: Deadline = NEVER) -> Iterator[tuple[int, ...]]:
        """Every legal declaration's option indices, each once, in the canonical order (with banding: of the
        attacks without their bands, see :meth:`declarations`)."""
        return self._base_choices(deadline)

    def declarations(self, limit: int | None = None, deadline: Deadline = NEVER) -> Iterator[Blocks | Attacks]:
        """Every legal declaration, each once, in the canonical order (with banding: each attack, then its
        choices of bands in :meth:`band_choices`' order), lazily."""
        n = 0
        for choice in self._base_choices(deadline):
            base = self.declaration(choice)
            for declared in self.band_choices(base) if isinstance(base, Attacks) and self.banding else [base]:
                if limit is not None and n >= limit:
                    return
                n += 1
                yield declared

    def unrank(self, index: int) -> Blocks | Attacks:
        """The declaration at ``index`` (0 <= index < count) in the canonical order."""
        if not 0 <= index < self.count():
            raise IndexError(f"index {index} out of range (count {self.count()})")
        if self.banding and not self.weighted:
            starts, _ = self._band_table()
            n = bisect_right(starts, index) - 1
            base, _ = self._unrank_base(n)
            return self.band_choices(base)[index - starts[n]]  # type: ignore[arg-type]
        base, rest = self._unrank_base(index)
        return self.band_choices(base)[rest] if self.weighted else base  # type: ignore[arg-type]

    def _unrank_base(self, index: int) -> tuple[Blocks | Attacks, int]:
        """The declaration (without bands) whose range of the programme's counts holds ``index`` (each attack's
        range as long as its choices of bands, when weighted), and where in that range ``index`` falls."""
        acc, state, choice = (0, self._free), self._start, []
        for i in range(len(self.choosers)):
            for k, opt in enumerate(self.options[i]):
                nxt, then = self._step(state, opt), self._then(acc, opt)
                here = self._legal(i + 1, nxt, then)
                if index < here:
                    choice.append(k)
                    state, acc = nxt, then
                    break
                index -= here
        return self.declaration(tuple(choice)), index

    def choice_of(self, declaration) -> tuple[int, ...] | None:
        """The option indices of a declaration (without its bands), or None if some chooser's part is not one of
        its options."""
        return self._choice_of(declaration)

    def _choice_of(self, declaration) -> tuple[int, ...] | None:
        """The option indices of a declaration, or None if some chooser's part is not one of its options."""
        out = []
        for n, c in enumerate(self.choosers):
            if self.blocks:
                picks = tuple(i for i, a in enumerate(self.attackers) if c in declaration.of.get(a, ()))
            else:
                t = declaration.of.get(c)
                picks = () if t is None else (self.targets.index(t),)
            ks = [k for k, o in enumerate(self.options[n]) if o.picks == picks]
            if not ks:
                return None
            out.append(ks[0])
        return tuple(out)

    def rank(self, declaration) -> int | None:
        """The index of a legal declaration in the canonical order (None if it is not legal)."""
        if self.banding and not self.weighted:
            starts, where = self._band_table()
            found = where.get(Attacks(declaration.of))
            if found is None or declaration not in found[1]:
                return None
            return starts[found[0]] + found[1].index(declaration)
        choice = self.choice_of(declaration)
        within = 0
        if self.weighted and choice is not None:
            bands = self.band_choices(Attacks(declaration.of))
            if declaration not in bands:
                return None
            within = bands.index(declaration)
        elif choice is None or (isinstance(declaration, Attacks) and declaration.bands):  # no creature may band
            return None
        acc, state, index = (0, self._free), self._start, 0
        for i, k in enumerate(choice):
            for j, opt in enumerate(self.options[i]):
                nxt, then = self._step(state, opt), self._then(acc, opt)
                here = self._legal(i + 1, nxt, then)
                if j == k:
                    if not here:
                        return None
                    state, acc = nxt, then
                    break
                index += here
        return index + within

    # -- bands (702.22c-d) --------------------------------------------------------------------------
    def band_choices(self, attacks: Attacks) -> list[Attacks]:
        """Every legal choice of bands for this attack (its creatures and targets as given), in the canonical
        order: no band first; creature by creature in document order, each alone or joining an earlier band.
        A band attacks one target (702.22d) and is one that 702.22c allows; a creature in no band is alone."""
        doc = self.doc
        assert isinstance(doc, AttackersDoc)
        order = [c for c in self.choosers if c in attacks.of]
        key = tuple((c, attacks.of[c]) for c in order)
        got = self._bands_memo.get(key)
        if got is not None:
            return got
        qualities = {q for c in order for q in doc.of(c).bands_with_other if q in doc.board.attacker(c).tags}

        def viable(group: list[str], final: bool) -> bool:
            """Could this group be (final: is it) a band 702.22c allows?"""
            if len(group) < 2:
                return True
            if not band_refusals(doc, tuple(group)):
                return True
            if final:
                return False
            return any(
                all(q in doc.board.attacker(c).tags for c in group) for q in qualities
            )  # a "bands with other" may join

        found: list[tuple[tuple[str, ...], ...]] = []

        def place(i: int, groups: list[list[str]]) -> None:
            if i == len(order):
                if all(viable(g, True) for g in groups):
                    found.append(tuple(tuple(g) for g in groups if len(g) > 1))
                return
            c = order[i]
            place(i + 1, [*groups, [c]])
            for k, g in enumerate(groups):
                if attacks.of[g[0]] == attacks.of[c] and viable([*g, c], False):
                    place(i + 1, [*groups[:k], [*g, c], *groups[k + 1 :]])

        place(0, [])
        out = self._bands_memo[key] = [Attacks(attacks.of, bands) for bands in found]
        return out

    def sample(self, n: int, seed: int | None = None) -> list[Blocks | Attacks]:
        """``n`` declarations drawn exactly uniformly (with replacement), reproducibly by ``seed``."""
        rng = random.Random(seed)
        total = self.count()
        return [self.unrank(rng.randrange(total)) for _ in range(n)]

    # -- the reference: CP-SAT -----------------------------------------------------------------------
    def _model(self, free: bool = False):
        """One Boolean per chooser and option; ``free``: only the options that cost nothing (the 508.1d / 509.1c
        maximum: no player is required to pay a cost to obey a requirement), else the total cost each player
        pays at most their mana (508.1h-j, 509.1d-f)."""
        from ..engines.cpsat import cp_model

        model = cp_model.CpModel()
        x = {}  # (chooser, option) -> bool: exactly one option per chooser
        for n, opts in enumerate(self.options):
            xs = [model.new_bool_var(f"x{n}_{k}") for k in range(len(opts))]
            model.add_exactly_one(xs)
            x.update({(n, k): v for k, v in enumerate(xs)})
        obeyed = [opt.obeyed * x[n, k] for n, opts in enumerate(self.options) for k, opt in enumerate(opts)]
        for t, (need, must) in enumerate(zip(self.needs, self.must)):
            count = sum(x[n, k] for n, opts in enumerate(self.options) for k, o in enumerate(opts) if t in o.adds)
            blocked = model.new_bool_var(f"blocked{t}")
            model.add(count >= need).only_enforce_if(blocked)  # 702.111b: none, or at least need
            model.add(count == 0).only_enforce_if(~blocked)
            if must:
                obeyed.append(blocked)
        if self.couples:  # 509.1b / 508.1c: a creature that can't act alone acts only beside another
            alone = "cant_block_alone" if self.blocks else "cant_attack_alone"
            for n, c in enumerate(self.choosers):
                if self.doc.of(c).has(alone):
                    others = sum(1 - x[m, 0] for m in range(len(self.choosers)) if m != n)
                    model.add(others >= 1).only_enforce_if(~x[n, 0])
        for p, mana in enumerate(self.budget):
            paid = [
                (o.cost[p], x[n, k]) for n, opts in enumerate(self.options) for k, o in enumerate(opts) if o.cost[p]
            ]
            if free:
                for _, v in paid:
                    model.add(v == 0)
            else:
                model.add(sum(c * v for c, v in paid) <= mana)
        return model, x, sum(obeyed)

    def max_obeyed_cpsat(self) -> int:
        """The 509.1c / 508.1d maximum, by CP-SAT (the reference for :meth:`max_obeyed`)."""
        # new_solver: the one place CP-SAT solvers are made (SIGINT left to Python)
        from ..engines.cpsat import cp_model, new_solver

        model, _, total = self._model(free=True)
        model.maximize(total)
        solver = new_solver(num_workers=1)
        status = solver.solve(model)
        assert status == cp_model.OPTIMAL
        return int(solver.value(total))

    def choices_cpsat(self) -> list[tuple[int, ...]]:
        """Every legal declaration's option indices (without bands), listed by CP-SAT (sorted): the reference for
        counting."""
        from ..engines.cpsat import cp_model

        best = self.max_obeyed_cpsat()
        model, x, total = self._model()
        model.add(total >= best)
        from ..engines.cpsat import new_solver

        solver = new_solver(listing=True)  # one worker: more silently lose solutions
        found: list[tuple[int, ...]] = []

        class Collect(cp_model.CpSolverSolutionCallback):
            def on_solution_callback(self):
                found.append(tuple(next(k for k in range(len(o)) if self.value(x[n, k])) for n, o in enumerate(opts)))

        opts = self.options
        solver.solve(model, Collect())
        return sorted(found)

    def count_cpsat(self) -> int:
        """The number of legal declarations by CP-SAT's listing (with banding: each attack listed, times its
        choices of bands)."""
        choices = self.choices_cpsat()
        if not self.banding:
            return len(choices)
        return sum(len(self.band_choices(self.declaration(c))) for c in choices)  # type: ignore[arg-type,misc]
