"""Builds the JSON Schemas shipped in this folder (``python -m trample.schemas._build`` rewrites the files).

The schemas are data files (``*.json`` next to this module); this builder is how they are written, so that the
shared pieces (an id, a creature, a card) are spelled once. ``tests/test_schemas.py`` checks that the files on disk
are exactly what this module builds, and that the enumerations here match the ones the loaders use.

Every schema is self-contained: the pieces it uses are copied into its own ``$defs``, so ``trample schema NAME``
prints a document that any JSON Schema (draft 2020-12) validator can use alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

DRAFT = "https://json-schema.org/draft/2020-12/schema"
HERE = Path(__file__).resolve().parent


def _keywords_table():
    """models/keywords.py, the one table of keyword abilities, read by path (it imports nothing): beside this
    folder in an install (trample/models), one folder up in a source checkout (models/ beside solver/)."""
    import importlib.util

    for folder in (HERE.parent / "models", HERE.parents[1] / "models"):
        if (folder / "keywords.py").is_file():
            spec = importlib.util.spec_from_file_location("_trample_keywords", folder / "keywords.py")
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    raise FileNotFoundError("models/keywords.py")


# Kept equal to the loaders' own tables by tests/test_schemas.py (the builder imports nothing from the package,
# so it runs from a source checkout without an install).
MAX_NUMBER = 1_000_000
KEYWORDS = list(_keywords_table().ALL_KEYWORDS)
DAMAGE_ORDERS = ["least", "most"]
CARD_WORDS = [
    # 205.2a card types
    "artifact",
    "battle",
    "conspiracy",
    "creature",
    "dungeon",
    "enchantment",
    "instant",
    "kindred",
    "land",
    "phenomenon",
    "plane",
    "planeswalker",
    "scheme",
    "sorcery",
    "tribal",
    "vanguard",
    # 205.4a supertypes
    "basic",
    "legendary",
    "ongoing",
    "snow",
    "world",
]
OBJECTIVES = ["max-damage", "lethal", "max-kills", "max-value", "min-overkill"]


def ref(name: str) -> dict:
    return {"$ref": f"#/$defs/{name}"}


def closed(properties: dict, required: Sequence[str] = (), **more) -> dict:
    """An object that takes these properties and no others (the loaders reject unknown fields)."""
    out = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        out["required"] = list(required)
    out.update(more)
    return out


def any_case(word: str) -> str:
    """A regular expression matching ``word`` in any letter case, without the (?i) flag that ECMA-262 lacks."""
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in word)


def card_type_pattern(extra: Sequence[str] = ()) -> str:
    return "^(" + "|".join(any_case(w) for w in [*CARD_WORDS, *extra]) + ")$"


#: Fields of anything that can be dealt damage (docs/effects.md): prevention, protection, modifiers, their order.
RECEIVING = {
    "prevent": {**ref("amount"), "default": 0, "description": "Prevent the next N damage dealt to it (615.7)."},
    "prevent_combat": {"type": "boolean", "default": False, "description": "Prevent all combat damage to it."},
    "protection": {**ref("names"), "description": "Protection from these qualities: source ids or tags (702.16e)."},
    "takes": ref("modifiers"),
    "replacement_order": {
        "enum": DAMAGE_ORDERS,
        "default": "least",
        "description": "616.1: the affected player's order.",
    },
    "shield_order": {**ref("names"), "description": "Whose damage the prevent shield stops first (creature ids)."},
}
#: Fields of a creature as a source of damage (docs/effects.md).
#: models/keywords.py NEEDS_FIELD: a keyword that says too little alone is accepted only beside its field.
KEYWORD_NEEDS_FIELD = [
    {
        "if": {"properties": {"keywords": {"contains": {"const": keyword}}}, "required": ["keywords"]},
        "then": {
            "required": [field],
            "properties": {field: {"minimum": 1} if field == "toxic" else {"minItems": 1}},
        },
    }
    for keyword, (field, _) in _keywords_table().NEEDS_FIELD.items()
]

CREATURE_EFFECTS = {
    "toxic": {**ref("amount"), "default": 0, "description": "Total toxic value (702.164b)."},
    "tags": {**ref("names"), "description": "Qualities protection can name (colours, types)."},
    "deals": ref("modifiers"),
    "assigns_toughness": {
        "type": "boolean",
        "default": False,
        "description": "Assigns combat damage equal to its toughness rather than its power (510.1a).",
    },
}

ONE_OBJECTIVE = r"\s*(max-damage(:[^,]*[^,\s][^,]*)?|lethal|max-kills|max-value|min-overkill)\s*"

DEFS: dict[str, dict] = {
    # -- scenario -------------------------------------------------------------------------------------------------
    "id": {"type": "string", "minLength": 1, "description": "A non-empty name, unique across the whole scenario."},
    "signed": {
        "type": "integer",
        "minimum": -MAX_NUMBER,
        "maximum": MAX_NUMBER,
        "description": "An integer that may be negative (power, life).",
    },
    "amount": {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_NUMBER,
        "description": "A non-negative integer (toughness, damage_marked, loyalty, defense).",
    },
    "value": {
        "type": "number",
        "minimum": -MAX_NUMBER,
        "maximum": MAX_NUMBER,
        "default": 1,
        "description": "What killing this object is worth to the max-value objective.",
    },
    "in_combat": {"type": "boolean", "default": True, "description": "false: removed from combat."},
    "keywords": {
        "type": "array",
        "items": {"enum": KEYWORDS},
        "default": [],
        "description": "A keyword listed twice counts once.",
    },
    "modifiers": {
        "type": "array",
        "items": {
            "oneOf": [
                closed({"times": {"type": "integer", "minimum": 1, "maximum": MAX_NUMBER}}, ["times"]),
                closed({"plus": {"type": "integer", "minimum": 1, "maximum": MAX_NUMBER}}, ["plus"]),
            ]
        },
        "default": [],
        "description": 'Damage multiplied ({"times": N}) or increased ({"plus": N}), 614.1a (docs/effects.md).',
    },
    "names": {"type": "array", "items": {"type": "string", "minLength": 1}, "default": []},
    "player": closed(
        {
            "id": ref("id"),
            "life": {**ref("signed"), "default": 20},
            "poison": {**ref("amount"), "default": 0, "description": "Poison counters (704.5c: 10 loses)."},
            "commander_damage": {
                "type": "object",
                "propertyNames": {"minLength": 1},
                "additionalProperties": ref("amount"),
                "default": {},
                "description": "Combat damage already dealt by each commander, by its id (704.6c: 21 loses).",
            },
            **RECEIVING,
        },
        ["id"],
    ),
    "planeswalker": closed(
        {
            "id": ref("id"),
            "controller": {**ref("id"), "description": "The id of a player."},
            "loyalty": ref("amount"),
            "in_combat": ref("in_combat"),
            "value": ref("value"),
            **RECEIVING,
        },
        ["id", "controller", "loyalty"],
    ),
    "battle": closed(
        {
            "id": ref("id"),
            "protector": {**ref("id"), "description": "The id of a player."},
            "defense": ref("amount"),
            "in_combat": ref("in_combat"),
            **RECEIVING,
        },
        ["id", "protector", "defense"],
    ),
    "attacker": closed(
        {
            "id": ref("id"),
            "power": ref("signed"),
            "toughness": ref("amount"),
            "keywords": ref("keywords"),
            "damage_marked": {**ref("amount"), "default": 0},
            "in_combat": ref("in_combat"),
            "attacking": {**ref("id"), "description": "The id of a player, planeswalker or battle."},
            "blocked_by": {
                "type": "array",
                "items": ref("id"),
                "uniqueItems": True,
                "default": [],
                "description": "Ids of blockers; for the legacy rules, the damage assignment order.",
            },
            "blocked": {"type": "boolean", "description": "Default: whether blocked_by names any blocker."},
            "as_though_unblocked": {
                "type": "boolean",
                "default": False,
                "description": "May assign its combat damage as though it weren't blocked (docs/effects.md).",
            },
            "commander": {**ref("id"), "description": "A commander: the id of its owner (704.6c)."},
            **CREATURE_EFFECTS,
            **RECEIVING,
        },
        ["id", "power", "toughness", "attacking"],
        allOf=[
            {
                "if": {"properties": {"blocked": {"const": False}}, "required": ["blocked"]},
                "then": {"properties": {"blocked_by": {"maxItems": 0}}},
            },
            *KEYWORD_NEEDS_FIELD,
        ],
    ),
    "blocker": closed(
        {
            "id": ref("id"),
            "power": ref("signed"),
            "toughness": ref("amount"),
            "keywords": ref("keywords"),
            "damage_marked": {**ref("amount"), "default": 0},
            "in_combat": ref("in_combat"),
            "value": ref("value"),
            "damage_order": {
                "type": "array",
                "items": ref("id"),
                "uniqueItems": True,
                "description": "Legacy rules: its damage assignment order of the attackers it blocks (510.1d).",
            },
            "controller": {**ref("id"), "description": "The id of the player who controls it (lifelink)."},
            **CREATURE_EFFECTS,
            **RECEIVING,
        },
        ["id", "power", "toughness"],
        allOf=KEYWORD_NEEDS_FIELD,
    ),
    "scenario": closed(
        {
            "rules": {"enum": ["current", "legacy"], "default": "current"},
            "step": {"enum": ["regular", "first_strike", "combat"], "default": "regular"},
            "players": {"type": "array", "items": ref("player"), "default": []},
            "planeswalkers": {"type": "array", "items": ref("planeswalker"), "default": []},
            "battles": {"type": "array", "items": ref("battle"), "default": []},
            "attackers": {"type": "array", "items": ref("attacker")},
            "blockers": {"type": "array", "items": ref("blocker"), "default": []},
            "players_in_game": {
                "type": "integer",
                "minimum": 2,
                "maximum": MAX_NUMBER,
                "description": "Players in the game (default: the listed players and the attacking player).",
            },
        },
        ["attackers"],
    ),
    "one_step_scenario": {
        "allOf": [ref("scenario"), {"properties": {"step": {"enum": ["regular", "first_strike"]}}}],
        "description": 'A scenario of one damage step ("step" is not "combat").',
    },
    # -- assignments ----------------------------------------------------------------------------------------------
    "assignment": {
        "type": "object",
        "description": "{source id: {recipient id: amount}}; zero amounts may be written and are dropped.",
        "additionalProperties": {
            "type": "object",
            "additionalProperties": {"type": "integer", "minimum": 0},
        },
    },
    "combat_line": closed(
        {"first_strike": ref("assignment"), "regular": ref("assignment")}, ["first_strike", "regular"]
    ),
    "objective": {
        "description": 'Objectives, lexicographic: "max-damage,max-value", or a list of names.',
        "oneOf": [
            {"type": "string", "pattern": f"^{ONE_OBJECTIVE}(,{ONE_OBJECTIVE})*$"},
            {
                "type": "array",
                "minItems": 1,
                "items": {"type": "string", "pattern": f"^{ONE_OBJECTIVE.strip(chr(92) + 's*')}$"},
            },
        ],
    },
    # -- cards ----------------------------------------------------------------------------------------------------
    "card_types": {"type": "array", "items": {"type": "string", "pattern": card_type_pattern()}},
    "mana_value": {"type": "integer", "minimum": 0, "maximum": MAX_NUMBER},
    "card_value": {
        "type": "number",
        "minimum": 0,
        "maximum": MAX_NUMBER,
        "description": "What the card or face is worth to the Gnome's score (default: its mana value).",
    },
    "face": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "mana_value": ref("mana_value"),
            "types": ref("card_types"),
            "value": ref("card_value"),
            "aftermath": False,
        },
        "required": ["name", "mana_value"],
        "description": "The back face of a double-faced card. Further fields travel unchanged.",
    },
    "half": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "mana_value": ref("mana_value"),
            "types": ref("card_types"),
            "value": ref("card_value"),
            "aftermath": {
                "type": "boolean",
                "description": "The half has aftermath: cast only from a graveyard, never by discover (702.127a).",
            },
        },
        "required": ["name", "mana_value"],
        "description": "A half of a split card. Further fields travel unchanged.",
    },
    "adventure": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "mana_value": ref("mana_value"),
            "types": {"type": "array", "items": {"type": "string", "pattern": card_type_pattern(["adventure"])}},
            "value": ref("card_value"),
            "aftermath": False,
        },
        "required": ["name", "mana_value"],
        "description": 'The Adventure face ("Adventure" is accepted among its types). Further fields travel unchanged.',
    },
    "card": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "mana_value": ref("mana_value"),
            "types": {**ref("card_types"), "default": []},
            "adventure": ref("adventure"),
            "halves": {"type": "array", "minItems": 2, "items": ref("half")},
            "back": ref("face"),
            "double_faced": {"enum": ["modal", "transform"]},
            "value": ref("card_value"),
        },
        "required": ["name", "mana_value"],
        "dependentRequired": {"back": ["double_faced"], "double_faced": ["back"]},
        "allOf": [
            {"not": {"required": ["adventure", "halves"]}},
            {"not": {"required": ["back", "halves"]}},
            {"not": {"required": ["back", "adventure"]}},
        ],
        "description": "A card. Further fields (id, oracle_text, ...) travel unchanged.",
    },
    "cards": {"type": "array", "items": ref("card"), "default": []},
    "library": closed({"cards": ref("cards")}, ["cards"]),
    "state": closed(
        {
            "library": ref("cards"),
            "graveyard": ref("cards"),
            "exile": ref("cards"),
            "hand": ref("cards"),
            "stack": {
                "type": "array",
                "default": [],
                "items": closed(
                    {
                        "card": ref("card"),
                        "face": {
                            "type": "string",
                            "minLength": 1,
                            "description": "The name of the face cast (default: the card's main face).",
                        },
                    },
                    ["card"],
                ),
            },
        }
    ),
}

# -- the arena results file ---------------------------------------------------------------------------------------
_NUM_OR_NULL = {"type": ["number", "null"]}
_VIOLATION = closed({"rule": {"type": "string"}, "message": {"type": "string"}}, ["rule", "message"])
_VALUES = {"type": "object", "additionalProperties": {"type": "number"}}
_INTERVAL = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
DEFS.update(
    {
        "violation": _VIOLATION,
        "decision": closed(
            {
                "player": {"type": "string"},
                "legal": {"type": "boolean"},
                "rules": {"type": "array", "items": {"type": "string"}},
                "violations": {"type": "array", "items": ref("violation")},
                "values": {"oneOf": [_VALUES, {"type": "null"}]},
                "regret": {"oneOf": [_VALUES, {"type": "null"}]},
                "primary_regret": _NUM_OR_NULL,
                "optimal": {"type": "boolean"},
                "lethal": {"type": ["boolean", "null"]},
                "assignment": {"oneOf": [ref("assignment"), ref("combat_line"), {"type": "null"}]},
                "time_ms": _NUM_OR_NULL,
            },
            [
                "player",
                "legal",
                "rules",
                "violations",
                "values",
                "regret",
                "primary_regret",
                "optimal",
                "lethal",
                "assignment",
                "time_ms",
            ],
        ),
        "board_result": closed(
            {
                "index": {"type": "integer", "minimum": 0},
                "id": {"type": "string"},
                "objective": {"type": "string"},
                "scenario": ref("scenario"),
                "size": closed(
                    {
                        **{
                            k: {"type": "integer", "minimum": 0}
                            for k in ("attackers", "blockers", "creatures", "power", "assignments")
                        },
                        "first_strike_step": {"type": "boolean"},
                    },
                    ["attackers", "blockers", "creatures", "power"],
                ),
                "reference": closed(
                    {
                        "status": {"type": "string"},
                        "values": _VALUES,
                        "assignment": {"oneOf": [ref("assignment"), ref("combat_line")]},
                        "lethal_exists": {"type": "boolean"},
                    },
                    ["status", "values", "lethal_exists"],
                ),
                "decisions": {"type": "array", "items": ref("decision")},
                "rule": {"type": "string"},
                "level": {"type": "string"},
            },
            ["index", "id", "objective", "size", "reference", "decisions"],
        ),
        "leaderboard_row": closed(
            {
                "player": {"type": "string"},
                "rank": {"type": "integer", "minimum": 1},
                "decisions": {"type": "integer", "minimum": 0},
                "illegal": {"type": "integer", "minimum": 0},
                "illegal_rate": _NUM_OR_NULL,
                "illegal_rules": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}},
                "regret_mean": _NUM_OR_NULL,
                "regret_max": _NUM_OR_NULL,
                "optimal": {"type": "integer", "minimum": 0},
                "optimal_share": _NUM_OR_NULL,
                "lethal_exists": {"type": "integer", "minimum": 0},
                "lethal_found": {"type": "integer", "minimum": 0},
                "lethal_rate": _NUM_OR_NULL,
                "time_ms_mean": _NUM_OR_NULL,
                "time_ms_median": _NUM_OR_NULL,
                "time_ms_max": _NUM_OR_NULL,
                "time_ms_median_ci": {"oneOf": [_INTERVAL, {"type": "null"}]},
                "ci": {"type": "object", "additionalProperties": {"oneOf": [_INTERVAL, {"type": "null"}]}},
                "benched": closed(
                    {"decisions": {"type": "integer", "minimum": 1}, "reason": {"type": "string"}},
                    ["decisions", "reason"],
                ),
            },
            ["player", "rank", "decisions", "illegal", "illegal_rate", "optimal", "lethal_exists", "lethal_found"],
        ),
        "arena_config": {
            "type": "object",
            "properties": {
                "objective": {"type": "string"},
                "seed": {"type": "integer"},
                "players": {"type": "array", "items": {"type": "string"}},
                "boards": {"type": "integer", "minimum": 0},
                "chunk_size": {"type": "integer", "minimum": 1},
                "timeout": _NUM_OR_NULL,
                "suite": {
                    "type": "object",
                    "properties": {
                        "files": {"type": "array", "items": {"type": "string"}},
                        "level": {"type": ["string", "null"]},
                        "n": {"type": "integer", "minimum": 0},
                        "seed": {"type": ["integer", "null"]},
                        "hash": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
                    },
                },
                "game": {"enum": ["step", "combat"]},
                "startup_timeout": _NUM_OR_NULL,
                "max_failures": {"type": ["integer", "null"], "minimum": 0},
                "defender": {"type": "string"},
                "recorded": {"const": True, "description": "Present when the results come from trample score."},
            },
            "required": ["objective", "players", "boards", "suite"],
            "additionalProperties": False,
        },
    }
)

TOP: dict[str, dict] = {
    "scenario": {
        "title": "trample scenario",
        "description": 'One combat damage step, or a whole combat ("step": "combat"). See docs/format.md.',
        **ref("scenario"),
    },
    "assignment": {
        "title": "trample assignment",
        "description": "How damage is divided in one step: {source id: {recipient id: amount}}. See docs/format.md.",
        **ref("assignment"),
    },
    "combat-line": {
        "title": "trample whole-combat line",
        "description": 'One line of a whole combat: {"first_strike": assignment, "regular": assignment}.',
        **ref("combat_line"),
    },
    "declare": {
        "title": "trample declare document",
        "description": "The board before attackers or blockers are declared. See docs/declare.md.",
        **ref("declare_document"),
    },
    "declaration": {
        "title": "trample declaration",
        "description": "Blocks {attacker id: [blocker ids]} or attacks {creature id: what it attacks}.",
        "type": "object",
        "additionalProperties": {
            "oneOf": [{"type": "array", "items": ref("id"), "uniqueItems": True}, ref("id")],
        },
    },
    "library": {
        "title": "trample library",
        "description": 'A library, top card first: {"cards": [card, ...]}. See docs/format.md.',
        **ref("library"),
    },
    "state": {
        "title": "trample game state",
        "description": "One player's zones (library, graveyard, exile, hand, stack). See docs/format.md.",
        **ref("state"),
    },
    "perft-line": {
        "title": "trample perft line",
        "description": "One line of a perft file: a scenario with its exact count of legal assignments.",
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "rule": {"type": "string", "minLength": 1},
            "scenario": ref("scenario"),
            "count": {"type": "integer", "minimum": 0},
            "max_damage_to_opp": {"type": "integer", "minimum": 0},
        },
        "required": ["name", "rule", "scenario", "count", "max_damage_to_opp"],
    },
    "conformance-line": {
        "title": "trample conformance line",
        "description": "One case of the conformance suite (trample conformance): a one-step scenario, one side's "
        "exact count of legal assignments, some legal assignments and some illegal ones with the rules they break.",
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "rule": {"type": "string", "minLength": 1},
            "side": {"enum": ["attacking", "defending"]},
            "scenario": ref("one_step_scenario"),
            "count": {"type": "integer", "minimum": 1},
            "legal": {"type": "array", "items": ref("assignment")},
            "illegal": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "assignment": ref("assignment"),
                        "rules": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
                    },
                    "required": ["assignment", "rules"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["name", "side", "scenario", "count", "legal", "illegal"],
        "additionalProperties": False,
    },
    "arena-suite-line": {
        "title": "trample arena suite line",
        "description": "One line of an arena suite file: a one-step scenario, or an object with a scenario field.",
        "oneOf": [
            {**ref("one_step_scenario"), "required": ["attackers"]},
            {
                "type": "object",
                "properties": {
                    "scenario": ref("one_step_scenario"),
                    "objective": {"oneOf": [ref("objective"), {"type": "null"}]},
                    "name": {},
                    "id": {},
                    "rule": {},
                    "level": {},
                },
                "required": ["scenario"],
                "not": {"required": ["attackers"]},
            },
        ],
    },
    "arena-decision": {
        "title": "trample recorded decision",
        "description": "One line of the file trample score reads: a board and the assignment a player chose.",
        "type": "object",
        "properties": {
            "scenario": ref("one_step_scenario"),
            "assignment": {},
            "objective": {"oneOf": [ref("objective"), {"type": "null"}]},
            "player": {"type": "string", "minLength": 1},
            "time_ms": {},
            "id": {},
            "name": {},
        },
        "required": ["scenario", "assignment"],
    },
    "arena-results": {
        "title": "trample arena results",
        "description": "The file trample arena --out (and trample score --out) writes.",
        **closed(
            {
                "arena": {"const": 1},
                "config": ref("arena_config"),
                "leaderboard": {"type": "array", "items": ref("leaderboard_row")},
                "boards": {"type": "array", "items": ref("board_result")},
                "elapsed_s": {"type": "number", "minimum": 0},
                "facts": {
                    "type": "object",
                    "description": "The run's facts: versions, git commit, machine, seed, command line, statistics.",
                },
                "complete": {"type": "boolean", "description": "false when boards were not played (an interrupt)."},
                "interrupted": {"const": True},
                "played": {"type": "integer", "minimum": 0},
                "retried": {"type": "integer", "minimum": 0},
                "by_level": {
                    "type": "object",
                    "additionalProperties": {"type": "array", "items": ref("leaderboard_row")},
                },
            },
            ["arena", "config", "leaderboard", "boards"],
        ),
    },
}


# -- declarations of attackers and blockers (docs/declare.md) -------------------------------------------------------
DECLARE_KEYWORDS = [
    "flying",
    "reach",
    "menace",
    "fear",
    "intimidate",
    "shadow",
    "horsemanship",
    "skulk",
    "defender",
    "cant_attack",
    "cant_block",
    "cant_be_blocked",
    "block_any_number",
    "attacks_each_combat",
    "blocks_each_combat",
    "must_be_blocked",
    "lure",
]
_DECLARE_CREATURE = {
    "keywords": {
        "type": "array",
        "items": {"enum": KEYWORDS + [k for k in DECLARE_KEYWORDS if k not in KEYWORDS]},
        "default": [],
        "description": "Damage-step keywords and the declaration keywords of docs/declare.md.",
    },
    "tapped": {"type": "boolean", "default": False, "description": "Tapped: it can neither attack nor block."},
    "min_blockers": {
        **ref("amount"),
        "minimum": 1,
        "default": 1,
        "description": "Can't be blocked except by this many or more creatures (702.111b).",
    },
    "block_extra": {**ref("amount"), "default": 0, "description": "Can block this many additional creatures."},
    "landwalk": {**ref("names"), "description": "Land types it walks (702.14c)."},
}


def _declare(creature: dict, drop: Sequence[str], add: dict, required: Sequence[str]) -> dict:
    props = {k: v for k, v in creature["properties"].items() if k not in drop}
    return closed({**props, **_DECLARE_CREATURE, **add}, required)


DEFS.update(
    {
        "declare_attacker": _declare(
            DEFS["attacker"], ["blocked_by", "blocked"], {}, ["id", "power", "toughness", "attacking"]
        ),
        "declare_creature": _declare(
            DEFS["attacker"],
            ["blocked_by", "blocked", "attacking"],
            {"summoning_sick": {"type": "boolean", "default": False, "description": "Summoning sickness (302.6)."}},
            ["id", "power", "toughness"],
        ),
        "declare_blocker": _declare(DEFS["blocker"], [], {}, ["id", "power", "toughness"]),
        "declare_player": closed(
            {
                **DEFS["player"]["properties"],
                "lands": {**ref("names"), "description": "Land types and qualities it controls (702.14c)."},
            },
            ["id"],
        ),
    }
)
_DECLARE_TOP = {
    "active": {**ref("id"), "default": "active", "description": "The active (attacking) player."},
    "rules": DEFS["scenario"]["properties"]["rules"],
    "step": {**DEFS["scenario"]["properties"]["step"], "default": "combat"},
    "players": {"type": "array", "items": ref("declare_player"), "minItems": 1},
    "planeswalkers": DEFS["scenario"]["properties"]["planeswalkers"],
    "battles": DEFS["scenario"]["properties"]["battles"],
    "blockers": {"type": "array", "items": ref("declare_blocker"), "default": []},
    "players_in_game": DEFS["scenario"]["properties"]["players_in_game"],
}
DEFS["declare_document"] = {
    "oneOf": [
        closed(
            {
                "declare": {"const": "blockers"},
                **_DECLARE_TOP,
                "attackers": {"type": "array", "items": ref("declare_attacker"), "default": []},
            },
            ["declare", "players"],
        ),
        closed(
            {
                "declare": {"const": "attackers"},
                **_DECLARE_TOP,
                "attackers": {"type": "array", "items": ref("declare_creature"), "default": []},
            },
            ["declare", "players"],
        ),
    ]
}


def _refs(node) -> set[str]:
    out = set()
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str) and r.startswith("#/$defs/"):
            out.add(r[len("#/$defs/") :])
        for v in node.values():
            out |= _refs(v)
    elif isinstance(node, list):
        for v in node:
            out |= _refs(v)
    return out


def build(name: str) -> dict:
    """The schema ``name`` with every piece it uses copied into its ``$defs``."""
    body = TOP[name]
    need, todo = set(), list(_refs(body))
    while todo:
        d = todo.pop()
        if d not in need:
            need.add(d)
            todo.extend(_refs(DEFS[d]))
    out = {"$schema": DRAFT, "$id": f"urn:trample:schema:{name}", **body}
    if need:
        out["$defs"] = {k: DEFS[k] for k in DEFS if k in need}
    return out


def text(name: str) -> str:
    return json.dumps(build(name), indent=2, ensure_ascii=False) + "\n"


def main() -> None:
    for name in TOP:
        (HERE / f"{name}.json").write_text(text(name), encoding="utf-8")


if __name__ == "__main__":
    main()
