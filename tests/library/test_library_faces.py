"""Cards as printed (split 709, adventure 715, double-faced 712, lands 305), mill replacements and variants, and the
regressions found on real cards. Each test names its rule in a comment."""

import itertools
import json
from collections import Counter
from fractions import Fraction
from math import factorial

import pytest
from boards import BOLT, DELVER, VALAKUT
from hypothesis import given
from hypothesis import strategies as st

from trample.cli import main
from trample.library import discover, discover_distribution, mill, mill_distribution, seek_thrills
from trample.models.cards import GameState, Spell, load_card, load_library
from trample.models.errors import FormatError

SEA_GATE = {  # a modal card whose back is a cheaper spell? No: its back is a land; the front costs 7
    "name": "Sea Gate Restoration // Sea Gate, Reborn",
    "mana_value": 7,
    "types": ["Sorcery"],
    "back": {"name": "Sea Gate, Reborn", "mana_value": 0, "types": ["Land"]},
    "double_faced": "modal",
}
MODAL_SPELLS = {  # two spell faces (a made-up modal card: the rules allow casting either face, 712.11)
    "name": "Front Spell // Back Spell",
    "mana_value": 4,
    "types": ["Sorcery"],
    "back": {"name": "Back Spell", "mana_value": 2, "types": ["Instant"]},
    "double_faced": "modal",
}
FIRE_ICE = {
    "name": "Fire // Ice",
    "mana_value": 4,
    "types": ["Instant"],
    "halves": [{"name": "Fire", "mana_value": 2}, {"name": "Ice", "mana_value": 2}],
}
LAND_HALF = {  # a land written as a split card's half
    "name": "Valakut Awakening // Valakut Stoneforge",
    "mana_value": 3,
    "halves": [
        {"name": "Valakut Awakening", "mana_value": 3, "types": ["Instant"]},
        {"name": "Valakut Stoneforge", "mana_value": 0, "types": ["Land"]},
    ],
}
FOREST = {"name": "Forest", "mana_value": 0, "types": ["Basic", "Land"]}
GIANT = {
    "name": "Bonecrusher Giant // Stomp",
    "mana_value": 3,
    "types": ["Creature"],
    "adventure": {"name": "Stomp", "mana_value": 2, "types": ["Instant", "Adventure"]},
}


def lib(*cards):
    return load_library({"cards": list(cards)})


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------------------------------------
# Faces
# ---------------------------------------------------------------------------------------------


def test_modal_card_in_library_has_front_characteristics():  # 712.8a: front face only outside the stack
    card = load_card(VALAKUT)
    assert not card.is_land and card.mana_value == 3 and card.is_double_faced
    assert [f.name for f in card.faces()] == ["Valakut Awakening", "Valakut Stoneforge"]
    assert [f.name for f in card.spell_faces()] == ["Valakut Awakening"]  # 305.9: the land face is never cast


def test_land_face_is_never_cast_by_discover():  # 305.1, 305.9, 701.57a
    state, event = discover(lib(FOREST, VALAKUT), 3, 1)
    assert event.hit.name.startswith("Valakut") and event.cast_face == "Valakut Awakening"
    assert state.stack == (Spell(load_card(VALAKUT), "Valakut Awakening"),)
    with pytest.raises(FormatError, match=r"land face: lands are played, never cast \(305.1, 305.9\)"):
        discover(lib(VALAKUT), 3, 1, face="Valakut Stoneforge")


def test_land_half_of_a_split_card_is_not_castable():  # 305.9: a land written as a split card's half
    card = load_card(LAND_HALF)
    assert [f.name for f in card.spell_faces()] == ["Valakut Awakening"]
    with pytest.raises(FormatError, match="305.9"):
        discover(lib(LAND_HALF), 3, 1, face="Valakut Stoneforge")


def test_cli_land_face_is_an_error(capsys, tmp_path):  # 305.9
    path = tmp_path / "v.json"
    path.write_text(json.dumps({"cards": [LAND_HALF]}))
    code, out, err = cli(capsys, "discover", path, 3, "--seed", 1, "--face", "Valakut Stoneforge")
    assert code == 2 and out == "" and err.count("\n") == 1 and "never cast" in err


def test_modal_card_with_land_back_is_skipped_when_front_costs_too_much():  # 712.8a, 701.57a
    # Sea Gate Restoration is a mana value 7 nonland card in the library: discover 3 passes it by.
    state, event = discover(lib(SEA_GATE, BOLT), 3, 0)
    assert event.hit.name == "Lightning Bolt" and [c.name for c in event.bottom] == [SEA_GATE["name"]]


def test_modal_card_either_spell_face_by_resulting_mana_value():  # 712.11, 701.57a
    card = load_card(MODAL_SPELLS)
    assert [f.name for f in card.castable_faces(4)] == ["Front Spell", "Back Spell"]
    # Discover 3: the card's mana value in the library is the front's (4), so it does not stop discover 3
    _, event = discover(lib(MODAL_SPELLS), 3, 0)
    assert event.hit is None
    # Discover 4 stops on it; the back face (2) may be chosen, and on the stack the spell has mana value 2
    state, event = discover(lib(MODAL_SPELLS), 4, 0, face="Back Spell")
    assert event.cast_face == "Back Spell" and state.stack[0].mana_value == 2  # 712.8d


def test_transforming_back_face_is_never_cast():  # 712.11a
    card = load_card(DELVER)
    assert [f.name for f in card.spell_faces()] == ["Delver of Secrets"]
    with pytest.raises(FormatError, match="712.11a"):
        discover(lib(DELVER), 1, 0, face="Insectile Aberration")


def test_split_and_adventure_mana_values_on_the_stack():  # 709.3b, 709.4, 715.3b
    state, event = discover(lib(FIRE_ICE), 4, 0, face="Ice")
    assert state.stack[0].mana_value == 2 and state.stack[0].card.mana_value == 4
    state, _ = discover(lib(GIANT), 3, 0, face="Stomp")
    assert state.stack[0].mana_value == 2


def test_split_card_face_obeys_the_limit_for_the_resulting_spell():  # 701.57a, 709.4
    # Fire // Ice (4) does not stop discover 3 even though each half costs 2; it stops discover 4.
    assert discover(lib(FIRE_ICE), 3, 0)[1].hit is None
    assert discover(lib(FIRE_ICE), 4, 0)[1].castable_faces == ("Fire", "Ice")


def test_double_faced_format_errors():
    with pytest.raises(FormatError, match=r"card.double_faced: expected \"modal\" or \"transform\""):
        load_card({**VALAKUT, "double_faced": "flip"})
    with pytest.raises(FormatError, match="card.back: required"):
        load_card({"name": "X", "mana_value": 1, "double_faced": "modal"})
    with pytest.raises(FormatError, match="cannot also have halves"):
        load_card({**FIRE_ICE, "back": VALAKUT["back"], "double_faced": "modal"})
    with pytest.raises(FormatError, match="card.value: must not be negative"):
        load_card({**BOLT, "value": -1})
    with pytest.raises(FormatError, match=r"card.back.value: expected a number"):
        load_card({**VALAKUT, "back": {**VALAKUT["back"], "value": "3"}})


def test_double_faced_round_trip():
    for data in (VALAKUT, DELVER, {**BOLT, "value": 2.5}):
        assert load_card(data).to_json() == data
        assert load_card(load_card(data).to_json()) == load_card(data)


def test_discover_distribution_counts_modal_front():  # 712.8a: a nonland card with the front's mana value
    d = discover_distribution(lib(VALAKUT, FOREST, FOREST), 3)
    assert d.qualifying == 1 and d.cast_mana_value == ((3, Fraction(1)),)


# ---------------------------------------------------------------------------------------------
# The small bugs
# ---------------------------------------------------------------------------------------------


def test_identical_cards_with_keys_in_another_order_are_one_group():  # "identical cards are equal"
    a = {"name": "A", "mana_value": 1, "id": "x", "set": "W", "meta": {"p": 1, "q": 2}}
    b = {"meta": {"q": 2, "p": 1}, "set": "W", "id": "x", "mana_value": 1, "name": "A"}
    assert load_card(a) == load_card(b) and hash(load_card(a)) == hash(load_card(b))
    groups = discover_distribution(lib(a, b), 1).by_card()
    assert len(groups) == 1 and groups[0]["copies"] == 2 and groups[0]["probability"] == "1"
    dumped = load_card(b).to_json()  # known fields first, then the extra ones in the card's own order
    assert list(dumped) == ["name", "mana_value", "types", "meta", "set", "id"] and list(dumped["meta"]) == ["q", "p"]


def test_cli_identical_cards_one_group(capsys, tmp_path):
    path = tmp_path / "l.json"
    path.write_text(
        '{"cards":[{"name":"A","mana_value":1,"id":"x","set":"W"},{"set":"W","id":"x","name":"A","mana_value":1}]}'
    )
    code, out, _ = cli(capsys, "discover", path, 1, "--distribution")
    assert code == 0 and [g["copies"] for g in json.loads(out)["discovered_card"]] == [2]


def test_cli_mill_cost_distribution_cannot_be_paid(capsys, tmp_path):  # 701.17b
    path = tmp_path / "two.json"
    path.write_text(json.dumps({"cards": [BOLT, FOREST]}))
    code, out, _ = cli(capsys, "mill", path, 3, "--cost", "--distribution")
    res = json.loads(out)
    assert code == 1 and res["performed"] is False and res["milled"] == 0
    assert res["mana_value_total"] == [{"total": 0, "probability": "1", "p": 1.0}]
    code, out, _ = cli(capsys, "mill", path, 2, "--cost", "--distribution")  # payable: mills both
    assert code == 0 and json.loads(out)["milled"] == 2 and json.loads(out)["performed"] is True


def test_cli_face_with_choice_hand_is_an_error(capsys, tmp_path):  # 701.57a: a face is chosen only to cast
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"cards": [GIANT]}))
    code, out, err = cli(capsys, "discover", path, 3, "--seed", 1, "--choice", "hand", "--face", "Stomp")
    assert code == 2 and out == "" and err.startswith("trample: --face:") and err.count("\n") == 1
    with pytest.raises(FormatError, match='choice "hand"'):
        discover(lib(GIANT), 3, 1, choice="hand", face="Stomp")


def test_face_when_nothing_is_found_is_reported(capsys, tmp_path):  # 701.57a, 701.57b: documented behaviour
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"cards": [FOREST, GIANT]}))
    code, out, _ = cli(capsys, "discover", path, 1, "--seed", 1, "--face", "Stomp")
    res = json.loads(out)
    assert code == 0 and res["cast_face"] is None and res["requested_face"] == "Stomp"
    assert "the face Stomp was not cast" in res["note"]
    code, _, err = cli(capsys, "discover", path, 1, "--distribution", "--face", "Stomp")
    assert code == 2 and "--face" in err


# ---------------------------------------------------------------------------------------------
# Mill replacements and variants
# ---------------------------------------------------------------------------------------------

SIX = [FOREST, GIANT, BOLT, FIRE_ICE, {**GIANT, "id": 2}, VALAKUT]


def test_mill_to_exile_by_replacement():  # 701.17a, 614.1: a replacement effect moves them to exile instead
    state, event = mill(lib(*SIX), 2, to="exile")
    assert [c.name for c in state.exile] == [FOREST["name"], GIANT["name"]] and state.graveyard == ()
    assert event.went_to == ("exile", "exile") and event.to_json()["milled_to"] == "exile"


def test_mill_from_the_bottom():  # a card that says "mill from the bottom": the bottom card leaves first
    state, event = mill(lib(*SIX), 2, end="bottom")
    assert [c.name for c in event.milled] == [VALAKUT["name"], GIANT["name"]]
    assert [c.name for c in state.library] == [c["name"] for c in SIX[:4]]
    assert event.to_json()["from"] == "bottom"


def test_seek_thrills_finds_milled_cards_in_exile():  # 701.17c: "the milled cards" wherever they went
    state, event = seek_thrills(lib(*SIX), to="exile")
    assert Counter(c.name for c in state.hand) == {GIANT["name"]: 2}
    assert {c.name for c in state.exile} == {FOREST["name"], BOLT["name"], FIRE_ICE["name"], VALAKUT["name"]}
    assert state.graveyard == () and Counter(state.multiset()) == Counter(lib(*SIX).cards)
    assert event.went_to.count("hand") == 2 and set(event.went_to) == {"hand", "exile"}


def test_mill_variants_keep_every_card_and_purity():  # conservation over every zone
    start = GameState(library=lib(*SIX), graveyard=(load_card(BOLT),))
    for to in ("graveyard", "exile"):
        for end in ("top", "bottom"):
            for n in range(8):
                new, _ = mill(start, n, to=to, end=end)
                assert new.multiset() == start.multiset()
                assert mill(start, n, to=to, end=end) == (new, _)


def _brute_mill(cards, n, end):
    """Every order of the library (copies told apart), mill n from one end: (adventurers, total) -> P."""
    out: Counter = Counter()
    orders = list(itertools.permutations(range(len(cards))))
    for order in orders:
        m = min(n, len(cards))
        taken = order[:m] if end == "top" else order[len(order) - m :]
        key = (sum(1 for i in taken if "adventure" in cards[i]), sum(cards[i]["mana_value"] for i in taken))
        out[key] += Fraction(1, factorial(len(cards)))
    return out


@pytest.mark.parametrize("end", ["top", "bottom"])
@pytest.mark.parametrize("to", ["graveyard", "exile"])
def test_mill_variant_distributions_by_brute_force(end, to):  # 701.17a, 701.17d over every order
    for n in range(0, 7):
        d = mill_distribution(lib(*SIX), n, to=to, end=end)
        brute = _brute_mill(SIX, n, end)
        adv: Counter = Counter()
        tot: Counter = Counter()
        for (a, t), p in brute.items():
            adv[a] += p
            tot[t] += p
        assert dict(d.adventurers) == {k: v for k, v in adv.items()}
        assert dict(d.mana_value_total) == {k: v for k, v in tot.items()}


def test_cli_seek_thrills_to_exile(capsys, tmp_path):  # 701.17c
    path = tmp_path / "six.json"
    path.write_text(json.dumps({"cards": SIX}))
    code, out, _ = cli(capsys, "seek-thrills", path, "--to", "exile")
    res = json.loads(out)
    assert code == 0 and Counter(m["to"] for m in res["milled"]) == {"hand": 2, "exile": 4}
    code, out, _ = cli(capsys, "mill", path, 2, "--from", "bottom")
    assert [m["card"]["name"] for m in json.loads(out)["milled"]] == [VALAKUT["name"], GIANT["name"]]
    code, out, _ = cli(capsys, "seek-thrills", path, "--to", "exile", "--distribution")
    assert code == 0 and json.loads(out)["milled_to"] == "exile"


# ---------------------------------------------------------------------------------------------
# Properties over libraries with every kind of card
# ---------------------------------------------------------------------------------------------

PATHWAY = {
    "name": "Hengegate Pathway // Mistgate Pathway",
    "mana_value": 0,
    "types": ["Land"],
    "back": {"name": "Mistgate Pathway", "mana_value": 0, "types": ["Land"]},
    "double_faced": "modal",
}
KINDS = [FOREST, BOLT, GIANT, FIRE_ICE, VALAKUT, DELVER, SEA_GATE, MODAL_SPELLS, LAND_HALF, PATHWAY]


@given(
    st.lists(st.sampled_from(KINDS), max_size=12),
    st.integers(min_value=0, max_value=8),
    st.integers(min_value=0, max_value=2**32),
)
def test_discover_never_casts_a_land_and_obeys_the_limit(cards, n, seed):  # 305.9, 701.57a, 712.8a
    state, event = discover(lib(*cards), n, seed)
    if event.hit is not None:
        assert not event.hit.is_land and event.hit.mana_value <= n
    for spell in state.stack:
        face = spell.card.face(spell.face)
        assert face is not None and not face.is_land and spell.mana_value <= n
    assert state.multiset() == GameState(library=lib(*cards)).multiset()
