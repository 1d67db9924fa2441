"""What trample.render keeps between pictures: a coordinate's text, a text's content, characters per line, a
header's wrapped lines and its elements, the cards' places in a row and the start tags at each place, a card group's
start tag. Each is a function of its key alone, so a picture is the same
whether the caches are empty or hold what other boards (hostile ids included) left there, and each stays bounded."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, outcome_effects, scenarios

from trample import Combat
from trample import render as R
from trample.models import FormatError
from trample.render import board_svg, render

#: every cache of trample.render that outlives one picture
CACHES = (
    "_F1",
    "_BODIES",
    "_ROOMS",
    "_HEADERS",
    "_HEADER_BLOCKS",
    "_ROWS_AT",
    "_SPOTS",
    "_GROUP_HEADS",
    "_CARD_STARTS",
    "_WRAPPED",
    "_CUT_TAILS",
    "_KEYWORD_TEXTS",
    "_RESULT_STYLES",
    "_TEXT_STYLES",
)


def clear_caches() -> None:
    for name in CACHES:
        getattr(R, name).clear()
    R._TEXT_STYLES.update(SAVED_STYLES)  # the cards' fixed styles were computed at import: keep them


SAVED_STYLES = dict(R._TEXT_STYLES)


def pictures(board: dict) -> list[str]:
    """The pictures of one board: alone, with its optimal line, with an illegal assignment, as board_svg draws it
    with a title and verdict."""
    combat = Combat(board)
    line = combat.solve("max-damage").assignment
    a0, p0 = board["attackers"][0]["id"], board["players"][0]["id"]
    return [
        render(combat),
        render(Combat(board), line),
        render(Combat(board), {a0: {p0: 99}}),
        board_svg(combat.scenario, line.to_json(), title=a0, verdict="legal " * 9),
    ]


HOSTILE = {
    "players": [{"id": 'o"p&<p>\t', "life": 3}, {"id": "x\x01y", "life": 20}],
    "attackers": [
        {"id": "a\r\nb", "power": 4, "toughness": 2, "keywords": ["trample"], "attacking": 'o"p&<p>\t',
         "blocked_by": ["blk ]]>"]},
        {"id": "a2", "power": 2, "toughness": 2, "attacking": "x\x01y"},
    ],
    "blockers": [{"id": "blk ]]>", "power": 2, "toughness": 2, "keywords": ["lifelink"]}],
}  # fmt: skip


@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-(10**6), 10**6)))
def test_a_kept_coordinate_is_what_formatting_it_gives(v):
    want = f"{float(v):.1f}"
    assert (R._F1.get(v) or R._f1(v)) == want
    assert (R._F1.get(v) or R._f1(v)) == want  # the second time from the cache (or formatted again)
    if v == 0:  # 0.0 and -0.0 are equal keys written differently: never kept
        assert 0.0 not in R._F1
    if isinstance(v, float) and not math.isnan(v) and v in R._F1:
        assert R._F1[v] == want


def test_negative_zero_is_never_served_as_zero():
    R._F1.clear()
    assert (R._F1.get(0.0) or R._f1(0.0)) == "0.0"
    assert (R._F1.get(-0.0) or R._f1(-0.0)) == "-0.0"
    assert (R._F1.get(0) or R._f1(0)) == "0.0"


@settings(max_examples=examples(25), deadline=None)
@given(st.data())
def test_a_picture_does_not_depend_on_what_was_drawn_before(data):
    # the same board's pictures with empty caches, and after other boards' pictures filled them (in either order)
    boards = []
    for _ in range(3):
        sc = data.draw(scenarios())
        if data.draw(st.booleans()):
            sc = data.draw(outcome_effects(sc))
        try:
            Combat(sc)
        except FormatError:
            continue
        if sc.get("attackers") and sc.get("players"):
            boards.append(sc)
    boards.append(HOSTILE)
    fresh = []
    for board in boards:
        clear_caches()
        fresh.append(pictures(board))
    clear_caches()
    assert [pictures(b) for b in boards] == fresh
    assert [pictures(b) for b in reversed(boards)] == fresh[::-1]


def test_the_caches_stay_bounded(monkeypatch):
    # with tiny limits the caches stop growing and the pictures do not change
    boards = [HOSTILE, {**HOSTILE, "players": [{"id": 'o"p&<p>\t', "life": 30}, {"id": "x\x01y", "life": 1}]}]
    clear_caches()
    want = [pictures(b) for b in boards]
    clear_caches()
    monkeypatch.setattr(R, "_F1_MOST", 3)
    monkeypatch.setattr(R, "_BODIES_MOST", 2)
    monkeypatch.setattr(R, "_HEADERS_MOST", 1)
    assert [pictures(b) for b in boards] == want
    assert len(R._F1) <= 3 and len(R._BODIES) <= 2 and len(R._HEADERS) <= 1 and len(R._HEADER_BLOCKS) <= 1


@pytest.mark.parametrize("text", ["", "plain", "a & b", "<x>", "tab\there", "\x01", "\ud800", "caf\u00e9 \u2192"])
def test_a_kept_text_content_is_what_escaping_it_gives(text):
    R._BODIES.clear()
    first = R._body(text)
    assert R._BODIES.get(text) == first and R._body(text) == first
    assert "<" not in first and "&" not in first.replace("&amp;", "").replace("&lt;", "").replace("&gt;", "")
