"""Scalesoul Gnome (trample, haste, 3/5): "Whenever it deals combat damage to a player, discover X, where X is
that damage." The trample split chosen in combat sets X; this module puts the two halves together.

For every legal assignment of the step (from the combat engine, imported only when called) we read X, the
damage the Gnome assigns to players, and the number of blockers it kills; per reachable X we report how many
splits give it and what discover X does: exactly, over a uniformly shuffled library (``library_order=
"unknown"``, the default), and for the library in the order given (``"known"``). X = 0 means the Gnome dealt no
damage to a player: the ability does not trigger at all (that is not "discover 0").

The best split is chosen lexicographically by a criterion:

- ``"mana_value"`` (default): highest expected mana value of the discovered card (0 with no trigger or no
  discovered card; with a known order, the found card's mana value), then most kills, then the larger X;
- ``"kills"``: most kills, then the larger X, then the expected mana value;
- ``"x"``: the larger X, then most kills.

Ties left after that go to the split enumerated first. "Kills" are blockers that this step's assignment
(every attacker's, counted together) gives lethal damage (702.19b's test: marked + assigned >= toughness, or
any deathtouch damage) and that are not indestructible; a blocker assigned nothing is not killed by it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from ..combat import Combat
from ..models import Assignment, FormatError, Scenario, load_scenario
from ..models.cards import GameState, as_state, load_library_or_state
from .exact import DiscoverDistribution, discover_distribution, exact_json
from .transforms import discover

CRITERIA = ("mana_value", "kills", "x")
ORDERS = ("unknown", "known")


@dataclass(frozen=True)
class XOutcome:
    """One reachable X: the legal splits giving it and what discover X does."""

    x: int
    splits: int
    max_kills: int
    best_split: Assignment
    distribution: DiscoverDistribution | None  # None when X = 0 (no trigger)
    known: dict | None  # the library in the order given: the found card, cards exiled
    score: Fraction  # the value the criterion reads: expected (or known) mana value discovered

    @property
    def triggers(self) -> bool:
        return self.x > 0

    def to_json(self) -> dict:
        return {
            "x": self.x,
            "triggers": self.triggers,
            "splits": self.splits,
            "max_kills": self.max_kills,
            "best_split": self.best_split.to_json(),
            "mana_value_score": exact_json(self.score),
            "known_order": self.known,
            "discover": None if self.distribution is None else self.distribution.to_json(),
        }


@dataclass(frozen=True)
class GnomeReport:
    gnome: str
    criterion: str
    library_order: str
    total_splits: int
    outcomes: tuple[XOutcome, ...]  # by X, ascending
    best: XOutcome | None  # None when the step has no legal assignment

    def to_json(self) -> dict:
        best = None
        if self.best is not None:
            b = self.best
            best = {
                "x": b.x,
                "split": b.best_split.to_json(),
                "kills": b.max_kills,
                "mana_value_score": exact_json(b.score),
                "triggers": b.triggers,
            }
        return {
            "gnome": self.gnome,
            "criterion": self.criterion,
            "criterion_order": _CRITERION_TEXT[self.criterion],
            "library_order": self.library_order,
            "splits": self.total_splits,
            "reachable_x": [o.x for o in self.outcomes],
            "best": best,
            "outcomes": [o.to_json() for o in self.outcomes],
        }


_CRITERION_TEXT = {
    "mana_value": ["highest expected mana value discovered", "most kills", "larger X"],
    "kills": ["most kills", "larger X", "highest expected mana value discovered"],
    "x": ["larger X", "most kills"],
}


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
    deathtouch = [a.id for a in scenario.attackers if a.deathtouch]
    n = 0
    for b in scenario.blockers:
        dealt = assignment.total_to(b.id)
        if dealt <= 0 or b.indestructible:
            continue
        if b.damage_marked + dealt >= b.toughness or any(assignment.amount(s, b.id) > 0 for s in deathtouch):
            n += 1
    return n


def damage_to_players(scenario: Scenario, assignment: Assignment, source: str) -> int:
    """X: the combat damage ``source`` assigns to players (not to planeswalkers or battles)."""
    split = assignment.get(source, {})
    return sum(amount for r, amount in split.items() if scenario.kind(r) == "player")


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
    criterion: str = "mana_value",
    library_order: str = "unknown",
    engine: str = "auto",
) -> GnomeReport:
    """Every reachable X for the Gnome in one damage step, the splits giving it, and discover X.

    ``scenario``: a :class:`~trample.models.Scenario` or its JSON (one damage step: ``"regular"`` or
    ``"first_strike"``). ``library``: a :class:`~trample.models.cards.Library`, state, list of cards, or their JSON.
    ``gnome_id``: the Gnome's attacker id (default: the only attacker, or the only one whose id contains
    "gnome"). See the module docstring for ``criterion`` and ``library_order``.
    """
    if criterion not in CRITERIA:
        raise FormatError("criterion", f"expected one of {', '.join(CRITERIA)}, got {criterion!r}")
    if library_order not in ORDERS:
        raise FormatError("library_order", f'expected "unknown" or "known", got {library_order!r}')
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    if scenario.step == "combat":
        raise FormatError("step", 'gnome: give one damage step ("regular" or "first_strike"), not "combat"')
    if isinstance(library, (str, bytes, Mapping)):
        state = load_library_or_state(library)
    else:
        state = as_state(library)
    gnome = _pick_gnome(scenario, gnome_id)

    per_x: dict[int, list] = {}  # x -> [splits, max kills, best split]
    total = 0
    for assignment in Combat(scenario, engine=engine).legal_assignments:
        total += 1
        x = damage_to_players(scenario, assignment, gnome)
        k = kills(scenario, assignment)
        row = per_x.get(x)
        if row is None:
            per_x[x] = [1, k, assignment]
        else:
            row[0] += 1
            if k > row[1]:
                row[1], row[2] = k, assignment

    outcomes = []
    for x in sorted(per_x):
        splits, k, best_split = per_x[x]
        dist = discover_distribution(state, x) if x > 0 else None
        known = _known_outcome(state, x) if x > 0 else None
        if x == 0:
            score = Fraction(0)
        elif library_order == "known":
            score = Fraction(known["mana_value"] or 0)
        else:
            score = dist.expected_mana_value
        outcomes.append(XOutcome(x, splits, k, best_split, dist, known, score))

    def key(o: XOutcome):
        if criterion == "kills":
            return (o.max_kills, o.x, o.score)
        if criterion == "x":
            return (o.x, o.max_kills)
        return (o.score, o.max_kills, o.x)

    best = max(outcomes, key=key) if outcomes else None
    return GnomeReport(gnome, criterion, library_order, total, tuple(outcomes), best)
