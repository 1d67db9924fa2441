"""The interacting banding shape on the CP-SAT model (docs/solve.md, "How effect boards are solved"): the other
player divides *part* of the solved side's damage (702.22j: an attacker blocked by a creature with banding has its
damage divided by the defending player, the other attackers by the active player; 702.22k with the sides
swapped), so the solved player's part ``x`` of the line is worth the worst of the other player's rest: their
division ``z`` of the moved sources' damage, which must be legal together with ``x`` (510.1e: the gates count
every source's damage), and their reply with their own creatures (its *profiles*, :mod:`.effects`).

The objectives are sums over *units*: a recipient's damage, kill and overkill, a player's loss (its life, poison
and commander damage, with the lifelink of its blockers, 702.15b). A unit reached only by ``x``'s columns
depends on ``x`` alone, one reached only by ``z``'s on ``z`` alone (a constant per division), and the others --
the *shared* recipients, whose marked damage, deaths, overkill or player totals both parts add to -- on both.
The divisions are grouped by their *key*: their amounts into the shared recipients (and into what a shared
player's loss reads) and on their routes gated by a shared recipient. Within a group the shared units and the
legality with ``x`` are the same, and the rest is a constant the other player minimises, so with the
lexicographic objectives packed into one exact sum (as :mod:`.effects` packs them) the value is::

    v(x) = min over keys K legal with x, over profiles p, of  X_p(x) + S_K,p(x) + min over z in K of Z_z,p

one ``AddMinEquality`` per key, enforced when the key is legal with ``x``, under a maximised ``v``. The model
keeps the whole line as variables (``x`` and a division ``z`` legal with it), and ``z`` is held to a worst one
(its own value, read on the plain :mod:`.effects` encoding, at most ``v``), so that the tie-break -- the
smallest vector over every column of the plan, the worst line's -- is the listing's. When the keys times the
profiles pass :data:`MAX_GROUPS`, or the divisions :data:`MAX_DIVISIONS`, :func:`solve_interacting` returns None
and the listing answers.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from fractions import Fraction
from itertools import product

from ..limits import LimitReached, deadline_of, import_within
from ..models import Keyword, ObjectiveKind, ObjectKind, value_of
from ..outcome import exact
from ..step import DamageStep, ordered_splits
from . import effects
from .effects import (
    MAX_PROFILES,
    EffectsModel,
    NotSeparable,
    choices_of,
    objective_of,
    reply_groups,
    value_scale_of,
)
from .listing import evaluate, lethal_report, vector_of
from .model import PACK_LIMIT, Budget, Lin, Runner, Term, lex_optimise
from .objectives import json_number
from .results import (
    STATUS_FEASIBLE,
    STATUS_INFEASIBLE,
    STATUS_OPTIMAL,
    STATUS_UNKNOWN,
    SolveResult,
    assignment_of_vector,
)

#: the most keys times reply profiles encoded (more: the listing answers). Measured (one core, four tramplers
#: sharing blockers): 290 keys 0.15 s, 1126 keys 1.6 s, 1726 keys 2.9 s, where the listing of the 290-key board
#: had not finished after 60 s
MAX_GROUPS = 2048
#: past this many keys times profiles CP-SAT's presolve is on (measured on four tramplers sharing blockers,
#: benchmarks/bench_effects.py: 634 keys 3.5 s -> 0.44 s; at 24 to 290 keys the same within the noise)
PRESOLVE_GROUPS = 256
#: the most divisions of the other player's part listed (more: the listing answers)
MAX_DIVISIONS = 1 << 16

X, Z, SHARED = "x", "z", "shared"


class _Shape:
    """Who divides which column, and which units each part reaches."""

    def __init__(self, step: DamageStep, em: EffectsModel):
        plan = step.plan
        s = step.scenario
        cols = plan.columns
        self.cols = cols
        self.z = [k for k, (i, _) in enumerate(cols) if plan.sources[i].chooser != step.side]
        zs = set(self.z)
        self.x = [k for k in range(len(cols)) if k not in zs]
        x_recs = {cols[k][1] for k in self.x}
        z_recs = {cols[k][1] for k in self.z}
        self.both = x_recs & z_recs
        self.z_only = z_recs - x_recs
        self.rec_kind = {r: SHARED if r in self.both else X if r in x_recs else Z for r in x_recs | z_recs}
        self.reads: dict[str, set[str]] = {}  # player -> the recipients whose columns their loss reads
        for player in s.players:
            lifelink = {
                cols[k][1]
                for k, c in enumerate(em.src)
                if c.has(Keyword.LIFELINK)
                and s.kind(c.id) == ObjectKind.BLOCKER
                and s.blocker_controller(c.id) == player.id  # 702.15b
            }
            self.reads[player.id] = {player.id} | lifelink
        self.player_kind = {pid: self._kind(rs) for pid, rs in self.reads.items()}
        key_recs = set(self.both)
        for pid, kind in self.player_kind.items():
            if kind == SHARED:
                key_recs |= self.reads[pid]
        self.key_recs = key_recs
        routes = [plan.sources[i].route(r) for i, r in cols]
        self.gates = {k: None if route is None else route.gate for k, route in enumerate(routes)}
        self.key = [
            k
            for k in self.z
            if cols[k][1] in key_recs or (self.gates[k] is not None and set(_gated(self.gates[k])) & self.both)
        ]

    def _kind(self, recs: set[str]) -> str:
        kinds = {self.rec_kind[r] for r in recs if r in self.rec_kind}
        if not kinds or kinds == {X}:
            return X
        return Z if kinds == {Z} else SHARED

    def unit(self, player: bool, i: str) -> str:
        """Which part a unit depends on: a player's loss (``player``), else a recipient's damage, kill, overkill."""
        if player:
            return self.player_kind[i]
        return self.rec_kind.get(i, X)  # no column: a constant (the reply's), read with x's part


def _gated(gate) -> list[str]:
    return [*gate.lethal, *gate.loyalty]


def _divisions(step: DamageStep, shape: _Shape, deadline) -> list[dict[int, int]] | None:
    """Every division of the moved sources' damage (510.1a: each source's, exactly) whose gates on recipients only
    the moved sources reach hold (510.1e; those on shared recipients are read with ``x``, :func:`_legal`), in the
    order of their vectors; None past :data:`MAX_DIVISIONS`."""
    plan = step.plan
    per_source: dict[int, list[int]] = {}
    for k in shape.z:
        per_source.setdefault(shape.cols[k][0], []).append(k)
    choices = [
        [dict(zip(ks, amounts)) for amounts in ordered_splits(plan.sources[i].damage, len(ks))]
        for i, ks in per_source.items()
    ]
    size = 1
    for c in choices:
        size *= len(c)
    if size > MAX_DIVISIONS:
        return None
    out = []
    for parts in product(*choices):
        deadline.check()
        z = {k: n for part in parts for k, n in part.items()}
        if _gates_hold(step, shape, z):
            out.append(z)
    return out


def _gates_hold(step: DamageStep, shape: _Shape, z: dict[int, int]) -> bool:
    """Do the division's gated routes (702.19b/c) hold on the recipients only the moved sources reach?"""
    plan = step.plan
    for k, n in z.items():
        gate = shape.gates[k]
        if not n or gate is None:
            continue
        for b in gate.lethal:
            if b in shape.both:
                continue
            need = plan.lethal_need[b]
            into = [j for j in shape.z if shape.cols[j][1] == b]
            total = sum(z[j] for j in into)
            touched = any(z[j] and plan.sources[shape.cols[j][0]].deathtouch for j in into)  # 702.2c
            if need > 0 and total < need and not touched:
                return False
        for w in gate.loyalty:
            if w not in shape.both and sum(z[j] for j in shape.z if shape.cols[j][1] == w) < plan.loyalty_need[w]:
                return False
    return True


def _literal(em: EffectsModel, lin: Lin, name: str):
    """A CP-SAT boolean equal to the 0/1 expression ``lin`` (not a constant)."""
    if len(lin.terms) == 1 and lin.const == 0:
        var, coeff, _, _ = next(iter(lin.terms.values()))
        if coeff == 1:
            return var
    b = em.m.new_bool_var(name)
    em.m.add(b == lin.expr())
    return b


def _assigned_ok(em: EffectsModel, shape: _Shape, key: dict[int, int], r: str, lethal: bool) -> Lin:
    """1 when shared recipient ``r`` has been assigned lethal damage (702.19b, 702.2c) or its loyalty (702.19c),
    counting ``x``'s amounts and the key's (510.1e)."""
    plan = em.step.plan
    need = plan.lethal_need[r] if lethal else plan.loyalty_need[r]
    xs = [k for k in shape.x if shape.cols[k][1] == r]
    const = sum(n for k, n in key.items() if shape.cols[k][1] == r)
    deathtouch = (lambda k: plan.sources[shape.cols[k][0]].deathtouch) if lethal else (lambda k: False)
    if need <= const or any(n and deathtouch(k) for k, n in key.items() if shape.cols[k][1] == r):
        return Lin(1)
    total = Lin()
    for k in xs:
        total.add(em._x(k))
    parts = [em._at_least(total, need - const, f"assigned[{r}]")]
    touch = Lin()
    for k in xs:
        if deathtouch(k):
            touch.add(em._x(k))
    parts.append(em._at_least(touch, 1, f"assigned deathtouch[{r}]"))
    return em._any(parts, f"gate[{r}]")


def _legal(em: EffectsModel, shape: _Shape, key: dict[int, int]) -> Lin:
    """1 when ``x`` and a division with this key are legal together: every gated route with a shared recipient in
    its gate (510.1e), ``x``'s when it assigns 1 or more, the division's when its amount does, has each of them
    assigned lethal damage or its loyalty (702.19b/c), counting both parts. The gates on the other recipients
    are ``x``'s alone (the model's) or the division's alone (:func:`_gates_hold`)."""
    viols = []
    for k, gate in shape.gates.items():
        if gate is None or not set(_gated(gate)) & shape.both or (k in shape.z and not key.get(k)):
            continue
        oks = [_assigned_ok(em, shape, key, b, True) for b in gate.lethal if b in shape.both]
        oks += [_assigned_ok(em, shape, key, w, False) for w in gate.loyalty if w in shape.both]
        ok = em._all(oks, f"gates[{k}]")
        pos = Lin(1) if k in key else em._at_least(em._x(k), 1, f"assigns[{k}]")
        viols.append(em._all([pos, Lin(1).add(ok, -1)], f"illegal[{k}]"))
    return Lin(1).add(em._any(viols, "illegal"), -1)


class _Encoded:
    """The value's pieces over the keys and profiles: ``x``'s units (``xs[p]``), the witness line's every unit
    (``full[p]``), each key's shared units (``shared[K][p]``) and each division's own units (constants,
    ``own[z][p]``), each a list of one Lin per objective."""

    def __init__(self, step: DamageStep, em: EffectsModel, shape: _Shape, objs, profiles, keys, scale: int, deadline):
        self.em, self.shape, self.objs, self.profiles, self.keys = em, shape, objs, profiles, keys
        n = range(len(profiles))
        self.xs = [[objective_of(em, o, p, scale, lambda k, i: shape.unit(k, i) == X) for o in objs] for p in profiles]
        self.full = [[objective_of(em, o, p, scale) for o in objs] for p in profiles]
        self.models: dict[tuple, EffectsModel] = {}
        self.shared: dict[tuple, list[list[Lin]]] = {}
        for key in keys:
            deadline.check()  # --time-limit, by the clock: a key's encoding costs about a millisecond
            kem = EffectsModel(step, em.om, dict(zip(shape.key, key)), shape.key_recs)
            self.models[key] = kem
            self.shared[key] = [
                [objective_of(kem, o, profiles[p], scale, lambda k, i: shape.unit(k, i) == SHARED) for o in objs]
                for p in n
            ]
        self.own_models: dict[tuple, EffectsModel] = {}
        self.own: dict[tuple, list[list[int]]] = {}
        for zs in keys.values():
            for z in zs:
                zk = self.own_key(z)
                if zk in self.own:
                    continue
                zem = self.own_models[zk] = EffectsModel(step, em.om, z, shape.z_only)
                lins = [
                    [objective_of(zem, o, p, scale, lambda k, i: shape.unit(k, i) == Z) for o in objs] for p in profiles
                ]
                assert all(not lin.terms for ls in lins for lin in ls)  # the division's own units: constants
                self.own[zk] = [[lin.const for lin in ls] for ls in lins]

    def own_key(self, z: dict[int, int]) -> tuple:
        return tuple(z[k] for k in self.shape.z if self.shape.cols[k][1] in self.shape.z_only)

    def weights(self) -> tuple[list[int], list[int], int] | None:
        """(lows, weights, range) of the packed sum (the oriented objectives, most significant first); None when
        it passes PACK_LIMIT."""
        lows, highs = [], []
        for j, o in enumerate(self.objs):
            bounds = [lins[j].bounds() for lins in self.full]
            for key, zs in self.keys.items():
                for p in range(len(self.profiles)):
                    lo, hi = Lin().add(self.xs[p][j]).add(self.shared[key][p][j]).bounds()
                    consts = [self.own[self.own_key(z)][p][j] for z in zs]
                    bounds.append((lo + min(consts), hi + max(consts)))
            lo, hi = min(b[0] for b in bounds), max(b[1] for b in bounds)
            lows.append(lo if o.maximize else -hi)
            highs.append(hi if o.maximize else -lo)
        weights, w = [], 1
        for j in reversed(range(len(self.objs))):
            weights.append(w)
            w *= highs[j] - lows[j] + 1
        weights.reverse()
        return None if w > PACK_LIMIT else (lows, weights, w)


def _packed(objs, lins: Sequence[Lin], consts: Sequence[int], lows, weights) -> Lin:
    out = Lin()
    for j, o in enumerate(objs):
        sign = 1 if o.maximize else -1
        out.add(lins[j], sign * weights[j])
        out.const += sign * weights[j] * consts[j] - weights[j] * lows[j]
    return out


def _value_terms(enc: _Encoded, illegal: dict[tuple, Lin], packing) -> Lin:
    """The maximised value ``v``: at most every legal key's worst (over the profiles, the divisions in it), and
    the witness line's division held to a worst one (its value at most ``v``)."""
    em, objs = enc.em, enc.objs
    lows, weights, w = packing
    m = em.m
    v = m.new_int_var(0, w - 1, "worst line")
    for n, (key, zs) in enumerate(enc.keys.items()):
        bad = illegal[key]
        if not bad.terms and bad.const:
            continue  # never legal with x
        exprs = []
        for p in range(len(enc.profiles)):
            lins = [Lin().add(a).add(b) for a, b in zip(enc.xs[p], enc.shared[key][p])]
            own = min(_packed(objs, [Lin()] * len(objs), enc.own[enc.own_key(z)][p], lows, weights).const for z in zs)
            lin = _packed(objs, lins, [0] * len(objs), lows, weights)
            lin.const += own + sum(weights[j] * lows[j] for j in range(len(objs)))  # counted once
            exprs.append(lin.expr())
        target = exprs[0]
        if len(exprs) > 1:
            target = m.new_int_var(0, w - 1, f"worst[{n}]")
            m.add_min_equality(target, exprs)
        ct = m.add(v <= target)
        if bad.terms:
            ct.only_enforce_if(~_literal(em, bad, f"illegal[{n}]"))
    witness = [_packed(objs, lins, [0] * len(objs), lows, weights).expr() for lins in enc.full]
    if len(witness) == 1:
        m.add(witness[0] <= v)
    else:
        t = m.new_int_var(0, w - 1, "witness")
        m.add_min_equality(t, witness)
        m.add(t <= v)
    return Lin.of(v, 0, w - 1)


def _reachable(enc: _Encoded, runner: Runner, illegal: dict[tuple, Lin]) -> dict | None:
    """lethal_report's "reachable": for each listed player, is there an ``x`` that makes them lose (704.5a/c,
    704.6c) whatever the division and the reply? None when a solve was not proven."""
    em, shape = enc.em, enc.shape
    reachable: dict | None = {}
    for player in em.s.players:
        pid = player.id
        kind = shape.player_kind[pid]
        per_key = []
        for n, (key, zs) in enumerate(enc.keys.items()):
            if kind == Z:
                models = [enc.own_models[enc.own_key(z)] for z in zs]
                loses = Lin(int(all(zem.loses(pid, p).const for zem in models for p in enc.profiles)))
            else:
                model = enc.models[key] if kind == SHARED else em
                loses = em._all([model.loses(pid, p) for p in enc.profiles], f"loses always[{pid},{n}]")
            per_key.append(em._any([illegal[key], loses], f"lost or illegal[{pid},{n}]"))
        every = em._all(per_key, f"reachable[{pid}]")
        if not every.terms:
            if reachable is not None:
                reachable[pid] = bool(every.const)
            continue
        em.m.maximize(every.expr())
        st = runner.run()
        if st != STATUS_OPTIMAL or reachable is None:
            reachable = None
        else:
            reachable[pid] = runner.value(every) == 1
    em.m.clear_objective()
    return reachable


def _decoded(objs, value: int, packing, scale: int) -> dict:
    """The objectives' values (as reported) from the packed sum's value."""
    lows, weights, w = packing
    out = {}
    for j, o in enumerate(objs):
        span = (w // weights[0]) if j == 0 else weights[j - 1] // weights[j]
        oriented = lows[j] + (value // weights[j]) % span
        v = oriented if o.maximize else -oriented
        out[o.name] = json_number(Fraction(v, scale if o.kind == ObjectiveKind.MAX_VALUE else 1))
    return out


def solve_by_model(step: DamageStep, objs, time_limit=None, deterministic_time=None, tie_break=True, settings=None):
    """:func:`.effects.solve_by_model`'s answer, and where the other player divides part of the solved side's
    damage, :func:`solve_interacting`'s (None: the listing answers; ``USE_MODEL == "separable"`` leaves this
    shape to it). 64-bit overflows send the board to the listing, as in :mod:`.effects`."""
    found = effects.solve_by_model(step, objs, time_limit, deterministic_time, tie_break, settings)
    if found is not None or effects.USE_MODEL == "separable":
        return found
    try:
        other, _, _, partial = effects.separable(step)
    except NotSeparable:
        return None
    if not partial:
        return None
    try:
        return solve_interacting(step, objs, other, time_limit, deterministic_time, tie_break, settings)
    except (TypeError, OverflowError):
        if effects.USE_MODEL == "strict":  # tests: a TypeError of our own must not hide behind the listing
            raise
        return None


def solve_interacting(
    step: DamageStep, objs, other, time_limit=None, deterministic_time=None, tie_break=True, settings=None
):
    """:func:`.listing.solve_by_outcome`'s answer where the other player divides part of the solved side's damage
    (module text); None when the board needs the listing (a source that may assign as though it weren't blocked,
    too many keys or divisions, weights beyond exact packing)."""
    settings = settings or {}
    start = time.perf_counter()
    if any(src.unblocked is not None for src in step.plan.sources):
        return None
    s = step.scenario
    deadline = deadline_of(time_limit)
    budget = Budget(time_limit, deterministic_time)

    def elapsed() -> float:
        return (time.perf_counter() - start) * 1000

    if not import_within("trample.engines.cpsat", deadline or None):  # the limit ran out while OR-Tools was imported
        return SolveResult(STATUS_UNKNOWN, None, {}, None, elapsed(), 0)
    em = EffectsModel(step)
    shape = _Shape(step, em)
    interesting = set(em.killable) | set(em.walkers)
    try:
        groups = reply_groups(step, other, interesting, deadline)
        divisions = _divisions(step, shape, deadline)
    except LimitReached:
        return SolveResult(STATUS_UNKNOWN, None, {}, None, elapsed(), 0)
    monotone = all(exact(value_of(s[c])) >= 0 for c in interesting) or all(
        o.kind != ObjectiveKind.MAX_VALUE for o in objs
    )
    (profiles,) = choices_of(groups, monotone)  # nothing of the reply is the solved player's: one choice
    keys: dict[tuple, list[dict[int, int]]] = {}
    for z in divisions or ():
        keys.setdefault(tuple(z[k] for k in shape.key), []).append(z)
    if not keys or len(profiles) > MAX_PROFILES or len(keys) * len(profiles) > MAX_GROUPS:
        return None
    try:
        wants_value = any(o.kind == ObjectiveKind.MAX_VALUE for o in objs)
        scale = value_scale_of(s, [*em.killable, *em.walkers]) if wants_value else 1
    except NotSeparable:
        return None
    try:
        enc = _Encoded(step, em, shape, objs, profiles, keys, scale, deadline)
    except LimitReached:
        return SolveResult(STATUS_UNKNOWN, None, {}, None, elapsed(), 0)
    packing = enc.weights()
    if packing is None:
        return None
    illegal = {key: Lin(1).add(_legal(em, shape, dict(zip(shape.key, key))), -1) for key in keys}
    terms = [Term(_value_terms(enc, illegal, packing), True, True)]
    if tie_break:  # the smallest vector over the plan's columns (the listing's tie-break: the worst line's)
        terms += [Term(em._x(k), False, False) for k in range(len(em.cols))]
    return _finish(step, objs, em, enc, illegal, terms, packing, scale, groups, budget, settings, elapsed)


def _finish(step, objs, em, enc, illegal, terms, packing, scale, groups, budget, settings, elapsed) -> SolveResult:
    presolve = settings.get("presolve", False) or len(enc.keys) * len(enc.profiles) > PRESOLVE_GROUPS
    runner = Runner(em.om, budget, settings.get("workers", 1), presolve, False, settings.get("params"))
    wants_lethal = any(o.kind == ObjectiveKind.LETHAL for o in objs)
    reachable = _reachable(enc, runner, illegal) if wants_lethal else {}
    status, proven = lex_optimise(runner, terms)
    if runner.vec is None:
        st = STATUS_INFEASIBLE if status == STATUS_INFEASIBLE else STATUS_UNKNOWN
        return SolveResult(st, None, {}, None, elapsed(), runner.solves)
    assignment = assignment_of_vector(step.plan, runner.vec)
    _, values, outcome, reply = evaluate(step, assignment, objs, [reply for reply, _, _ in groups])
    found = _decoded(objs, runner.value(terms[0].lin), packing, scale)
    if proven and found != values:  # the model and the outcome must agree
        raise RuntimeError(
            f"the banding model disagrees with the outcome on {assignment.to_json()}: {found} != {values}"
        )
    assert tuple(runner.vec) == vector_of(step, assignment)
    lethal = lethal_report(step, assignment, outcome, reachable if proven else None) if wants_lethal else None
    final = STATUS_OPTIMAL if proven and (reachable is not None or not wants_lethal) else STATUS_FEASIBLE
    return SolveResult(final, assignment, values, lethal, elapsed(), runner.solves, reply=reply)
