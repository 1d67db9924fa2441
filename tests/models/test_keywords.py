"""Every keyword ability of 702 loads (an engine's board dump as it is); only the damage keywords change answers."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from trample.combat import Combat
from trample.models import DAMAGE_KEYWORDS, KEYWORDS, FormatError, dump_scenario, load_scenario
from trample.models.keywords import CARRIED_KEYWORDS, NEEDS_FIELD, spelled

ROOT = Path(__file__).resolve().parents[2]
THRASTA = json.loads((ROOT / "examples" / "thrasta.json").read_text())


def test_the_table_covers_702_2_to_702_190():
    numbers = {
        int(rule.split(".")[1].rstrip("abcdefghijk")) for rule in {**DAMAGE_KEYWORDS, **CARRIED_KEYWORDS}.values()
    }
    numbers |= {164, 16}  # toxic and protection: keywords with a field of their own
    assert set(range(2, 191)) <= numbers
    assert len(KEYWORDS) == len(set(KEYWORDS))
    assert all(k == spelled(k) for k in KEYWORDS)  # the format's own spelling


def test_an_engine_dump_with_every_carried_keyword_loads_and_answers_the_same():
    # 702.9 flying, 702.20 vigilance, 702.17 reach, 702.21 ward, ...: none changes combat damage
    plain = Combat(load_scenario(THRASTA))
    dumped = copy.deepcopy(THRASTA)
    for creature in dumped["attackers"] + dumped["blockers"]:
        creature["keywords"] = [*creature.get("keywords", []), *CARRIED_KEYWORDS]
    scenario = load_scenario(dumped)
    assert set(CARRIED_KEYWORDS) <= set(scenario.attackers[0].keywords)
    assert dump_scenario(scenario)["attackers"][1]["keywords"] == list(CARRIED_KEYWORDS)  # carried
    loaded = Combat(scenario)
    assert loaded.count() == plain.count() == 36
    assert list(loaded.assignments()) == list(plain.assignments())
    assert (
        loaded.solve("lethal,max-value").to_json()["objectives"]
        == plain.solve("lethal,max-value").to_json()["objectives"]
    )


@pytest.mark.parametrize("keyword", sorted(NEEDS_FIELD))
def test_a_keyword_with_a_field_of_its_own_needs_that_field(keyword):
    # 702.164b toxic's value, 702.16a protection's qualities: the word alone would answer wrong
    doc = {"players": [{"id": "o"}], "attackers": [{"id": "a", "power": 1, "toughness": 1, "attacking": "o"}]}
    doc["attackers"][0]["keywords"] = [keyword]
    with pytest.raises(FormatError) as err:
        load_scenario(doc)
    assert str(err.value).startswith("attackers[0].keywords[0]:") and NEEDS_FIELD[keyword][0] in str(err.value)
    doc["attackers"][0][NEEDS_FIELD[keyword][0]] = 2 if keyword == "toxic" else ["red"]
    assert keyword in load_scenario(doc).attackers[0].keywords


@pytest.mark.parametrize(
    "word, hint",
    [("First Strike", '(the format spells it "first_strike")'), ("For Mirrodin!", '"for_mirrodin"'), ("flyng", "")],
)
def test_a_word_that_is_not_a_keyword_is_refused_with_the_spelling(word, hint):
    doc = {"players": [{"id": "o"}], "attackers": [{"id": "a", "power": 1, "toughness": 1, "attacking": "o"}]}
    doc["attackers"][0]["keywords"] = ["trample", word]
    with pytest.raises(FormatError) as err:
        load_scenario(doc)
    assert str(err.value).startswith(f'attackers[0].keywords[1]: unknown keyword "{word}"')
    assert hint in str(err.value)
