"""Libraries from real data: decklists (Arena export, plain lists, sideboards) and card data on disk (Scryfall card
objects, MTGJSON AtomicCards), layouts mapped to faces (709 split, 710 flip, 712 double-faced, 715 adventure).

The card data is tests/data/scryfall_cards.json and tests/data/mtgjson_atomic.json, written for these tests."""

import json
from collections import Counter
from pathlib import Path

import pytest

from trample.cli import main
from trample.library import discover, mill_distribution
from trample.library.decks import load_card_data, mana_value_of, parse_decklist, types_of
from trample.models.cards import load_library
from trample.models.errors import FormatError

DATA = Path(__file__).resolve().parents[1] / "data"
SCRYFALL = DATA / "scryfall_cards.json"
MTGJSON = DATA / "mtgjson_atomic.json"
DECK = DATA / "deck_arena.txt"


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def scryfall():
    return load_card_data(json.loads(SCRYFALL.read_text()), "scryfall_cards.json")


@pytest.fixture(scope="module")
def mtgjson():
    return load_card_data(json.loads(MTGJSON.read_text()), "mtgjson_atomic.json")


# ---------------------------------------------------------------------------------------------
# Decklists
# ---------------------------------------------------------------------------------------------


def test_arena_export_sections_and_set_codes():
    lines = parse_decklist(DECK.read_text(), "deck")
    main_deck = [x for x in lines if x.section == "deck"]
    side = [x for x in lines if x.section == "sideboard"]
    assert sum(x.count for x in main_deck) == 60 and sum(x.count for x in side) == 3
    first = main_deck[0]
    assert (first.count, first.name, first.set_code, first.number, first.line) == (
        4,
        "Beluna Grandsquall",
        "WOE",
        "220",
        5,
    )
    assert [x.name for x in side] == ["Wear // Tear", "Cut // Ribbons"]


def test_plain_list_blank_line_starts_the_sideboard():
    text = "4 Lightning Bolt\n4x Forest\n\n2 Fire // Ice\n"
    lines = parse_decklist(text)
    assert [(x.count, x.name, x.section) for x in lines] == [
        (4, "Lightning Bolt", "deck"),
        (4, "Forest", "deck"),
        (2, "Fire // Ice", "sideboard"),
    ]


def test_commander_block_then_deck_and_mtgo_sideboard_lines():
    text = "Commander\n1 Scalesoul Gnome\n\n1 Lightning Bolt\nSB: 1 Forest\n# a comment\n"
    lines = parse_decklist(text)
    assert [(x.name, x.section) for x in lines] == [
        ("Scalesoul Gnome", "commander"),
        ("Lightning Bolt", "deck"),
        ("Forest", "sideboard"),
    ]


def test_bad_decklist_line_names_the_line():
    with pytest.raises(FormatError, match=r"^deck.txt:2: expected a card line"):
        parse_decklist("4 Forest\nfour Forests\n", "deck.txt")


# ---------------------------------------------------------------------------------------------
# Card data
# ---------------------------------------------------------------------------------------------


def test_mana_values_of_mana_costs():  # 202.3
    assert mana_value_of("{2}{W}{U}", "c") == 4
    assert mana_value_of("{X}{R}", "c") == 1
    assert mana_value_of("{2/W}{2/W}{2/W}", "c") == 6
    assert mana_value_of("{R/W}{U/P}", "c") == 2
    assert mana_value_of("", "c") == 0
    with pytest.raises(FormatError, match=r"c: mana symbol \{HW\}"):
        mana_value_of("{HW}", "c")


def test_types_of_type_lines():  # 205.2a, 205.4a: card types and supertypes only
    assert types_of("Legendary Creature — Elf Warrior") == ("Legendary", "Creature")
    assert types_of("Basic Land — Forest") == ("Basic", "Land")
    assert types_of("Enchantment Land — Urza's Saga") == ("Enchantment", "Land")


def test_scryfall_layouts(scryfall):
    fire = scryfall.get("Fire // Ice")  # 709: halves, whole mana value combined (709.4)
    assert fire.mana_value == 4 and [(h.name, h.mana_value) for h in fire.halves] == [("Fire", 2), ("Ice", 2)]
    beluna = scryfall.get("Beluna Grandsquall")  # 715: an adventurer, found by its main name (Arena style)
    assert beluna.has_adventure and beluna.adventure.name == "Seek Thrills" and beluna.mana_value == 3
    valakut = scryfall.get("valakut awakening")  # 712.8a: front face characteristics; land back never cast
    assert valakut.double_faced == "modal" and not valakut.is_land and valakut.mana_value == 3
    assert valakut.back.is_land and [f.name for f in valakut.spell_faces()] == ["Valakut Awakening"]
    delver = scryfall.get("Delver of Secrets")  # 712.11a: transforming, only the front is cast
    assert delver.double_faced == "transform" and [f.name for f in delver.spell_faces()] == ["Delver of Secrets"]
    path = scryfall.get("Hengegate Pathway")  # a modal card with a land front is a land in the library
    assert path.is_land and path.spell_faces() == ()
    akki = scryfall.get("Akki Lavarunner")  # 710: a flip card has its unflipped characteristics
    assert akki.name == "Akki Lavarunner" and akki.mana_value == 4 and not akki.is_double_faced
    saga = scryfall.get("Urza's Saga")
    assert saga.is_land and saga.types == ("Enchantment", "Land")
    assert scryfall.get("Bruna, the Fading Light").mana_value == 7  # meld: the card as printed on its front
    assert scryfall.get("Fire/Ice") == fire and scryfall.get("FIRE /// ICE") == fire  # separators and case


def test_mtgjson_atomic_cards_match_scryfall(scryfall, mtgjson):
    for name in ("Fire // Ice", "Beluna Grandsquall", "Valakut Awakening", "Delver of Secrets", "Lightning Bolt"):
        a, b = scryfall.get(name), mtgjson.get(name)
        assert (a.name, a.mana_value, a.types, a.spell_faces(), a.is_land) == (
            b.name,
            b.mana_value,
            b.types,
            b.spell_faces(),
            b.is_land,
        ), name
    assert mtgjson.get("Forest").is_land


def test_bad_card_data_names_the_place():
    with pytest.raises(FormatError, match=r"^cards\[1\]: expected a Scryfall card object"):
        load_card_data([{"name": "A", "cmc": 1}, 3], "cards")
    data = load_card_data([{"name": "A", "cmc": 0.5}], "cards")  # kept, refused only when a deck uses it
    assert data.get("A") is None and "cards[0].cmc: mana value 0.5 is not a whole number" in str(data.lookup("A"))
    with pytest.raises(FormatError, match="expected Scryfall card objects"):
        load_card_data("nope", "cards")


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def test_cli_from_deck_feeds_seek_thrills(capsys, tmp_path):  # the Arena export -> a library -> 701.17 exactly
    code, out, err = cli(capsys, "library", "from-deck", DECK, "--cards", SCRYFALL)
    assert code == 0 and err == ""
    library = load_library(out)
    assert len(library) == 60
    names = Counter(c.name for c in library)
    assert names["Beluna Grandsquall // Seek Thrills"] == 4 and names["Mountain"] == 11
    path = tmp_path / "lib.json"
    path.write_text(out)
    code, out, _ = cli(capsys, "seek-thrills", path, "--distribution")
    res = json.loads(out)
    adventurers = sum(1 for c in library if c.has_adventure)
    assert code == 0 and res["adventurers_in_library"] == adventurers == 8
    assert res["expected_adventurers"]["exact"] == str(mill_distribution(library, 7).expected_adventurers)
    # the modal card is a nonland card in the library; discover casts its front, never its land back
    _, event = discover([c for c in library if c.name.startswith("Valakut")], 3, 0)
    assert event.cast_face == "Valakut Awakening"


def test_cli_from_deck_sideboard_and_seed(capsys):
    code, out, _ = cli(capsys, "library", "from-deck", DECK, "--cards", SCRYFALL, "--sideboard", "--seed", 5)
    cards = json.loads(out)["cards"]
    assert code == 0 and len(cards) == 63
    code, again, _ = cli(capsys, "library", "from-deck", DECK, "--cards", SCRYFALL, "--sideboard", "--seed", 5)
    assert again == out  # a seed is the same order every time


def test_cli_unknown_card_names_the_line(capsys, tmp_path):
    deck = tmp_path / "deck.txt"
    deck.write_text("Deck\n4 Lightning Bolt\n2 Lightning Blot\n")
    code, out, err = cli(capsys, "library", "from-deck", deck, "--cards", SCRYFALL)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{deck}:3: unknown card 'Lightning Blot'" in err


def test_cli_from_deck_with_mtgjson(capsys, tmp_path):
    deck = tmp_path / "deck.txt"
    deck.write_text("2 Fire // Ice\n1 Valakut Awakening\n3 Forest\n")
    code, out, _ = cli(capsys, "library", "from-deck", deck, "--cards", MTGJSON)
    assert code == 0 and [c["name"] for c in json.loads(out)["cards"]].count("Forest") == 3
