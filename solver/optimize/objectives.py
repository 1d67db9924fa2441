"""The objectives: their names, parsing, and their exact values on one assignment (evaluation without a solver)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..models import Attacker, Blocker, FormatError, Keyword, ObjectiveKind, ObjectKind, Side, value_of
from ..outcome import exact, kills, lethal_need, overkill_threshold, reaches, tally_vector
from ..rules import DamagePlan
from ..step import DamageStep

OBJECTIVES = ("max-damage", "lethal", "max-kills", "max-value", "min-overkill")


VALUE_LIMIT = 1 << 40  # largest scaled |value| sum accepted for max-value


@dataclass(frozen=True)
class Objective:
    name: str  # as written: "max-damage", "max-damage:opp", ...
    kind: str  # one of OBJECTIVES
    target: str | None = None

    @property
    def maximize(self) -> bool:
        return self.kind != ObjectiveKind.MIN_OVERKILL


def oriented(objectives: Sequence[Objective], values: Mapping[str, Any]) -> tuple[Fraction | int, ...]:
    """The objectives' values as one vector to maximise lexicographically: each exact, ``min-overkill`` negated
    (the one-step listing and the whole combat's search compare lines by it). A whole value is a Python int (equal
    to, hashing as and ordered as its Fraction, with ``numerator`` and ``denominator`` too), compared in C: the
    listing compares keys by the thousand, a Fraction's comparison about 2 microseconds."""
    return tuple(_key_number(values[o.name]) if o.maximize else -_key_number(values[o.name]) for o in objectives)


def _key_number(value: Any) -> Fraction | int:
    """``value`` exactly as :func:`oriented` compares it: an int as it is, a whole number as an int, else its
    Fraction (a float's binary value, as before: keys are only compared with keys made the same way; not
    :func:`trample.outcome.exact`, which reads a scenario's numbers as the decimals the JSON wrote)."""
    if type(value) is int:
        return value
    q = Fraction(value)
    return q.numerator if q.denominator == 1 else q


def parse_objectives(spec, scenario=None) -> tuple[Objective, ...]:
    """``"lethal,max-value"`` or ``["lethal", "max-value"]`` -> objectives; :class:`FormatError` if unknown."""
    if isinstance(spec, Objective):
        spec = [spec]
    if isinstance(spec, str):
        held = _PARSED.get(spec)
        if held is not None:  # a text without a target: its objectives do not depend on the board
            return held
        items = [part.strip() for part in spec.split(",")]
        if spec.strip() == "":
            raise FormatError("objective", f"expected at least one of {_expected()}")
    else:
        items = list(spec)
    out: list[Objective] = []
    for item in items:
        obj: Objective
        if isinstance(item, Objective):
            obj = item
        else:
            if not isinstance(item, str) or not item:
                raise FormatError("objective", f"empty objective name (expected {_expected()})")
            kind, sep, target = item.partition(":")
            if kind not in OBJECTIVES:
                raise FormatError("objective", f'unknown objective "{item}" (expected {_expected()})')
            if sep and kind != ObjectiveKind.MAX_DAMAGE:
                raise FormatError("objective", f'"{kind}" takes no ":ID" (only max-damage:ID does)')
            if sep and not target:
                raise FormatError("objective", 'max-damage: expected an id after ":"')
            obj = Objective(item, kind, target or None)
        if obj.target is not None and scenario is not None and obj.target not in scenario:
            raise FormatError("objective", f'{obj.name}: unknown id "{obj.target}"')
        if any(o.name == obj.name for o in out):
            raise FormatError("objective", f"{obj.name} is listed twice")
        out.append(obj)
    parsed = tuple(out)
    if isinstance(spec, str) and ":" not in spec and len(_PARSED) < _PARSED_MOST:
        _PARSED[spec] = parsed
    return parsed


#: the objectives of a text without a ``:ID`` target, kept per text (a function of the text alone, the objectives
#: frozen): every picture and arena decision parses the same few texts (`lethal`, ...); at most _PARSED_MOST texts
_PARSED: dict[str, tuple[Objective, ...]] = {}
_PARSED_MOST = 256


def _expected() -> str:
    return "max-damage, max-damage:ID, lethal, max-kills, max-value, min-overkill"


def json_number(q: Fraction):
    return int(q) if q.denominator == 1 else float(q)


_NONE = Fraction(0)  # max-value's term where nothing is killed (Fractions are immutable: one serves every term)


class Definitions:
    """What every objective counts, read from the plan once (shared by the model and the direct evaluator)."""

    def __init__(self, plan: DamagePlan):
        s = plan.scenario
        self.plan = plan
        self.scenario = s
        self.players = [p.id for p in s.players]
        killable: tuple[ObjectKind, ...] = {
            Side.ATTACKING: (ObjectKind.BLOCKER,),
            Side.DEFENDING: (ObjectKind.ATTACKER,),
            Side.BOTH: (ObjectKind.BLOCKER, ObjectKind.ATTACKER),
        }[Side(plan.side)]
        creatures: list[Attacker | Blocker] = []
        if ObjectKind.BLOCKER in killable:
            creatures += list(s.blockers)
        if ObjectKind.ATTACKER in killable:
            creatures += list(s.attackers)
        # 702.19b / 702.2c: killable creatures of the other side (in combat, not indestructible)
        self.kill_set = [c.id for c in creatures if c.in_combat and not c.has(Keyword.INDESTRUCTIBLE)]
        self.walkers = [p.id for p in s.planeswalkers if p.in_combat]
        self.deathtouch = {
            i for i, src in enumerate(plan.sources) if src.assigns and s.creature(src.source).has(Keyword.DEATHTOUCH)
        }
        self.deathtouch_of = [i in self.deathtouch for i in range(len(plan.sources))]
        self.incoming: dict[str, list[int]] = {}  # recipient -> column indices
        for k, (_i, r) in enumerate(plan.columns):
            self.incoming.setdefault(r, []).append(k)
        self._value_scale: int | None = None
        self._values: dict[str, Fraction] = {}  # value_of, read per total by the direct engine's term tables

    def need(self, creature_id: str) -> int:
        """702.19b: damage still needed for lethal (trample.outcome, for blockers and attackers alike)."""
        return lethal_need(self.scenario.creature(creature_id))

    def threshold(self, recipient: str) -> int:
        """What a recipient takes before further damage is overkill (trample.outcome), deathtouch aside."""
        return overkill_threshold(self.scenario, recipient)

    def loyalty(self, walker: str) -> int:
        """702.19c: what a planeswalker must be assigned for its loyalty to be reached."""
        return self.scenario.planeswalker(walker).loyalty

    def life(self, player: str) -> int:
        """What a player must be assigned for the lethal objective."""
        return self.scenario.player(player).life

    def value_of(self, object_id: str) -> Fraction:
        v = self._values.get(object_id)
        if v is None:
            v = self._values[object_id] = exact(value_of(self.scenario[object_id]))
        return v

    @property
    def value_scale(self) -> int:
        """The least common denominator of every value that max-value may count."""
        if self._value_scale is None:
            ids = self.kill_set + self.walkers
            scale = 1
            for i in ids:
                scale = math.lcm(scale, self.value_of(i).denominator)
            total = sum(abs(self.value_of(i)) for i in ids) * scale
            if total > VALUE_LIMIT:
                raise FormatError(
                    "value", f"the values need too many digits to be optimised exactly (scaled total {total} > 2**40)"
                )
            self._value_scale = scale
        return self._value_scale

    # -- the direct evaluation (no solver): used for forced boards, by score() and by the direct engine's blocks ----
    # Every objective is a sum over recipients of a term that reads only the damage assigned to that recipient and
    # whether a deathtouch source assigns it any: :meth:`counted` lists the recipients, :meth:`term` is the term.
    # :meth:`evaluate` sums them for one assignment; optimize.linear tabulates the same terms for numpy blocks.
    def counted(self, obj: Objective) -> list[str]:
        """The recipients whose terms the objective sums."""
        if obj.kind == ObjectiveKind.MAX_DAMAGE:
            return [obj.target] if obj.target else list(self.players)
        if obj.kind == ObjectiveKind.LETHAL:
            return list(self.players)
        if obj.kind == ObjectiveKind.MAX_KILLS:
            return list(self.kill_set)
        if obj.kind == ObjectiveKind.MAX_VALUE:
            return self.kill_set + self.walkers
        if obj.kind == ObjectiveKind.MIN_OVERKILL:
            return list(self.incoming)
        raise ValueError(obj.kind)

    def term(self, obj: Objective, r: str, total: int, touched: bool) -> int | Fraction:
        """What recipient ``r`` adds to the objective when assigned ``total`` damage (``touched``: some of it from
        a deathtouch source). ``r`` is one of :meth:`counted`."""
        if obj.kind == ObjectiveKind.MAX_DAMAGE:
            return total
        if obj.kind == ObjectiveKind.LETHAL:
            return int(reaches(total, self.life(r)))
        if obj.kind == ObjectiveKind.MAX_KILLS:
            return int(kills(self.need(r), total, touched))
        if obj.kind == ObjectiveKind.MAX_VALUE:
            if self.scenario.kind(r) == ObjectKind.PLANESWALKER:
                return self.value_of(r) if reaches(total, self.loyalty(r)) else _NONE
            return self.value_of(r) if kills(self.need(r), total, touched) else _NONE
        if obj.kind == ObjectiveKind.MIN_OVERKILL:
            return max(0, total - overkill_threshold(self.scenario, r, touched))
        raise ValueError(obj.kind)

    def linear(self, obj: Objective) -> bool:
        """Is every term of the objective the recipient's total itself (:meth:`term` of ``max-damage``)?"""
        return obj.kind == ObjectiveKind.MAX_DAMAGE

    def evaluate(self, obj: Objective, vec: Sequence[int]):
        totals, touched = tally_vector(self.plan.columns, vec, self.deathtouch_of)
        q = sum((self.term(obj, r, totals.get(r, 0), r in touched) for r in self.counted(obj)), 0)
        return json_number(Fraction(q)) if obj.kind == ObjectiveKind.MAX_VALUE else q


def damage_step_of(combat) -> DamageStep:
    if isinstance(combat, DamageStep):
        return combat
    return DamageStep(combat)
