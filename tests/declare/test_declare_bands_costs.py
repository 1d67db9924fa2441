"""Bands (702.22c-d, 702.22h) and costs to attack or block (508.1h-j, 509.1d-f) in declarations, rule by rule,
each board also held to the independent brute force (tests/oracles/brute_declare.py) by ``agrees``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_declare import agrees, atk, attackers_doc, blk, board, rules_cited
from test_declare_solve import blockers_of_attack

from trample.cli import main
from trample.declare import DeclarationSpace
from trample.declare.solve import solve_declaration
from trample.models.declare import load_attacks, load_blocks, load_declare_doc
from trample.models.errors import FormatError
from trample.rules import divider

ROOT = Path(__file__).resolve().parents[2]


def creature(id, *keywords, **more) -> dict:
    return {"id": id, "power": 2, "toughness": 2, "keywords": list(keywords), **more}


def band(target, label) -> dict:
    return {"attacking": target, "band": label}


def listed(doc: dict) -> list:
    return [d.to_json() for d in DeclarationSpace(load_declare_doc(doc)).declarations()]


# ---------------------------------------------------------------------------------------------
# Bands (702.22)
# ---------------------------------------------------------------------------------------------


def test_a_band_is_creatures_with_banding_and_up_to_one_without():  # 702.22c
    doc = attackers_doc([creature("hero", "banding"), creature("ogre"), creature("goblin")])
    assert rules_cited(doc, {"hero": band("opp", "x"), "ogre": band("opp", "x")}) == []
    assert rules_cited(doc, {"ogre": band("opp", "x"), "goblin": band("opp", "x")}) == ["702.22c"]
    three = {"hero": band("opp", "x"), "ogre": band("opp", "x"), "goblin": band("opp", "x")}
    assert rules_cited(doc, three) == ["702.22c"]  # two without banding
    space = agrees(doc)
    # every subset attacks; bands: hero with ogre, or hero with goblin, when both attack
    assert space.count() == 8 + 2 + 2
    assert {"hero": band("opp", "hero"), "ogre": band("opp", "hero")} in listed(doc)


def test_any_number_with_banding():  # 702.22c: "one or more attacking creatures with banding"
    doc = attackers_doc([creature("h1", "banding"), creature("h2", "banding"), creature("h3", "banding")])
    assert rules_cited(doc, {c: band("opp", "x") for c in ("h1", "h2", "h3")}) == []
    assert agrees(doc).count() == 1 + 3 + 3 * 2 + 5  # the splits of each set of attackers (Bell numbers)


def test_bands_are_counted_without_walking_every_attack():  # 702.22c-d
    """Without "bands with other", the programme weighs each attack by its choices of bands (a band: at most one
    creature without banding, one target): the count, rank and unrank agree with listing every attack's bands."""
    creatures = [creature(f"c{i}", *(["banding"] if i % 2 == 0 else [])) for i in range(5)]
    doc = attackers_doc(creatures, planeswalkers=[{"id": "pw", "controller": "opp", "loyalty": 3}])
    agrees(doc)
    space = DeclarationSpace(load_declare_doc(doc))
    assert space.weighted
    listed = list(space.declarations())
    assert space.count() == len(listed) == space._band_table()[0][-1]
    for i in range(0, len(listed), 37):
        assert space.unrank(i) == listed[i] and space.rank(listed[i]) == i
    with_other = attackers_doc([*creatures, creature("lord", bands_with_other=["legend"], tags=["legend"])])
    assert not DeclarationSpace(load_declare_doc(with_other)).weighted  # those are walked, attack by attack


def test_bands_with_other():  # 702.22c: "bands with other [quality]"
    legend = creature("legend", bands_with_other=["legend"], tags=["legend"])
    doc = attackers_doc([legend, creature("lord", tags=["legend"]), creature("duke", tags=["legend"]),
                         creature("peasant")])  # fmt: skip
    all_legends = {c: band("opp", "x") for c in ("legend", "lord", "duke")}
    assert rules_cited(doc, all_legends) == []  # any number of other legends
    assert rules_cited(doc, {**all_legends, "peasant": band("opp", "x")}) == ["702.22c"]  # not a legend
    assert rules_cited(doc, {"lord": band("opp", "x"), "duke": band("opp", "x")}) == ["702.22c"]  # no one bands
    agrees(doc)


def test_a_band_attacks_one_target():  # 702.22d
    doc = attackers_doc([creature("h1", "banding"), creature("h2", "banding")],
                        planeswalkers=[{"id": "pw", "controller": "opp", "loyalty": 3}])  # fmt: skip
    assert rules_cited(doc, {"h1": band("opp", "x"), "h2": band("pw", "x")}) == ["702.22d"]
    assert agrees(doc).count() == 9 + 2  # targets for each (3 x 3), and a band of both at opp or at pw


def test_a_band_of_one_is_bad_input(capsys):  # 702.22c: a band is two or more creatures here
    doc = load_declare_doc(attackers_doc([creature("h1", "banding"), creature("h2")]))
    with pytest.raises(FormatError, match=r"declaration\.h1\.band: a band is two or more"):
        load_attacks({"h1": band("opp", "x")}, doc)


def test_blocking_one_member_blocks_the_band():  # 702.22h, and its example (flying and swampwalk)
    raw = board(
        [atk("pegasus", 1, "flying", "banding", band="b"), atk("walker", 2, landwalk=["swamp"], band="b")],
        [blk("archer", 1, "reach"), blk("bear")],
        players=[{"id": "opp", "life": 20, "lands": ["Swamp"]}],
    )
    assert rules_cited(raw, {"pegasus": ["archer"]}) == []
    assert rules_cited(raw, {"walker": ["bear"]}) == ["702.14c"]  # declared blocks still obey the restrictions
    assert rules_cited(raw, {"pegasus": ["bear"]}) == ["702.9b"]
    doc = load_declare_doc(raw)
    scenario = doc.scenario(load_blocks({"pegasus": ["archer"]}, doc))
    assert {a.id: a.blocked_by for a in scenario.attackers} == {"pegasus": ("archer",), "walker": ("archer",)}
    # the damage step carries the band: the archer blocks a creature with banding, so the active player divides
    # its damage (702.22k), and each attacker it blocks is blocked by a creature without banding (510.1c)
    assert divider(scenario, "archer") == ("attacking", "702.22k")
    assert divider(scenario, "walker") == ("attacking", "510.1c")
    agrees(raw)


def test_a_declared_band_must_be_one_702_22c_allows():  # 702.22c, 702.22d: a declare-blockers document
    two_without = board([atk("a", band="b"), atk("c", band="b")], [blk("x")])
    with pytest.raises(FormatError, match=r"attackers\[1\]\.band: the band a, c has 2 creatures without banding"):
        DeclarationSpace(load_declare_doc(two_without))
    apart = board([atk("a", 2, "banding", band="b"), atk("c", 2, "banding", band="b", target="pw")], [blk("x")],
                  planeswalkers=[{"id": "pw", "controller": "opp", "loyalty": 3}])  # fmt: skip
    with pytest.raises(FormatError, match=r"attackers\[1\]\.band: .*\(702\.22d\)"):
        load_declare_doc(apart)


def test_an_attack_in_a_band_turns_into_its_blocks_document(capsys):
    raw = attackers_doc([creature("hero", "banding"), creature("ogre", power=4)], blockers=[creature("wall")])
    doc = load_declare_doc(raw)
    attacks = load_attacks({"hero": band("opp", "any"), "ogre": band("opp", "any")}, doc)
    blocks_doc = doc.blockers_doc(attacks)  # type: ignore[union-attr]
    assert blocks_doc.bands == (("hero", "ogre"),)
    path = ROOT / "examples" / "declare" / "band.json"
    assert main(["declare", "scenario", str(path), '{"hero": {"attacking": "opp", "band": "hero"}, '
                 '"ogre": {"attacking": "opp", "band": "hero"}}']) == 0  # fmt: skip
    nxt = json.loads(capsys.readouterr().out)
    assert [a.get("band") for a in nxt["attackers"]] == ["hero", "hero"]
    assert load_declare_doc(nxt).bands == (("hero", "ogre"),)  # type: ignore[union-attr]


def test_the_best_blocks_against_a_band():  # 702.22h: one chump blocks both members
    raw = board([atk("hero", 1, "banding", band="b"), atk("giant", 6, band="b")], [blk("elf", 1)],
                players=[{"id": "opp", "life": 7}])  # fmt: skip
    result = solve_declaration(load_declare_doc(raw), "lethal,max-damage")
    assert result.objectives == {"lethal": 0, "max-damage": 0}  # the elf blocks the hero, and so the giant
    assert result.lethal["opp"]["lethal_through_every_block"] is False  # type: ignore[index]


# ---------------------------------------------------------------------------------------------
# Costs (508.1h-j, 509.1d-f)
# ---------------------------------------------------------------------------------------------


def test_propaganda():  # 508.1h: "can't attack you unless their controller pays {2} for each"
    doc = attackers_doc([creature("a"), creature("b")], mana=3)
    doc["players"][0]["attack_tax"] = 2
    assert rules_cited(doc, {"a": "opp", "b": "opp"}) == ["508.1h"]  # 4 to pay, 3 mana (508.1j: no partial payment)
    assert rules_cited(doc, {"a": "opp"}) == []
    assert agrees(doc).count() == 3
    doc["mana"] = 4
    assert agrees(doc).count() == 4


def test_a_planeswalkers_tax_and_a_creatures_own_cost():  # 508.1h
    doc = attackers_doc([creature("brainwashed", attack_cost=3), creature("b")], mana=3,
                        planeswalkers=[{"id": "pw", "controller": "opp", "loyalty": 3, "attack_tax": 1}])  # fmt: skip
    assert rules_cited(doc, {"brainwashed": "opp"}) == []
    assert rules_cited(doc, {"brainwashed": "pw"}) == ["508.1h"]  # 3 + 1
    assert rules_cited(doc, {"brainwashed": "opp", "b": "pw"}) == ["508.1h"]
    agrees(doc)


def test_no_one_is_required_to_pay_to_obey_a_requirement():  # 508.1d, 509.1c
    doc = attackers_doc([creature("berserk", "attacks_each_combat", attack_cost=1)], mana=1)
    space = agrees(doc)
    assert space.max_obeyed() == 0 and space.count() == 2  # it may stay home, or pay and attack
    free = attackers_doc([creature("berserk", "attacks_each_combat"), creature("b", attack_cost=1)], mana=1)
    assert rules_cited(free, {"b": "opp"}) == ["508.1d"]  # paying for another does not excuse a free requirement
    assert agrees(free).max_obeyed() == 1
    lured = board([atk("rat", 1, "lure")], [blk("x", block_cost=1), blk("y")], players=[{"id": "opp", "mana": 1}])
    assert rules_cited(lured, {}) == ["509.1c"]  # y blocks the lure for free
    assert rules_cited(lured, {"rat": ["y"]}) == []  # x need not pay to block it
    assert rules_cited(lured, {"rat": ["x", "y"]}) == []
    # 509.1c counts: x paying to block obeys one requirement, as many as the most a free declaration obeys
    assert rules_cited(lured, {"rat": ["x"]}) == []
    assert agrees(lured).count() == 3


def test_costs_to_block():  # 509.1d: a creature's own cost, and a tax per blocking creature (War Cadence)
    doc = board([atk("a"), atk("c")], [blk("x", block_cost=1, block_extra=1), blk("y")],
                players=[{"id": "opp", "life": 20, "mana": 2, "block_tax": 1}])  # fmt: skip
    assert rules_cited(doc, {"a": ["x"]}) == []  # 1 + 1
    assert rules_cited(doc, {"a": ["x"], "c": ["x"]}) == []  # a creature pays once, however many it blocks
    assert rules_cited(doc, {"a": ["x"], "c": ["y"]}) == ["509.1d"]  # 2 + 1
    agrees(doc)


def test_each_defending_player_pays_their_own():  # 509.1d, 509.1a
    doc = board([atk("a", target="p1"), atk("c", target="p2")],
                [blk("x", block_cost=1, controller="p1"), blk("y", block_cost=1, controller="p2")],
                players=[{"id": "p1", "mana": 1}, {"id": "p2"}])  # fmt: skip
    assert rules_cited(doc, {"a": ["x"]}) == []
    assert rules_cited(doc, {"c": ["y"]}) == ["509.1d"]  # p2 has no mana
    assert agrees(doc).count() == 2


def test_the_best_blocks_pay_only_what_they_can():  # 509.1d-f
    raw = board([atk("t", 4, "trample")], [blk("wall", 0, block_cost=2, toughness=4), blk("elf", 1)],
                players=[{"id": "opp", "life": 20, "mana": 1}])  # fmt: skip
    result = solve_declaration(load_declare_doc(raw), "max-damage")
    assert result.declaration.to_json() == {"t": ["elf"]}  # type: ignore[union-attr]
    assert result.objectives == {"max-damage": 2}  # 2 to the elf (a 2/2 here), 2 trample over
    raw["players"][0]["mana"] = 2
    result = solve_declaration(load_declare_doc(raw), "max-damage")
    assert result.objectives == {"max-damage": 0}  # the wall can be paid for


def test_coloured_costs_need_mana_of_their_colour():  # 508.1h: "{W}" is paid with white mana (107.4a)
    doc = attackers_doc([creature("knight", attack_cost="{W}"), creature("b")], mana={"W": 1})
    assert rules_cited(doc, {"knight": "opp"}) == []
    assert agrees(doc).count() == 4
    for pool in (1, {"U": 1}, {"generic": 1}, {"C": 1}):  # mana of no stated type, or of another type
        doc["mana"] = pool
        assert rules_cited(doc, {"knight": "opp"}) == ["508.1h"]
        assert agrees(doc).count() == 2


def test_a_total_coloured_cost_is_paid_whole():  # 508.1h, 508.1j: the total cost, locked in, all or nothing
    knights = [creature("k1", attack_cost="{1}{W}"), creature("k2", attack_cost="{1}{W}")]
    doc = attackers_doc(knights, mana={"W": 2, "U": 1})  # 3 mana: one knight, not both (4)
    assert rules_cited(doc, {"k1": "opp"}) == []
    assert rules_cited(doc, {"k1": "opp", "k2": "opp"}) == ["508.1h"]
    assert agrees(doc).count() == 3
    doc["mana"] = {"W": 1, "U": 3}  # 4 mana, but one white: {W}{W} can't be paid
    assert rules_cited(doc, {"k1": "opp", "k2": "opp"}) == ["508.1h"]
    assert agrees(doc).count() == 3
    doc["mana"] = {"W": 2, "generic": 2}  # the generic parts from mana of no stated type
    assert rules_cited(doc, {"k1": "opp", "k2": "opp"}) == []
    assert agrees(doc).count() == 4
    check = DeclarationSpace(load_declare_doc({**doc, "mana": {"W": 1, "U": 3}}))
    from trample.declare import check_declaration

    verdict = check_declaration(check, load_attacks({"k1": "opp", "k2": "opp"}, check.doc))  # type: ignore[arg-type]
    assert [v.message for v in verdict.violations] == [
        "the total cost to attack is {2}{W}{W}, and me has 4 mana: {W}{U}{U}{U} (508.1j)"
    ]


def test_a_coloured_tax_and_a_coloured_cost_to_block():  # 508.1h (a planeswalker's tax), 509.1d
    walker = {"id": "pw", "controller": "opp", "loyalty": 3, "attack_tax": "{U}"}
    doc = attackers_doc([creature("a"), creature("b")], mana={"U": 1, "C": 1}, planeswalkers=[walker])
    assert rules_cited(doc, {"a": "pw"}) == []
    assert rules_cited(doc, {"a": "pw", "b": "pw"}) == ["508.1h"]  # {U}{U}: one blue
    agrees(doc)
    blocks = board([atk("a"), atk("c")], [blk("x", block_cost="{G}"), blk("y")],
                   players=[{"id": "opp", "life": 20, "mana": {"G": 1}, "block_tax": "{1}"}])  # fmt: skip
    assert rules_cited(blocks, {"a": ["y"]}) == []  # the tax {1}, paid with green
    assert rules_cited(blocks, {"a": ["x"]}) == ["509.1d"]  # {1}{G}: 2 mana, 1 held
    agrees(blocks)
    blocks["players"][0]["mana"] = {"G": 1, "W": 1}
    assert rules_cited(blocks, {"a": ["x"]}) == []
    assert rules_cited(blocks, {"a": ["x"], "c": ["y"]}) == ["509.1d"]  # {1}{G} and {1}: 3 mana
    agrees(blocks)


def test_no_one_is_required_to_pay_coloured_mana_to_obey_a_requirement():  # 508.1d, 509.1c
    doc = attackers_doc([creature("berserk", "attacks_each_combat", attack_cost="{R}")], mana={"R": 1})
    space = agrees(doc)
    assert space.max_obeyed() == 0 and space.count() == 2
    assert space.max_obeyed_cpsat() == 0 and space.count_cpsat() == 2


@pytest.mark.parametrize(
    "change,message",
    [
        ({"mana": -1}, "trample: mana: must not be negative, got -1"),
        ({"players": [{"id": "opp", "attack_tax": "2"}]}, "trample: players[0].attack_tax: expected an integer"),
        ({"players": [{"id": "opp", "attack_tax": "{X}"}]}, "trample: players[0].attack_tax: expected an integer or"),
        ({"mana": {"Q": 1}}, "trample: mana.Q: unknown mana type"),
        ({"mana": {"W": -1}}, "trample: mana.W: must not be negative"),
        ({"mana": "{W}"}, "trample: mana: expected an integer"),
    ],
)
def test_bad_costs_are_one_line_and_exit_2(change, message, tmp_path, capsys):
    doc = json.loads((ROOT / "examples" / "declare" / "attacks.json").read_text())
    doc.update(change)
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    code = main(["declare", "count", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and err.startswith(message), err


def test_a_bad_band_is_one_line_and_exit_2(capsys):
    path = str(ROOT / "examples" / "declare" / "band.json")
    code = main(["declare", "check", path, '{"hero": {"attacking": "opp", "band": "x"}}'])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith("trample: declaration.hero.band: a band is two or more attacking creatures (702.22c)")
    code = main(["declare", "check", path, '{"hero": {"attacking": "opp", "bnad": "x"}}'])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("trample: declaration.hero.bnad: unknown field"), err


# ---------------------------------------------------------------------------------------------
# Pictures of declarations (trample.render.declaration_svg, ``trample declare render``)
# ---------------------------------------------------------------------------------------------

SVG = "{http://www.w3.org/2000/svg}"


def test_a_picture_of_blocks_draws_each_block_and_the_bands_blocks(tmp_path):  # 702.22h: dashed
    import xml.etree.ElementTree as ET

    from trample.render import declaration_svg

    raw = board([atk("pegasus", 1, "flying", "banding", band="b"), atk("walker", 2, band="b"), atk("<rat & co>")],
                [blk("archer", 1, "reach"), blk('"><script>'), blk("idle")])  # fmt: skip
    doc = load_declare_doc(raw)
    blocks = load_blocks({"pegasus": ["archer"], "<rat & co>": ['"><script>']}, doc)
    root = ET.fromstring(declaration_svg(doc, blocks, "blocks <&>", ["legal"]))  # parses: every id escaped
    lines = root.findall(f"{SVG}line")
    assert len(lines) == 3  # archer -> pegasus, archer -> walker (the band), the hostile id -> the rat
    assert sum(1 for e in lines if e.get("stroke-dasharray")) == 1
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert '"><script>' in texts and "<rat & co>" in texts and "band: pegasus" in texts
    groups = {g.get("id"): g.get("class") for g in root.iter(f"{SVG}g")}
    assert groups['"><script>'] == "blocker" and groups["<rat & co>"] == "attacker"


def test_a_picture_of_an_attack_and_the_command(tmp_path, capsys):
    import xml.etree.ElementTree as ET

    path = str(ROOT / "examples" / "declare" / "band.json")
    out = tmp_path / "attack.svg"
    declared = '{"hero": {"attacking": "opp", "band": "hero"}, "ogre": {"attacking": "opp", "band": "hero"}}'
    assert main(["declare", "render", path, declared, "-o", str(out)]) == 0
    root = ET.fromstring(out.read_text())
    assert len(root.findall(f"{SVG}line")) == 2  # hero and ogre to opp; the drake stays home (faded)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "legal" in texts and texts.count("band: hero") == 2
    assert main(["declare", "render", path, '{"ogre": "opp", "drake": "nowhere"}']) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith('trample: declaration.drake: unknown id "nowhere"'), err


def _card_texts(root, oid: str) -> list[str]:
    group = next(g for g in root.iter(f"{SVG}g") if g.get("id") == oid)
    return [t.text for t in group.iter(f"{SVG}text")]


def test_a_picture_of_blocks_shows_what_decides_their_legality():  # 509.1a, 509.1c, 702.111b on the cards
    import xml.etree.ElementTree as ET

    from trample.render import declaration_svg

    raw = board([atk("rat", 1, "lure"), atk("ogre", 3, "menace")],
                [blk("knight", 2, tapped=True), blk("wall", 0, "block_any_number"), blk("wolf")])  # fmt: skip
    doc = load_declare_doc(raw)
    root = ET.fromstring(declaration_svg(doc, load_blocks({"rat": ["knight", "wall", "wolf"]}, doc), "t", ["x"]))
    assert "tapped" in _card_texts(root, "knight")  # why 509.1a refuses its block
    assert any("block any number" in t for t in _card_texts(root, "wall"))
    assert "lure" in _card_texts(root, "rat") and "menace" in _card_texts(root, "ogre")
    ends = [(e.get("x2"), e.get("y2")) for e in root.findall(f"{SVG}line")]
    assert len(ends) == 3 and len(set(ends)) == 3  # three arrows into the rat: three arrowheads, none hidden


def test_a_picture_of_an_attack_colours_a_band_apart_and_shows_the_tax():  # 702.22c, 508.1h
    import xml.etree.ElementTree as ET

    from trample.render import declaration_svg

    doc = load_declare_doc(json.loads((ROOT / "examples" / "declare" / "band.json").read_text()))
    attack = load_attacks({"hero": band("opp", "hero"), "ogre": band("opp", "hero"), "drake": "opp"}, doc)
    root = ET.fromstring(declaration_svg(doc, attack))
    stroke = {e.get("x1"): e.get("stroke") for e in root.findall(f"{SVG}line")}
    assert len(stroke) == 3 and len(set(stroke.values())) == 2  # the band's two arrows in one colour, the drake's not
    taxed = load_declare_doc(json.loads((ROOT / "examples" / "declare" / "propaganda.json").read_text()))
    root = ET.fromstring(declaration_svg(taxed, load_attacks({"berserker": "opp"}, taxed)))
    assert "attack tax {2} each" in _card_texts(root, "opp")
    assert "attacks each combat" in _card_texts(root, "berserker")


def test_a_picture_shows_coloured_costs_and_the_pool_that_pays_them():  # 508.1h, 509.1d
    import xml.etree.ElementTree as ET

    from trample.render import declaration_svg

    raw = json.loads((ROOT / "examples" / "declare" / "coloured.json").read_text())
    doc = load_declare_doc(raw)
    root = ET.fromstring(declaration_svg(doc, load_attacks({"paladin": "opp", "elk": "opp"}, doc)))
    assert "attack cost {W}" in _card_texts(root, "paladin") and "attack tax {1} each" in _card_texts(root, "opp")
    assert "me has 3 mana: {W}{G}{G}" in [t.text for t in root.iter(f"{SVG}text")]
    blocks_doc = load_declare_doc(blockers_of_attack(raw, {"paladin": "opp", "elk": "opp"}))
    root = ET.fromstring(declaration_svg(blocks_doc, load_blocks({"paladin": ["wall"]}, blocks_doc)))
    assert "block cost {1}{U}" in _card_texts(root, "knight")
    assert "opp has 1 mana: {U}" in [t.text for t in root.iter(f"{SVG}text")]
