"""What assigned damage does on real boards (trample.outcome, docs/effects.md): hand-computed boards, each
citing its rule."""

from __future__ import annotations

from trample.models import load_scenario
from trample.outcome import ATTACKING_PLAYER, dealt_events
from trample.outcome import resolve as after_step


def board(players=({"id": "opp"},), attackers=(), blockers=(), **extra):
    return load_scenario({"players": list(players), "attackers": list(attackers), "blockers": list(blockers), **extra})


def test_lifelink_blocker_gains_at_the_same_time():  # 510.2, 702.15b: the lifelink board
    s = board(
        players=[{"id": "opp", "life": 3}],
        attackers=[
            {"id": "a", "power": 5, "toughness": 5, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["b"]}
        ],
        blockers=[{"id": "b", "power": 2, "toughness": 2, "keywords": ["lifelink"]}],
    )
    out = after_step(s, {"a": {"b": 2, "opp": 3}, "b": {"a": 2}})
    opp = out.player("opp")
    assert opp.life == 2 and opp.life_lost == 3 and opp.life_gained == 2 and not opp.loses
    assert out.losers == () and not out.game_over
    assert out.died == ("b",)


def test_lifelink_attacker_gains_for_the_attacking_player():  # 702.15b
    s = board(attackers=[{"id": "a", "power": 3, "toughness": 3, "keywords": ["lifelink"], "attacking": "opp"}])
    assert after_step(s, {"a": {"opp": 3}}).life_gained == {ATTACKING_PLAYER: 3}


def test_infect_to_a_player_gives_poison_not_life_loss():  # 702.90b, 704.5c
    s = board(
        players=[{"id": "opp", "life": 20, "poison": 8}],
        attackers=[{"id": "a", "power": 3, "toughness": 3, "keywords": ["infect"], "attacking": "opp"}],
    )
    out = after_step(s, {"a": {"opp": 3}})
    assert out.player("opp").life == 20 and out.player("opp").poison == 11
    assert out.player("opp").loses == ("poison",) and out.game_over


def test_infect_and_wither_to_creatures_are_counters():  # 702.90c, 702.80b, 704.5f
    s = board(
        attackers=[
            {"id": "i", "power": 2, "toughness": 2, "keywords": ["infect"], "attacking": "opp", "blocked_by": ["x"]},
            {"id": "w", "power": 1, "toughness": 2, "keywords": ["wither"], "attacking": "opp", "blocked_by": ["y"]},
        ],
        blockers=[
            {"id": "x", "power": 0, "toughness": 3},
            {"id": "y", "power": 0, "toughness": 1, "keywords": ["indestructible"]},
        ],
    )
    out = after_step(s, {"i": {"x": 2}, "w": {"y": 1}})
    x, y = out.state["x"], out.state["y"]
    assert (x.power, x.toughness, x.damage_marked, x.in_combat) == (-2, 1, 0, True)  # counters, no damage marked
    assert y.toughness == 0 and not y.in_combat and "y" in out.died  # 704.5f: indestructible does not help


def test_toxic_adds_poison_whatever_the_damage():  # 702.164c
    s = board(
        players=[{"id": "opp", "life": 10, "poison": 7}],
        attackers=[{"id": "a", "power": 1, "toughness": 1, "toxic": 3, "attacking": "opp"}],
    )
    opp = after_step(s, {"a": {"opp": 1}}).player("opp")
    assert (opp.life, opp.poison, opp.loses) == (9, 10, ("poison",))


def test_toxic_damage_prevented_gives_no_poison():  # 702.164c: only if combat damage is dealt
    s = board(
        players=[{"id": "opp", "poison": 9, "prevent_combat": True}],
        attackers=[{"id": "a", "power": 1, "toughness": 1, "toxic": 3, "attacking": "opp"}],
    )
    out = after_step(s, {"a": {"opp": 1}})
    assert out.player("opp").poison == 9 and out.events[0].result == "prevented" and out.events[0].rule == "615.1a"


def test_protection_from_red_prevents_the_damage_and_the_lifelink():  # 702.16e, 702.15b
    s = board(
        attackers=[
            {
                "id": "a",
                "power": 4,
                "toughness": 4,
                "tags": ["red"],
                "keywords": ["lifelink"],
                "attacking": "opp",
                "blocked_by": ["b"],
            }
        ],
        blockers=[{"id": "b", "power": 1, "toughness": 2, "protection": ["red"]}],
    )
    out = after_step(s, {"a": {"b": 4}, "b": {"a": 1}})
    assert out.state["b"].in_combat and out.state["b"].damage_marked == 0
    assert out.life_gained == {} and out.events[0].rule == "702.16e"


def test_shield_and_doubling_in_the_affected_players_order():  # 615.7, 614.1a, 616.1
    def deal(order):
        s = board(
            players=[{"id": "opp", "life": 20, "prevent": 2, "replacement_order": order}],
            attackers=[{"id": "a", "power": 3, "toughness": 3, "deals": [{"times": 2}], "attacking": "opp"}],
        )
        return after_step(s, {"a": {"opp": 3}})

    least, most = deal("least"), deal("most")
    assert least.player("opp").life == 18  # (3 - 2) x 2
    assert most.player("opp").life == 16  # 3 x 2 - 2
    assert least.state["opp"].receiving.prevent == 0 and most.state["opp"].receiving.prevent == 0


def test_multiplication_before_addition_by_default():  # 616.1: "least"
    s = board(
        players=[{"id": "opp", "takes": [{"plus": 2}, {"times": 2}]}],
        attackers=[{"id": "a", "power": 3, "toughness": 3, "attacking": "opp"}],
    )
    assert dealt_events(s, {"a": {"opp": 3}})[0].dealt == 8  # 3 x 2 + 2 (most: (3 + 2) x 2 = 10)


def test_shield_order_chooses_whose_damage_is_prevented():  # 615.7
    s = board(
        players=[{"id": "opp", "life": 10, "prevent": 2, "shield_order": ["b"]}],
        attackers=[
            {"id": "a", "power": 2, "toughness": 2, "attacking": "opp"},
            {"id": "b", "power": 2, "toughness": 2, "keywords": ["lifelink"], "attacking": "opp"},
        ],
    )
    out = after_step(s, {"a": {"opp": 2}, "b": {"opp": 2}})
    assert [e.dealt for e in out.events] == [2, 0] and out.life_gained == {}
    unordered = board(
        players=[{"id": "opp", "life": 10, "prevent": 2}],
        attackers=[
            {"id": "a", "power": 2, "toughness": 2, "attacking": "opp"},
            {"id": "b", "power": 2, "toughness": 2, "keywords": ["lifelink"], "attacking": "opp"},
        ],
    )
    assert after_step(unordered, {"a": {"opp": 2}, "b": {"opp": 2}}).life_gained == {ATTACKING_PLAYER: 2}


def test_commander_damage_21_loses():  # 704.6c, 903.10a
    s = board(
        players=[{"id": "opp", "life": 40, "commander_damage": {"c": 19}}],
        attackers=[{"id": "c", "power": 2, "toughness": 2, "commander": "me", "attacking": "opp"}],
    )
    opp = after_step(s, {"c": {"opp": 2}}).player("opp")
    assert opp.life == 38 and opp.commander_damage == {"c": 21} and opp.loses == ("commander",)
    assert opp.to_json()["because"] == ["commander (704.6c)"]


def test_life_zero_loses():  # 704.5a
    s = board(
        players=[{"id": "opp", "life": 2}], attackers=[{"id": "a", "power": 2, "toughness": 2, "attacking": "opp"}]
    )
    out = after_step(s, {"a": {"opp": 2}})
    assert out.player("opp").loses == ("life",) and out.game_over  # 104.3b: two players, the game is over


def test_a_loser_leaves_a_multiplayer_game():  # 800.4a, 506.4
    s = load_scenario(
        {
            "players": [{"id": "p", "life": 1}, {"id": "q"}],
            "planeswalkers": [{"id": "w", "controller": "p", "loyalty": 3}],
            "attackers": [
                {"id": "a", "power": 1, "toughness": 1, "keywords": ["first_strike"], "attacking": "p"},
                {"id": "b", "power": 2, "toughness": 2, "attacking": "w"},
                {"id": "c", "power": 2, "toughness": 2, "attacking": "q", "blocked_by": ["y"]},
                {"id": "d", "power": 2, "toughness": 2, "attacking": "p", "blocked_by": ["x"]},
            ],
            "blockers": [
                {"id": "x", "power": 1, "toughness": 3, "controller": "p"},
                {"id": "y", "power": 1, "toughness": 3},
            ],
        }
    )
    out = after_step(s, {"a": {"p": 1}})
    assert out.losers == (("p", "704.5a"),) and not out.game_over and s.game_players == 3
    st = out.state
    assert not st["w"].in_combat and not st["x"].in_combat  # their permanents leave
    assert not st["b"].in_combat and not st["d"].in_combat and not st["a"].in_combat  # attacking them: removed
    assert st["c"].in_combat and st["y"].in_combat  # attacking q: still in combat


def test_deathtouch_counters_destroy():  # 704.5h: infect damage is still damage
    s = board(
        attackers=[
            {
                "id": "a",
                "power": 1,
                "toughness": 1,
                "keywords": ["infect", "deathtouch"],
                "attacking": "opp",
                "blocked_by": ["x"],
            }
        ],
        blockers=[{"id": "x", "power": 0, "toughness": 5}],
    )
    out = after_step(s, {"a": {"x": 1}})
    assert not out.state["x"].in_combat and out.state["x"].toughness == 4


def test_takes_on_a_planeswalker_and_a_battle():  # 614.1a, 120.3c, 120.3h, 704.5i, 704.5v
    s = load_scenario(
        {
            "players": [{"id": "opp"}],
            "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 4, "takes": [{"times": 2}]}],
            "battles": [{"id": "t", "protector": "opp", "defense": 4, "takes": [{"plus": 1}]}],
            "attackers": [
                {"id": "a", "power": 2, "toughness": 2, "attacking": "w"},
                {"id": "b", "power": 2, "toughness": 2, "attacking": "t"},
            ],
        }
    )
    out = after_step(s, {"a": {"w": 2}, "b": {"t": 2}})
    assert out.state["w"].loyalty == 0 and not out.state["w"].in_combat
    assert out.state["t"].defense == 1 and out.state["t"].in_combat


# A multiplayer board: p (1 life) protects the battle t; a first striker takes p out of the game.
PROTECTOR_LEAVES = {
    "players_in_game": 3,
    "players": [{"id": "p", "life": 1}, {"id": "q"}],
    "battles": [{"id": "t", "protector": "p", "defense": 5}],
    "attackers": [
        {"id": "a", "power": 1, "toughness": 1, "keywords": ["first_strike"], "attacking": "p"},
        {"id": "b", "power": 3, "toughness": 3, "attacking": "t"},
    ],
}


def test_a_battle_whose_protector_leaves_stays_attacked():
    # 800.4a takes what p owns and controls: a battle is neither (p only protects it); 506.4 lists no removal of a
    # battle whose protector left; 704.5w chooses a new protector only for a battle no creature is attacking.
    # So t stays in combat, b keeps attacking it, and the regular step's damage goes to t (510.1b).
    s = load_scenario(PROTECTOR_LEAVES)
    out = after_step(s, {"a": {"p": 1}})
    assert out.losers == (("p", "704.5a"),) and not out.game_over  # 800.4a: p leaves a three-player game
    assert out.state["t"].in_combat and out.state["b"].in_combat and not out.state["a"].in_combat
    from trample.whole import WholeCombat

    whole = WholeCombat(dict(PROTECTOR_LEAVES, step="combat"))
    lines = list(whole.assignments())
    assert [line.regular.to_json() for line in lines] == [{"a": {}, "b": {"t": 3}}]
    regular = after_step(out.state, {"b": {"t": 3}})
    assert regular.state["t"].defense == 2 and regular.state["t"].in_combat  # 120.3h: it takes the damage


def test_a_settled_board_keeps_the_lost_protectors_battle_in_combat():
    # the same reading on a board that arrives with p already lost (704.5a; settled first, 704.3, 800.4a)
    from trample import Combat

    doc = dict(PROTECTOR_LEAVES, players=[{"id": "p", "life": 0}, {"id": "q"}])
    combat = Combat(doc)
    assert [a.to_json() for a in combat.assignments()] == [{"a": {}, "b": {"t": 3}}]
