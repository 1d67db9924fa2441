"""The conformance of trample.outcome's two lists: an item added to ``DAMAGE_EFFECTS`` or ``LOSS_CONDITIONS`` is
seen by every reader alike -- :func:`resolve` (and the events and players' outcomes), the objectives (``solve``,
``score``), ``game_over``, the next step's derivation (``rules.derive``, settling, the whole combat's count, lines
and search). Each test adds a made-up item with monkeypatch and checks each reader against a hand computation,
and against the same board without it (so a reader that kept its own copy of a rule would fail)."""

from __future__ import annotations

import pytest

from trample import Combat
from trample import outcome as outcome_module
from trample.models import load_scenario
from trample.optimize import score
from trample.outcome import game_over, has_effects, resolve, settle
from trample.rules import derive
from trample.whole import WholeCombat


class Halving:
    """A made-up damage effect: every hit deals half its amount, rounded down (0 is not dealt, 120.8)."""

    name = "test halving"

    def acts_on(self, scenario):
        return True

    def apply(self, scenario, hits):
        return tuple(type(h)(h.source, h.recipient, h.amount // 2, h.deathtouch, h.rule, h.shielded) for h in hits)


class SevenLife:
    """A made-up way to lose: a player with exactly 7 life loses the game."""

    name = "seven"
    rule = "test-7"

    def acts_on(self, scenario):
        return True

    def loses(self, player):
        return player.life == 7


@pytest.fixture
def halving(monkeypatch):
    monkeypatch.setattr(outcome_module, "DAMAGE_EFFECTS", (*outcome_module.DAMAGE_EFFECTS, Halving()))


@pytest.fixture
def seven(monkeypatch):
    monkeypatch.setattr(outcome_module, "LOSS_CONDITIONS", (*outcome_module.LOSS_CONDITIONS, SevenLife()))


def unblocked(power, life, keywords=(), **extra):
    return {
        "players": [{"id": "opp", "life": life}],
        "attackers": [{"id": "a", "power": power, "toughness": power, "keywords": list(keywords), "attacking": "opp"}],
        **extra,
    }


# First striker a (2/2) blocked by x (2/2): x dies in the first step unless the damage is halved.
FIRST_STRIKE_BLOCK = {
    "step": "combat",
    "players": [{"id": "opp", "life": 20}],
    "attackers": [
        {"id": "a", "power": 2, "toughness": 2, "keywords": ["first_strike"], "attacking": "opp", "blocked_by": ["x"]}
    ],
    "blockers": [{"id": "x", "power": 2, "toughness": 2}],
}


def regular_parts(doc):
    return [line.regular.to_json() for line in WholeCombat(doc).assignments()]


def test_a_damage_effect_is_seen_by_every_reader(halving):
    s = load_scenario(unblocked(5, 3))
    assert has_effects(s)  # the fast paths step aside
    out = resolve(s, {"a": {"opp": 5}})
    assert out.totals == {"opp": 2} and out.life("opp") == 1 and out.losers == ()  # stage 2, then 120.3a
    assert [(e.assigned, e.dealt, e.result) for e in out.events] == [(5, 2, "life")]
    assert not game_over(out.state)  # 104.3b reads the same outcome
    # the objectives read damage dealt
    assert Combat(unblocked(5, 3)).solve("max-damage").objectives == {"max-damage": 2}
    assert Combat(unblocked(5, 3)).solve("lethal").objectives == {"lethal": 0}
    assert score(Combat(unblocked(5, 3)), {"a": {"opp": 5}}, "max-damage") == {"max-damage": 2}
    # the next step: a double striker deals 2 of 5 first, so opp (3 life) is still in, and the regular step happens
    ds = unblocked(5, 3, ["double_strike"], step="combat")
    assert regular_parts(ds) == [{"a": {"opp": 5}}]
    assert WholeCombat(ds).count() == 1
    result = WholeCombat(ds).solve("lethal,max-damage")
    assert result.objectives == {"lethal": 1, "max-damage": 4}
    assert derive(out.state).source("a").damage == 5  # the game goes on: the next step is not silenced (104.3b)
    # 704.5g on halved damage: x is dealt 1 and survives to deal its regular damage (1 of it)
    assert regular_parts(FIRST_STRIKE_BLOCK) == [{"a": {}, "x": {"a": 2}}]
    assert WholeCombat(FIRST_STRIKE_BLOCK).count() == 1


def test_without_the_effect_the_same_readers_read_damage_assigned():
    s = load_scenario(unblocked(5, 3))
    assert not has_effects(s)
    out = resolve(s, {"a": {"opp": 5}})
    assert out.totals == {"opp": 5} and out.losers == (("opp", "704.5a"),) and game_over(out.state)
    assert Combat(unblocked(5, 3)).solve("max-damage").objectives == {"max-damage": 5}
    ds = unblocked(5, 3, ["double_strike"], step="combat")
    assert regular_parts(ds) == [{"a": {}}]  # 104.3b: the game ended after the first step
    assert WholeCombat(ds).solve("lethal,max-damage").objectives == {"lethal": 1, "max-damage": 5}
    assert regular_parts(FIRST_STRIKE_BLOCK) == [{"a": {}, "x": {}}]  # 704.5g: x died first


# A 4/4 trampler blocked by a 1/1 against 8 life: it can put 0 to 3 on opp; only 1 leaves opp at exactly 7.
TRAMPLE_TO_SEVEN = {
    "players": [{"id": "opp", "life": 8}],
    "attackers": [
        {"id": "a", "power": 4, "toughness": 4, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]}
    ],
    "blockers": [{"id": "x", "power": 0, "toughness": 1}],
}


def test_a_way_to_lose_is_seen_by_every_reader(seven):
    s = load_scenario(unblocked(3, 10))
    assert has_effects(s)
    out = resolve(s, {"a": {"opp": 3}})
    assert out.losers == (("opp", "test-7"),) and out.game_over
    assert out.player("opp").loses == ("seven",) and out.player("opp").to_json()["because"] == ["seven (test-7)"]
    # game_over and the next step's derivation (104.3b): every source assigns nothing, citing the way
    assert game_over(out.state)
    plan = derive(out.state)
    assert plan.source("a").rule == "104.3b" and "test-7" in plan.source("a").reason
    # the objectives: lethal is the one assignment that leaves opp at exactly 7
    result = Combat(TRAMPLE_TO_SEVEN).solve("lethal")
    assert result.objectives == {"lethal": 1} and result.assignment.to_json() == {"a": {"x": 3, "opp": 1}}
    assert result.lethal["opp"]["reached"] and result.lethal["opp"]["because"] == ["seven (test-7)"]
    # the whole combat: the first step leaves opp at 7, the game is over, no regular damage
    ds = unblocked(3, 10, ["double_strike"], step="combat")
    assert regular_parts(ds) == [{"a": {}}]
    assert WholeCombat(ds).solve("lethal").objectives == {"lethal": 1}
    # settling a board before the first step: with more players, a player at 7 leaves the game (800.4a)
    three = load_scenario(unblocked(3, 7, players_in_game=3))
    assert not settle(three)["a"].in_combat
    assert Combat(unblocked(3, 7, players_in_game=3)).count() == 1


def test_without_the_way_to_lose_nobody_loses_at_seven():
    out = resolve(load_scenario(unblocked(3, 10)), {"a": {"opp": 3}})
    assert out.losers == () and not game_over(out.state) and derive(out.state).source("a").rule != "104.3b"
    assert Combat(TRAMPLE_TO_SEVEN).solve("lethal").objectives == {"lethal": 0}
    assert regular_parts(unblocked(3, 10, ["double_strike"], step="combat")) == [{"a": {"opp": 3}}]
    assert settle(load_scenario(unblocked(3, 7, players_in_game=3)))["a"].in_combat
