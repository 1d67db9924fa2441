"""Hand-made regression boards: the perft file (tests/data/combat-perft.jsonl) and the "known engine mistakes" of
docs/rules.md, with exact expectations. Used by test_brute.py (the oracle) and test_differential.py (the engine)."""

from __future__ import annotations

import json
from pathlib import Path

#: The perft suite is part of the repository: every test reads it from here and nothing else.
PERFT_PATH = Path(__file__).resolve().parent / "data" / "combat-perft.jsonl"


def load_perft() -> list[dict]:
    """Lines of the perft file. A missing or empty file raises (a collection error, so the run fails): a test
    parametrised over nothing would pass by testing nothing."""
    if not PERFT_PATH.is_file():
        raise FileNotFoundError(f"the perft suite {PERFT_PATH} is missing (it is part of the repository)")
    cases = [json.loads(line) for line in PERFT_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not cases:
        raise ValueError(f"the perft suite {PERFT_PATH} holds no cases")
    return cases


OPP = [{"id": "opp", "life": 20}]


#: 702.2c + 702.19b: a 4/4 deathtouch trampler blocked by a 0/4: one point is lethal damage, the rest may trample
#: over (4 assignments: 1 to 4 on the blocker). Read-only.
DEATHTOUCH_TRAMPLER = {
    "players": OPP,
    "attackers": [
        {
            "id": "a",
            "power": 4,
            "toughness": 4,
            "keywords": ["deathtouch", "trample"],
            "attacking": "opp",
            "blocked_by": ["x"],
        }
    ],
    "blockers": [{"id": "x", "power": 0, "toughness": 4}],
}

#: Banding moves a division (702.22j/k, trample.rules.divider); the boards shared by tests/rules/test_division.py
#: and tests/arena/test_game_banding.py. Read-only: a test that changes one deep-copies it first.
#: 702.22k: L blocks the banding attacker "band": the active player divides L's damage and puts it on y (protected
#: from white, so the lifelink blocker gains nothing) and x's 1 damage kills opp.
BAND_PROTECTED = {
    "players": [{"id": "opp", "life": 1}],
    "attackers": [
        {"id": "x", "power": 1, "toughness": 1, "attacking": "opp"},
        {"id": "band", "power": 0, "toughness": 2, "keywords": ["banding"], "attacking": "opp", "blocked_by": ["L"]},
        {"id": "y", "power": 0, "toughness": 2, "attacking": "opp", "blocked_by": ["L"], "protection": ["white"]},
    ],
    "blockers": [{"id": "L", "power": 1, "toughness": 2, "keywords": ["lifelink"], "tags": ["white"]}],
}
#: 702.22j: the banding blocker b makes the defending player divide a's damage: all of it on b, none tramples over.
BANDING_BLOCKER = {
    "players": [{"id": "opp", "life": 3}],
    "attackers": [
        {"id": "a", "power": 4, "toughness": 4, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["b"]}
    ],
    "blockers": [{"id": "b", "power": 1, "toughness": 1, "keywords": ["banding"]}],
}


#: 4 double strikers with trample against 4 shared blockers: a whole combat of more than 10^20 lines, whose first
#: step leads to too many distinct states to count them quickly (counting it takes hours): the board the time-limit,
#: interrupt and fault tests stop in the middle of its work.
ENDLESS_COMBAT = {
    "step": "combat",
    "players": OPP,
    "attackers": [
        {
            "id": f"a{i}",
            "power": 20,
            "toughness": 10,
            "keywords": ["trample", "double_strike"],
            "attacking": "opp",
            "blocked_by": ["b0", "b1", "b2", "b3"],
        }
        for i in range(4)
    ],
    "blockers": [{"id": f"b{j}", "power": 2, "toughness": 10} for j in range(4)],
}


# Three power-60 tramplers, each blocked by three 2/2s: every split that kills the nine blockers is optimal for
# max-kills (about 10^13 of them), so listing every optimum never ends within a test.
THREE_GANGS = {
    "players": OPP,
    "attackers": [
        {
            "id": f"a{i}",
            "power": 60,
            "toughness": 1,
            "keywords": ["trample"],
            "attacking": "opp",
            "blocked_by": [f"b{i}{j}" for j in range(3)],
        }
        for i in range(3)
    ],
    "blockers": [{"id": f"b{i}{j}", "power": 1, "toughness": 2} for i in range(3) for j in range(3)],
}


def _sc(attackers, blockers=(), **extra) -> dict:
    d = {
        "rules": "current",
        "step": "regular",
        "players": OPP,
        "attackers": list(attackers),
        "blockers": list(blockers),
    }
    d.update(extra)
    return d


# Each board: name, scenario, count (legal attacking-side assignments), max_opp (most damage to "opp"),
# legal / illegal: sample assignments with a known verdict.
KNOWN_MISTAKES = [
    dict(
        name="1. deathtouch+trample 4/4 vs 0/4: 1 is lethal",
        rule="702.2c",
        scenario=_sc(
            [
                {
                    "id": "a",
                    "power": 4,
                    "toughness": 4,
                    "keywords": ["deathtouch", "trample"],
                    "attacking": "opp",
                    "blocked_by": ["x"],
                }
            ],
            [{"id": "x", "power": 0, "toughness": 4}],
        ),
        count=4,
        max_opp=3,
        legal=[{"a": {"x": 1, "opp": 3}}, {"a": {"x": 4}}],
        illegal=[{"a": {"opp": 4}}, {"a": {"x": 1, "opp": 2}}],
    ),
    dict(
        name="2. one 6-toughness blocker blocks 3/5, 4/4 trampler, 4/4: lethal is joint",
        rule="702.19b",
        scenario=_sc(
            [
                {"id": "s", "power": 3, "toughness": 5, "attacking": "opp", "blocked_by": ["x"]},
                {
                    "id": "t",
                    "power": 4,
                    "toughness": 4,
                    "keywords": ["trample"],
                    "attacking": "opp",
                    "blocked_by": ["x"],
                },
                {"id": "u", "power": 4, "toughness": 4, "attacking": "opp", "blocked_by": ["x"]},
            ],
            [{"id": "x", "power": 2, "toughness": 6}],
        ),
        count=5,
        max_opp=4,
        legal=[{"s": {"x": 3}, "t": {"opp": 4}, "u": {"x": 4}}],
        illegal=[{"s": {"x": 3}, "t": {"opp": 4}, "u": {"x": 3, "opp": 1}}],
    ),
    dict(
        name="3. 6/6 blocked by a 1/2 (declared first) and a 5/5: killing the 5/5 is legal",
        rule="510.1c",
        scenario=_sc(
            [{"id": "a", "power": 6, "toughness": 6, "attacking": "opp", "blocked_by": ["s", "b"]}],
            [{"id": "s", "power": 1, "toughness": 2}, {"id": "b", "power": 5, "toughness": 5}],
        ),
        count=7,
        max_opp=0,
        legal=[{"a": {"s": 1, "b": 5}}, {"a": {"b": 6}}, {"a": {"s": 6}}],
        illegal=[{"a": {"s": 1, "b": 4, "opp": 1}}, {"a": {"b": 5}}],
    ),
    dict(
        name="3-legacy. same board, legacy order 1/2 then 5/5",
        rule="510.1c (2024-09)",
        scenario=_sc(
            [{"id": "a", "power": 6, "toughness": 6, "attacking": "opp", "blocked_by": ["s", "b"]}],
            [{"id": "s", "power": 1, "toughness": 2}, {"id": "b", "power": 5, "toughness": 5}],
            rules="legacy",
        ),
        count=5,
        max_opp=0,
        legal=[{"a": {"s": 2, "b": 4}}, {"a": {"s": 6}}],
        illegal=[{"a": {"s": 1, "b": 5}}, {"a": {"b": 6}}],
    ),
    dict(
        name="4. 6/6 trampler vs two 2/2s: each blocker needs lethal, not just the sum",
        rule="702.19b",
        scenario=_sc(
            [
                {
                    "id": "a",
                    "power": 6,
                    "toughness": 6,
                    "keywords": ["trample"],
                    "attacking": "opp",
                    "blocked_by": ["x", "y"],
                }
            ],
            [{"id": "x", "power": 2, "toughness": 2}, {"id": "y", "power": 2, "toughness": 2}],
        ),
        count=10,
        max_opp=2,
        legal=[{"a": {"x": 2, "y": 2, "opp": 2}}, {"a": {"x": 6}}, {"a": {"x": 1, "y": 5}}],
        illegal=[{"a": {"x": 4, "opp": 2}}, {"a": {"x": 3, "y": 1, "opp": 2}}],
    ),
    dict(
        name="5. 7/7 TOP + 1/1, unblocked, vs loyalty 3: the 1/1's point counts",
        rule="702.19c",
        scenario=_sc(
            [
                {"id": "t", "power": 7, "toughness": 7, "keywords": ["trample_over_planeswalkers"], "attacking": "pw"},
                {"id": "s", "power": 1, "toughness": 1, "attacking": "pw"},
            ],
            planeswalkers=[{"id": "pw", "controller": "opp", "loyalty": 3}],
        ),
        count=6,
        max_opp=5,
        legal=[{"t": {"pw": 2, "opp": 5}, "s": {"pw": 1}}, {"t": {"pw": 7}, "s": {"pw": 1}}],
        illegal=[{"t": {"pw": 1, "opp": 6}, "s": {"pw": 1}}, {"t": {"pw": 2, "opp": 5}, "s": {"opp": 1}}],
    ),
    dict(
        name="6. 5/5 TOP vs a bounced planeswalker, unblocked: all 5 to its controller",
        rule="702.19e",
        scenario=_sc(
            [{"id": "a", "power": 5, "toughness": 5, "keywords": ["trample_over_planeswalkers"], "attacking": "pw"}],
            planeswalkers=[{"id": "pw", "controller": "opp", "loyalty": 3, "in_combat": False}],
        ),
        count=1,
        max_opp=5,
        legal=[{"a": {"opp": 5}}],
        illegal=[{"a": {}}, {"a": {"pw": 5}}, {"a": {"pw": 3, "opp": 2}}],
    ),
    dict(
        name="6-without. 5/5 trample (no TOP) vs a bounced planeswalker: nothing",
        rule="506.4c",
        scenario=_sc(
            [{"id": "a", "power": 5, "toughness": 5, "keywords": ["trample"], "attacking": "pw"}],
            planeswalkers=[{"id": "pw", "controller": "opp", "loyalty": 3, "in_combat": False}],
        ),
        count=1,
        max_opp=0,
        legal=[{"a": {}}],
        illegal=[{"a": {"opp": 5}}, {"a": {"pw": 5}}],
    ),
    dict(
        name="7. trampler whose only blocker died to first strike: all to the player",
        rule="702.19d",
        scenario=_sc(
            [
                {
                    "id": "a",
                    "power": 4,
                    "toughness": 4,
                    "keywords": ["trample"],
                    "attacking": "opp",
                    "blocked": True,
                    "blocked_by": ["x"],
                }
            ],
            [
                {
                    "id": "x",
                    "power": 2,
                    "toughness": 2,
                    "keywords": ["first_strike"],
                    "damage_marked": 2,
                    "in_combat": False,
                }
            ],
        ),
        count=1,
        max_opp=4,
        legal=[{"a": {"opp": 4}}],
        illegal=[{"a": {"x": 2, "opp": 2}}, {"a": {"x": 4}}],
    ),
    dict(
        name="7-empty. same, the dead blocker dropped from blocked_by",
        rule="702.19d",
        scenario=_sc(
            [
                {
                    "id": "a",
                    "power": 4,
                    "toughness": 4,
                    "keywords": ["trample"],
                    "attacking": "opp",
                    "blocked": True,
                    "blocked_by": [],
                }
            ]
        ),
        count=1,
        max_opp=4,
        legal=[{"a": {"opp": 4}}],
        illegal=[{"a": {}}],
    ),
    dict(
        name="8. 3/3 double strike + trample vs a 4/2 and four 1/1s, regular step: nothing reaches the player",
        rule="702.4",
        scenario=_sc(
            [
                {
                    "id": "a",
                    "power": 3,
                    "toughness": 3,
                    "keywords": ["double_strike", "trample"],
                    "attacking": "opp",
                    "blocked_by": ["w", "c1", "c2", "c3", "c4"],
                }
            ],
            [{"id": "w", "power": 4, "toughness": 2}]
            + [{"id": f"c{i}", "power": 1, "toughness": 1} for i in range(1, 5)],
        ),
        count=35,
        max_opp=0,
        legal=[{"a": {"w": 2, "c1": 1}}, {"a": {"c1": 1, "c2": 1, "c3": 1}}],
        illegal=[{"a": {"w": 2, "opp": 1}}],
    ),
    dict(
        name="8-first. the same board, first-strike step",
        rule="702.4",
        scenario=_sc(
            [
                {
                    "id": "a",
                    "power": 3,
                    "toughness": 3,
                    "keywords": ["double_strike", "trample"],
                    "attacking": "opp",
                    "blocked_by": ["w", "c1", "c2", "c3", "c4"],
                }
            ],
            [{"id": "w", "power": 4, "toughness": 2}]
            + [{"id": f"c{i}", "power": 1, "toughness": 1} for i in range(1, 5)],
            step="first_strike",
        ),
        count=35,
        max_opp=0,
        legal=[{"a": {"w": 2, "c1": 1}}],
        illegal=[{"a": {"w": 2, "opp": 1}}, {"a": {}}],
    ),
    dict(
        name="9. double striker vs a battle defeated in the first-strike step: no regular damage",
        rule="506.4c",
        scenario=_sc(
            [{"id": "a", "power": 3, "toughness": 3, "keywords": ["double_strike", "trample"], "attacking": "bt"}],
            battles=[{"id": "bt", "protector": "opp", "defense": 0, "in_combat": False}],
        ),
        count=1,
        max_opp=0,
        legal=[{"a": {}}],
        illegal=[{"a": {"bt": 3}}, {"a": {"opp": 3}}],
    ),
    dict(
        name="10. menace trampler vs two blockers needing more than its power: any split among them",
        rule="702.19b",
        scenario=_sc(
            [
                {
                    "id": "a",
                    "power": 3,
                    "toughness": 3,
                    "keywords": ["trample"],
                    "attacking": "opp",
                    "blocked_by": ["x", "y"],
                }
            ],
            [{"id": "x", "power": 2, "toughness": 2}, {"id": "y", "power": 2, "toughness": 2}],
        ),
        count=4,
        max_opp=0,
        legal=[{"a": {"x": 3}}, {"a": {"x": 1, "y": 2}}, {"a": {"y": 3}}],
        illegal=[{"a": {"x": 2, "opp": 1}}, {"a": {"x": 2}}],
    ),
]


def canon(assignment) -> tuple:
    """Hashable, order-free form of an assignment (zero entries dropped)."""
    return tuple(
        sorted(
            (src, tuple(sorted((r, int(n)) for r, n in dict(split).items() if n)))
            for src, split in dict(assignment).items()
        )
    )


# -- library cards and the gnome's board (tests/library/) -----------------------------------------------------------

#: 712.8a: a modal double-faced card whose front is an instant; its land back is never cast (305.9).
VALAKUT = {
    "name": "Valakut Awakening // Valakut Stoneforge",
    "mana_value": 3,
    "types": ["Instant"],
    "back": {"name": "Valakut Stoneforge", "mana_value": 0, "types": ["Land"]},
    "double_faced": "modal",
}
#: 712.11a: a transforming double-faced card, cast only front face up.
DELVER = {
    "name": "Delver of Secrets // Insectile Aberration",
    "mana_value": 1,
    "types": ["Creature"],
    "back": {"name": "Insectile Aberration", "mana_value": 1, "types": ["Creature"]},
    "double_faced": "transform",
}
BOLT = {"name": "Lightning Bolt", "mana_value": 1, "types": ["Instant"]}


def gnome_board(blockers=(), extra_attackers=(), step=None, **gnome) -> dict:
    """A 3/5 trample haste "gnome" attacking opp (life 20), blocked by ``blockers`` (all of them), beside
    ``extra_attackers``; ``gnome`` overrides its fields and ``step`` sets the board's step."""
    g = {
        "id": "gnome",
        "power": 3,
        "toughness": 5,
        "keywords": ["trample", "haste"],
        "attacking": "opp",
        "blocked_by": [b["id"] for b in blockers],
    }
    g.update(gnome)
    board = {"players": [{"id": "opp", "life": 20}], "attackers": [g, *extra_attackers], "blockers": list(blockers)}
    if step:
        board["step"] = step
    return board
