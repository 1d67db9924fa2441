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
profiles pass :data:`MAX_KEYS`, the groups times the profiles :data:`MAX_GROUPS`, or the divisions
:data:`MAX_DIVISIONS`, :func:`solve_interacting` returns None and the listing answers.

The encoding is shared between the keys (docs/solve.md): the divisions are listed at once in numpy; each unit is
encoded once per amounts into what it reads, columns that count alike by their total (:meth:`_Encoded._classes`);
the helper variables are kept by the expression they equal (:meth:`.EffectsModel._memoised`); keys whose shared
units and legality read the same expressions are one group (one constraint, the least of their constants); the
legality is encoded once per gate state (:meth:`_Shape.gate_state`).
"""

from __future__ import annotations

import itertools
import math
import operator
import time
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from ..limits import LimitReached
from ..models import Attacker, Battle, Creature, Keyword, ObjectiveKind, ObjectKind, Planeswalker, Player
from ..models.vocabulary import Modifier
from ..outcome import lethal_need
from ..step import DamageStep
from . import effects
from .effects import EffectsModel, NotSeparable, Prepared, content, objective_of, prepare, unit_objective
from .listing import evaluate, lethal_report, vector_of
from .model import CORE_PARAMS, LEAN_PARAMS, PACK_LIMIT, Lin, Runner, Term, lex_optimise
from .objectives import json_number
from .results import (
    STATUS_FEASIBLE,
    STATUS_INFEASIBLE,
    STATUS_OPTIMAL,
    STATUS_UNKNOWN,
    SolveResult,
    assignment_of_vector,
)

#: the most groups (keys reading the same expressions) times reply profiles in the model (more: the listing
#: answers)
MAX_GROUPS = 2048
#: the most keys times reply profiles encoded (more: the listing answers; the keys are labelled in numpy, each
#: unit encoded once per distinct amounts). Measured (four tramplers sharing blockers, in process, a loaded
#: 2-core machine): 290 keys (88 groups) 0.06 s, 1126 (242) 0.10 s, 3104 (502) 0.31 s, 5050 (700) 0.34 s, where
#: the listing of the 290-key board had not finished after 60 s
MAX_KEYS = 8192
#: past this many groups (keys reading the same expressions) times profiles CP-SAT's presolve is on (measured on
#: four tramplers sharing blockers when each key was a group: 634 keys 3.5 s -> 0.44 s; at 88 groups, the
#: 290-key board, 5.9 ms off against 6.6 ms on)
PRESOLVE_GROUPS = 256
#: the most divisions of the other player's part listed (more: the listing answers)
MAX_DIVISIONS = 1 << 16

#: :func:`_labels` reads arrays of up to this many rows with a dict (measured: 13 rows 11 us against numpy's 50 us;
#: 155 rows 64 us against 53 us)
SMALL_ROWS = 64

#: :func:`_labels` and :func:`_divisions` tell rows apart by a table of their codes (the least index per code) up to
#: this many codes; numpy's sorts past it (measured: 2548 rows of 2197 codes 0.2 ms against 0.6 ms)
DENSE_CODES = 1 << 18

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
        self.gated = [k for k, g in self.gates.items() if g is not None and set(_gated(g)) & self.both]
        gated = set(self.gated)
        self.key = [k for k in self.z if cols[k][1] in key_recs or k in gated]
        self.own = [k for k in self.z if cols[k][1] in self.z_only]
        gate_recs = sorted(
            {(b, True) for k in self.gated for b in self.gates[k].lethal if b in self.both}  # type: ignore[union-attr]
            | {(w, False) for k in self.gated for w in self.gates[k].loyalty if w in self.both}  # type: ignore[union-attr]
        )
        self._gated_at = [n for n, k in enumerate(self.key) if k in gated]
        self._gate_into = []  # per shared gate recipient: its need, the key's positions into it, those deathtouch
        for r, lethal in gate_recs:
            into = [n for n, k in enumerate(self.key) if cols[k][1] == r]
            touch = [n for n in into if lethal and plan.sources[cols[self.key[n]][0]].deathtouch]
            self._gate_into.append((plan.lethal_need[r] if lethal else plan.loyalty_need[r], into, touch))

    def gate_state(self, key: tuple) -> tuple:
        """What :func:`_legal` reads of a key: which of its gated routes with a shared recipient in the gate it
        assigns to, and per shared gate recipient its amount into it up to the need (the need when a deathtouch
        source assigns it 1 or more, 702.2c). Every column into a shared recipient is the key's."""
        active = tuple(key[n] > 0 for n in self._gated_at)
        amounts = tuple(
            need if any(key[n] for n in touch) else min(need, sum(key[n] for n in into))
            for need, into, touch in self._gate_into
        )
        return active, amounts

    def gate_states(self, keys: np.ndarray) -> np.ndarray:
        """:meth:`gate_state` of every key (rows of ``keys``), one row each: the flags, then the amounts."""
        cols = [(keys[:, self._gated_at] > 0).astype(np.int64)]
        for need, into, touch in self._gate_into:
            amount = np.minimum(keys[:, into].sum(axis=1), need)
            if touch:
                amount = np.where((keys[:, touch] > 0).any(axis=1), need, amount)
            cols.append(amount.reshape(-1, 1))
        return np.concatenate(cols, axis=1) if cols else np.zeros((len(keys), 0), dtype=np.int64)

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


def _divisions(step: DamageStep, shape: _Shape, deadline) -> tuple[dict[tuple, list[int]], list[tuple]] | None:
    """Every division of the moved sources' damage (510.1a: each source's, exactly) whose gates on recipients only
    the moved sources reach hold (510.1e; those on shared recipients are read with ``x``, :func:`_legal`), in the
    order of their vectors, as (each key -> the distinct own parts of its divisions, by index; the own parts:
    their amounts on ``shape.own``); None past :data:`MAX_DIVISIONS`."""
    plan = step.plan
    pos = {k: n for n, k in enumerate(shape.z)}
    per_source: dict[int, list[int]] = {}
    for k in shape.z:
        per_source.setdefault(shape.cols[k][0], []).append(k)
    size = 1
    for i, ks in per_source.items():
        size *= math.comb(plan.sources[i].damage + len(ks) - 1, len(ks) - 1)
    if size > MAX_DIVISIONS:
        return None
    deadline.check()
    blocks = [(ks, _splits(plan.sources[i].damage, len(ks))) for i, ks in per_source.items()]
    picks = np.indices([len(b) for _, b in blocks]).reshape(len(blocks), -1)  # the first source slowest
    z = np.empty((size, len(shape.z)), dtype=np.int64)
    for (ks, b), pick in zip(blocks, picks):
        z[:, [pos[k] for k in ks]] = b[pick]
    z = z[_gates_hold(step, shape, z, pos)]
    deadline.check()
    key_of, keys = _first_rows(z[:, [pos[k] for k in shape.key]])
    own_of, owns = _first_rows(z[:, [pos[k] for k in shape.own]])
    span = max(1, len(owns))
    pair = key_of * span + own_of
    if len(keys) * span <= DENSE_CODES:
        first = _first_of_codes(pair, len(keys) * span)
    else:
        first = np.sort(np.unique(pair, return_index=True)[1])
    # each key's own parts in the order of their first division: the keys are numbered in the order they first
    # appear, so a stable sort by key keeps that order within each key, and the keys come in order
    of_key = key_of[first]
    order = np.argsort(of_key, kind="stable")
    own_list = own_of[first][order].tolist()
    ends = np.cumsum(np.bincount(of_key, minlength=len(keys))).tolist()
    return {key: own_list[a:b] for key, a, b in zip(keys, [0, *ends[:-1]], ends)}, owns


def _splits(total: int, parts: int) -> np.ndarray:
    """:func:`trample.step.ordered_splits` as rows (lexicographic order): each choice of ``parts - 1`` bars among
    ``total + parts - 1`` places, in itertools' (lexicographic) order, the parts the gaps between them."""
    if parts == 1:
        return np.array([[total]], dtype=np.int64)
    places = total + parts - 1
    bars = np.array(list(itertools.combinations(range(places), parts - 1)), dtype=np.int64).reshape(-1, parts - 1)
    ends = np.full((len(bars), 1), -1, dtype=np.int64), bars, np.full((len(bars), 1), places, dtype=np.int64)
    return np.diff(np.concatenate(ends, axis=1), axis=1) - 1


def _first_of_codes(code: np.ndarray, span: int) -> np.ndarray:
    """The index of each distinct value's first occurrence in ``code`` (values in [0, ``span``)), increasing: a
    table of the least index per value (no sort of the rows)."""
    n = len(code)
    first = np.full(span, n, dtype=np.int64)
    np.minimum.at(first, code, np.arange(n, dtype=np.int64))
    return np.sort(first[first < n])


def _first_rows(a: np.ndarray) -> tuple[np.ndarray, list[tuple]]:
    """(each row's index among the distinct rows, the distinct rows in the order they first appear)."""
    if not a.shape[1]:
        return np.zeros(len(a), dtype=np.int64), [()]
    label, first = _labels(a)
    return label, [tuple(r) for r in a[first].tolist()]


def _labels(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each row's index among the distinct rows of ``a`` in the order they first appear, each distinct row's
    first index)."""
    if not a.shape[1] and len(a):
        return np.zeros(len(a), dtype=np.int64), np.zeros(1, dtype=np.int64)
    if len(a) <= SMALL_ROWS:  # a few rows: a dict of the rows is quicker than numpy's sorts
        seen: dict[tuple, int] = {}
        labels: list[int] = []
        firsts: list[int] = []
        for n, row in enumerate(map(tuple, a.tolist())):
            g = seen.get(row)
            if g is None:
                g = seen[row] = len(firsts)
                firsts.append(n)
            labels.append(g)
        return np.array(labels, dtype=np.int64), np.array(firsts, dtype=np.int64)
    code = _row_codes(a)
    span = None if code is None or not len(code) else int(code.max()) + 1
    if code is not None and span is not None and span <= DENSE_CODES:  # a table per value: no sort
        seen_at = _first_of_codes(code, span)
        rank = np.empty(span, dtype=np.int64)
        rank[code[seen_at]] = np.arange(len(seen_at), dtype=np.int64)
        return rank[code], seen_at
    if code is None:
        _, first, label = np.unique(a, axis=0, return_index=True, return_inverse=True)
    else:
        _, first, label = np.unique(code, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[label.reshape(-1)], first[order]


def _row_codes(a: np.ndarray) -> np.ndarray | None:
    """One integer per row of ``a`` (non-negative integers), equal exactly for equal rows (mixed radix over the
    columns' ranges); None when the radices' product would pass 2**62 (then rows are compared whole)."""
    if not len(a):
        return np.zeros(0, dtype=np.int64)
    radices = a.max(axis=0).astype(object) + 1
    if math.prod(radices.tolist()) >= 1 << 62:
        return None
    code = np.zeros(len(a), dtype=np.int64)
    for c, r in enumerate(radices.tolist()):
        code = code * r + a[:, c]
    return code


def _gates_hold(step: DamageStep, shape: _Shape, z: np.ndarray, pos: dict[int, int]) -> np.ndarray:
    """Which divisions (rows of ``z``) have their gated routes (702.19b/c) hold on the recipients only the moved
    sources reach."""
    plan = step.plan
    ok = np.ones(len(z), dtype=bool)

    def into(r: str, deathtouch: bool = False) -> list[int]:
        return [
            pos[j]
            for j in shape.z
            if shape.cols[j][1] == r and (not deathtouch or plan.sources[shape.cols[j][0]].deathtouch)
        ]

    for k in shape.z:
        gate = shape.gates[k]
        if gate is None:
            continue
        on = z[:, pos[k]] > 0
        for b in gate.lethal:
            need = plan.lethal_need[b]
            if b in shape.both or need <= 0:
                continue
            short = z[:, into(b)].sum(axis=1) < need
            touched = (z[:, into(b, True)] > 0).any(axis=1)  # 702.2c
            ok &= ~(on & short & ~touched)
        for w in gate.loyalty:
            if w not in shape.both:
                ok &= ~(on & (z[:, into(w)].sum(axis=1) < plan.loyalty_need[w]))
    return ok


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
    """The value's pieces over the groups and profiles: ``x``'s units (``xs[p]``), the witness line's every unit
    (``full[p]``), each group's shared units (``parts[G]``: the units' ``(model, objectives per profile, what they
    are)``, read beside ``x``'s) and the distinct own parts of its divisions (``own[G]``: indices into ``owns`` and
    ``own_values``, per own part a list per profile of the objectives' values, constants), the objectives each a
    list of one Lin per objective. A group gathers the keys whose shared units and
    legality with ``x`` read the same expressions (the same helper variables, :meth:`.EffectsModel._memoised`):
    for ``x`` they differ only in the constants the other player minimises. Each unit is encoded once per
    amounts into what it reads (columns that count alike by their total, :meth:`_classes`)."""

    def __init__(self, step: DamageStep, em: EffectsModel, shape: _Shape, objs, profiles, divisions, scale, deadline):
        self.em, self.shape, self.objs, self.profiles = em, shape, objs, profiles
        self.step, self.scale = step, scale
        self.xs = [[objective_of(em, o, p, scale, lambda k, i: shape.unit(k, i) == X) for o in objs] for p in profiles]
        self.full = [[objective_of(em, o, p, scale) for o in objs] for p in profiles]
        keys, self.owns = divisions
        self.units = {SHARED: self._units(SHARED), Z: self._units(Z)}
        self.unit_cols = {
            SHARED: [self._cols(u, shape.key) for u in self.units[SHARED]],
            Z: [self._cols(u, shape.own) for u in self.units[Z]],
        }
        self.classes = {kind: [self._classes(kind, n) for n in range(len(self.units[kind]))] for kind in (SHARED, Z)}
        self.unit_models: dict[tuple, tuple[EffectsModel, list[list[Lin]], int]] = {}
        self.seen: dict[tuple, tuple[EffectsModel, list[list[Lin]], int]] = {}  # by the amounts asked for
        self.models: dict[tuple, EffectsModel] = {}  # by the recipients encoded and the amounts fixed
        self.ids: dict[tuple, int] = {}
        self.lost: dict[tuple, Lin] = {}
        self.tops: dict[tuple, tuple[int, int] | None] = {}  # per unit: where its amount saturates (_top)
        self.legal_of: dict[tuple, tuple[Lin, int]] = {}
        self.keys: dict[tuple, list[int]] = {}  # a group's first key -> the own parts of its divisions
        self.parts: dict[tuple, list[tuple]] = {}  # a group's first key -> its shared units (read beside x's)
        self.illegal: dict[tuple, Lin] = {}
        self.sub: dict[tuple, list[tuple]] = {}  # a group's first key -> its shared units' amounts
        key_list = list(keys)
        rows = np.array(key_list, dtype=np.int64).reshape(len(key_list), len(shape.key))
        # each key's signature, column by column (numpy: one encoding per distinct state or amounts, not per key):
        # its legality with x (one encoding per gate state), then each shared unit's expressions
        state_of, state_first = _labels(shape.gate_states(rows))
        illegal_of = []
        for n in state_first.tolist():
            deadline.check()  # --time-limit, by the clock
            illegal_of.append(self._illegal(key_list[n]))
        sigs = [np.array([legal_id for _, legal_id in illegal_of], dtype=np.int64)[state_of]]
        unit_of = []  # per shared unit: (each key's index among its distinct amounts, the units for those)
        for n, ns in enumerate(self.unit_cols[SHARED]):
            sub_of, sub_first = _labels(self._reduced(SHARED, n, rows[:, ns]))
            held = []
            for f in sub_first.tolist():
                deadline.check()
                held.append(self._unit(SHARED, n, tuple(rows[f, ns].tolist())))
            unit_of.append((sub_of, held))
            sigs.append(np.array([u[2] for u in held], dtype=np.int64)[sub_of])
        group_of = _labels(np.stack(sigs, axis=1))[0].tolist()
        states = state_of.tolist()
        unit_lists = [(sub_of.tolist(), held) for sub_of, held in unit_of]
        first: dict[int, tuple] = {}
        for n, (key, owns) in enumerate(keys.items()):
            g = group_of[n]
            held_key = first.get(g)
            if held_key is not None:
                self.keys[held_key].extend(owns)
                continue
            first[g] = key
            self.keys[key] = list(owns)
            self.sub[key] = [tuple(key[c] for c in ns) for ns in self.unit_cols[SHARED]]
            self.illegal[key] = illegal_of[states[n]][0]
            self.parts[key] = [held[sub_of[n]] for sub_of, held in unit_lists]
        self.own_values = self._own_values(deadline)
        self.own = {key: list(dict.fromkeys(owns)) for key, owns in self.keys.items()}

    def _units(self, kind: str) -> list[tuple[bool, str]]:
        shape = self.shape
        recs = shape.both if kind == SHARED else shape.z_only
        return [(False, r) for r in sorted(recs)] + [(True, p) for p, k in shape.player_kind.items() if k == kind]

    def _cols(self, unit: tuple[bool, str], cols: list[int]) -> list[int]:
        """The positions in ``cols`` of the columns into what ``unit`` reads."""
        player, i = unit
        reads = self.shape.reads[i] if player else {i}
        return [n for n, k in enumerate(cols) if self.shape.cols[k][1] in reads]

    def _classes(self, kind: str, n: int) -> list[list[int]]:
        """The positions in a ``sub`` of the ``n``-th unit of ``kind`` whose columns deal the same damage for the
        same amounts and count alike (same recipient, no shield on it, 615.7, and no ``plus`` modifier, 614.1a, nor
        toxic, 702.164c: what they deal is additive; the same source qualities otherwise), two or more each: the
        unit reads only their total."""
        s = self.step.scenario
        cols = self.shape.key if kind == SHARED else self.shape.own
        classes: dict[tuple, list[int]] = {}
        for pos, c in enumerate(self.unit_cols[kind][n]):
            k = cols[c]
            r = self.shape.cols[k][1]
            rec = s.receiving(r)
            src = self.em.src[k]
            if rec.prevent or src.toxic or any(m == Modifier.PLUS and v for m, v in (*src.deals, *rec.takes)):
                continue
            blocker = s.kind(src.id) == ObjectKind.BLOCKER
            commander = isinstance(src, Attacker) and src.commander is not None
            quality = (
                r,
                src.deals,
                src.keywords,
                src.id if commander else None,
                s.blocker_controller(src.id) if blocker else None,
                rec.prevent_combat or rec.protected_from(src),
            )
            classes.setdefault(quality, []).append(pos)
        return [ps for ps in classes.values() if len(ps) > 1]

    def _unit(self, kind: str, n: int, sub: tuple) -> tuple[EffectsModel, list[list[Lin]], int]:
        """The ``n``-th unit of ``kind``: its model, objectives (per profile) and what they are (``content``) with
        the amounts ``sub`` of the other player's division into what it reads."""
        seen = self.seen.get((kind, n, sub))
        if seen is not None:
            return seen
        raw, unit = sub, self.units[kind][n]
        if self.classes[kind][n]:
            amounts = list(sub)
            for ps in self.classes[kind][n]:
                amounts[ps[0]] = sum(amounts[p] for p in ps)
                for p in ps[1:]:
                    amounts[p] = 0
            sub = tuple(amounts)
        held = self.unit_models.get((unit, sub))
        if held is None:
            held = self._saturated(kind, n, sub)
        if held is None:
            shape, (player, i) = self.shape, unit
            cols = shape.key if kind == SHARED else shape.own
            fixed = {cols[c]: a for c, a in zip(self.unit_cols[kind][n], sub)}
            only = frozenset(shape.reads[i] if player else {i})
            at = (only, tuple(sorted(fixed.items())))  # a player's loss and its damage read the same amounts
            kem = self.models.get(at)
            if kem is None:
                kem = self.models[at] = EffectsModel(self.step, self.em.om, fixed, set(only))
            lins = [[unit_objective(kem, o, p, self.scale, unit) for o in self.objs] for p in self.profiles]
            held = (kem, lins, self._sig(kind, lins))
        self.seen[(kind, n, raw)] = self.unit_models[(unit, sub)] = held
        return held

    def _saturated(self, kind: str, n: int, sub: tuple) -> tuple[EffectsModel, list[list[Lin]], int] | None:
        """The ``n``-th unit of ``kind`` with amounts ``sub`` past its saturation (:meth:`_top`) read from its
        encodings at the top and one past it: every objective there is affine in the amount (the same
        expression, its constant moved by the same step each point), so it is the top's moved by the amount
        beyond the top times that step, without a model. None: encode it (below the top, not a plain unit, or the
        two encodings are not one step apart)."""
        top = self._top(kind, n)
        if top is None or sub[top[0]] <= top[1] + 1:
            return None
        pos, t = top
        at, beyond = list(sub), list(sub)
        at[pos], beyond[pos] = t, t + 1
        kem, base, _ = self._unit(kind, n, tuple(at))
        _, after, _ = self._unit(kind, n, tuple(beyond))
        steps = []
        for ls, ms in zip(base, after):
            if any(content(a)[1:] != content(b)[1:] for a, b in zip(ls, ms)):
                return None
            steps.append([b.const - a.const for a, b in zip(ls, ms)])
        extra = sub[pos] - t
        lins = [[_moved(lin, d * extra) for lin, d in zip(ls, ds)] for ls, ds in zip(base, steps)]
        return kem, lins, self._sig(kind, lins)

    def _sig(self, kind: str, lins: list[list[Lin]]) -> int:
        """What a unit's objectives are (a number, the same for equal ones; the groups' signatures read the shared
        units'); -1 for the other player's own units (constants summed per own part, never grouped)."""
        if kind != SHARED:
            return -1
        return self._id(tuple(content(lin) for ls in lins for lin in ls))

    def _top(self, kind: str, n: int) -> tuple[int, int] | None:
        """(the position in a ``sub`` that carries the amount, the saturation) of the ``n``-th unit of ``kind``
        when it is plain: one recipient read (no lifelink, 702.15b), no effect on it (no shield, protection or
        modifier: 615, 702.16e, 614.1a) nor on any source dealing it damage (no infect, wither, toxic, commander
        or modifier: 702.90, 702.80, 702.164, 903.10a), and every column of the other player's into it one class
        (:meth:`_classes`: their total is what counts). Its objectives read the total ``X + a`` of ``x``'s
        columns (at least 0) and the amount ``a``: each threshold (lethal damage, loyalty, defense, life,
        704.5a/g/i) is decided once ``a`` reaches it, and overkill and damage are then ``X + a`` less a constant.
        The saturation is the greatest threshold (at least 1: a deathtouch source's 1, 702.2c). None otherwise."""
        if (kind, n) in self.tops:
            return self.tops[kind, n]
        self.tops[kind, n] = top = self._plain_top(kind, n)
        return top

    def _plain_top(self, kind: str, n: int) -> tuple[int, int] | None:
        player, r = self.units[kind][n]
        s, em, shape = self.step.scenario, self.em, self.shape
        positions = self.unit_cols[kind][n]
        classes = self.classes[kind][n]
        if not positions or (len(positions) > 1 and (len(classes) != 1 or len(classes[0]) != len(positions))):
            return None
        if (player and shape.reads[r] != {r}) or not s.receiving(r).is_plain:
            return None
        for k in em.incoming.get(r, ()):
            src = em.src[k]
            commander = isinstance(src, Attacker) and src.commander is not None
            if src.deals or src.toxic or src.has(Keyword.INFECT) or src.has(Keyword.WITHER) or commander:
                return None
        obj = s[r]
        if isinstance(obj, Player):
            need = max([max(0, obj.life), *(obj.life + p.life[r] for p in self.profiles)])
        elif isinstance(obj, Creature):
            need = lethal_need(obj)
        elif isinstance(obj, Planeswalker):
            need = obj.loyalty
        elif isinstance(obj, Battle):
            need = obj.defense
        else:
            return None
        return (classes[0][0] if classes else 0), max(1, need)

    def _id(self, what: tuple) -> int:
        """A number for ``what`` (the same for equal ones): the groups' signatures are tuples of them."""
        return self.ids.setdefault(what, len(self.ids))

    def _illegal(self, key: tuple) -> tuple[Lin, int]:
        """1 when a division with this key is illegal with ``x`` (:func:`_legal`), one encoding per gate state;
        and what it is (``content``)."""
        shape = self.shape
        state = shape.gate_state(key)
        held = self.legal_of.get(state)
        if held is None:
            lin = Lin(1).add(_legal(self.em, shape, dict(zip(shape.key, key))), -1)
            held = self.legal_of[state] = (lin, self._id(content(lin)))
        return held

    def _reduced(self, kind: str, n: int, sub: np.ndarray) -> np.ndarray:
        """The amounts ``sub`` (rows) into what the ``n``-th unit of ``kind`` reads as the unit reads them: each
        class of columns that count alike (:meth:`_classes`) by its total, on its first column."""
        classes = self.classes[kind][n]
        if not classes:
            return sub
        out = sub.copy()
        for ps in classes:
            out[:, ps[0]] = sub[:, ps].sum(axis=1)
            out[:, ps[1:]] = 0
        return out

    def _own_values(self, deadline) -> list[list[list[int]]]:
        """The own units' values (per own part, per profile, per objective: constants) of the divisions' own
        parts, each unit read once per distinct amounts into it."""
        rows = np.array(self.owns, dtype=np.int64).reshape(len(self.owns), len(self.shape.own))
        out = np.zeros((len(self.owns), len(self.profiles), len(self.objs)), dtype=np.int64)
        for n, ns in enumerate(self.unit_cols[Z]):
            sub_of, sub_first = _labels(self._reduced(Z, n, rows[:, ns]))
            values = []
            for f in sub_first.tolist():
                deadline.check()  # --time-limit, by the clock
                _, lins, _ = self._unit(Z, n, tuple(rows[f, ns].tolist()))
                assert all(not lin.terms for ls in lins for lin in ls)  # the division's own units: constants
                values.append([[lin.const for lin in ls] for ls in lins])
            if values:
                out += np.array(values, dtype=np.int64)[sub_of]
        return out.tolist()

    def loses(self, key: tuple, pid: str, prof) -> Lin:
        """1 when shared player ``pid`` loses with the group's amounts into what their loss reads."""
        n = self.units[SHARED].index((True, pid))
        kem, _, _ = self._unit(SHARED, n, self.sub[key][n])
        held = self.lost.get((id(kem), pid, prof.key))  # the unit's models live as long as this
        if held is None:
            held = self.lost[(id(kem), pid, prof.key)] = kem.loses(pid, prof)
        return held

    def own_loses(self, own: int, pid: str, prof) -> bool:
        """Does player ``pid`` (whose loss only the other player's division reaches) lose with own part ``own``?"""
        n = self.units[Z].index((True, pid))
        kem, _, _ = self._unit(Z, n, tuple(self.owns[own][c] for c in self.unit_cols[Z][n]))
        return bool(kem.loses(pid, prof).const)

    def weights(self) -> tuple[list[int], list[int], int] | None:
        """(lows, weights, range) of the packed sum (the oriented objectives, most significant first); None when
        it passes PACK_LIMIT."""
        # per group and profile: x's units' bounds plus its shared units' (each distinct unit's read once) plus
        # the least and the most of its divisions' own constants (numpy over the groups)
        n_p, n_j = len(self.profiles), len(self.objs)
        xs = np.array([[lin.bounds() for lin in ls] for ls in self.xs], dtype=np.int64).reshape(n_p, n_j, 2)
        rows: dict[int, int] = {}
        unit_bounds: list[list[list[tuple[int, int]]]] = []
        per_group: list[list[int]] = []
        for us in self.parts.values():
            mine = []
            for u in us:
                n = rows.get(id(u))
                if n is None:
                    n = rows[id(u)] = len(unit_bounds)
                    unit_bounds.append([[lin.bounds() for lin in ls] for ls in u[1]])
                mine.append(n)
            per_group.append(mine)
        n_g = len(per_group)
        sums = np.zeros((n_g, n_p, n_j, 2), dtype=np.int64)
        if unit_bounds:
            ub = np.array(unit_bounds, dtype=np.int64).reshape(len(unit_bounds), n_p, n_j, 2)
            sums += ub[np.array(per_group, dtype=np.int64).reshape(n_g, -1)].sum(axis=1)
        own = np.array(self.own_values, dtype=np.int64).reshape(len(self.own_values), n_p, n_j)
        lists = list(self.own.values())  # each group's own parts (one or more each): one segment per group
        starts = np.array([0, *itertools.accumulate(len(owns) for owns in lists[:-1])], dtype=np.int64)
        values = own[np.fromiter(itertools.chain.from_iterable(lists), dtype=np.int64)]
        lo_own = np.minimum.reduceat(values, starts, axis=0) if n_g else np.zeros((0, n_p, n_j), dtype=np.int64)
        hi_own = np.maximum.reduceat(values, starts, axis=0) if n_g else np.zeros((0, n_p, n_j), dtype=np.int64)
        group_lo = xs[None, :, :, 0] + sums[..., 0] + lo_own  # (group, profile, objective)
        group_hi = xs[None, :, :, 1] + sums[..., 1] + hi_own
        lows, highs = [], []
        for j, o in enumerate(self.objs):
            bounds = [lins[j].bounds() for lins in self.full]
            lo = min(b[0] for b in bounds)
            hi = max(b[1] for b in bounds)
            if n_g:
                lo, hi = min(lo, int(group_lo[:, :, j].min())), max(hi, int(group_hi[:, :, j].max()))
            lows.append(lo if o.maximize else -hi)
            highs.append(hi if o.maximize else -lo)
        weights, w = [], 1
        for j in reversed(range(len(self.objs))):
            weights.append(w)
            w *= highs[j] - lows[j] + 1
        weights.reverse()
        return None if w > PACK_LIMIT else (lows, weights, w)


def _moved(lin: Lin, by: int) -> Lin:
    """A copy of ``lin`` with its constant moved by ``by``."""
    out = Lin().add(lin)
    out.const += by
    return out


def _packed(objs, lins: Sequence[Lin], consts: Sequence[int], lows, weights) -> Lin:
    out = Lin()
    for j, o in enumerate(objs):
        sign = 1 if o.maximize else -1
        out.add(lins[j], sign * weights[j])
        out.const += sign * weights[j] * consts[j] - weights[j] * lows[j]
    return out


def _value_terms(enc: _Encoded, packing) -> Lin:
    """The maximised value ``v``: at most every legal key's worst (over the profiles, the divisions in it), and
    the witness line's division held to a worst one (its value at most ``v``)."""
    em, objs = enc.em, enc.objs
    lows, weights, w = packing
    m = em.m
    v = m.new_int_var(0, w - 1, "worst line")
    ps = range(len(enc.profiles))
    signed = [w_j if o.maximize else -w_j for o, w_j in zip(objs, weights)]
    base = -sum(w_j * lo for w_j, lo in zip(weights, lows))
    # each own part's values packed as _packed packs constants, the signs and the lows' part read once
    packed = [[base + sum(map(operator.mul, signed, values[p])) for p in ps] for values in enc.own_values]
    # each piece packed once (x's units per profile, each shared unit per profile), a group's value their sum
    unpacked = [0] * len(objs)
    xs = [_packed(objs, enc.xs[p], unpacked, [0] * len(objs), weights) for p in ps]
    of_unit: dict[int, list[Lin]] = {}
    for us in enc.parts.values():
        for u in us:
            if id(u) not in of_unit:
                of_unit[id(u)] = [_packed(objs, u[1][p], unpacked, [0] * len(objs), weights) for p in ps]
    apart = _apart(enc, xs, of_unit)
    for n, bad, units, consts in _alike_groups(enc, of_unit, packed):
        exprs = []
        for p in ps:
            pieces = [xs[p], *(of_unit[id(u)][p] for u in units)]
            exprs.append(_sum_expr(pieces, consts[p]) if apart else _sum_lin(pieces, consts[p]).expr())
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


def _alike_groups(enc: _Encoded, of_unit: dict[int, list[Lin]], packed: list[list[int]]) -> list[tuple]:
    """The groups that may be legal with ``x``, those whose value differs only by a constant (the same legality,
    each shared unit's packed pieces the same terms) as one: ``(the first one's position, its illegality, its
    shared units, per profile the least of their constants beyond the pieces')``. For ``x`` the other player
    picks the least: min(E + c1, E + c2) = E + min(c1, c2) (a unit past its saturation, :meth:`_Encoded._saturated`,
    differs from the next amount's by a constant only)."""
    ps = range(len(enc.profiles))
    terms: dict[int, int] = {}  # a unit's pieces (by id) -> a number for their terms over the profiles
    illegal: dict[int, tuple] = {}  # an illegality (by id) -> what it is
    by_terms: dict[tuple, int] = {}
    out: dict[object, tuple] = {}
    for n, (key, owns) in enumerate(enc.own.items()):
        bad = enc.illegal[key]
        if not bad.terms and bad.const:
            continue  # never legal with x
        units = enc.parts[key]
        for u in units:
            if id(u) not in terms:
                pieces = tuple(content(lin)[1:] for lin in of_unit[id(u)])
                terms[id(u)] = by_terms.setdefault(pieces, len(by_terms))
        consts = [sum(of_unit[id(u)][p].const for u in units) + min(packed[i][p] for i in owns) for p in ps]
        what = illegal.get(id(bad))
        if what is None:
            what = illegal[id(bad)] = content(bad)
        alike = _alike(what, tuple(terms[id(u)] for u in units))
        held = out.get(alike)
        if held is None:
            out[alike] = (n, bad, units, consts)
        else:
            held[3][:] = [min(a, b) for a, b in zip(held[3], consts)]
    # the constants beyond the pieces' own (each expression adds its pieces' constants again)
    return [
        (n, bad, units, [c - sum(of_unit[id(u)][p].const for u in units) for p, c in zip(ps, consts)])
        for n, bad, units, consts in out.values()
    ]


def _alike(illegal: tuple, unit_terms: tuple) -> object:
    """What makes two groups one constraint (:func:`_alike_groups`): their illegality and their units' terms."""
    return illegal, unit_terms


def _apart(enc: _Encoded, xs: list[Lin], of_unit: dict[int, list[Lin]]) -> bool:
    """Do ``x``'s pieces and each shared unit's (over all its amounts) read variables no other of them reads? Then
    a group's sum of pieces has no variable twice and is written as it stands (:func:`_sum_expr`)."""
    seen: set[int] = set()
    for lins in [xs, *([lin for u in held for lin in of_unit[id(u)]] for held in _by_unit(enc))]:
        mine = {i for lin in lins for i in lin.terms}
        if mine & seen:
            return False
        seen |= mine
    return True


def _by_unit(enc: _Encoded) -> list[list[tuple]]:
    """Per shared unit (by position), its distinct encodings over the groups."""
    out: list[dict[int, tuple]] = [{} for _ in enc.units[SHARED]]
    for us in enc.parts.values():
        for n, u in enumerate(us):
            out[n][id(u)] = u
    return [list(d.values()) for d in out]


def _sum_lin(pieces: Sequence[Lin], const: int) -> Lin:
    out = Lin(const)
    for piece in pieces:
        out.add(piece)
    return out


def _sum_expr(pieces: Sequence[Lin], const: int):
    """``_sum_lin(pieces, const).expr()`` for pieces that share no variable: the same terms in the same order,
    without merging them."""
    variables, coeffs = [], []
    for piece in pieces:
        const += piece.const
        for var, c, _, _ in piece.terms.values():
            variables.append(var)
            coeffs.append(c)
    if const == 0 and len(variables) == 1 and coeffs[0] == 1:
        return variables[0]
    from ..engines.cpsat import cp_model

    if not variables:
        return cp_model.LinearExpr.constant(const)
    return cp_model.LinearExpr.weighted_sum(variables, coeffs) + const


def _reachable(enc: _Encoded, runner: Runner) -> dict | None:
    """lethal_report's "reachable": for each listed player, is there an ``x`` that makes them lose (704.5a/c,
    704.6c) whatever the division and the reply? None when a solve was not proven."""
    em, shape = enc.em, enc.shape
    reachable: dict | None = {}
    for player in em.s.players:
        pid = player.id
        kind = shape.player_kind[pid]
        # a key legal with every x (illegal: the constant 0) whose loss is the constant 0 decides it: no x makes
        # the player lose whatever the division (the AND below is 0); read those first, without encoding the rest
        if any(
            _is_zero(enc.illegal[key]) and _is_zero(_loses_always(enc, pid, kind, n, key, owns))
            for n, (key, owns) in enumerate(enc.keys.items())
        ):
            if reachable is not None:
                reachable[pid] = False
            continue
        per_key = [
            em._any([enc.illegal[key], _loses_always(enc, pid, kind, n, key, owns)], f"lost or illegal[{pid},{n}]")
            for n, (key, owns) in enumerate(enc.keys.items())
        ]
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


def _loses_always(enc: _Encoded, pid: str, kind: str, n: int, key: tuple, owns: list[int]) -> Lin:
    """1 when player ``pid`` loses whatever the reply, with a division of the ``n``-th group (``key``, ``owns``)."""
    em = enc.em
    if kind == Z:
        return Lin(int(all(enc.own_loses(i, pid, p) for i in owns for p in enc.profiles)))
    if kind == SHARED:
        return em._all([enc.loses(key, pid, p) for p in enc.profiles], f"loses always[{pid},{n}]")
    return em._all([em.loses(pid, p) for p in enc.profiles], f"loses always[{pid},{n}]")  # memoised: once


def _is_zero(lin: Lin) -> bool:
    return not lin.terms and not lin.const


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
    ready = prepare(step, objs, other, (), start, time_limit, deterministic_time)
    if not isinstance(ready, Prepared):
        return ready
    em, groups, scale, deadline, elapsed = ready.em, ready.groups, ready.scale, ready.deadline, ready.elapsed
    (profiles,) = ready.choices  # nothing of the reply is the solved player's: one choice
    shape = _Shape(step, em)
    try:
        divisions = _divisions(step, shape, deadline)
        if divisions is None or not divisions[0] or len(divisions[0]) * len(profiles) > MAX_KEYS:
            return None
        enc = _Encoded(step, em, shape, objs, profiles, divisions, scale, deadline)
    except LimitReached:
        return SolveResult(STATUS_UNKNOWN, None, {}, None, elapsed(), 0)
    if len(enc.keys) * len(profiles) > MAX_GROUPS:
        return None
    packing = enc.weights()
    if packing is None:
        return None
    terms = [Term(_value_terms(enc, packing), True, True)]
    if tie_break:  # the smallest vector over the plan's columns (the listing's tie-break: the worst line's)
        terms += [Term(em._x(k), False, False) for k in range(len(em.cols))]
    return _finish(step, objs, em, enc, terms, packing, scale, groups, ready.budget, settings, elapsed, tie_break)


def _finish(step, objs, em, enc, terms, packing, scale, groups, budget, settings, elapsed, tie_break) -> SolveResult:
    presolve = settings.get("presolve", False) or len(enc.keys) * len(enc.profiles) > PRESOLVE_GROUPS
    lean = CORE_PARAMS if tie_break else LEAN_PARAMS  # core: the answer is the one smallest vector either way
    runner = Runner(em.om, budget, settings.get("workers", 1), presolve, False, settings.get("params"), lean)
    wants_lethal = any(o.kind == ObjectiveKind.LETHAL for o in objs)
    reachable = _reachable(enc, runner) if wants_lethal else {}
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
