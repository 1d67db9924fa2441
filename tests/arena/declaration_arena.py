"""What the blocks and attacks arenas' tests share: every decision of a results file held to the brute force's
legal declarations (tests/oracles/brute_declare.py) and to values computed there, not by the solver."""

from __future__ import annotations

from collections.abc import Callable

from brute_declare import legal_declarations

from trample.models.declare import load_declare_doc


def check_against_the_brute_force(
    results: dict,
    game: str,
    load: Callable,
    value: Callable,
    best: Callable,
    sign: int,
) -> None:
    """Each board of ``results`` (``max-damage``): the reference value is ``best(raw, values)`` (``values``: ``value
    (raw, doc, declaration)`` of each legal declaration of the brute force, in its order); a decision is legal
    exactly when the brute force lists it (509.1 / 508.1 as it reads them), its value is the brute force's and its
    regret ``sign * (value - best)``, never negative; an illegal one names its rules. The optimal player has no
    regret and the random one is legal."""
    for board in results["boards"]:
        raw = board["scenario"]
        doc = load_declare_doc(raw)
        legal_raw = legal_declarations(raw)[0]
        legal = [load(d, doc) for d in legal_raw]
        values = [value(raw, doc, d) for d in legal_raw]
        reference = best(raw, values)
        assert board["reference"]["values"]["max-damage"] == reference
        for d in board["decisions"]:
            declared = load(d["assignment"], doc)
            assert d["legal"] == (declared in legal), d
            if d["legal"]:
                v = values[legal.index(declared)]
                assert d["values"] == {"max-damage": v}
                assert d["primary_regret"] == sign * (v - reference) >= 0
            else:
                assert d["rules"] and d["regret"] is None
        by = {d["player"]: d for d in board["decisions"]}
        assert by["optimal"]["primary_regret"] == 0 and by["random"]["legal"]
    rows = {r["player"]: r for r in results["leaderboard"]}
    assert rows["optimal"]["regret_max"] == 0 and rows["optimal"]["illegal"] == 0
    assert results["config"]["game"] == game and results["complete"]
