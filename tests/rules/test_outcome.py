"""trample.outcome: what damage does, once -- the thresholds legality reads, one step's outcome in stages
(assigned -> dealt -> results), and the two extension points the next issue plugs into (an effect on the
damage dealt; a player who loses)."""

import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, near_legal_assignments, outcome_effects, scenarios

from trample import Combat
from trample.models import Keyword, load_scenario
from trample.outcome import (
    DAMAGE_EFFECTS,
    LOSS_CONDITIONS,
    Hit,
    after_step,
    apply_damage,
    creature_dies,
    has_effects,
    has_lethal,
    kills,
    lethal_cost,
    lethal_need,
    overkill_threshold,
    reaches,
    resolve,
    results,
    settle,
    state_based_actions,
    tally,
    thresholds_met,
)
from trample.rules import derive
from trample.whole import WholeCombat

BOARD = {
    "players": [{"id": "opp", "life": 3}],
    "planeswalkers": [{"id": "pw", "controller": "opp", "loyalty": 3}],
    "attackers": [
        {"id": "a", "power": 4, "toughness": 4, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]},
        {"id": "d", "power": 1, "toughness": 1, "keywords": ["deathtouch"], "attacking": "pw", "blocked_by": ["y"]},
    ],
    "blockers": [
        {"id": "x", "power": 2, "toughness": 3, "damage_marked": 1},
        {"id": "y", "power": 1, "toughness": 5},
    ],
}


def test_lethal_need_and_thresholds():
    s = load_scenario(BOARD)
    assert lethal_need(s["x"]) == 2  # 702.19b: toughness 3, 1 already marked
    assert lethal_need(replace(s["x"], damage_marked=7)) == 0  # already lethal
    assert has_lethal(2, 2, False) and not has_lethal(2, 1, False)  # 702.19b
    assert has_lethal(2, 1, True)  # 702.2c: any deathtouch damage is lethal
    assert has_lethal(0, 0, False)  # need 0: already lethal
    assert reaches(3, 3) and not reaches(2, 3)  # 702.19c: loyalty 3 needs 3
    assert lethal_cost(2, 1, False, False) == 1 and lethal_cost(2, 1, False, True) == 1  # 702.2c: one point
    assert lethal_cost(5, 0, False, True) == 1 and lethal_cost(5, 0, True, False) == 0
    assert kills(2, 0, False) is False and kills(0, 0, False) and not kills(0, 0, False, dealt_only=True)
    assert overkill_threshold(s, "y", deathtouched=True) == 1 and overkill_threshold(s, "y") == 5  # 702.2c
    assert overkill_threshold(s, "opp") == 3 and overkill_threshold(s, "pw") == 3


def test_thresholds_met_is_has_lethal_and_reaches_on_many_slots():
    # slot 0: a blocker needing 2 (702.19b; deathtouch 702.2c counts), slot 1: a planeswalker's loyalty 3 (702.19c;
    # deathtouch does not count)
    slots = [(0, 2, True), (1, 3, False)]
    for totals in [(0, 0), (1, 2), (2, 3), (5, 1)]:
        for dt in range(4):
            expected = has_lethal(2, totals[0], bool(dt & 1)) | reaches(totals[1], 3) << 1
            assert thresholds_met(slots, totals, dt) == expected


def test_legality_reads_the_outcome_thresholds():
    # 702.19b: a assigns 2 to x (lethal with 1 marked), then may trample 2 over; 1 to x is not lethal
    combat = Combat(BOARD)
    assert combat.check({"a": {"x": 2, "opp": 2}, "d": {"y": 1}}).legal
    bad = combat.check({"a": {"x": 1, "opp": 3}, "d": {"y": 1}})
    assert not bad.legal and bad.violations[0].rule == "702.19b"
    assert derive(combat.scenario).lethal_need == {"x": 2}


def test_resolve_stages_deaths_and_state_based_actions():
    s = load_scenario(BOARD)
    asg = {"a": {"x": 2, "opp": 2}, "d": {"y": 1}, "x": {"a": 2}, "y": {"d": 1}}
    out = resolve(s, asg)
    # the one damage effect (docs/effects.md) changes nothing on a board without prevention, protection or doubling
    assert [e.name for e in DAMAGE_EFFECTS] == ["replacements and prevention"] and out.dealt == out.assigned
    assert out.totals == {"x": 2, "opp": 2, "y": 1, "a": 2, "d": 1}
    assert out.deathtouched == {"y"}
    # 704.5g: x (lethal) and d (1 toughness) die; 704.5h: y, dealt deathtouch damage; a survives with 2 marked
    assert set(out.died) == {"x", "y", "d"}
    assert out.state["a"].damage_marked == 2 and out.state["a"].in_combat
    assert out.state["opp"].life == 1 and out.life("opp") == 1  # 120.3a
    assert out.losers == () and not out.game_over
    assert out.state == after_step(s, asg)  # the one state between the steps
    assert out.to_json()["died"] == ["d", "x", "y"]


class _Doubling:
    """A test-only damage effect: every hit deals twice its amount."""

    name = "test doubling"

    def acts_on(self, scenario):
        return True

    def apply(self, scenario, hits):
        return tuple(Hit(h.source, h.recipient, 2 * h.amount, h.deathtouch) for h in hits)


def test_extension_point_an_effect_changes_damage_dealt_not_legality():
    s = load_scenario(BOARD)
    asg = {"a": {"x": 2, "opp": 2}, "d": {"y": 1}}
    plain, doubled = resolve(s, asg), resolve(s, asg, effects=(_Doubling(),))
    assert [h.amount for h in doubled.assigned] == [h.amount for h in plain.assigned]  # stage 1 unchanged
    assert doubled.totals["opp"] == 4 and plain.totals["opp"] == 2  # stage 2: dealt
    assert doubled.life("opp") == -1 and doubled.losers == (("opp", "704.5a"),)  # stage 3: results
    assert plain.losers == ()
    assert Combat(BOARD).check(asg).legal  # legality never reads the effects


class _TenLife:
    """A test-only loss condition standing in for poison or commander damage."""

    name = "under ten"
    rule = "test"

    def acts_on(self, scenario):
        return True

    def loses(self, player):
        return player.life < 10


def test_extension_point_a_player_who_loses():
    s = load_scenario(BOARD)
    out = resolve(s, {"a": {"x": 1, "opp": 3}})  # 704.5a: life 3 - 3 = 0
    assert out.losers == (("opp", "704.5a"),) and out.game_over
    assert [c.rule for c in LOSS_CONDITIONS] == ["704.5a", "704.5c", "704.6c"]  # life, poison, commander damage
    assert resolve(s, {}, loss_conditions=(_TenLife(),)).losers == (("opp", "test"),)
    assert resolve(s, {}).losers == ()
    # the whole combat reports the first step's outcome, losers included
    doc = {
        "step": "combat",
        "players": [{"id": "opp", "life": 2}],
        "attackers": [{"id": "f", "power": 2, "toughness": 2, "keywords": ["double_strike"], "attacking": "opp"}],
    }
    whole = WholeCombat(doc)
    line = next(iter(whole.assignments()))
    assert whole.outcome_after(line["first_strike"]).losers == (("opp", "704.5a"),)
    assert whole.outcome_after(line["first_strike"]).state == whole.state_after(line["first_strike"])


@pytest.mark.parametrize("toughness,indestructible,dies", [(0, True, True), (2, True, False), (2, False, True)])
def test_creature_deaths(toughness, indestructible, dies):
    # 704.5f (toughness 0, even indestructible), 702.12b (indestructible survives lethal damage), 704.5g
    kw = ["indestructible"] if indestructible else []
    doc = {**BOARD, "blockers": [{"id": "x", "power": 0, "toughness": toughness, "keywords": kw}, BOARD["blockers"][1]]}
    out = resolve(load_scenario(doc), {"a": {"x": 2}})
    assert ("x" in out.died) is dies


@settings(max_examples=examples(100), deadline=None)
@given(scenarios(max_players=3, max_work=400))
def test_apply_damage_is_the_pipeline_on_plain_boards(doc):
    # the plain boards' fast path (the whole combat's count builds the regular step from totals) gives the state
    # resolve gives: 120.3 results, 704.3 state-based actions, losers (704.5a) leaving a larger game (800.4a)
    combat = Combat(doc, side="both")
    s = combat.scenario
    assert not has_effects(s)  # the generator's plain boards
    dts = {c.id for c in (*s.attackers, *s.blockers) if c.has(Keyword.DEATHTOUCH)}
    for asg in itertools.islice(combat.assignments(), 12):
        full = asg.to_json()
        totals, touched = tally(full, dts)
        assert apply_damage(s, totals, touched) == after_step(s, full)
        # and the general pipeline's (the lists given: no plain fast path inside resolve either)
        assert apply_damage(s, totals, touched) == resolve(s, full, DAMAGE_EFFECTS, LOSS_CONDITIONS).state


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_resolve_on_a_plain_board_is_the_general_pipeline(data):
    # resolve's plain fast path (no effect acts, no lifelink/infect/wither/toxic/commander: every hit dealt as
    # assigned, 120.3 results by the recipient alone) gives the whole outcome the general pipeline gives: hits,
    # events, totals, deathtouch (702.2c), results, state-based actions (704.3: 704.5f/g/h, 704.5i, 704.5v),
    # losers (704.5a; 704.5c for poison already on the board), a larger game's leavers (800.4a)
    doc = data.draw(scenarios(max_players=3, max_work=400))
    for p in doc["players"]:
        if data.draw(st.integers(0, 5)) == 0:
            p["poison"] = data.draw(st.integers(0, 10))
    side = data.draw(st.sampled_from(["attacking", "defending"]))
    s = Combat(doc, side="both").scenario
    assert not has_effects(s)
    listed = [a.to_json() for a in itertools.islice(Combat(doc, side="both").assignments(), 6)]
    candidates = [*listed, data.draw(near_legal_assignments(doc, None, side))]
    candidates.append({**candidates[-1], "nobody": {doc["players"][0]["id"]: 2}, "a0": {"nowhere": 3}})
    for asg in candidates:
        fast = resolve(s, asg)
        general = resolve(s, asg, DAMAGE_EFFECTS, LOSS_CONDITIONS)
        assert fast == general  # every field of the Outcome
        assert (fast.game_over, fast.gone, fast.destroyed, fast.died) == (
            general.game_over,
            general.gone,
            general.destroyed,
            general.died,
        )


@settings(max_examples=examples(100), deadline=None)
@given(st.data())
def test_resolve_makes_the_state_the_stages_make_one_at_a_time(data):
    # resolve makes its state once (stage 3's changes, then what leaves combat on them, then one board); the stages
    # one at a time -- results (120.3: marked damage, -1/-1 counters, loyalty, defense, life, poison, commander
    # damage, lifelink 702.15b, shields used 615.7) then state_based_actions (704.5f/g/h, 702.12b, 704.5i,
    # 704.5v; 704.5a/c, 704.6c; 800.4a) -- make the same state and losers, on boards with every effect
    doc = data.draw(outcome_effects(data.draw(scenarios(max_players=3, max_work=400))))
    s = Combat(doc, side="both").scenario
    listed = [a.to_json() for a in itertools.islice(Combat(doc, side="both").assignments(), 6)]
    for asg in [*listed, data.draw(near_legal_assignments(doc, None, "attacking"))]:
        out = resolve(s, asg)
        damaged, res = results(s, out.events)
        assert damaged.step == "regular"
        state, lost = state_based_actions(damaged, out.deathtouched)
        assert (out.state, out.losers) == (state, lost)
        assert [p.id for p in out.players] == [p.id for p in damaged.players]
        for p in damaged.players:  # 120.3a, 510.2: damage and lifelink at once
            assert p.life == s.player(p.id).life - res.life_lost.get(p.id, 0) + res.gained.get(p.id, 0)
        for c in (*damaged.attackers, *damaged.blockers):  # 120.3e, 702.90c / 702.80b
            before = s.creature(c.id)
            assert c.damage_marked == before.damage_marked + res.marked.get(c.id, 0)
            assert c.toughness == before.toughness - res.counters.get(c.id, 0)


def test_settle_is_the_state_based_actions_with_nothing_dealt():
    # 704.5g: x arrives with lethal damage marked; 704.5i: a planeswalker at 0 loyalty; both leave before any step
    doc = {**BOARD, "blockers": [{"id": "x", "power": 2, "toughness": 3, "damage_marked": 3}, BOARD["blockers"][1]]}
    doc["planeswalkers"] = [{"id": "pw", "controller": "opp", "loyalty": 0}]
    s = load_scenario(doc)
    settled = settle(s)
    assert not settled["x"].in_combat and not settled["pw"].in_combat and settled["y"].in_combat
    assert settled == state_based_actions(s)[0] and state_based_actions(s)[1] == ()
    assert settle(settled) is settled  # nothing pending: the same board


# -- leaving the game is not dying (800.4a, 506.4): the outcome, the objectives on both paths, the picture --------

# Three players: x's 3 damage makes opp lose; opp's wall is dealt 1 (no kill) and leaves the game with opp (800.4a).
# z attacks opp's planeswalker and is removed from combat with it (506.4). The ogre dies at once with opp's loss
# (704.3: the state-based actions happen together), so it is a kill either way.
LEAVERS = {
    "players_in_game": 3,
    "players": [{"id": "opp", "life": 3}],
    "planeswalkers": [{"id": "pw", "controller": "opp", "loyalty": 5}],
    "attackers": [
        {"id": "x", "power": 3, "toughness": 3, "attacking": "opp"},
        {"id": "y", "power": 1, "toughness": 1, "attacking": "opp", "blocked_by": ["wall"]},
        {"id": "w", "power": 2, "toughness": 2, "attacking": "opp", "blocked_by": ["ogre"]},
        {"id": "z", "power": 1, "toughness": 1, "attacking": "pw"},
    ],
    "blockers": [{"id": "wall", "power": 0, "toughness": 5}, {"id": "ogre", "power": 0, "toughness": 2}],
}
LEAVERS_LINE = {"x": {"opp": 3}, "y": {"wall": 1}, "w": {"ogre": 2}, "z": {"pw": 1}}


def test_what_leaves_with_a_loser_did_not_die():  # 800.4a, 506.4, 704.3, 704.5g
    out = resolve(load_scenario(LEAVERS), LEAVERS_LINE)
    assert [p for p, _ in out.losers] == ["opp"]
    assert set(out.gone) == {"x", "y", "w", "z", "wall", "ogre", "pw"}  # all out of combat (506.4, 800.4a)
    assert out.destroyed == ("ogre",) and out.died == ("ogre",)  # only the ogre went to the graveyard
    assert out.to_json()["died"] == ["ogre"]


def test_what_went_is_read_once_and_follows_the_state():
    # gone is read once an outcome (destroyed, died and the pictures read it again), kept beside the fields: the
    # outcome equals one whose gone was never read, and a state replaced is read again
    out, fresh = resolve(load_scenario(LEAVERS), LEAVERS_LINE), resolve(load_scenario(LEAVERS), LEAVERS_LINE)
    first = out.gone
    assert out.gone is first and out.destroyed == ("ogre",) and out == fresh and out.to_json() == fresh.to_json()
    out.state = out.scenario  # nothing went on the board before the step
    assert out.gone == () and out.destroyed == () and out.died == ()
    out.scenario = fresh.state
    assert out.gone == ()


@pytest.mark.parametrize("effect", [None, "lifelink"])  # a plain board, and the same board read on the effect model
def test_max_kills_counts_deaths_not_departures(effect):  # 800.4a: the wall leaving with opp is no kill
    doc = {**LEAVERS, "attackers": [dict(a) for a in LEAVERS["attackers"]]}
    if effect:
        doc["attackers"][0]["keywords"] = [effect]  # x's lifelink changes nothing the objectives read
    combat = Combat(doc)
    assert has_effects(load_scenario(doc)) == bool(effect)
    result = combat.solve(["max-kills", "max-value"])
    assert result.objectives == {"max-kills": 1, "max-value": 1}  # the ogre; neither the wall nor pw
    assert result.assignment.to_json()["w"] == {"ogre": 2}


def test_the_picture_says_the_wall_leaves_and_the_ogre_dies():  # 800.4a in render
    import xml.etree.ElementTree as ET

    from trample.render import render

    root = ET.fromstring(render(Combat(LEAVERS), LEAVERS_LINE))
    texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    verdicts = [t for t in texts if t.startswith("takes ")]
    assert verdicts.count("takes 0: removed") == 4  # x, y, w and z: what they attack left (506.4)
    assert "takes 2: dies" in verdicts  # the ogre
    assert verdicts.count("takes 1: leaves") == 2  # the wall, and the planeswalker: not "dies", not "destroyed"


def test_what_readers_keep_on_a_board_is_not_pickled_or_copied():
    """A plan (and its engines' caches) is kept on the board object it was derived from (rules.derive); a pickled
    or copied board carries its fields only, so nothing read in one process is shipped to a worker."""
    import copy
    import pickle

    sc = load_scenario(BOARD)
    fresh = len(pickle.dumps(sc))
    combat = Combat(sc)
    n = combat.count()
    combat.solve("lethal,max-kills")
    assert derive(sc) is combat.plan  # one plan per board object
    assert len(pickle.dumps(sc)) == fresh
    for other in (pickle.loads(pickle.dumps(sc)), copy.copy(sc), copy.deepcopy(sc)):
        assert other == sc and "_remembered" not in other.__dict__
        assert derive(other) is not combat.plan and Combat(other).count() == n


@pytest.mark.parametrize("keyword", [None, "infect", "wither"])
def test_creature_dies_reads_counters_as_the_step_puts_them(keyword):
    """702.90c (infect), 702.80b (wither): damage to a creature as -1/-1 counters lowers its toughness instead of
    being marked (704.5f: toughness 0 or less, even indestructible; 704.5g; 704.5h with deathtouch, 702.2c).
    ``creature_dies`` with ``counters`` (read by the whole combat's grouped first step) says what the step's own
    state-based actions do, on every small case."""
    for power, toughness, marked, deathtouch, indestructible in itertools.product(
        range(1, 4), range(1, 4), range(3), (False, True), (False, True)
    ):
        keywords = [k for k in (keyword, "deathtouch" if deathtouch else None) if k]
        board = load_scenario(
            {
                "players": [{"id": "opp", "life": 20}],
                "attackers": [
                    {
                        "id": "a",
                        "power": power,
                        "toughness": 5,
                        "keywords": keywords,
                        "attacking": "opp",
                        "blocked_by": ["b"],
                    }
                ],
                "blockers": [
                    {
                        "id": "b",
                        "power": 0,
                        "toughness": toughness,
                        "damage_marked": min(marked, toughness - 1),
                        "keywords": ["indestructible"] if indestructible else [],
                    }
                ],
            }
        )
        blocker = board.creature("b")
        dies = creature_dies(blocker, power, deathtouch, power if keyword else 0)
        assert dies == ("b" in resolve(board, {"a": {"b": power}}).destroyed), (keywords, toughness, marked)


SHARED = {  # two tramplers sharing a blocker (a component of several sources), a lone one, a planeswalker
    "players": [{"id": "opp", "life": 20}],
    "planeswalkers": [{"id": "pw", "controller": "opp", "loyalty": 3}],
    "attackers": [
        {"id": "a", "power": 4, "toughness": 4, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x", "y"]},
        {"id": "b", "power": 3, "toughness": 3, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["y"]},
        {"id": "c", "power": 2, "toughness": 2, "keywords": ["trample"], "attacking": "pw", "blocked_by": ["z"]},
    ],
    "blockers": [
        {"id": "x", "power": 2, "toughness": 3},
        {"id": "y", "power": 1, "toughness": 2},
        {"id": "z", "power": 1, "toughness": 1, "keywords": ["lifelink"]},
    ],
}


@pytest.mark.parametrize("doc", [BOARD, SHARED, LEAVERS], ids=["board", "shared", "leavers"])
def test_a_board_and_what_readers_keep_on_it_are_freed_without_the_cycle_collector(doc):
    """What the readers keep on a board (its settled board, its plans, the other side's step: ``remembered``) and
    what an engine keeps with a plan (its counting programme) refer back to the board: kept strongly both ways they
    made reference cycles, which only the cyclic garbage collector frees (its passes were a tenth of the time of
    counting small boards). The facts that hold the board are kept weakly (whoever reads them holds them: a combat
    object its plan; the last ``RECENT_FACTS`` made are held too), the board itself by a marker, and the column
    programme does not keep its plan: with the collector off, nothing a count, a solve or a check made is left in a
    cycle, and a board is freed once its last reader lets go and newer facts were made."""
    import gc
    import weakref

    from trample import outcome

    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        gc.set_debug(gc.DEBUG_SAVEALL)
        sc = load_scenario(doc)
        board, combat = weakref.ref(sc), Combat(sc)
        plan = weakref.ref(combat.plan)
        n = combat.count()
        line = combat.solve("max-damage").assignment
        assert combat.check(line).legal and n >= 1
        assert derive(sc) is combat.plan  # one plan per board while a reader holds it
        del combat
        again = Combat(sc).count()  # made again or read again when asked (no value kept in an assertion's temporaries)
        assert again == n
        del sc, line  # the line read from the solver's rows refers to its board
        for k in range(outcome.RECENT_FACTS):  # newer facts: the board's plans leave the recent ones
            Combat({**BOARD, "players": [{"id": "opp", "life": 10 + k}]}).count()
        assert plan() is None and board() is None
        assert gc.collect() == 0 and gc.garbage == []  # nothing was left in a cycle
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
