"""The whole Scalesoul Gnome: the conjure trigger, two combat-damage triggers (double strike, whole combats), scores
by the face cast, combined objectives, .jsonl batches — against independent brute force.

The brute force here never calls trample's library code: it enumerates every order of a small library (copies told
apart) and every random bottom order the first discover can produce (701.57a), plays each discover by hand from
the card dicts, and adds up exact fractions. Combat lines come from tests/oracles/brute_combat.py (also independent).
"""

import itertools
import json
import random
from collections import Counter
from fractions import Fraction
from math import factorial

import brute_combat
import pytest
from boards import BOLT, VALAKUT, gnome_board

from trample.cli import main
from trample.library import gnome_outcomes
from trample.library.joint import discover_hits
from trample.models.cards import load_library
from trample.models.errors import FormatError

FOREST = {"name": "Forest", "mana_value": 0, "types": ["Land"]}
COUNTER = {"name": "Counterspell", "mana_value": 2, "types": ["Instant"]}
FIRE_ICE = {
    "name": "Fire // Ice",
    "mana_value": 4,
    "types": ["Instant"],
    "halves": [{"name": "Fire", "mana_value": 2}, {"name": "Ice", "mana_value": 2, "value": 3}],
}
GIANT = {
    "name": "Bonecrusher Giant // Stomp",
    "mana_value": 3,
    "types": ["Creature"],
    "adventure": {"name": "Stomp", "mana_value": 2, "types": ["Instant"]},
}
BRONTO = {"name": "Ancient Brontodon", "mana_value": 8, "types": ["Creature"], "value": 5}
CUT_RIBBONS = {  # 702.127a: Ribbons (worth 5 here) has aftermath, so discover can cast only Cut
    "name": "Cut // Ribbons",
    "mana_value": 4,
    "types": ["Sorcery"],
    "halves": [{"name": "Cut", "mana_value": 2}, {"name": "Ribbons", "mana_value": 2, "aftermath": True, "value": 5}],
}


# ---------------------------------------------------------------------------------------------
# Brute force (plain, from the card dicts)
# ---------------------------------------------------------------------------------------------


def _is_land(types) -> bool:
    return any(t.lower() == "land" for t in types or [])


def _qualifies(card: dict, x: int) -> bool:  # 701.57a, 712.8a: the card's own (front) characteristics
    return not _is_land(card.get("types")) and card["mana_value"] <= x


def _spell_faces(card: dict) -> list[dict]:
    """(name, mana value, worth-if-cast) of each face that can be cast from exile: 709.3, 715.3, 712.11; 305.9 no
    lands; 702.127a a half with aftermath only from a graveyard."""
    faces = []
    if "halves" in card:
        for h in card["halves"]:
            if not h.get("aftermath"):
                faces.append({**h, "types": h.get("types", card.get("types"))})
    else:
        main_name = card["name"].split(" // ")[0]
        faces.append({"name": main_name, "mana_value": card["mana_value"], "types": card.get("types"), "card": 1})
        if "adventure" in card:
            faces.append(card["adventure"])
        if "back" in card and card["double_faced"] == "modal":
            faces.append({**card["back"], "types": card["back"].get("types", [])})
    return [f for f in faces if not _is_land(f.get("types"))]


def _worth_in_hand(card: dict) -> Fraction:
    return Fraction(str(card["value"])) if "value" in card else Fraction(card["mana_value"])


def _play(card: dict, x: int) -> Fraction:
    """The Gnome's best play of a hit: cast the best face (+ the conjured duplicate in hand), else to hand."""
    best = None
    for f in _spell_faces(card):
        if f["mana_value"] > x:
            continue
        w = f.get("value", card.get("value", f["mana_value"]))
        w = Fraction(str(w))
        best = w if best is None or w > best else best
    if best is None:
        return _worth_in_hand(card)
    return best + _worth_in_hand(card)


def brute_hits(cards: list[dict], xs: tuple[int, ...]) -> dict:
    """{(hit index per trigger): P} over every library order and every bottom order (701.57a)."""
    size = len(cards)
    out: Counter = Counter()
    for order in itertools.permutations(range(size)):
        weight = Fraction(1, factorial(size))
        branches = [(list(order), (), weight)]
        for x in xs:
            nxt = []
            for library, hits, w in branches:
                k = next((i for i, c in enumerate(library) if _qualifies(cards[c], x)), None)
                if k is None:
                    exiled, hit, rest = library, None, []
                else:
                    exiled, hit, rest = library[:k], library[k], library[k + 1 :]
                bottoms = list(itertools.permutations(exiled))
                for bottom in bottoms:
                    nxt.append((rest + list(bottom), (*hits, hit), w / len(bottoms)))
            branches = nxt
        for _, hits, w in branches:
            out[hits] += w
    return {k: v for k, v in out.items() if v}


def brute_score(cards, xs) -> Fraction:
    total = Fraction(0)
    for hits, p in brute_hits(cards, xs).items():
        for h, x in zip(hits, xs):
            if h is not None:
                total += p * _play(cards[h], x)
    return total


# ---------------------------------------------------------------------------------------------
# Joint distribution and scores
# ---------------------------------------------------------------------------------------------

POOL = [FOREST, BOLT, COUNTER, FIRE_ICE, GIANT, VALAKUT, BRONTO, {**BOLT, "id": 2}, CUT_RIBBONS]


def test_joint_distribution_equals_brute_force_on_random_small_libraries():  # 701.57a twice
    rng = random.Random(16)
    for _ in range(60):
        cards = [rng.choice(POOL) for _ in range(rng.randint(0, 5))]
        xs = tuple(rng.randint(1, 5) for _ in range(rng.randint(1, 2)))
        lib = load_library({"cards": cards}).cards
        assert discover_hits(lib, xs) == brute_hits(cards, xs), (cards, xs)


def test_joint_distribution_known_order_matches_brute_force_over_bottoms():  # 701.57a: only the bottom is random
    rng = random.Random(7)
    for _ in range(40):
        cards = [rng.choice(POOL) for _ in range(rng.randint(0, 6))]
        xs = (rng.randint(1, 4), rng.randint(1, 5))
        lib = load_library({"cards": cards}).cards
        # brute force of the order given: the same walk with a single starting order
        out: Counter = Counter()
        branches = [(list(range(len(cards))), (), Fraction(1))]
        for x in xs:
            nxt = []
            for library, hits, w in branches:
                k = next((i for i, c in enumerate(library) if _qualifies(cards[c], x)), None)
                exiled, hit, rest = (library, None, []) if k is None else (library[:k], library[k], library[k + 1 :])
                bottoms = list(itertools.permutations(exiled))
                nxt += [(rest + list(b), (*hits, hit), w / len(bottoms)) for b in bottoms]
            branches = nxt
        for _, hits, w in branches:
            out[hits] += w
        assert discover_hits(lib, xs, "known") == dict(out), (cards, xs)


def test_conjured_duplicate_is_counted():  # Scalesoul Gnome: "play a card from exile" -> conjure a duplicate
    board = gnome_board(power=1)
    report = gnome_outcomes(board, {"cards": [BOLT]})
    (only,) = report.outcomes
    assert only.score == 2 and only.mana_value == 1  # Bolt cast (1) + a Bolt in hand (1)
    entry = only.to_json()["joint"][0]["discovers"][0]
    assert entry["conjured_duplicate"] and entry["to"] == "stack" and entry["face"] == "Lightning Bolt"


def test_score_uses_the_face_cast_and_values():  # 709.3b: Fire // Ice is cast as a half; per-face value
    report = gnome_outcomes(gnome_board(power=4), {"cards": [FIRE_ICE]})
    (only,) = report.outcomes
    # Ice (value 3) beats Fire (2); the duplicate in hand is worth the whole card's 4 (709.4)
    assert only.score == 3 + 4
    assert only.to_json()["joint"][0]["discovers"][0]["face"] == "Ice"


def test_hit_with_no_castable_face_goes_to_hand_without_duplicate():  # 701.57a: not cast, so not played
    giant = {**GIANT, "adventure": {"name": "Big Stomp", "mana_value": 9, "types": ["Instant"]}}
    only = gnome_outcomes(gnome_board(power=3), {"cards": [giant]}).outcomes[0]
    assert only.score == 3 + 3  # main face castable (3) + duplicate (3)
    # a card stopped by discover whose every face is a land cannot be; a land is never a hit (701.57a)
    assert gnome_outcomes(gnome_board(power=3), {"cards": [FOREST]}).outcomes[0].score == 0


def test_single_step_scores_equal_brute_force():  # one trigger
    rng = random.Random(3)
    for _ in range(20):
        cards = [rng.choice(POOL) for _ in range(rng.randint(1, 5))]
        power = rng.randint(1, 5)
        report = gnome_outcomes(gnome_board(power=power), {"cards": cards})
        assert report.outcomes[0].score == brute_score(cards, (power,))


def test_aftermath_half_is_not_cast_by_the_gnome():  # 702.127a: Ribbons only from a graveyard, never from exile
    report = gnome_outcomes(gnome_board(power=4), {"cards": [CUT_RIBBONS]})
    (hit,) = report.outcomes[0].joint_json()
    assert hit["discovers"][0]["face"] == "Cut"  # not Ribbons, though Ribbons is worth more
    assert report.outcomes[0].score == brute_score([CUT_RIBBONS], (4,)) == 2 + 4  # Cut + the duplicate in hand


def test_known_order_mana_value_score_counts_a_literal_final_land():  # 701.57c
    """A library that runs out on a land exiled last: that land is the discovered card (701.57c read literally).
    The known-order report counts its mana value as the unknown-order report and discover --distribution do."""
    odd_land = {"name": "Odd Land", "mana_value": 2, "types": ["Land"]}  # a land with a mana value, to tell
    board = gnome_board(power=3)
    known = gnome_outcomes(board, {"cards": [odd_land]}, library_order="known").outcomes[0]
    unknown = gnome_outcomes(board, {"cards": [odd_land]}, library_order="unknown").outcomes[0]
    assert known.known["discovered_card"] == "Odd Land" and known.known["literal_final_land"]
    assert known.mana_value == unknown.mana_value == known.distribution.expected_mana_value == 2


# ---------------------------------------------------------------------------------------------
# Whole combat: double strike
# ---------------------------------------------------------------------------------------------


DS_BOARD = gnome_board(
    [{"id": "bear", "power": 2, "toughness": 2}],
    keywords=["trample", "haste", "double_strike"],
    step="combat",
)
SMALL = [FOREST, BOLT, GIANT, FIRE_ICE, COUNTER]


def _x(board, line, step):
    split = line[step].get("gnome", {})
    return sum(v for r, v in split.items() if r in {p["id"] for p in board["players"]})


def test_double_strike_gnome_triggers_twice_and_matches_brute_force():  # 702.4b, 510.4, 701.57a twice
    report = gnome_outcomes(DS_BOARD, {"cards": SMALL})
    lines = brute_combat.combat_lines(DS_BOARD)
    keys = Counter((_x(DS_BOARD, ln, "first_strike"), _x(DS_BOARD, ln, "regular")) for ln in lines)
    assert report.total_splits == len(lines)
    assert {o.xs: o.splits for o in report.outcomes} == dict(keys)
    for o in report.outcomes:
        xs = tuple(x for x in o.xs if x > 0)
        assert o.score == (brute_score(SMALL, xs) if xs else 0), o.xs
        hits = discover_hits(load_library({"cards": SMALL}).cards, xs) if xs else {(): 1}
        assert sum(hits.values()) == 1
    best = max(report.outcomes, key=lambda o: (o.score, o.combat["kills"], o.x))
    assert report.best == best and report.best.xs == (1, 3)  # 2 to the bear, 1 over; then all 3 to the player
    js = report.to_json()
    assert js["step"] == "combat" and js["best"]["x_steps"] == {"first_strike": 1, "regular": 3}
    assert sum(Fraction(e["probability"]) for e in js["outcomes"][-1]["joint"]) == 1


def test_combined_objective_lexicographic_against_brute_force():  # lethal first, then the discover score
    blockers = [{"id": "wall", "power": 0, "toughness": 3}]
    board = gnome_board(blockers, keywords=["trample", "double_strike"], step="combat", power=4)
    board["players"][0]["life"] = 5
    lines = brute_combat.combat_lines(board)
    cards = [FOREST, BOLT, COUNTER, BRONTO]

    def brute_vector(line):
        x1, x2 = _x(board, line, "first_strike"), _x(board, line, "regular")
        lethal = x1 + x2 >= 5
        return (lethal, brute_score(cards, tuple(x for x in (x1, x2) if x > 0)))

    want = max(brute_vector(ln) for ln in lines)
    report = gnome_outcomes(board, {"cards": cards}, objective="lethal,score")
    got = report.best
    assert (got.combat["lethal"], got.score) == want
    assert report.to_json()["objective"] == ["lethal", "score"]
    by_score = gnome_outcomes(board, {"cards": cards}, objective=["score"]).best
    assert by_score.score == max(brute_vector(ln)[1] for ln in lines)


def test_whole_combat_without_first_strike_triggers_once():  # 510.4: no first-strike step
    board = gnome_board(step="combat", power=2)
    report = gnome_outcomes(board, {"cards": SMALL})
    assert [o.xs for o in report.outcomes] == [(0, 2)]
    assert report.outcomes[0].score == brute_score(SMALL, (2,))


def test_objective_errors():
    with pytest.raises(FormatError, match="objective: unknown term 'fun'"):
        gnome_outcomes(gnome_board(), {"cards": SMALL}, objective="lethal,fun")
    with pytest.raises(FormatError, match="named twice"):
        gnome_outcomes(gnome_board(), {"cards": SMALL}, objective=["x", "x"])


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_gnome_double_strike(capsys, tmp_path):
    combat, library = tmp_path / "ds.json", tmp_path / "lib.json"
    combat.write_text(json.dumps(DS_BOARD))
    library.write_text(json.dumps({"cards": SMALL}))
    code, out, _ = cli(capsys, "gnome", combat, library, "--objective", "kills,score")
    res = json.loads(out)
    assert code == 0 and res["objective"] == ["kills", "score"] and res["best"]["combat"]["kills"] == 1


def test_cli_gnome_jsonl_batch(capsys, tmp_path):  # one line per board; a bad line is an error line, exit 2
    batch, library = tmp_path / "boards.jsonl", tmp_path / "lib.json"
    library.write_text(json.dumps({"cards": SMALL}))
    lines = [
        json.dumps(gnome_board(power=2)),
        json.dumps({"combat": DS_BOARD, "library": {"cards": [BOLT]}}),
        json.dumps({"combat": gnome_board(), "gnome": "nobody"}),
    ]
    batch.write_text("\n".join(lines) + "\n")
    code, out, err = cli(capsys, "gnome", batch, library)
    rows = [json.loads(x) for x in out.splitlines()]
    assert code == 2 and len(rows) == 3
    assert rows[0]["reachable_x"] == [2] and rows[1]["step"] == "combat"
    assert rows[1]["outcomes"][-1]["joint"][0]["discovers"][0]["card"] == "Lightning Bolt"
    assert "error" in rows[2] and "line 3" in rows[2]["error"] and err.count("\n") == 1
    code, out, _ = cli(capsys, "gnome", batch)  # no LIBRARY: line 1 has none
    assert code == 2 and "no library" in out.splitlines()[0]


def test_cli_gnome_needs_a_library_for_one_board(capsys, tmp_path):
    combat = tmp_path / "b.json"
    combat.write_text(json.dumps(gnome_board()))
    code, out, err = cli(capsys, "gnome", combat)
    assert code == 2 and out == "" and err.startswith("trample: LIBRARY: required")
