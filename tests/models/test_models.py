"""models/: loading validates everything docs/format.md lists, names the place, and dumps back (round trip)."""

import dataclasses
import json

import pytest
from hypothesis import given, settings
from strategies import outcome_effects, scenarios

from trample.models import Assignment, FormatError, Keyword, load_assignment, load_scenario

FORMAT_EXAMPLE = {
    "rules": "current",
    "step": "regular",
    "players": [{"id": "opp", "life": 20}],
    "planeswalkers": [{"id": "teferi", "controller": "opp", "loyalty": 4, "in_combat": True}],
    "battles": [{"id": "invasion", "protector": "opp", "defense": 5, "in_combat": True}],
    "attackers": [
        {
            "id": "thrasta",
            "power": 7,
            "toughness": 7,
            "keywords": ["trample", "trample_over_planeswalkers", "haste"],
            "attacking": "teferi",
            "blocked_by": ["wall", "bear"],
            "damage_marked": 0,
        }
    ],
    "blockers": [
        {"id": "wall", "power": 0, "toughness": 4, "damage_marked": 1, "keywords": [], "in_combat": True},
        {"id": "bear", "power": 2, "toughness": 2, "value": 2},
    ],
}


def test_format_example_loads_with_defaults():
    s = load_scenario(FORMAT_EXAMPLE)
    assert s.rules == "current" and s.step == "regular"
    assert s["thrasta"].has(Keyword.TRAMPLE) and s["thrasta"].has(Keyword.TRAMPLE_OVER_PLANESWALKERS)
    assert s["thrasta"].blocked and s["thrasta"].blocked_by == ("wall", "bear")
    assert s["bear"].value == 2 and s["wall"].value == 1 and s["bear"].damage_marked == 0
    assert s.kind("invasion") == "battle" and s.controller_of("teferi") == "opp"


def test_round_trip():
    s = load_scenario(FORMAT_EXAMPLE)
    dumped = s.to_json()
    assert load_scenario(dumped) == s
    assert load_scenario(json.loads(json.dumps(dumped))).to_json() == dumped


def test_trample_over_planeswalkers_implies_trample():  # 702.19c
    s = load_scenario(
        {
            "players": [{"id": "p"}],
            "attackers": [
                {"id": "a", "power": 1, "toughness": 1, "keywords": ["trample_over_planeswalkers"], "attacking": "p"}
            ],
        }
    )
    assert s["a"].has(Keyword.TRAMPLE)


def test_blocked_defaults_to_having_blockers():
    s = load_scenario(
        {
            "players": [{"id": "p"}],
            "attackers": [{"id": "a", "power": 1, "toughness": 1, "attacking": "p", "blocked": True}],
        }
    )
    assert s["a"].blocked and s["a"].blocked_by == ()


def _with(path_edit):
    doc = json.loads(json.dumps(FORMAT_EXAMPLE))
    path_edit(doc)
    return doc


BAD = [
    (lambda d: d["attackers"][0].__setitem__("power", "7"), "attackers[0].power: expected an integer"),
    (lambda d: d["attackers"][0].__setitem__("power", 7.5), "attackers[0].power: expected an integer"),
    (lambda d: d["attackers"][0].__setitem__("power", True), "attackers[0].power: expected an integer"),
    (
        lambda d: d["attackers"][0]["keywords"].__setitem__(1, "flyng"),
        'attackers[0].keywords[1]: unknown keyword "flyng"',
    ),
    (lambda d: d["attackers"][0].__setitem__("attacking", "nobody"), 'attackers[0].attacking: unknown id "nobody"'),
    (lambda d: d["attackers"][0]["blocked_by"].append("ghost"), 'attackers[0].blocked_by[2]: unknown blocker "ghost"'),
    (lambda d: d["blockers"][1].__setitem__("id", "wall"), 'blockers[1].id: duplicate id "wall"'),
    (lambda d: d["blockers"][1].__setitem__("id", "opp"), 'blockers[1].id: duplicate id "opp"'),
    (lambda d: d["blockers"][0].__setitem__("toughness", -1), "blockers[0].toughness: must not be negative"),
    (lambda d: d["blockers"][0].__setitem__("damage_marked", -2), "blockers[0].damage_marked: must not be negative"),
    (lambda d: d["planeswalkers"][0].__setitem__("loyalty", -1), "planeswalkers[0].loyalty: must not be negative"),
    (lambda d: d["battles"][0].__setitem__("defense", -1), "battles[0].defense: must not be negative"),
    (
        lambda d: d["planeswalkers"][0].__setitem__("controller", "bob"),
        'planeswalkers[0].controller: unknown player "bob"',
    ),
    (lambda d: d["battles"][0].__setitem__("protector", "bob"), 'battles[0].protector: unknown player "bob"'),
    (lambda d: d.__setitem__("rules", "modern"), 'rules: expected "current" or "legacy"'),
    (lambda d: d.__setitem__("step", "second_strike"), "step: expected"),
    (lambda d: d.__setitem__("colour", "red"), "colour: unknown field"),
    (lambda d: d["attackers"][0].__setitem__("flying", True), "attackers[0].flying: unknown field"),
    (lambda d: d.pop("attackers"), "attackers: required field is missing"),
    (lambda d: d["attackers"][0].pop("toughness"), "attackers[0].toughness: required field is missing"),
    (lambda d: d.__setitem__("blockers", {}), "blockers: expected a list"),
    (lambda d: d["attackers"].__setitem__(0, 3), "attackers[0]: expected an object"),
    (lambda d: d["attackers"][0].__setitem__("blocked", False), "attackers[0].blocked: false, but blocked_by"),
    (lambda d: d["attackers"][0]["blocked_by"].append("wall"), 'attackers[0].blocked_by[2]: "wall" is listed twice'),
    (lambda d: d["blockers"][1].__setitem__("value", "high"), "blockers[1].value: expected a number"),
    (lambda d: d["players"][0].__setitem__("life", None), "players[0].life: expected an integer"),
    (lambda d: d["blockers"][0].__setitem__("in_combat", "no"), "blockers[0].in_combat: expected true or false"),
    # the values the loader takes without a field's own reader (models.fields.Table.read), just past their bounds
    (lambda d: d["blockers"][0].__setitem__("in_combat", 1), "blockers[0].in_combat: expected true or false"),
    (lambda d: d["attackers"][0].__setitem__("power", 10**15 + 1), "attackers[0].power: must be at most"),
    (lambda d: d["blockers"][0].__setitem__("id", ""), "blockers[0].id: expected a non-empty string"),
    # the lists and objects whose paths the loader builds only when they are present
    (lambda d: d["attackers"][0].__setitem__("blocked_by", None), "attackers[0].blocked_by: expected a list"),
    (lambda d: d["attackers"][0].__setitem__("blocked_by", "wall"), "attackers[0].blocked_by: expected a list"),
    (lambda d: d["players"][0].__setitem__("commander_damage", None), "players[0].commander_damage: expected an"),
    (lambda d: d["blockers"][0].__setitem__("damage_order", None), "blockers[0].damage_order: expected a list"),
]


@pytest.mark.parametrize("edit,expected", BAD, ids=[e for _, e in BAD])
def test_rejections_name_the_place(edit, expected):
    with pytest.raises(FormatError) as err:
        load_scenario(_with(edit))
    assert str(err.value).startswith(expected)
    assert "\n" not in str(err.value)


def test_not_json():
    with pytest.raises(FormatError, match="not JSON"):
        load_scenario("{nope")


def test_assignment_equality_ignores_zero_entries_and_order():
    a = Assignment({"t": {"wall": 3, "bear": 2, "teferi": 2}, "c": {}})
    b = Assignment({"c": {}, "t": {"teferi": 2, "bear": 2, "wall": 3, "opp": 0}})
    assert a == b and hash(a) == hash(b)
    assert a == {"t": {"wall": 3, "bear": 2, "teferi": 2}, "c": {}}
    assert a != Assignment({"t": {"wall": 3, "bear": 2, "teferi": 2}})  # a source present with {} counts
    assert a.total_to("bear") == 2 and a.amount("t", "wall") == 3 and a.total_from("t") == 7


def test_assignment_is_really_immutable():
    # documented immutable and hashable: no way to change it after its hash and equality are known
    source = {"t": {"wall": 3, "opp": 2}}
    a = Assignment(source)
    h = hash(a)
    with pytest.raises(TypeError):
        a["t"]["wall"] = 7  # the inner mapping is a read-only view
    with pytest.raises(TypeError):
        del a["t"]["opp"]
    with pytest.raises(TypeError):
        a["t"] = {}
    with pytest.raises(AttributeError):
        a._data = {}
    source["t"]["wall"] = 9  # nor through the dict it was built from
    assert a == {"t": {"wall": 3, "opp": 2}} and hash(a) == h
    assert a.to_json() == {"t": {"wall": 3, "opp": 2}} and a.dumps() == '{"t":{"wall":3,"opp":2}}'
    j = a.to_json()
    j["t"]["wall"] = 1  # to_json is a fresh copy
    assert a.amount("t", "wall") == 3 and dict(a["t"]) == {"wall": 3, "opp": 2}


def test_assignment_survives_pickle_and_copy():
    import copy
    import pickle

    a = Assignment({"t": {"wall": 3}, "c": {}})
    for b in (pickle.loads(pickle.dumps(a)), copy.copy(a), copy.deepcopy(a)):
        assert b == a and hash(b) == hash(a) and repr(b) == repr(a)


def test_assignment_loader():
    s = load_scenario(FORMAT_EXAMPLE)
    assert load_assignment({"thrasta": {"wall": 3, "bear": 2, "teferi": 2}}, s).to_json() == {
        "thrasta": {"wall": 3, "bear": 2, "teferi": 2}
    }
    with pytest.raises(FormatError, match=r'^assignment.thrasta.dragon: unknown recipient "dragon"'):
        load_assignment({"thrasta": {"dragon": 3}}, s)
    with pytest.raises(FormatError, match=r"^assignment.ghost: unknown source"):
        load_assignment({"ghost": {}}, s)
    with pytest.raises(FormatError, match=r"^assignment.thrasta.wall: must not be negative"):
        load_assignment({"thrasta": {"wall": -1}}, s)
    with pytest.raises(FormatError, match=r"^assignment.thrasta.wall: expected an integer"):
        load_assignment({"thrasta": {"wall": 1.5}}, s)


@settings(max_examples=60, deadline=None)
@given(scenarios(extras=True).flatmap(outcome_effects))
def test_loaded_objects_are_what_their_constructors_make(doc):
    """The loader fills each object's fields at once (models.scenario._built) rather than through the frozen
    dataclass's ``__init__``: every object it makes holds exactly the class's fields and is equal, and hashes
    alike, to the one the constructor makes from the same values."""
    s = load_scenario(doc)
    for obj in (*s.players, *s.planeswalkers, *s.battles, *s.attackers, *s.blockers):
        values = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
        assert set(obj.__dict__) == set(values), type(obj).__name__
        made = type(obj)(**values)
        assert made == obj and hash(made) == hash(obj)
        assert made.receiving == obj.receiving and hash(made.receiving) == hash(obj.receiving)


def test_an_object_missing_a_field_is_made_by_its_constructor():
    """``_built`` with values that do not name every field is the constructor (its defaults, or its error)."""
    from trample.models.scenario import _FIELD_NAMES, Attacker, _built

    # _built fills an object's fields without calling its __init__: a class it makes must derive nothing there
    assert not any(hasattr(cls, "__post_init__") for cls in _FIELD_NAMES)

    made = _built(Attacker, {"id": "a", "power": 2, "toughness": 2, "attacking": "p"})
    assert made == Attacker(id="a", power=2, toughness=2, attacking="p") and made.blocked_by == ()
    with pytest.raises(TypeError):
        _built(Attacker, {"id": "a", "power": 2, "toughness": 2, "nonsense": 1})
