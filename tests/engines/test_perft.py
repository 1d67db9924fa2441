"""The perft file (tests/data/combat-perft.jsonl): known counts and maxima, over every engine (the same tests run
on every backend)."""

import pytest
from boards import load_perft

from trample import Combat
from trample.engines import ENGINES

CASES = load_perft()


def test_perft_file_is_there():
    assert len(CASES) >= 24


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_perft(case, engine):
    # Each case names its rule in case["rule"] (510.1b, 702.19b, 702.19c, 702.19e, 506.4c, 510.4, legacy ...).
    combat = Combat(case["scenario"], engine=engine)
    assert combat.count() == case["count"], case["rule"]
    listed = list(combat.assignments())
    assert len(listed) == case["count"]
    assert len(set(listed)) == len(listed), "an assignment was listed twice"
    for a in listed:
        assert combat.check(a).legal, (case["rule"], a, combat.check(a).violations)
    best = max(sum(split.get("opp", 0) for split in a.values()) for a in listed)
    assert best == case["max_damage_to_opp"], case["rule"]
