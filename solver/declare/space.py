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
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations

from ..limits import NEVER, Deadline
from ..models.declare import AttackersDoc, Attacks, BlockersDoc, Blocks
from .legality import (
    Requirement,
    attack_refusals,
    block_refusals,
    can_ever_block,
    requirements,
)


@dataclass(frozen=True)
class Option:
    picks: tuple[int, ...]  # blocks: indices of the attackers blocked; attacks: () or (target index,)
    adds: tuple[int, ...]  # indices into the tracked attackers, one per blocker added
    obeyed: int  # requirements this choice obeys on its own
    alone: bool = False  # the chooser acts, and "can't attack alone" / "can't block alone" (508.1c, 509.1b)


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
        self._memo: dict = {}

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
        if self.couples and state[-1] and state[-2] < 2:
            return None  # 509.1b / 508.1c: a creature that can't act alone acts alone
        return obeyed

    def _completions(self, i: int, state: tuple[int, ...]) -> Counter:
        """{requirements obeyed from chooser i on: the number of restriction-legal completions}."""
        key = (i, state)
        got = self._memo.get(key)
        if got is not None:
            return got
        out: Counter = Counter()
        if i == len(self.choosers):
            final = self._final(state)
            if final is not None:
                out[final] = 1
        else:
            for opt in self.options[i]:
                for r, n in self._completions(i + 1, self._step(state, opt)).items():
                    out[r + opt.obeyed] += n
        self._memo[key] = out
        return out

    def _step(self, state: tuple[int, ...], opt: Option) -> tuple[int, ...]:
        if not opt.adds and not (self.couples and opt.picks):
            return state
        s = list(state)
        for k in opt.adds:
            s[k] = min(s[k] + 1, self.caps[k])
        if self.couples and opt.picks:
            s[-2] = min(s[-2] + 1, 2)
            s[-1] = max(s[-1], int(opt.alone))
        return tuple(s)

    @property
    def _start(self) -> tuple[int, ...]:
        return (0,) * (len(self.tracked) + (2 if self.couples else 0))

    def max_obeyed(self) -> int:
        """The most requirements a restriction-legal declaration obeys (509.1c, 508.1d). There is always one
        (declaring nothing breaks no restriction)."""
        return max(self._completions(0, self._start))

    def count(self) -> int:
        """The number of legal declarations: restriction-legal, obeying the maximum of requirements."""
        return self._completions(0, self._start)[self.max_obeyed()]

    def count_by_obeyed(self) -> dict[int, int]:
        """Restriction-legal declarations by the number of requirements they obey."""
        return dict(sorted(self._completions(0, self._start).items()))

    def obeyed(self, declaration) -> int:
        return sum(1 for r in self.requirements if r.obeyed(declaration))

    # -- listing, rank, unrank, sampling -------------------------------------------------------------
    def choices(self, deadline: Deadline = NEVER) -> Iterator[tuple[int, ...]]:
        """Every legal declaration's option indices, each once, in the canonical order, lazily (no dead end:
        a branch is entered only when it has a legal completion)."""
        target = self.max_obeyed()
        n = len(self.choosers)
        stack: list = [(0, self._start, target, ())]
        while stack:
            deadline.check()
            i, state, need, prefix = stack.pop()
            if i == n:
                yield prefix
                continue
            children = []
            for k, opt in enumerate(self.options[i]):
                nxt = self._step(state, opt)
                if need - opt.obeyed >= 0 and self._completions(i + 1, nxt).get(need - opt.obeyed, 0):
                    children.append((i + 1, nxt, need - opt.obeyed, (*prefix, k)))
            stack.extend(reversed(children))

    def declarations(self, limit: int | None = None, deadline: Deadline = NEVER) -> Iterator[Blocks | Attacks]:
        for n, choice in enumerate(self.choices(deadline)):
            if limit is not None and n >= limit:
                return
            yield self.declaration(choice)

    def unrank(self, index: int) -> Blocks | Attacks:
        """The declaration at ``index`` (0 <= index < count) in the canonical order."""
        if not 0 <= index < self.count():
            raise IndexError(f"index {index} out of range (count {self.count()})")
        need, state, choice = self.max_obeyed(), self._start, []
        for i in range(len(self.choosers)):
            for k, opt in enumerate(self.options[i]):
                nxt = self._step(state, opt)
                here = self._completions(i + 1, nxt).get(need - opt.obeyed, 0) if need >= opt.obeyed else 0
                if index < here:
                    choice.append(k)
                    state, need = nxt, need - opt.obeyed
                    break
                index -= here
        return self.declaration(tuple(choice))

    def choice_of(self, declaration) -> tuple[int, ...] | None:
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
        choice = self.choice_of(declaration)
        if choice is None:
            return None
        need, state, index = self.max_obeyed(), self._start, 0
        for i, k in enumerate(choice):
            for j, opt in enumerate(self.options[i]):
                nxt = self._step(state, opt)
                here = self._completions(i + 1, nxt).get(need - opt.obeyed, 0) if need >= opt.obeyed else 0
                if j == k:
                    if not here:
                        return None
                    state, need = nxt, need - opt.obeyed
                    break
                index += here
        return index

    def sample(self, n: int, seed: int | None = None) -> list[Blocks | Attacks]:
        """``n`` declarations drawn exactly uniformly (with replacement), reproducibly by ``seed``."""
        rng = random.Random(seed)
        total = self.count()
        return [self.unrank(rng.randrange(total)) for _ in range(n)]

    # -- the reference: CP-SAT -----------------------------------------------------------------------
    def _model(self):
        from ortools.sat.python import cp_model

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
        return model, x, sum(obeyed)

    def max_obeyed_cpsat(self) -> int:
        """The 509.1c / 508.1d maximum, by CP-SAT (the reference for :meth:`max_obeyed`)."""
        from ortools.sat.python import cp_model

        from ..engines.cpsat import new_solver  # the one place CP-SAT solvers are made (SIGINT left to Python)

        model, _, total = self._model()
        model.maximize(total)
        solver = new_solver(num_workers=1)
        status = solver.solve(model)
        assert status == cp_model.OPTIMAL
        return int(solver.value(total))

    def choices_cpsat(self) -> list[tuple[int, ...]]:
        """Every legal declaration's option indices, listed by CP-SAT (sorted): the reference for counting."""
        from ortools.sat.python import cp_model

        best = self.max_obeyed_cpsat()
        model, x, total = self._model()
        model.add(total == best)
        from ..engines.cpsat import new_solver

        solver = new_solver(listing=True)  # one worker: more silently lose solutions
        found: list[tuple[int, ...]] = []

        class Collect(cp_model.CpSolverSolutionCallback):
            def on_solution_callback(self):
                found.append(tuple(next(k for k in range(len(o)) if self.value(x[n, k])) for n, o in enumerate(opts)))

        opts = self.options
        solver.solve(model, Collect())
        return sorted(found)
