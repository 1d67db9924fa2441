"""Real card files and decklists (issues 22 and 24): Un-cards, art cards, tokens, double-faced tokens, emblems,
aftermath (702.127a), MTGJSON AllPrintings and set files, MTGO .dek, Cockatrice .cod, XMage, Archidekt and
TappedOut lines; and the loaders' contract: one line naming the file, the card and the field, exit 2, bounded.

The fixtures are tests/data/scryfall_real.json (a Scryfall list object), mtgjson_allprintings.json,
mtgjson_set_isd.json, deck_mtgo.dek and deck_cockatrice.cod, written for these tests in the shapes of the real
files."""

import json
from pathlib import Path

import pytest

from trample.cli import main
from trample.library import discover, discover_distribution
from trample.library.decks import MAX_LIBRARY, library_from_deck, load_card_data, mana_value_of, parse_decklist
from trample.library.transforms import check_face
from trample.models.cards import load_card, load_library, load_state
from trample.models.errors import FormatError

DATA = Path(__file__).resolve().parents[1] / "data"
SCRYFALL = DATA / "scryfall_real.json"
ALLPRINTINGS = DATA / "mtgjson_allprintings.json"
SET_FILE = DATA / "mtgjson_set_isd.json"
DEK = DATA / "deck_mtgo.dek"
COD = DATA / "deck_cockatrice.cod"


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def from_deck(capsys, tmp_path, deck_text: str, cards, *extra):
    deck = tmp_path / "deck.txt"
    deck.write_text(deck_text)
    if not isinstance(cards, Path):
        path = tmp_path / "cards.json"
        path.write_text(json.dumps(cards))
        cards = path
    return cli(capsys, "library", "from-deck", deck, "--cards", cards, *extra)


def one_line_error(code, out, err, *parts):
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    for p in parts:
        assert p in err, (p, err)


@pytest.fixture(scope="module")
def scryfall():
    return load_card_data(json.loads(SCRYFALL.read_text()), "scryfall_real.json")


@pytest.fixture(scope="module")
def allprintings():
    return load_card_data(json.loads(ALLPRINTINGS.read_text()), "mtgjson_allprintings.json")


# ---------------------------------------------------------------------------------------------
# Un-cards: a half mana value anywhere in the file never rejects it
# ---------------------------------------------------------------------------------------------


def test_half_mana_card_in_the_file_does_not_reject_a_deck_without_it(capsys, tmp_path):  # issue 22
    code, out, err = from_deck(capsys, tmp_path, "2 Lightning Bolt\n1 Forest\n", SCRYFALL)
    assert code == 0 and err == ""
    assert [c.name for c in load_library(out)] == ["Lightning Bolt", "Lightning Bolt", "Forest"]


def test_half_mana_card_used_is_one_line_naming_the_card_and_field(capsys, tmp_path):  # 202.3: whole mana values
    code, out, err = from_deck(capsys, tmp_path, "2 Lightning Bolt\n1 Little Girl\n", SCRYFALL)
    one_line_error(
        code, out, err, "deck.txt:2: card 'Little Girl' cannot be used", "scryfall_real.json.data[5].cmc", "0.5"
    )


def test_cmc_null_is_read_from_the_mana_cost(scryfall):  # 202.3
    card = scryfall.get("Reversible Sprout")
    assert card.mana_value == 2 and card.types == ("Creature",)


def test_half_mana_in_mtgjson_is_kept_for_the_deck_that_uses_it(allprintings):
    assert allprintings.get("Little Girl") is None
    assert "manaValue: mana value 0.5 is not a whole number" in str(allprintings.lookup("Little Girl"))


# ---------------------------------------------------------------------------------------------
# Objects that are not cards: art cards, tokens, double-faced tokens, emblems
# ---------------------------------------------------------------------------------------------


def test_art_card_and_tokens_never_answer_to_a_card_name(scryfall, allprintings):  # 111.1: tokens are not cards
    for data in (scryfall, allprintings):
        card = data.get("Chillerpillar")  # the art card and the double-faced token come first in both files
        assert (card.name, card.mana_value, card.types) == ("Chillerpillar", 4, ("Creature",))
        assert data.get("Insect") is None
    assert scryfall.get("Ajani Emblem") is None


def test_unknown_name_says_the_file_has_only_a_token_of_it(capsys, tmp_path):
    code, out, err = from_deck(capsys, tmp_path, "1 Insect\n", SCRYFALL)
    one_line_error(code, out, err, "deck.txt:1: unknown card 'Insect' (only a token of that name in")
    code, out, err = from_deck(capsys, tmp_path, "1 Ajani Emblem\n", SCRYFALL)
    one_line_error(code, out, err, "only an emblem of that name")


def test_memorabilia_printing_only_when_there_is_no_other():
    art = {"object": "card", "name": "Gold Bolt", "set_type": "memorabilia", "cmc": 1, "type_line": "Instant"}
    real = {"object": "card", "name": "Gold Bolt", "set_type": "core", "cmc": 2, "type_line": "Instant"}
    assert load_card_data([art, real]).get("Gold Bolt").mana_value == 2  # the tournament printing wins
    assert load_card_data([art]).get("Gold Bolt").mana_value == 1  # alone, the reprint still gives the card


# ---------------------------------------------------------------------------------------------
# MTGJSON AllPrintings and set files
# ---------------------------------------------------------------------------------------------


def test_mtgjson_allprintings_loads(allprintings):
    delver = allprintings.get("Delver of Secrets")  # 712.11a: a transforming card, only the front is cast
    assert delver.double_faced == "transform" and [f.name for f in delver.spell_faces()] == ["Delver of Secrets"]
    assert allprintings.get("Forest").is_land and allprintings.get("Forest").types == ("Basic", "Land")


def test_mtgjson_set_file_loads(capsys, tmp_path):
    data = load_card_data(json.loads(SET_FILE.read_text()), "set")
    assert data.get("Delver of Secrets").back.name == "Insectile Aberration"
    code, out, _ = from_deck(capsys, tmp_path, "4 Delver of Secrets\n2 Forest\n", SET_FILE)
    assert code == 0 and len(load_library(out)) == 6


def test_mtgjson_set_without_cards_names_the_set():
    with pytest.raises(FormatError, match=r"^c.data.ISD: expected an MTGJSON set with cards"):
        load_card_data({"data": {"ISD": {"code": "ISD"}}}, "c")
    with pytest.raises(FormatError, match=r"^c.data.ISD.cards: expected a list of MTGJSON card objects"):
        load_card_data({"data": {"ISD": {"cards": 5}}}, "c")


# ---------------------------------------------------------------------------------------------
# Aftermath (702.127a)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", [SCRYFALL, ALLPRINTINGS, DATA / "scryfall_cards.json"])
def test_aftermath_half_is_marked_from_the_card_data(source):  # 702.127a
    card = load_card_data(json.loads(source.read_text()), "c").get("Cut // Ribbons")
    assert [(h.name, h.mana_value, h.aftermath) for h in card.halves] == [("Cut", 2, False), ("Ribbons", 2, True)]
    assert card.mana_value == 4  # 709.4: the combined mana value
    assert [f.name for f in card.spell_faces()] == ["Cut"]


def test_discover_never_casts_an_aftermath_half_from_exile(scryfall):  # 702.127a, 701.57a
    card = scryfall.get("Cut // Ribbons")
    _, event = discover([card], 4, 0)
    assert event.castable_faces == ("Cut",) and event.cast_face == "Cut"
    with pytest.raises(FormatError, match=r"^face: Ribbons has aftermath: it is cast only from a graveyard"):
        check_face(card, "Ribbons", 4)
    dist = discover_distribution([card], 4)
    assert dict(dist.cast_mana_value) == {2: 1}


def test_aftermath_card_json_round_trip_and_stack():  # 702.127a: a Ribbons on the stack was cast from a graveyard
    doc = {
        "name": "Cut // Ribbons",
        "mana_value": 4,
        "types": ["Sorcery"],
        "halves": [{"name": "Cut", "mana_value": 2}, {"name": "Ribbons", "mana_value": 2, "aftermath": True}],
    }
    card = load_card(doc)
    assert card.to_json() == doc and load_card(card.to_json()) == card
    state = load_state({"stack": [{"card": doc, "face": "Ribbons"}]})
    assert state.stack[0].mana_value == 2
    with pytest.raises(FormatError, match=r"^card.back.aftermath: only a split card's half has aftermath"):
        back = {"name": "B", "mana_value": 1, "aftermath": True}
        load_card({"name": "X", "mana_value": 1, "back": back, "double_faced": "modal"})
    with pytest.raises(FormatError, match=r"^card.halves\[1\].aftermath: expected true or false"):
        load_card({**doc, "halves": [doc["halves"][0], {"name": "Ribbons", "mana_value": 2, "aftermath": 1}]})


# ---------------------------------------------------------------------------------------------
# Decklists
# ---------------------------------------------------------------------------------------------

EXPECTED_MAIN = ["Chillerpillar"] * 4 + ["Lightning Bolt"] * 3 + ["Forest"] * 2


@pytest.mark.parametrize("deck", [DEK, COD], ids=["mtgo-dek", "cockatrice-cod"])
def test_xml_decklists(capsys, deck):
    lines = parse_decklist(deck.read_text(), deck.name)
    assert [(x.name, x.section) for x in lines if x.section != "deck"] == [("Cut // Ribbons", "sideboard")]
    code, out, err = cli(capsys, "library", "from-deck", deck, "--cards", SCRYFALL)
    assert code == 0 and err == "" and [c.name for c in load_library(out)] == EXPECTED_MAIN
    code, out, _ = cli(capsys, "library", "from-deck", deck, "--cards", SCRYFALL, "--sideboard")
    assert [c.name for c in load_library(out)] == EXPECTED_MAIN + ["Cut // Ribbons"]


def test_xml_decklist_with_entities_is_refused():  # no entity expansion (billion laughs)
    text = '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaa">]><Deck><Cards Quantity="1" Name="&a;"/></Deck>'
    with pytest.raises(FormatError, match=r"^d.dek: an XML decklist with a DOCTYPE or entities is not read"):
        parse_decklist(text, "d.dek")
    with pytest.raises(FormatError, match=r"^d.dek:2: not well-formed XML"):
        parse_decklist('<Deck>\n<Cards Quantity="1" Name="X"></Deck>\n', "d.dek")
    with pytest.raises(FormatError, match=r"^d.dek:1: at most 10000 copies"):
        parse_decklist('<Deck><Cards Quantity="100000000" Name="X"/></Deck>', "d.dek")


def test_xmage_archidekt_tappedout_moxfield_lines():
    text = (
        "NAME:Fixture\n"
        "4 [DSK:50] Chillerpillar\n"  # XMage
        "SB: 1 [AKH:223] Cut // Ribbons\n"
        "1x Lightning Bolt (m11) 149 [Removal]\n"  # Archidekt
        "1x Forest (woe) 276 *F* [Land] ^Have,#37d67a^\n"
        "1x Little Girl (unh) 16 [Maybeboard{noDeck}{noPrice}]\n"
        "1x Scalesoul Gnome (alc) 1 [Commander{top}]\n"
        "1 Lightning Bolt *CMDR*\n"  # TappedOut
        "2 Forest (WOE) 276 *F*\n"  # Moxfield
    )
    lines = parse_decklist(text, "d")
    got = [(x.count, x.name, x.section, x.set_code, x.number) for x in lines]
    assert got == [
        (4, "Chillerpillar", "deck", "DSK", "50"),
        (1, "Cut // Ribbons", "sideboard", "AKH", "223"),
        (1, "Lightning Bolt", "deck", "m11", "149"),
        (1, "Forest", "deck", "woe", "276"),
        (1, "Little Girl", "maybeboard", "unh", "16"),
        (1, "Scalesoul Gnome", "commander", "alc", "1"),
        (1, "Lightning Bolt", "commander", None, None),
        (2, "Forest", "deck", "WOE", "276"),
    ]


def test_tappedout_commander_is_not_in_the_library(capsys, tmp_path):
    code, out, _ = from_deck(capsys, tmp_path, "1x Chillerpillar *CMDR*\n3x Lightning Bolt\n", SCRYFALL)
    assert code == 0 and [c.name for c in load_library(out)] == ["Lightning Bolt"] * 3


def test_every_unknown_card_is_reported_in_one_line(capsys, tmp_path):
    deck = "4 Lightning Blot\n2 Forest\n1 Chillerpilar\n\n1 Cut and Ribbons\n"
    code, out, err = from_deck(capsys, tmp_path, deck, SCRYFALL)
    one_line_error(
        code,
        out,
        err,
        "deck.txt:1: 3 unknown cards",
        "'Lightning Blot' (line 1)",
        "'Chillerpilar' (line 3)",
        "'Cut and Ribbons' (line 5)",
    )


# ---------------------------------------------------------------------------------------------
# Issue 24, item 9: the traceback classes of from-deck, each a one-line error naming file, card and field
# ---------------------------------------------------------------------------------------------

HOSTILE = [
    ("card_faces-5", [{"name": "X", "card_faces": 5}], "cards.json[0].card_faces: expected a list of card faces"),
    ("layout-list", [{"name": "X", "layout": [], "cmc": 1}], "cards.json[0].layout: expected text"),
    ("mana_cost-5", [{"name": "X", "mana_cost": 5}], "cards.json[0].mana_cost: expected text, got 5"),
    ("mana-P/P", [{"name": "X", "mana_cost": "{P/P}"}], "cards.json[0].mana_cost: mana symbol {P/P}"),
    ("mana-superscript", [{"name": "X", "mana_cost": "{²}"}], "cards.json[0].mana_cost: mana symbol {²}"),
    ("cmc-1e308", [{"name": "X", "cmc": 1e308}], "cards.json[0].cmc: a mana value is from 0 to 1000000"),
    ("cmc-string", [{"name": "X", "cmc": "3"}], "cards.json[0].cmc: expected a mana value (a number)"),
    ("face-name-5", [{"name": "X", "card_faces": [{"name": 5}]}], "cards.json[0].card_faces[0].name"),
    ("type_line-5", [{"name": "X", "cmc": 1, "type_line": 5}], "cards.json[0].type_line: expected a type line"),
    ("keywords-5", [{"name": "X", "cmc": 1, "keywords": 5}], "cards.json[0].keywords: expected a list of words"),
    (
        "mtgjson-type-5",
        {"data": {"X": [{"name": "X", "manaValue": 1, "type": 5}]}},
        "cards.json.data.X[0].type: expected a type line",
    ),
    (
        "mtgjson-supertypes-5",
        {"data": {"X": [{"name": "X", "manaValue": 1, "supertypes": 5}]}},
        "cards.json.data.X[0].supertypes: expected a list of words",
    ),
    (
        "mtgjson-types-items",
        {"data": {"X": [{"name": "X", "manaValue": 1, "types": [5]}]}},
        "cards.json.data.X[0].types[0]: expected a word",
    ),
    (
        "mtgjson-set-type-5",
        {"data": {"S": {"cards": [{"name": "X", "manaValue": 1, "type": 5}]}}},
        "cards.json.data.S.cards[0].type: expected a type line",
    ),
    ("mana-5000-digits", [{"name": "X", "mana_cost": "{" + "9" * 5000 + "}"}], "cards.json[0].mana_cost: mana symbol"),
    ("mana-too-large", [{"name": "X", "mana_cost": "{999999}{9}{9}"}], "a mana value is at most 1000000"),
    ("unread-mana_cost-5", [{"name": "X", "cmc": 1, "mana_cost": 5}], "cards.json[0].mana_cost: expected text"),
    ("set_type-list", [{"name": "X", "cmc": 1, "set_type": []}], "cards.json[0].set_type: expected text"),
    (
        "faces-type_line-5",
        [{"name": "X", "cmc": 1, "type_line": 5, "card_faces": [{"name": "X", "cmc": 1}]}],
        "cards.json[0].type_line: expected a type line",
    ),
    (
        "mtgjson-unread-type-5",
        {"data": {"X": [{"name": "X", "manaValue": 1, "types": ["Instant"], "type": 5}]}},
        "cards.json.data.X[0].type: expected a type line",
    ),
]


@pytest.mark.parametrize("cards,message", [r[1:] for r in HOSTILE], ids=[r[0] for r in HOSTILE])
def test_hostile_card_data_is_one_line_when_used_and_harmless_when_not(capsys, tmp_path, cards, message):
    code, out, err = from_deck(capsys, tmp_path, "1 X\n", cards)
    one_line_error(code, out, err, "deck.txt:1: card 'X' cannot be used", message)
    if isinstance(cards, list):  # the same object beside the cards a deck uses: never rejects the file
        good = {"name": "Lightning Bolt", "cmc": 1, "type_line": "Instant"}
        code, out, err = from_deck(capsys, tmp_path, "1 Lightning Bolt\n", [*cards, good])
        assert code == 0 and err == "" and load_library(out)[0].name == "Lightning Bolt"


@pytest.mark.parametrize(
    "cards,message",
    [
        (5, "cards.json: expected Scryfall card objects"),
        ([5], "cards.json[0]: expected a Scryfall card object, got 5"),
        ([{"name": 5}], "cards.json[0].name: expected a card name"),
        ({"data": {"X": 5}}, "cards.json.data.X: expected a list of MTGJSON card objects"),
        ({"data": {"X": [5]}}, "cards.json.data.X[0]: expected an MTGJSON card object"),
        ({"data": {"cards": [{"name": []}]}}, "cards.json.data.cards[0].name: expected a card name"),
    ],
)
def test_a_file_that_is_not_card_data_is_refused_whole(capsys, tmp_path, cards, message):
    one_line_error(*from_deck(capsys, tmp_path, "1 X\n", cards), message)


def test_5000_digit_count_and_huge_copies_are_one_line(capsys, tmp_path):  # issue 24: no traceback, no OOM
    code, out, err = from_deck(capsys, tmp_path, "9" * 5000 + " Lightning Bolt\n", SCRYFALL)
    one_line_error(code, out, err, "deck.txt:1: a decklist line has at most 1000 characters")
    code, out, err = from_deck(capsys, tmp_path, "9" * 900 + " Lightning Bolt\n", SCRYFALL)
    one_line_error(code, out, err, "deck.txt:1: at most 10000 copies of a card, got 99999999999999999999...")
    code, out, err = from_deck(capsys, tmp_path, "100000000 Lightning Bolt\n", SCRYFALL)
    one_line_error(code, out, err, "deck.txt:1: at most 10000 copies of a card, got 100000000")
    deck = f"{MAX_LIBRARY} Lightning Bolt\n1 Forest\n"
    code, out, err = from_deck(capsys, tmp_path, deck, SCRYFALL)
    one_line_error(code, out, err, f"deck.txt: a library has at most {MAX_LIBRARY} cards, the decklist gives 10001")


def test_long_decklist_line_is_refused_quickly():  # linear time: no regular-expression backtracking
    with pytest.raises(FormatError, match=r"^d:1: a decklist line has at most 1000 characters"):
        parse_decklist("4 " + " " * 10**6 + "x\n", "d")


def test_mana_value_of_symbols():  # 202.3; symbols without a whole value are refused, never a traceback
    assert mana_value_of("{W/U/P}{2/W}{C/W}", "c") == 4
    for cost in ("{P/P}", "{²}", "{½}", "{∞}", "{HW}", "{}", "{W//U}"):
        with pytest.raises(FormatError, match=r"^c: mana symbol"):
            mana_value_of(cost, "c")


def test_from_deck_time_limit_option(capsys, tmp_path):  # issue 24: --time-limit on every command
    code, out, _ = from_deck(capsys, tmp_path, "1 Forest\n", SCRYFALL, "--time-limit", "30")
    assert code == 0 and load_library(out)[0].name == "Forest"
    one_line_error(*from_deck(capsys, tmp_path, "1 Forest\n", SCRYFALL, "--time-limit", "nope"), "--time-limit")


def test_library_from_deck_api_reports_unusable_after_unknown():
    data = load_card_data(json.loads(SCRYFALL.read_text()), "c")
    lines = parse_decklist("1 Little Girl\n1 Forest\n")
    with pytest.raises(FormatError, match=r"^decklist:1: card 'Little Girl' cannot be used: c.data\[5\].cmc"):
        library_from_deck(lines, data)
    assert len(library_from_deck(parse_decklist("1 Little Girl\n1 Forest\n"), data, sections=("sideboard",))) == 0


@pytest.mark.parametrize("where", ["card", "face"])
def test_value_1e308_is_refused_before_the_gnome_runs(capsys, tmp_path, where):  # issue 24 item 7
    card = {"name": "Fire // Ice", "mana_value": 4, "types": ["Instant"]}
    halves = [{"name": "Fire", "mana_value": 2}, {"name": "Ice", "mana_value": 2}]
    if where == "card":
        card["value"] = 1e308
    else:
        halves[1]["value"] = 1e308
    card["halves"] = halves
    board = {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [{"id": "gnome", "power": 4, "toughness": 5, "keywords": ["trample"], "attacking": "opp"}],
    }
    (tmp_path / "b.json").write_text(json.dumps(board))
    (tmp_path / "l.json").write_text(json.dumps({"cards": [card, card]}))
    code, out, err = cli(capsys, "gnome", tmp_path / "b.json", tmp_path / "l.json")
    path = "cards[0].value" if where == "card" else "cards[0].halves[1].value"
    one_line_error(code, out, err, f"{path}: must be at most 1000000")
    card.pop("value", None)
    halves[1]["value"] = 1_000_000  # the largest value: exact, no overflow
    (tmp_path / "l.json").write_text(json.dumps({"cards": [card, card]}))
    code, out, err = cli(capsys, "gnome", tmp_path / "b.json", tmp_path / "l.json")
    assert code == 0 and json.loads(out)["best"]["score"]["exact"] == "1000004"  # Ice + the duplicate (4)


def test_mtgjson_entries_of_one_name_keep_at_most_16_sides():  # linear-time loading: hostile sides are capped
    entries = [
        {"name": "X", "faceName": f"F{i}", "side": f"s{i}", "manaValue": 1, "faceManaValue": 1, "layout": "split"}
        for i in range(30_000)
    ]
    for data in ({"data": {"cards": entries}}, {"data": {"X": entries}}):
        card = load_card_data(data, "c").get("X")
        assert len(card.halves) == 16 and card.halves[0].name == "F0"
