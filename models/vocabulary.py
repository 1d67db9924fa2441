"""trample's vocabulary: the domain words of the formats and the rules, each spelled once, as ``StrEnum``s.

A member is a ``str`` equal to the word the JSON formats and the command line use (``Step.FIRST_STRIKE ==
"first_strike"``), with the same hash, ``str()`` and ``json.dumps``: code that compared bare strings keeps working
while it moves to the names, and every document reads and writes byte for byte as before.

>>> from trample.models.vocabulary import Keyword, Side, Step
>>> Step("first_strike") is Step.FIRST_STRIKE, Side.BOTH == "both"
(True, True)
>>> import json; json.dumps({Step.REGULAR: [Keyword.TRAMPLE]})
'{"regular": ["trample"]}'

Ask a creature about a keyword one way: ``creature.has(Keyword.DEATHTOUCH)``. docs/architecture.md ("The
vocabulary") says how the rest of the code adopts these names.
"""

from __future__ import annotations

from ._strenum import StrEnum
from .keywords import Keyword, KeywordGroup


class ObjectKind(StrEnum):
    """What an id of a scenario names (:meth:`trample.models.Scenario.kind`)."""

    PLAYER = "player"
    PLANESWALKER = "planeswalker"
    BATTLE = "battle"
    ATTACKER = "attacker"  # an attacking creature
    BLOCKER = "blocker"  # a blocking (or, in a declare document, potential blocking) creature

    @property
    def is_creature(self) -> bool:
        return self in (ObjectKind.ATTACKER, ObjectKind.BLOCKER)

    @property
    def is_attackable(self) -> bool:
        """506.3, 508.1b: what a creature can attack (a player, a planeswalker, a battle)."""
        return not self.is_creature


class Side(StrEnum):
    """Whose assignments a command asks about: the attacking player's, the defending player's, or both."""

    ATTACKING = "attacking"
    DEFENDING = "defending"
    BOTH = "both"


class Chooser(StrEnum):
    """The player who divides a source's combat damage (510.1c/d; banding moves it, 702.22j/k). The values are the
    sides' (``Chooser.ACTIVE_PLAYER == Side.ATTACKING``): ``SourcePlan.chooser`` holds one of them."""

    ACTIVE_PLAYER = "attacking"
    DEFENDING_PLAYER = "defending"


class Step(StrEnum):
    """A scenario's ``step``: one combat damage step, or the whole combat (510.4: both steps)."""

    REGULAR = "regular"
    FIRST_STRIKE = "first_strike"
    COMBAT = "combat"


class RulesSet(StrEnum):
    """A scenario's ``rules``: the current Comprehensive Rules, or the rules before 2024 (damage assignment order,
    old 510.1c-d)."""

    CURRENT = "current"
    LEGACY = "legacy"


class DamageOrder(StrEnum):
    """616.1: the order in which the affected player applies replacement and prevention effects (a receiver's
    ``replacement_order``): the order that leaves the least damage, or the most (docs/effects.md)."""

    LEAST = "least"
    MOST = "most"


class Modifier(StrEnum):
    """614.1a: how a ``deals`` / ``takes`` entry changes damage (``{"times": 2}``, ``{"plus": 1}``)."""

    TIMES = "times"
    PLUS = "plus"


class LossReason(StrEnum):
    """A way to lose the game that combat damage can bring about: the ``name`` of a ``trample.outcome``
    LossCondition, as the reports write it."""

    LIFE = "life"  # 704.5a: 0 or less life
    POISON = "poison"  # 704.5c: ten or more poison counters
    COMMANDER = "commander"  # 704.6c: 21 or more combat damage from one commander


class ObjectiveKind(StrEnum):
    """The objectives of ``trample solve --objective`` (lexicographic when several are given)."""

    MAX_DAMAGE = "max-damage"
    LETHAL = "lethal"
    MAX_KILLS = "max-kills"
    MAX_VALUE = "max-value"
    MIN_OVERKILL = "min-overkill"


class DeclareKind(StrEnum):
    """A declare document's ``declare``: which declaration it asks about (docs/declare.md)."""

    ATTACKERS = "attackers"
    BLOCKERS = "blockers"


class DoubleFaced(StrEnum):
    """A double-faced card's ``double_faced`` (712): either face may be cast, or only the front face."""

    MODAL = "modal"
    TRANSFORM = "transform"


class Zone(StrEnum):
    """The zones of a game state document (docs/format.md, "Library, cards and zones")."""

    LIBRARY = "library"
    GRAVEYARD = "graveyard"
    EXILE = "exile"
    HAND = "hand"
    STACK = "stack"


class ManaType(StrEnum):
    """The types of mana a cost names and a pool holds, by their symbols (105.1 colours, 106.1b colourless; the
    costs to attack and block, models/mana.py)."""

    WHITE = "W"
    BLUE = "U"
    BLACK = "B"
    RED = "R"
    GREEN = "G"
    COLORLESS = "C"


def words(enum: type[StrEnum]) -> tuple[str, ...]:
    """The values of a vocabulary, in their order, as plain strings (what an error message or a schema lists)."""
    return tuple(member.value for member in enum)


__all__ = [
    "StrEnum",
    "ManaType",
    "Keyword",
    "KeywordGroup",
    "ObjectKind",
    "Side",
    "Chooser",
    "Step",
    "RulesSet",
    "DamageOrder",
    "Modifier",
    "LossReason",
    "ObjectiveKind",
    "DeclareKind",
    "DoubleFaced",
    "Zone",
    "words",
]
