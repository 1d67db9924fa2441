"""Builds the JSON Schemas shipped in this folder (``python -m trample.schemas._build`` rewrites the files).

The schemas are data files (``*.json`` next to this module); this builder is how they are written. The input
formats are described once, in :mod:`trample.models.fields` (every field of a player, a planeswalker, a battle,
a creature, a scenario, a declare document, a card and its faces: its kind, bounds, default, words, whether it is
required) and
:mod:`trample.models.keywords` (the keyword table): the loaders read documents by those tables and this builder
writes the same tables as JSON Schema, so a new field is written once. ``tests/models/test_schemas.py`` checks that the
files on disk are exactly what this module builds.

Every schema is self-contained: the pieces it uses are copied into its own ``$defs``, so ``trample schema NAME``
prints a document that any JSON Schema (draft 2020-12) validator can use alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..models import fields as F
from ..models.keywords import ALL_KEYWORDS, NEEDS_FIELD
from ..models.vocabulary import DamageOrder, DeclareKind, ObjectiveKind, Side, words

DRAFT = "https://json-schema.org/draft/2020-12/schema"
HERE = Path(__file__).resolve().parent

# The loaders' own tables (models/fields.py, models/keywords.py, models/vocabulary.py), not copies.
MAX_NUMBER = F.MAX_NUMBER
KEYWORDS = list(ALL_KEYWORDS)
DAMAGE_ORDERS = list(words(DamageOrder))
CARD_WORDS = list(F.CARD_WORDS)
OBJECTIVES = list(words(ObjectiveKind))


def ref(name: str) -> dict:
    return {"$ref": f"#/$defs/{name}"}


def closed(properties: dict[str, Any], required: Sequence[str] = (), **more: Any) -> dict[str, Any]:
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


def face_piece(description: str, *, half: bool = False, types: dict | None = None) -> dict[str, Any]:
    """A face of a card (models/fields.py ``FACE``): an Adventure's ``types`` take "adventure" too; only a split
    card's half takes ``aftermath`` (702.127a), the other faces forbid it (``false``)."""
    properties = F.FACE.properties()
    if types is not None:
        properties["types"] = types
    if not half:
        properties["aftermath"] = False
    return {"type": "object", "properties": properties, "required": list(F.FACE.required), "description": description}


#: Fields of anything that can be dealt damage (docs/effects.md): prevention, protection, modifiers, their order.
RECEIVING = F.RECEIVING.properties()
#: models/keywords.py NEEDS_FIELD: a keyword that says too little alone is accepted only beside its field.
KEYWORD_NEEDS_FIELD = [
    {
        "if": {"properties": {"keywords": {"contains": {"const": keyword}}}, "required": ["keywords"]},
        "then": {
            "required": [field],
            "properties": {field: {"minimum": 1} if field == "toxic" else {"minItems": 1}},
        },
    }
    for keyword, (field, _) in NEEDS_FIELD.items()
]
#: Fields of a creature as a source of damage (docs/effects.md).
CREATURE_EFFECTS = F.CREATURE_EFFECTS.properties()

#: One objective of ``--objective`` (max-damage takes a weighting after a colon).
ONE_OBJECTIVE = (
    r"\s*("
    + "|".join(w + (r"(:[^,]*[^,\s][^,]*)?" if w == ObjectiveKind.MAX_DAMAGE else "") for w in OBJECTIVES)
    + r")\s*"
)

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
    "player": closed(F.PLAYER.properties(), F.PLAYER.required),
    "planeswalker": closed(F.PLANESWALKER.properties(), F.PLANESWALKER.required),
    "battle": closed(F.BATTLE.properties(), F.BATTLE.required),
    "attacker": closed(
        F.ATTACKER.properties(),
        F.ATTACKER.required,
        allOf=[
            {
                "if": {"properties": {"blocked": {"const": False}}, "required": ["blocked"]},
                "then": {"properties": {"blocked_by": {"maxItems": 0}}},
            },
            *KEYWORD_NEEDS_FIELD,
        ],
    ),
    "blocker": closed(F.BLOCKER.properties(), F.BLOCKER.required, allOf=KEYWORD_NEEDS_FIELD),
    "scenario": closed(F.SCENARIO.properties(), F.SCENARIO.required),
    "one_step_scenario": {
        "allOf": [ref("scenario"), {"properties": {"step": {"enum": list(F.ONE_STEP)}}}],
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
    "face": face_piece("The back face of a double-faced card. Further fields travel unchanged."),
    "half": face_piece("A half of a split card. Further fields travel unchanged.", half=True),
    "adventure": face_piece(
        'The Adventure face ("Adventure" is accepted among its types). Further fields travel unchanged.',
        types={"type": "array", "items": {"type": "string", "pattern": card_type_pattern(["adventure"])}},
    ),
    "card": {
        "type": "object",
        "properties": F.CARD.properties(),
        "required": list(F.CARD.required),
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
                        "hashed": {
                            "type": "integer",
                            "minimum": 0,
                            "description": "Present when a run stopped before drawing every generated board: the "
                            "hash is of the first `hashed` boards (the suite of --n hashed).",
                        },
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
        "description": "Blocks {attacker id: [blocker ids]} or attacks {creature id: what it attacks}; a member of "
        'an attacking band {"attacking": id, "band": label} (the creatures with one label are one band).',
        "type": "object",
        "additionalProperties": {
            "oneOf": [
                {"type": "array", "items": ref("id"), "uniqueItems": True},
                ref("id"),
                closed({"attacking": ref("id"), "band": ref("id")}, ["attacking", "band"]),
            ],
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
            "side": {"enum": [Side.ATTACKING.value, Side.DEFENDING.value]},
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
_DECLARE_CREATURE = F.DECLARE_CREATURE.properties()


def _declare(creature: dict, drop: Sequence[str], add: dict, required: Sequence[str]) -> dict:
    props = {k: v for k, v in creature["properties"].items() if k not in drop}
    return closed({**props, **_DECLARE_CREATURE, **add}, required)


DEFS.update(
    {
        "declare_attacker": _declare(
            DEFS["attacker"],
            ["blocked_by", "blocked"],
            F.DECLARE_DECLARED.properties(),
            ["id", "power", "toughness", "attacking"],
        ),
        "declare_creature": _declare(
            DEFS["attacker"],
            ["blocked_by", "blocked", "attacking"],
            F.DECLARE_ATTACKER_EXTRA.properties(),
            ["id", "power", "toughness"],
        ),
        "declare_blocker": _declare(DEFS["blocker"], [], {}, ["id", "power", "toughness"]),
        "declare_player": closed(
            {**DEFS["player"]["properties"], **F.DECLARE_PLAYER.properties()},
            F.PLAYER.required,
        ),
        "declare_planeswalker": closed(
            {**DEFS["planeswalker"]["properties"], **F.DECLARE_PLANESWALKER.properties()},
            F.PLANESWALKER.required,
        ),
    }
)
_DECLARE_TOP = {
    "active": F.DECLARE_TOP["active"].to_schema(),
    "mana": F.DECLARE_TOP["mana"].to_schema(),
    "rules": DEFS["scenario"]["properties"]["rules"],
    "step": {**DEFS["scenario"]["properties"]["step"], "default": "combat"},
    "players": {"type": "array", "items": ref("declare_player"), "minItems": 1},
    "planeswalkers": {**DEFS["scenario"]["properties"]["planeswalkers"], "items": ref("declare_planeswalker")},
    "battles": DEFS["scenario"]["properties"]["battles"],
    "blockers": {"type": "array", "items": ref("declare_blocker"), "default": []},
    "players_in_game": DEFS["scenario"]["properties"]["players_in_game"],
}
DEFS["declare_document"] = {
    "oneOf": [
        closed(
            {
                "declare": {"const": DeclareKind.BLOCKERS.value},
                **_DECLARE_TOP,
                "attackers": {"type": "array", "items": ref("declare_attacker"), "default": []},
            },
            ["declare", "players"],
        ),
        closed(
            {
                "declare": {"const": DeclareKind.ATTACKERS.value},
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
