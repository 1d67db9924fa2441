"""The declare documents and declarations as data (models/declare.py, docs/declare.md): loading, the one-line
errors naming the place (exit 2), the schemas, and the scenario a declaration turns into."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from trample import schemas
from trample.models import FormatError, load_scenario
from trample.models.declare import (
    DECLARE_KEYWORDS,
    AttackersDoc,
    Attacks,
    BlockersDoc,
    Blocks,
    load_attacks,
    load_blocks,
    load_declare_doc,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "declare"
BLOCKS = json.loads((EXAMPLES / "blocks.json").read_text(encoding="utf-8"))
ATTACKS = json.loads((EXAMPLES / "attacks.json").read_text(encoding="utf-8"))


def edited(doc: dict, path: str, value) -> dict:
    """A deep copy of doc with the value at a dotted path (list indices as numbers) set, or removed (...)."""
    out = json.loads(json.dumps(doc))
    *head, last = path.split(".")
    node = out
    for key in head:
        node = node[int(key)] if key.isdigit() else node[key]
    key = int(last) if last.isdigit() else last
    if value is ...:
        del node[key]
    else:
        node[key] = value
    return out


def test_blockers_document_loads():
    doc = load_declare_doc(BLOCKS)
    assert isinstance(doc, BlockersDoc)
    assert doc.board.step == "combat"  # both damage steps follow a declaration, unless the document says
    assert doc.of("dragon").has("flying") and doc.of("archer").has("reach")
    assert doc.of("ogre").need_blockers == 2  # 702.111b
    assert doc.of("wall").block_limit is None and doc.of("wolf").block_limit == 1
    assert doc.of("knight").tapped
    assert doc.board["ogre"].keywords == ("menace", "trample")  # carried by the scenario, without effect there
    assert doc.board["rat"].keywords == ()  # a declaration's own keyword ("lure") stays out of the scenario


def test_attackers_document_loads_and_keeps_its_own_battles_apart():
    doc = load_declare_doc(ATTACKS)
    assert isinstance(doc, AttackersDoc)
    assert doc.active == "me"
    assert doc.targets == ("opp", "jace", "invasion")  # the active player's own battle last: listed, not attackable
    assert doc.own_battles == ("invasion",)
    assert doc.of("recruit").summoning_sick and doc.of("berserker").has("haste")


def test_a_declaration_turns_into_the_scenario_every_command_reads():
    doc = load_declare_doc(BLOCKS)
    blocks = load_blocks({"rat": ["wall", "archer", "wolf"]}, doc)
    assert blocks.of == {"rat": ("archer", "wolf", "wall")}  # document order
    s = doc.scenario(blocks)
    expected = load_scenario(
        {
            "step": "combat",
            "players": [{"id": "opp", "life": 6}],
            "attackers": [
                {"id": "dragon", "power": 4, "toughness": 4, "keywords": ["flying"], "attacking": "opp"},
                {"id": "ogre", "power": 3, "toughness": 3, "keywords": ["menace", "trample"], "attacking": "opp"},
                {"id": "rat", "power": 1, "toughness": 1, "attacking": "opp", "blocked_by": ["archer", "wolf", "wall"]},
            ],
            "blockers": [
                {"id": "archer", "power": 1, "toughness": 2, "keywords": ["reach"]},
                {"id": "wolf", "power": 2, "toughness": 2},
                {"id": "wall", "power": 0, "toughness": 5, "keywords": ["defender"]},
            ],
        }
    )
    assert s == expected  # the blocker that blocks nothing (knight) is not in combat


def test_an_attack_turns_into_the_blockers_document():
    doc = load_declare_doc(ATTACKS)
    attacks = load_attacks({"berserker": "jace", "giant": "opp"}, doc)
    assert attacks == Attacks({"giant": "opp", "berserker": "jace"})
    nxt = doc.blockers_doc(attacks)
    assert [a.id for a in nxt.board.attackers] == ["giant", "berserker"]
    assert nxt.defending_player("berserker") == "opp"  # jace's controller
    assert [b.id for b in nxt.board.blockers] == ["bear", "bird"]


def test_declarations_are_equal_as_sets():
    assert Blocks({"a": ("x", "y")}) == Blocks({"a": ("y", "x")})
    assert Blocks({"a": ("x",), "b": ()}) == Blocks({"a": ("x",)})
    assert len({Blocks({"a": ("x",)}), Blocks({"a": ("x",)})}) == 1
    assert Attacks({"a": "p"}) != Attacks({"a": "q"})


BAD = [
    ({**BLOCKS, "declare": "block"}, 'declare: expected "attackers" or "blockers" (got "block")'),
    (edited(BLOCKS, "declare", ...), 'declare: expected "attackers" or "blockers" (missing)'),
    (edited(BLOCKS, "attackers.0.keywords.0", "flyin"), 'attackers[0].keywords[0]: unknown keyword "flyin"'),
    (edited(BLOCKS, "blockers.3.tapped", "yes"), 'blockers[3].tapped: expected true or false, got "yes"'),
    (edited(BLOCKS, "attackers.1.min_blockers", 0), "attackers[1].min_blockers: must be at least 1, got 0"),
    (edited(BLOCKS, "blockers.0.block_extra", -1), "blockers[0].block_extra: must not be negative, got -1"),
    (edited(BLOCKS, "blockers.0.summoning_sick", True), "blockers[0].summoning_sick: unknown field"),
    (edited(BLOCKS, "attackers.0.attacking", "nobody"), 'attackers[0].attacking: unknown id "nobody"'),
    (edited(BLOCKS, "attackers.0.power", "4"), 'attackers[0].power: expected an integer, got "4"'),
    (edited(BLOCKS, "players", []), "players: a declare document needs at least one defending player"),
    (edited(BLOCKS, "attackers.0.blocked_by", ["wolf"]), "attackers[0].blocked_by: the blocks are what a"),
    (edited(ATTACKS, "attackers.0.attacking", "opp"), "attackers[0].attacking: not declared yet"),
    (edited(ATTACKS, "players.0.lands", [3]), "players[0].lands[0]: expected a string, got 3"),
    ({**BLOCKS, "active": "opp"}, 'active: "opp" is also the id of a listed object'),
    (
        {**BLOCKS, "players": [{"id": "opp"}, {"id": "two"}]},
        "blockers[0].controller: required with more than one defending player",
    ),
]


@pytest.mark.parametrize("doc,message", BAD, ids=[m[:40] for _, m in BAD])
def test_bad_documents_name_the_place(doc, message):
    with pytest.raises(FormatError) as err:
        load_declare_doc(doc)
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    "declaration,message",
    [
        ({"zombie": ["wolf"]}, 'declaration.zombie: unknown attacker "zombie"'),
        ({"rat": "wolf"}, 'declaration.rat: expected a list, got "wolf"'),
        ({"rat": ["wolf", "wolf"]}, 'declaration.rat[1]: "wolf" is listed twice'),
        ({"rat": ["dragon"]}, 'declaration.rat[0]: unknown creature "dragon"'),
        ([], "declaration: expected an object, got a list"),
    ],
)
def test_bad_block_declarations(declaration, message):
    doc = load_declare_doc(BLOCKS)
    with pytest.raises(FormatError) as err:
        load_blocks(declaration, doc)
    assert str(err.value).startswith(message)


@pytest.mark.parametrize(
    "declaration,message",
    [
        ({"bear": "opp"}, 'declaration.bear: unknown creature "bear"'),
        ({"giant": "moon"}, 'declaration.giant: unknown id "moon"'),
        ({"giant": ["opp"]}, "declaration.giant: expected a string, got a list"),
    ],
)
def test_bad_attack_declarations(declaration, message):
    with pytest.raises(FormatError) as err:
        load_attacks(declaration, load_declare_doc(ATTACKS))
    assert str(err.value).startswith(message)


def test_schemas_accept_the_examples_and_the_declarations():
    declare = jsonschema.Draft202012Validator(schemas.load("declare"))
    declaration = jsonschema.Draft202012Validator(schemas.load("declaration"))
    for doc in (BLOCKS, ATTACKS):
        assert not list(declare.iter_errors(doc))
    assert declaration.is_valid({"rat": ["archer", "wolf"]}) and declaration.is_valid({"giant": "opp"})
    assert not declaration.is_valid({"rat": ["wolf", "wolf"]})
    for doc, _ in BAD:  # every bad document the loader rejects, the schema rejects too, except cross-references
        if doc.get("players") == [{"id": "opp"}, {"id": "two"}] or "nobody" in json.dumps(doc):
            continue  # an id that must name another object (JSON Schema cannot compare values)
        if doc.get("active") == "opp":
            continue  # the same
        assert not declare.is_valid(doc), doc


def test_schema_keywords_are_the_loaders():
    build = schemas.load("declare")["$defs"]["declare_attacker"]["properties"]["keywords"]["items"]["enum"]
    from trample.models import KEYWORDS

    assert build == [*KEYWORDS, *(k for k in DECLARE_KEYWORDS if k not in KEYWORDS)]


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.name)
def test_every_example_loads_and_validates(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert not list(jsonschema.Draft202012Validator(schemas.load("declare")).iter_errors(doc))
    load_declare_doc(doc)
