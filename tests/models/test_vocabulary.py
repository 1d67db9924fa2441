"""The vocabulary (models/vocabulary.py, models/keywords.py): each domain word spelled once as a StrEnum member that
reads and writes JSON byte for byte as the bare string did; one way to ask a creature about a keyword; typed
lookups on a scenario (issue 23)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from trample.models import Creature, Keyword, ObjectKind, Side, Step, load_scenario
from trample.models.keywords import ALL_KEYWORDS, CARRIED_KEYWORDS, DAMAGE_KEYWORDS, NEEDS_FIELD, KeywordGroup
from trample.models.vocabulary import (
    Chooser,
    DamageOrder,
    DeclareKind,
    DoubleFaced,
    LossReason,
    ManaType,
    Modifier,
    ObjectiveKind,
    RulesSet,
    StrEnum,
    Zone,
    words,
)

ROOT = Path(__file__).resolve().parents[2]
VOCABULARIES = [
    Keyword,
    ObjectKind,
    Side,
    Chooser,
    Step,
    RulesSet,
    DamageOrder,
    Modifier,
    LossReason,
    ObjectiveKind,
    DeclareKind,
    DoubleFaced,
    Zone,
    ManaType,
]


@pytest.mark.parametrize("vocabulary", VOCABULARIES, ids=lambda v: v.__name__)
def test_a_member_is_its_word(vocabulary: type[StrEnum]):
    """Equal, same hash, same str/format, same JSON as the bare string; found in dicts keyed by the string; pickled
    as itself (worker processes)."""
    for member in vocabulary:
        word = member.value
        assert isinstance(member, str) and member == word and hash(member) == hash(word)
        assert str(member) == word and f"{member}" == word
        assert json.dumps(member) == json.dumps(word)
        assert json.dumps({member: [member]}) == json.dumps({word: [word]})
        assert {word: 1}[member] == 1 and {member: 1}[word] == 1
        assert vocabulary(word) is member
        assert pickle.loads(pickle.dumps(member)) is member


def test_the_words_the_formats_and_the_cli_use():
    assert words(Step) == ("regular", "first_strike", "combat")
    assert words(Side) == ("attacking", "defending", "both")
    assert words(RulesSet) == ("current", "legacy")
    assert words(DamageOrder) == ("least", "most")
    assert words(ObjectiveKind) == ("max-damage", "lethal", "max-kills", "max-value", "min-overkill")
    assert words(LossReason) == ("life", "poison", "commander")
    assert Chooser.ACTIVE_PLAYER == Side.ATTACKING and Chooser.DEFENDING_PLAYER == Side.DEFENDING
    assert [k.is_creature for k in ObjectKind] == [False, False, False, True, True]


def test_the_objectives_and_the_loss_reasons_are_the_solvers():
    from trample.optimize import OBJECTIVES
    from trample.outcome import LOSS_CONDITIONS

    assert words(ObjectiveKind) == tuple(OBJECTIVES)
    assert {c.name for c in LOSS_CONDITIONS} == set(words(LossReason))


def test_keyword_is_the_one_table():
    """The dicts of models/keywords.py are views of the Keyword enum (one table): same words, order and rules."""
    assert list(ALL_KEYWORDS) == [k.value for k in Keyword]
    assert DAMAGE_KEYWORDS == {k.value: k.rule for k in Keyword if k.group is KeywordGroup.DAMAGE}
    assert CARRIED_KEYWORDS == {k.value: k.rule for k in Keyword if k.group is KeywordGroup.CARRIED}
    assert {k.value for k in Keyword if k.group is KeywordGroup.NEEDS_FIELD} == set(NEEDS_FIELD)
    assert Keyword.TRAMPLE.rule == "702.19" and Keyword.TOXIC.rule == "702.164b"  # 702.19, 702.164b
    assert len({k.value for k in Keyword}) == len(Keyword)  # no two members share a spelling (no aliases)


def test_has_is_the_one_way_to_ask():
    c = Creature("c", 3, 3, keywords=(Keyword.DEATHTOUCH, "first_strike"))
    assert c.has(Keyword.DEATHTOUCH) and c.has("deathtouch") and c.has(Keyword.FIRST_STRIKE)
    assert not c.has(Keyword.TRAMPLE) and not c.has(Keyword.INDESTRUCTIBLE)
    # the older spellings (.deathtouch, .trample, .indestructible, .trample_over_planeswalkers) are gone
    assert not any(hasattr(c, old) for old in ("deathtouch", "trample", "indestructible", "trample_over_planeswalkers"))


def test_trample_over_planeswalkers_has_trample():
    # 702.19c: trample over planeswalkers is a kind of trample
    c = Creature("c", 3, 3, keywords=("trample_over_planeswalkers",))
    assert c.has(Keyword.TRAMPLE) and c.has(Keyword.TRAMPLE_OVER_PLANESWALKERS)
    assert not Creature("d", 3, 3, keywords=("trample",)).has(Keyword.TRAMPLE_OVER_PLANESWALKERS)


def test_a_loaded_scenario_holds_members_and_dumps_the_same_bytes():
    for path in sorted(ROOT.glob("examples/*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if "attackers" not in doc:
            continue  # a library
        s = load_scenario(doc)
        assert type(s.step) is Step and type(s.rules) is RulesSet
        assert all(type(k) is Keyword for c in (*s.attackers, *s.blockers) for k in c.keywords)
        again = load_scenario(json.loads(s.dumps()))
        assert again.dumps() == s.dumps() and again == s
        # the bytes are the bare strings' bytes: the same dump with every member turned back into a plain str
        assert s.dumps() == json.dumps(_plain(s.to_json()), separators=(",", ":"))


def _plain(node):
    if isinstance(node, dict):
        return {str.__str__(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return str.__str__(node) if isinstance(node, str) else node


def test_typed_lookups():
    s = load_scenario(json.loads((ROOT / "examples" / "thrasta.json").read_text(encoding="utf-8")))
    a, b = s.attackers[0], s.blockers[0]
    assert s.creature(a.id) is a and s.attacker(a.id) is a and s.blocker(b.id) is b and s.creature(b.id) is b
    assert s.player("opp").id == "opp" and s.kind("opp") is ObjectKind.PLAYER and s.kind(a.id) == "attacker"
    with pytest.raises(TypeError, match="is a player, not a creature"):
        s.creature("opp")
    with pytest.raises(TypeError, match="is an attacker, not a blocker"):
        s.blocker(a.id)
    with pytest.raises(KeyError):
        s.creature("nobody")


def test_every_public_model_class_has_a_docstring():
    """Issue 23: the model classes say what they are (a dataclass without one gets its signature as __doc__)."""
    import inspect

    from trample.models import assignment, cards, declare, errors, fields, keywords, scenario, vocabulary

    missing = []
    for module in (assignment, cards, declare, errors, fields, keywords, scenario, vocabulary):
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if name.startswith("_") or cls.__module__ != module.__name__:
                continue
            doc = cls.__doc__ or ""
            if not doc.strip() or doc.startswith(f"{name}("):
                missing.append(f"{module.__name__}.{name}")
    assert not missing, missing
