"""trample's data model: scenarios, assignments, cards and libraries. No solver imports here."""

from .assignment import Assignment, load_assignment
from .errors import FormatError
from .keywords import DAMAGE_KEYWORDS
from .scenario import (
    KEYWORDS,
    MAX_NUMBER,
    Attacker,
    Battle,
    Blocker,
    Creature,
    Planeswalker,
    Player,
    Receiving,
    Scenario,
    dump_scenario,
    load_scenario,
    parse_json_text,
)

__all__ = [
    "Assignment",
    "load_assignment",
    "FormatError",
    "KEYWORDS",
    "DAMAGE_KEYWORDS",
    "MAX_NUMBER",
    "Attacker",
    "Battle",
    "Blocker",
    "Creature",
    "Planeswalker",
    "Player",
    "Receiving",
    "Scenario",
    "dump_scenario",
    "load_scenario",
    "parse_json_text",
]
