"""trample's data model: scenarios, assignments, cards and libraries. No solver imports here.

The vocabulary (:mod:`trample.models.vocabulary`: ``Keyword``, ``Side``, ``Step``, ...) names the domain words;
:mod:`trample.models.fields` describes every field of the input formats once (the loaders and the JSON Schemas
read it).
"""

from .assignment import Assignment, load_assignment
from .errors import FormatError
from .fields import MAX_NUMBER
from .keywords import DAMAGE_KEYWORDS
from .scenario import (
    KEYWORDS,
    Attacker,
    Battle,
    Blocker,
    Creature,
    GameObject,
    Planeswalker,
    Player,
    Receiving,
    Scenario,
    dump_scenario,
    load_scenario,
    parse_json_text,
    value_of,
)
from .vocabulary import (
    Chooser,
    DamageOrder,
    Keyword,
    LossReason,
    ObjectiveKind,
    ObjectKind,
    RulesSet,
    Side,
    Step,
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
    "GameObject",
    "Planeswalker",
    "Player",
    "Receiving",
    "Scenario",
    "dump_scenario",
    "load_scenario",
    "parse_json_text",
    "value_of",
    "Chooser",
    "DamageOrder",
    "Keyword",
    "LossReason",
    "ObjectiveKind",
    "ObjectKind",
    "RulesSet",
    "Side",
    "Step",
]
