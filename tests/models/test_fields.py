"""One description of the formats (models/fields.py, issue 23): the loaders and the JSON Schemas both read the
tables, so for every object the fields the loader accepts, the fields it requires, the bounds it enforces and the
words it takes are the schema's. Each check runs the loader and a schema validator on the same documents."""

from __future__ import annotations

import copy

import jsonschema
import pytest

from trample import schemas
from trample.models import FormatError, load_scenario
from trample.models import fields as F
from trample.models.declare import load_declare_doc

SCENARIO = jsonschema.Draft202012Validator(schemas.load("scenario"))
DECLARE = jsonschema.Draft202012Validator(schemas.load("declare"))

#: A small valid scenario with one object of each kind, and where each object sits in it.
BOARD = {
    "players": [{"id": "opp", "life": 20}],
    "planeswalkers": [{"id": "pw", "controller": "opp", "loyalty": 3}],
    "battles": [{"id": "bt", "protector": "opp", "defense": 4}],
    "attackers": [{"id": "a", "power": 3, "toughness": 3, "attacking": "opp", "blocked_by": ["b"]}],
    "blockers": [{"id": "b", "power": 2, "toughness": 2}],
}
OBJECTS = [
    ("players", F.PLAYER),
    ("planeswalkers", F.PLANESWALKER),
    ("battles", F.BATTLE),
    ("attackers", F.ATTACKER),
    ("blockers", F.BLOCKER),
]
#: A valid value of each kind, to show that a field is accepted.
SAMPLE = {
    F.FieldKind.ID: "opp",
    F.FieldKind.SIGNED: -2,
    F.FieldKind.AMOUNT: 2,
    F.FieldKind.VALUE: 1.5,
    F.FieldKind.IN_COMBAT: False,
    F.FieldKind.BOOLEAN: True,
    F.FieldKind.NAMES: ["x"],
    F.FieldKind.MODIFIERS: [{"times": 2}],
    F.FieldKind.KEYWORDS: ["flying"],
}


def _loads(doc) -> bool:
    try:
        load_scenario(doc)
    except FormatError:
        return False
    return True


def _with(group: str, key: str, value) -> dict:
    doc = copy.deepcopy(BOARD)
    doc[group][0][key] = value
    return doc


def test_the_board_is_valid():
    assert _loads(BOARD) and SCENARIO.is_valid(BOARD)


@pytest.mark.parametrize(("group", "table"), OBJECTS, ids=[g for g, _ in OBJECTS])
def test_fields_accepted_and_unknown(group, table):
    defs = schemas.load("scenario")["$defs"]
    piece = defs[group[:-1]]
    assert list(piece["properties"]) == [f.name for f in table.fields]  # the schema lists the table
    assert piece["required"] == list(table.required)
    for f in table.fields:
        if f.kind in SAMPLE and f.name not in ("id", "attacking", "controller", "protector", "commander"):
            doc = _with(group, f.name, ["a"] if f.name == "shield_order" else SAMPLE[f.kind])  # names a creature
            assert _loads(doc) and SCENARIO.is_valid(doc), f.name
    doc = _with(group, "not_a_field", 1)
    assert not _loads(doc) and not SCENARIO.is_valid(doc)
    with pytest.raises(FormatError, match=rf"^{group}\[0\]\.not_a_field: unknown field$"):
        load_scenario(doc)


@pytest.mark.parametrize(("group", "table"), OBJECTS, ids=[g for g, _ in OBJECTS])
def test_required_fields(group, table):
    for name in table.required:
        doc = copy.deepcopy(BOARD)
        del doc[group][0][name]
        assert not SCENARIO.is_valid(doc)
        with pytest.raises(FormatError, match=rf"^{group}\[0\]\.{name}: required field is missing$"):
            load_scenario(doc)


@pytest.mark.parametrize(("group", "table"), OBJECTS, ids=[g for g, _ in OBJECTS])
def test_bounds(group, table):
    """Every number field: the loader and the schema take the same range (MAX_NUMBER; 0 or -MAX_NUMBER below)."""
    for f in table.fields:
        if f.kind not in (F.FieldKind.SIGNED, F.FieldKind.AMOUNT, F.FieldKind.VALUE):
            continue
        low = -F.MAX_NUMBER if f.kind is not F.FieldKind.AMOUNT else (f.minimum or 0)
        for value, ok in ((F.MAX_NUMBER, True), (F.MAX_NUMBER + 1, False), (low, True), (low - 1, False)):
            doc = _with(group, f.name, value)
            if f.name == "toughness" and value <= 0 or f.name == "loyalty" and value < 0:
                continue  # a 0-toughness creature is legal input but a different board; the bound is what we test
            assert _loads(doc) == ok == SCENARIO.is_valid(doc), (group, f.name, value)


def test_words():
    for field, bad in ((F.SCENARIO["rules"], "old"), (F.SCENARIO["step"], "second_strike")):
        for word in field.words:
            doc = {**BOARD, field.name: word}
            assert _loads(doc) and SCENARIO.is_valid(doc)
        doc = {**BOARD, field.name: bad}
        assert not _loads(doc) and not SCENARIO.is_valid(doc)
    order = F.RECEIVING["replacement_order"]
    for word in order.words:
        assert _loads(_with("players", order.name, word)) and SCENARIO.is_valid(_with("players", order.name, word))
    with pytest.raises(FormatError, match=r'^players\[0\]\.replacement_order: expected "least" or "most", got "x"$'):
        load_scenario(_with("players", order.name, "x"))


def test_declare_fields():
    """A declare document's additions (tapped, min_blockers, ..., lands, active) come from the same tables."""
    doc = {
        "declare": "blockers",
        "players": [{"id": "opp", "lands": ["island"]}],
        "attackers": [{"id": "a", "power": 2, "toughness": 2, "attacking": "opp", "min_blockers": 2}],
        "blockers": [{"id": "b", "power": 1, "toughness": 1, "tapped": True, "block_extra": 1}],
    }
    load_declare_doc(doc)
    assert DECLARE.is_valid(doc)
    defs = schemas.load("declare")["$defs"]
    for name in F.DECLARE_CREATURE.names:
        assert name in defs["declare_blocker"]["properties"] and name in defs["declare_creature"]["properties"]
    assert "summoning_sick" in defs["declare_creature"]["properties"]
    assert "summoning_sick" not in defs["declare_blocker"]["properties"]
    for value, ok in ((0, False), (1, True)):  # min_blockers: at least 1 in both
        bad = copy.deepcopy(doc)
        bad["attackers"][0]["min_blockers"] = value
        assert DECLARE.is_valid(bad) == ok
        if ok:
            load_declare_doc(bad)
        else:
            with pytest.raises(FormatError, match=r"^attackers\[0\]\.min_blockers: must be at least 1, got 0$"):
                load_declare_doc(bad)


def test_card_schemas_are_built_from_the_card_tables():
    """Cards keep their loader's code (extra fields travel), but the fields it knows are models/fields.py's CARD
    and FACE tables, and the card, face, half and Adventure schemas are written from those tables: the same
    properties, the same required fields; only a half takes aftermath (702.127a: false elsewhere), an Adventure's
    types take "adventure" too."""
    defs = schemas.load("library")["$defs"]
    assert defs["card"]["properties"] == F.CARD.properties()
    assert defs["card"]["required"] == list(F.CARD.required) == ["name", "mana_value"]
    assert defs["card"]["properties"]["double_faced"] == {"enum": list(F.DOUBLE_FACED)}
    assert defs["half"]["properties"] == F.FACE.properties()
    for piece in ("face", "half", "adventure"):
        assert list(defs[piece]["properties"]) == list(F.FACE_FIELDS), piece
        assert defs[piece]["required"] == list(F.FACE.required), piece
    assert defs["face"]["properties"]["aftermath"] is False and defs["adventure"]["properties"]["aftermath"] is False
    assert "[Aa][Dd][Vv][Ee][Nn][Tt][Uu][Rr][Ee]" in defs["adventure"]["properties"]["types"]["items"]["pattern"]
    assert "[Aa][Dd][Vv]" not in defs["face"]["properties"]["types"].get("pattern", "")
    assert F.CARD_FIELDS == tuple(f.name for f in F.CARD.fields)


def test_the_card_loader_knows_the_tables_fields():
    """A field of the CARD / FACE tables is the loader's own; any other travels unchanged (``extra``)."""
    from trample.models.cards import load_card

    card = load_card({"name": "x", "mana_value": 1, "value": 2, "oracle_text": "y", "back": {"name": "z",
                      "mana_value": 0, "flavor": 1}, "double_faced": "modal"})  # fmt: skip
    assert card.extra == (("oracle_text", '"y"'),)
    assert card.back is not None and card.back.extra == (("flavor", "1"),)
