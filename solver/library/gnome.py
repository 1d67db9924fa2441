"""Scalesoul Gnome (trample, haste, 3/5): "Whenever this creature deals combat damage to a player, discover X,
where X is that damage" and "Whenever you play a card from exile, conjure a duplicate of it into your hand."

The trample split chosen in combat sets X; this module puts the combat and the library together.

- **One damage step** (``"regular"`` or ``"first_strike"``): every legal assignment (``trample.Combat``) gives X,
  the damage the Gnome assigns to players. X = 0 means no trigger (not "discover 0").
- **A whole combat** (``"step": "combat"``, through ``trample.open_combat``): a double-striking Gnome deals combat
  damage in both steps, so it can trigger twice: discover X₁ in the first-strike step, then discover X₂ in the
  regular step on the library the first discover left (:mod:`trample.library.joint`, exact).

Each discover's hit is cast from exile when a face qualifies (701.57a) — which plays a card from exile, so the
second ability conjures a duplicate of the card into the hand — or put into the hand (no face qualifies: no
duplicate). The Gnome always casts when it can: a free spell plus a duplicate is never worth less than the card
in hand.

**Score** of one discover (:func:`discover_score`): the face cast is worth its ``value`` if the face has one, else
the card's ``value``, else the face's mana value (the face actually cast: Fire // Ice cast as Fire is worth 2, not
4); the conjured duplicate (and a card put into hand) is worth the card's ``value``, else its mana value in the
hand (712.8a / 709.4: the front face's or the combined one). The face cast is the one of highest worth (ties: the
first). A line's score is the sum over its triggers; ``score`` is its exact expected value.

**Objectives** (lexicographic, each maximised; solved exactly by enumerating every legal line): ``lethal`` (a
defending player is dealt damage >= their life over the combat), ``damage`` (combat damage to players, every
attacker), ``kills`` (blockers dealt lethal damage, see :func:`kills`), ``score``, ``mana_value`` (expected mana
value of the discovered cards, summed over the triggers; 0 for none) and ``x`` (total X). The named criteria are
shorthands: ``score`` (default) = score, kills, x; ``mana_value`` = mana_value, kills, x; ``kills`` = kills, x,
mana_value; ``x`` = x, kills. Within one (X₁, X₂) the discover terms are fixed, so the line kept for it is the
best by the objective's combat terms, then kills, then damage; ties go to the line enumerated first, and ties
between outcomes to the smaller X.

Kills are blockers that a step's assignment (every attacker's, counted together) gives lethal damage (702.19b's
test: marked + assigned >= toughness, or any deathtouch damage) and that are not indestructible; over a whole
combat, the first-strike step's kills and the regular step's (in the state after the first) are added. The
combat arithmetic is in one function, :func:`combat_numbers`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .. import outcome
from ..combat import Combat
from ..models import Assignment, FormatError, Keyword, ObjectKind, Scenario, Step, load_scenario
from ..models.cards import Card, Face, GameState, as_state, load_library_or_state
from ..models.vocabulary import Zone
from ..whole import open_combat
from .exact import DiscoverDistribution, discover_distribution, exact_json, prob_json
from .joint import discover_hits
from .transforms import discover

CRITERIA = ("score", "mana_value", "kills", "x")
TERMS = ("lethal", "damage", "kills", "score", "mana_value", "x")
COMBAT_TERMS = ("lethal", "damage", "kills")
ORDERS = ("unknown", "known")
CRITERION_TERMS = {
    "score": ("score", "kills", "x"),
    "mana_value": ("mana_value", "kills", "x"),
    "kills": ("kills", "x", "mana_value"),
    "x": ("x", "kills"),
}
_TERM_TEXT = {
    "lethal": "lethal",
    "damage": "most combat damage to players",
    "kills": "most kills",
    "score": "highest expected score (face cast + conjured duplicate)",
    "mana_value": "highest expected mana value discovered",
    "x": "larger X",
}


# ---------------------------------------------------------------------------------------------
# Scores of one discover
# ---------------------------------------------------------------------------------------------


def _num(v) -> Fraction:
    return Fraction(v) if isinstance(v, int) else Fraction(str(v))


def face_worth(card: Card, face: Face) -> Fraction:
    """What casting ``face`` of ``card`` is worth: the face's ``value``, else the card's, else its mana value."""
    if face.value is not None:
        return _num(face.value)
    if card.value is not None:
        return _num(card.value)
    return Fraction(face.mana_value)


def card_worth(card: Card) -> Fraction:
    """What the card in hand is worth (the conjured duplicate, or a card put into hand): ``value`` or mana value."""
    return _num(card.value) if card.value is not None else Fraction(card.mana_value)


def gnome_cast(card: Card, x: int) -> tuple[Face | None, Fraction]:
    """The Gnome's play for a hit of discover ``x``: (face cast or None for "to hand", its score)."""
    faces = card.castable_faces(x)
    if not faces:
        return None, card_worth(card)  # put into hand: not played from exile, no duplicate
    best = faces[0]
    for f in faces[1:]:
        if face_worth(card, f) > face_worth(card, best):
            best = f
    return best, face_worth(card, best) + card_worth(card)  # cast from exile: conjure a duplicate


def discover_score(card: Card | None, x: int) -> Fraction:
    """The score of one discover ``x`` whose hit is ``card`` (None: nothing found, 0)."""
    return Fraction(0) if card is None else gnome_cast(card, x)[1]


# ---------------------------------------------------------------------------------------------
# The combat side (one function to re-point at the project's central damage outcome)
# ---------------------------------------------------------------------------------------------


def _pick_gnome(scenario: Scenario, gnome_id: str | None) -> str:
    ids = [a.id for a in scenario.attackers]
    if gnome_id is not None:
        if gnome_id not in ids:
            raise FormatError("gnome", f'"{gnome_id}" is not an attacker (attackers: {", ".join(ids)})')
        return gnome_id
    if len(ids) == 1:
        return ids[0]
    if not ids:
        raise FormatError("attackers", "no attacker: the Scalesoul Gnome must be attacking")
    named = [i for i in ids if "gnome" in i.lower()]
    if len(named) == 1:
        return named[0]
    raise FormatError("gnome", "several attackers: name the Scalesoul Gnome (gnome_id / --gnome ID)")


def kills(scenario: Scenario, assignment: Assignment) -> int:
    """Blockers this assignment kills: assigned damage > 0 and lethal (702.19b), not indestructible."""
    totals, touched = outcome.tally(assignment, {a.id for a in scenario.attackers if a.has(Keyword.DEATHTOUCH)})
    return sum(
        1
        for b in scenario.blockers
        if not b.has(Keyword.INDESTRUCTIBLE)
        and outcome.kills(outcome.lethal_need(b), totals.get(b.id, 0), b.id in touched, dealt_only=True)
    )


def damage_to_players(scenario: Scenario, assignment: Assignment, source: str) -> int:
    """X: the combat damage ``source`` deals to players (not to planeswalkers or battles): as assigned, or after
    prevention and doubling on a board with effects (docs/effects.md)."""
    if outcome.has_effects(scenario):
        res = outcome.resolve(scenario, assignment)
        return sum(
            e.dealt for e in res.events if e.source == source and scenario.kind(e.recipient) == ObjectKind.PLAYER
        )
    split = assignment.get(source, {})
    return sum(amount for r, amount in split.items() if scenario.kind(r) == ObjectKind.PLAYER)


def combat_numbers(steps) -> dict:
    """``{"damage", "kills", "lethal"}`` of a line given as ``[(scenario of the step, assignment), ...]``.

    damage: combat damage the attackers assign to players, all steps; kills: :func:`kills` per step, added;
    lethal: some player of the first step's scenario is dealt damage >= their life.
    """
    first = steps[0][0]
    attackers = {a.id for a in first.attackers}
    to_player: dict[str, int] = defaultdict(int)
    k = 0
    if any(outcome.has_effects(s) for s, _ in steps):  # on the outcome: damage dealt, deaths, players who lose
        lost = False
        for scenario, assignment in steps:
            res = outcome.resolve(scenario, assignment)
            blockers = {b.id for b in scenario.blockers}
            k += sum(1 for c in res.died if c in blockers)
            lost = lost or bool(res.losers)
            for e in res.events:
                if e.source in attackers and scenario.kind(e.recipient) == ObjectKind.PLAYER:
                    to_player[e.recipient] += e.dealt
        return {"damage": sum(to_player.values()), "kills": k, "lethal": lost}
    for scenario, assignment in steps:
        k += kills(scenario, assignment)
        for source, split in assignment.items():
            if source not in attackers:
                continue
            for r, amount in split.items():
                if scenario.kind(r) == ObjectKind.PLAYER:
                    to_player[r] += amount
    lethal = any(to_player.get(p.id, 0) >= p.life for p in first.players if to_player.get(p.id, 0) > 0)
    return {"damage": sum(to_player.values()), "kills": k, "lethal": lethal}


def _lines(scenario: Scenario, engine: str):
    """(line JSON, steps) for every legal line, through the public combat API."""

    if scenario.step != Step.COMBAT:
        for a in Combat(scenario, engine=engine).legal_assignments:
            yield a, [(scenario, a)]
        return
    whole = open_combat(scenario, engine=engine)
    last = None
    fs_state = scenario.with_step(Step.FIRST_STRIKE)
    for line in whole.assignments():
        if last is None or last[0] != line.first_strike:
            last = (line.first_strike, whole.state_after(line.first_strike))
        yield line, [(fs_state, line.first_strike), (last[1], line.regular)]


# ---------------------------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class XOutcome:
    """One reachable X (one damage step) or (X₁, X₂) (a whole combat): the lines giving it and what the discovers do.

    ``x`` is the total; ``xs`` the X of each damage step (one entry for a single step). ``joint`` maps the hits
    (card indices in the library, None for none; one entry per trigger, i.e. per X > 0) to their probability.
    """

    xs: tuple[int, ...]
    splits: int
    max_kills: int
    best_split: Any  # an Assignment, or a whole-combat line (both have to_json)
    combat: dict  # combat_numbers of best_split
    distribution: DiscoverDistribution | None  # one step: discover X (None when X = 0)
    known: dict | None  # one step, the library in the order given: the found card, cards exiled
    mana_value: Fraction  # expected mana value of the discovered cards (the old score)
    score: Fraction  # expected Gnome score (face cast + duplicate)
    joint: dict
    cards: tuple[Card, ...]

    @property
    def x(self) -> int:
        return sum(self.xs)

    @property
    def triggers(self) -> bool:
        return self.x > 0

    def term(self, name: str):
        if name in COMBAT_TERMS:
            return self.combat[name]
        return {"score": self.score, "mana_value": self.mana_value, "x": self.x}[name]

    def joint_json(self) -> list[dict]:
        """The joint distribution grouped over identical cards: one entry per (what each trigger did)."""
        triggered = [x for x in self.xs if x > 0]
        groups: dict[tuple, Fraction] = defaultdict(Fraction)
        for hits, p in self.joint.items():
            key = tuple(None if h is None else self.cards[h] for h in hits)
            groups[key] += p
        out = []
        for key, p in groups.items():
            each: list[dict | None] = []
            total = Fraction(0)
            for card, x in zip(key, triggered):
                if card is None:
                    each.append(None)
                    continue
                face, worth = gnome_cast(card, x)
                total += worth
                each.append(
                    {
                        "x": x,
                        "card": card.name,
                        "face": None if face is None else face.name,
                        "to": Zone.HAND if face is None else Zone.STACK,
                        "conjured_duplicate": face is not None,
                        "score": exact_json(worth),
                    }
                )
            out.append({"discovers": each, **prob_json(p), "score": exact_json(total)})
        out.sort(key=lambda e: -Fraction(e["probability"]))
        return out

    def to_json(self) -> dict:
        out: dict = {"x": self.x}
        if len(self.xs) == 2:
            out["x_steps"] = {"first_strike": self.xs[0], "regular": self.xs[1]}
        out.update(
            {
                "triggers": self.triggers,
                "trigger_count": sum(1 for x in self.xs if x > 0),
                "splits": self.splits,
                "max_kills": self.max_kills,
                "best_split": self.best_split.to_json(),
                "combat": dict(self.combat),
                "score": exact_json(self.score),
                "mana_value_score": exact_json(self.mana_value),
                "joint": self.joint_json(),
                "known_order": self.known,
                "discover": None if self.distribution is None else self.distribution.to_json(),
            }
        )
        return out


@dataclass(frozen=True)
class GnomeReport:
    gnome: str
    criterion: str
    objective: tuple[str, ...]
    library_order: str
    step: str
    total_splits: int
    outcomes: tuple[XOutcome, ...]  # by (X₁, X₂), ascending
    best: XOutcome | None  # None when the combat has no legal line

    def to_json(self) -> dict:
        best: dict[str, Any] | None = None
        if self.best is not None:
            b = self.best
            best = {"x": b.x}
            if len(b.xs) == 2:
                best["x_steps"] = {"first_strike": b.xs[0], "regular": b.xs[1]}
            best.update(
                {
                    "split": b.best_split.to_json(),
                    "kills": b.combat["kills"],
                    "combat": dict(b.combat),
                    "score": exact_json(b.score),
                    "mana_value_score": exact_json(b.mana_value),
                    "triggers": b.triggers,
                    "objective_values": {
                        t: (exact_json(v) if isinstance(v, Fraction) else v)
                        for t in self.objective
                        for v in [b.term(t)]
                    },
                }
            )
        return {
            "gnome": self.gnome,
            "step": self.step,
            "criterion": self.criterion,
            "objective": list(self.objective),
            "criterion_order": [_TERM_TEXT[t] for t in self.objective],
            "library_order": self.library_order,
            "splits": self.total_splits,
            "reachable_x": sorted({o.x for o in self.outcomes}),
            "best": best,
            "outcomes": [o.to_json() for o in self.outcomes],
        }


def _objective(criterion: str, objective) -> tuple[str, ...]:
    if objective is None:
        if criterion not in CRITERIA:
            raise FormatError("criterion", f"expected one of {', '.join(CRITERIA)}, got {criterion!r}")
        return CRITERION_TERMS[criterion]
    if isinstance(objective, str):
        objective = [t.strip() for t in objective.split(",") if t.strip()]
    terms = tuple(objective)
    if not terms:
        raise FormatError("objective", f"expected a list of terms among {', '.join(TERMS)}")
    for t in terms:
        if t not in TERMS:
            raise FormatError("objective", f"unknown term {t!r} (terms: {', '.join(TERMS)})")
    if len(set(terms)) != len(terms):
        raise FormatError("objective", "a term is named twice")
    return terms


def _known_outcome(state: GameState, x: int) -> dict:
    _, event = discover(state, x, 0)  # the found card does not depend on the seed (only the bottom order does)
    card = event.discovered_card
    return {
        "discovered_card": None if card is None else card.name,
        "mana_value": None if card is None else card.mana_value,
        "literal_final_land": event.literal_final_land,
        "exiled_count": event.exiled_count,
        "castable_faces": list(event.castable_faces),
    }


def gnome_outcomes(
    scenario,
    library,
    gnome_id: str | None = None,
    *,
    criterion: str = "score",
    library_order: str = "unknown",
    engine: str = "auto",
    objective=None,
) -> GnomeReport:
    """Every reachable X (or (X₁, X₂) in a whole combat), the lines giving it, and what the discovers do.

    ``scenario``: a :class:`~trample.models.Scenario` or its JSON: one damage step, or ``"step": "combat"``
    (both steps: a double-striking Gnome triggers twice). ``library``: a :class:`~trample.models.cards.Library`,
    state, list of cards, or their JSON. ``gnome_id``: the Gnome's attacker id (default: the only attacker, or
    the only one whose id contains "gnome"). ``objective``: a list (or comma-separated text) of terms, overriding
    ``criterion``; see the module docstring for both and for ``library_order``.
    """
    terms = _objective(criterion, objective)
    if library_order not in ORDERS:
        raise FormatError("library_order", f'expected "unknown" or "known", got {library_order!r}')
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    if isinstance(library, (str, bytes, Mapping)):
        state = load_library_or_state(library)
    else:
        state = as_state(library)
    gnome = _pick_gnome(scenario, gnome_id)
    cards = state.library.cards

    combat_terms = tuple(t for t in terms if t in COMBAT_TERMS)
    tiebreak = combat_terms + tuple(t for t in ("kills", "damage") if t not in combat_terms)
    per_x: dict[tuple, list] = {}  # xs -> [lines, max kills, best vector, best line, its numbers]
    total = 0
    for line, steps in _lines(scenario, engine):
        total += 1
        xs = tuple(damage_to_players(s, a, gnome) for s, a in steps)
        nums = combat_numbers(steps)
        vec = tuple(nums[t] for t in tiebreak)
        row = per_x.get(xs)
        if row is None:
            per_x[xs] = [1, nums["kills"], vec, line, nums]
        else:
            row[0] += 1
            row[1] = max(row[1], nums["kills"])
            if vec > row[2]:
                row[2], row[3], row[4] = vec, line, nums

    outcomes = []
    for xs in sorted(per_x):
        splits, max_k, _, best_line, nums = per_x[xs]
        triggered = tuple(x for x in xs if x > 0)
        joint = discover_hits(cards, triggered, library_order) if triggered else {(): Fraction(1)}
        score = Fraction(0)
        mv = Fraction(0)
        for hits, p in joint.items():
            for h, x in zip(hits, triggered):
                if h is not None:
                    score += p * discover_score(cards[h], x)
                    mv += p * cards[h].mana_value
        dist = known = None
        if len(xs) == 1 and xs[0] > 0:
            dist = discover_distribution(state, xs[0])
            known = _known_outcome(state, xs[0])
            if library_order == "unknown":
                mv = dist.expected_mana_value  # counts a literal final land (701.57c), as discover --distribution
            elif known["mana_value"] is not None:  # 701.57c: the discovered card, a literal final land included
                mv = Fraction(known["mana_value"])
        outcomes.append(XOutcome(xs, splits, max_k, best_line, nums, dist, known, mv, score, joint, cards))

    def key(o: XOutcome):
        return tuple(o.term(t) for t in terms)

    best = max(outcomes, key=key) if outcomes else None
    return GnomeReport(gnome, criterion, terms, library_order, scenario.step, total, tuple(outcomes), best)
