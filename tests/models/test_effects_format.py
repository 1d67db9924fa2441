"""docs/effects.md: the scenario fields for real boards load, default, dump back (round trip) and fail in one line."""

import json

import pytest

from trample.models import FormatError, load_scenario

FULL = {
    "players_in_game": 3,
    "players": [
        {"id": "opp", "life": 3, "poison": 2, "commander_damage": {"k": 5}, "prevent": 2, "takes": [{"times": 2}]},
        {"id": "other"},
    ],
    "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 3, "protection": ["green"]}],
    "battles": [{"id": "t", "protector": "other", "defense": 4, "takes": [{"plus": 1}]}],
    "attackers": [
        {
            "id": "k",
            "power": 2,
            "toughness": 3,
            "keywords": ["lifelink", "infect", "wither", "banding"],
            "toxic": 2,
            "tags": ["red", "dragon"],
            "deals": [{"times": 2}, {"plus": 1}],
            "assigns_toughness": True,
            "attacking": "opp",
            "blocked_by": ["b"],
            "as_though_unblocked": True,
            "commander": "me",
        }
    ],
    "blockers": [
        {
            "id": "b",
            "power": 1,
            "toughness": 1,
            "damage_order": ["k"],
            "controller": "opp",
            "protection": ["red"],
            "prevent_combat": True,
            "replacement_order": "most",
            "shield_order": ["k"],
        }
    ],
}


def test_every_field_loads():
    s = load_scenario(FULL)
    k, b, opp = s["k"], s["b"], s["opp"]
    assert k.toxic == 2 and k.tags == ("red", "dragon") and k.deals == (("times", 2), ("plus", 1))
    assert k.assigns_toughness and k.combat_damage == 3  # 510.1a
    assert k.as_though_unblocked and k.commander == "me"
    assert {"lifelink", "infect", "wither", "banding"} <= set(k.keywords)
    assert b.damage_order == ("k",) and b.controller == "opp"
    assert b.receiving.protection == ("red",) and b.receiving.prevent_combat and b.receiving.order == "most"
    assert b.receiving.protected_from(k)  # 702.16e: "red" is one of k's tags
    assert opp.poison == 2 and opp.commander_damage_from("k") == 5 and opp.receiving.prevent == 2
    assert s.game_players == 3


def test_round_trip_and_defaults_not_written():
    s = load_scenario(FULL)
    assert load_scenario(s.to_json()) == s
    assert load_scenario(json.loads(s.dumps())) == s
    plain = load_scenario(
        {"players": [{"id": "p"}], "attackers": [{"id": "a", "power": 1, "toughness": 1, "attacking": "p"}]}
    )
    out = plain.to_json()
    assert set(out["players"][0]) == {"id", "life"}
    assert set(out["attackers"][0]) == {
        "id",
        "power",
        "toughness",
        "keywords",
        "damage_marked",
        "in_combat",
        "attacking",
        "blocked_by",
        "blocked",
    }
    assert "players_in_game" not in out and plain.game_players == 2


def test_blocker_controller_default():
    s = load_scenario(
        {
            "players": [{"id": "p"}, {"id": "q"}],
            "planeswalkers": [{"id": "w", "controller": "q", "loyalty": 2}],
            "attackers": [{"id": "a", "power": 1, "toughness": 1, "attacking": "w", "blocked_by": ["b"]}],
            "blockers": [{"id": "b", "power": 1, "toughness": 1}, {"id": "c", "power": 1, "toughness": 1}],
        }
    )
    assert s.blocker_controller("b") == "q"  # controls the planeswalker its attacker attacks
    assert s.blocker_controller("c") is None  # blocks nothing, two players: unknown
    assert s.damage_order("b") == ("a",)


BAD = [
    ({"players": [{"id": "o", "poison": -1}]}, "players[0].poison: must not be negative, got -1"),
    ({"players": [{"id": "o", "takes": [{"times": 0}]}]}, "players[0].takes[0].times: must be at least 1, got 0"),
    (
        {"players": [{"id": "o", "takes": [{"x": 1}]}]},
        'players[0].takes[0]: expected one of {"times": N} or {"plus": N}',
    ),
    ({"players": [{"id": "o", "takes": [{"times": 2, "plus": 1}]}]}, "players[0].takes[0]: expected one of"),
    ({"players": [{"id": "o", "prevent": "2"}]}, 'players[0].prevent: expected an integer, got "2"'),
    ({"players": [{"id": "o", "protection": [3]}]}, "players[0].protection[0]: expected a quality string, got 3"),
    (
        {"players": [{"id": "o", "replacement_order": "max"}]},
        'players[0].replacement_order: expected "least" or "most"',
    ),
    ({"players": [{"id": "o", "shield_order": ["zz"]}]}, 'players[0].shield_order[0]: unknown creature "zz"'),
    ({"players": [{"id": "o", "commander_damage": []}]}, "players[0].commander_damage: expected an object, got a list"),
    ({"players": [{"id": "o", "commander_damage": {"x": -2}}]}, "players[0].commander_damage.x: must not be negative"),
    ({"players_in_game": 1}, "players_in_game: must be at least 2"),
    ({"attackers": [{"id": "a", "power": 1, "toughness": 1, "attacking": "o", "toxic": -1}]}, "attackers[0].toxic"),
    (
        {"attackers": [{"id": "a", "power": 1, "toughness": 1, "attacking": "o", "commander": 3}]},
        "attackers[0].commander",
    ),
    (
        {"attackers": [{"id": "a", "power": 1, "toughness": 1, "attacking": "o", "as_though_unblocked": 1}]},
        "attackers[0].as_though_unblocked: expected true or false, got 1",
    ),
    (
        {
            "attackers": [{"id": "a", "power": 1, "toughness": 1, "attacking": "o"}],
            "players": [{"id": "o", "commander_damage": {"a": 3}}],
        },
        'players[0].commander_damage.a: "a" is not marked as a commander',
    ),
    (
        {
            "attackers": [{"id": "a", "power": 1, "toughness": 1, "attacking": "o", "blocked_by": ["b"]}],
            "blockers": [{"id": "b", "power": 1, "toughness": 1, "damage_order": ["a", "a"]}],
        },
        "blockers[0].damage_order: names an attacker twice",
    ),
    (
        {
            "attackers": [{"id": "a", "power": 1, "toughness": 1, "attacking": "o", "blocked_by": ["b"]}],
            "blockers": [{"id": "b", "power": 1, "toughness": 1, "damage_order": ["c"]}],
        },
        "blockers[0].damage_order: must list each attacker that b blocks exactly once (those naming it: a)",
    ),
    (
        {"attackers": [], "blockers": [{"id": "b", "power": 1, "toughness": 1, "controller": "nobody"}]},
        'blockers[0].controller: unknown player "nobody"',
    ),
    (
        {"attackers": [{"id": "a", "power": 1, "toughness": 1, "attacking": "o", "keywords": ["toxic"]}]},
        '"toxic" alone does not say how much or from what; 702.164b',
    ),
]


@pytest.mark.parametrize("patch,message", BAD, ids=[m[:40] for _, m in BAD])
def test_bad_fields_one_line(patch, message):
    doc = {"players": [{"id": "o"}], "attackers": []}
    doc.update(patch)
    with pytest.raises(FormatError) as err:
        load_scenario(doc)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_cli_exit_2(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"players": [{"id": "o", "poison": -1}], "attackers": []}))
    out = subprocess.run([sys.executable, "-m", "trample", "count", str(path)], capture_output=True, text=True)
    assert out.returncode == 2 and out.stderr.strip().endswith("players[0].poison: must not be negative, got -1")
    assert len(out.stderr.strip().splitlines()) == 1


# -- the JSON Schema (solver/schemas/scenario.json) says the same, but for cross-references ------------------

CROSS_REFERENCES = {
    "players[0].shield_order[0]",
    "players[0].commander_damage.a",
    "blockers[0].damage_order: must list",
    "blockers[0].controller",
    "players_in_game",
    "attackers[0].keywords[0]: unknown",
}


def test_schema_accepts_every_field():
    import jsonschema

    from trample import schemas

    v = jsonschema.Draft202012Validator(schemas.load("scenario"))
    assert not list(v.iter_errors(FULL))
    assert not list(v.iter_errors(load_scenario(FULL).to_json()))


@pytest.mark.parametrize("patch,message", BAD, ids=[m[:40] for _, m in BAD])
def test_schema_rejects_what_the_loader_rejects(patch, message):
    import jsonschema

    from trample import schemas

    doc = {"players": [{"id": "o"}], "attackers": []}
    doc.update(patch)
    rejected = bool(list(jsonschema.Draft202012Validator(schemas.load("scenario")).iter_errors(doc)))
    known = any(message.startswith(x) for x in CROSS_REFERENCES) and "unknown keyword" not in message
    assert rejected or known, message
