"""Library transforms: mill (701.17), discover (701.57), Seek Thrills, exact distributions, the card model.

Each test names the rule it checks in a comment. The Gnome and the command line are in test_library_cli.py.
"""

import itertools
import json
from collections import Counter
from fractions import Fraction
from math import comb

import boards
import pytest
from hypothesis import given
from hypothesis import strategies as st

from trample.library import (
    can_pay_mill_cost,
    discover,
    discover_distribution,
    mill,
    mill_distribution,
    seeded_permutation,
    seek_thrills,
    shuffle_library,
)
from trample.library.exact import subset_sum_counts
from trample.library.montecarlo import simulate_discover, simulate_mill
from trample.library.transforms import qualifies
from trample.models.cards import (
    Card,
    GameState,
    Library,
    Spell,
    load_card,
    load_library,
    load_library_or_state,
    load_state,
)
from trample.models.errors import FormatError


def card(data) -> Card:
    return load_card(data)


FOREST = card({"name": "Forest", "mana_value": 0, "types": ["Basic", "Land"]})
MOUNTAIN = card({"name": "Mountain", "mana_value": 0, "types": ["Land"]})
BOLT = card({"name": "Lightning Bolt", "mana_value": 1, "types": ["Instant"]})
ELVES = card({"name": "Llanowar Elves", "mana_value": 1, "types": ["Creature"], "id": "e1"})
THOPTER = card({"name": "Ornithopter", "mana_value": 0, "types": ["Artifact", "Creature"]})
GIANT = card(
    {
        "name": "Galvanic Giant // Storm Reading",
        "mana_value": 4,
        "types": ["Creature"],
        "adventure": {"name": "Storm Reading", "mana_value": 7, "types": ["Sorcery"]},
    }
)
BONECRUSHER = card(
    {
        "name": "Bonecrusher Giant // Stomp",
        "mana_value": 3,
        "types": ["Creature"],
        "adventure": {"name": "Stomp", "mana_value": 2, "types": ["Instant", "Adventure"]},
    }
)
FIRE_ICE = card(
    {
        "name": "Fire // Ice",
        "mana_value": 4,
        "types": ["Instant"],
        "halves": [{"name": "Fire", "mana_value": 2}, {"name": "Ice", "mana_value": 2}],
    }
)
WEAR_TEAR = card(
    {
        "name": "Wear // Tear",
        "mana_value": 3,
        "types": ["Instant"],
        "halves": [{"name": "Wear", "mana_value": 2}, {"name": "Tear", "mana_value": 1}],
    }
)
BIG = card({"name": "Ancient Brontodon", "mana_value": 8, "types": ["Creature"]})
VALAKUT = card(boards.VALAKUT)  # 712.8a: a nonland instant in the library; its land back is never cast (305.9)
DELVER = card(boards.DELVER)  # 712.11a: a transforming card, cast only front face up
PATHWAY = card(  # a modal card with a land front is a land in the library
    {
        "name": "Hengegate Pathway // Mistgate Pathway",
        "mana_value": 0,
        "types": ["Land"],
        "back": {"name": "Mistgate Pathway", "mana_value": 0, "types": ["Land"]},
        "double_faced": "modal",
    }
)
POOL = [FOREST, MOUNTAIN, BOLT, ELVES, THOPTER, GIANT, BONECRUSHER, FIRE_ICE, WEAR_TEAR, BIG, VALAKUT, DELVER, PATHWAY]

cards_st = st.sampled_from(POOL)
libraries = st.lists(cards_st, max_size=24).map(lambda cs: Library(tuple(cs)))
zone = st.lists(cards_st, max_size=3).map(tuple)
states = st.builds(
    GameState,
    library=libraries,
    graveyard=zone,
    exile=zone,
    hand=zone,
    stack=st.lists(st.sampled_from([Spell(BOLT, "Lightning Bolt"), Spell(GIANT, "Storm Reading")]), max_size=2).map(
        tuple
    ),
)
counts = st.integers(min_value=0, max_value=30)
seeds = st.integers(min_value=0, max_value=2**64)
choices = st.sampled_from(["cast", "hand"])


def lib(*cards) -> Library:
    return Library(tuple(cards))


def dumps(state, event) -> str:
    return json.dumps([state.to_json(), event.to_json()], sort_keys=True)


# ---------------------------------------------------------------------------------------------
# Properties: conservation, determinism, purity, untouched order
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
@given(states, counts, seeds)
def test_mill_conserves_and_keeps_order(state, n, seed):  # 701.17a
    before = state.dumps()
    new, event = mill(state, n)
    assert new.multiset() == state.multiset()
    assert state.dumps() == before  # purity
    k = min(n, len(state.library))
    assert new.library.cards == state.library.cards[k:]  # untouched cards keep their order
    assert event.milled == state.library.cards[:k]
    assert new.graveyard == state.graveyard + event.milled
    assert dumps(new, event) == dumps(*mill(state, n))  # determinism
    shuffled, _ = mill(state, n, seed)
    assert shuffled.multiset() == state.multiset()
    assert dumps(*mill(state, n, seed)) == dumps(*mill(state, n, seed))


@given(states, counts, seeds, choices)
def test_discover_conserves_is_deterministic_and_pure(state, n, seed, choice):  # 701.57a
    before = state.dumps()
    new, event = discover(state, n, seed, choice=choice)
    assert state.dumps() == before  # purity: the input is untouched
    assert new.multiset() == state.multiset()  # conservation over all zones
    assert dumps(new, event) == dumps(*discover(state, n, seed, choice=choice))  # same seed, same bytes
    assert new.exile == state.exile  # the exiled cards only pass through exile
    assert event.discovered  # 701.57b


@given(states, counts, seeds)
def test_discover_untouched_library_order_unchanged(state, n, seed):  # 701.57a
    new, event = discover(state, n, seed)
    old = state.library.cards
    k = event.exiled_count
    assert event.exiled == old[:k]
    assert new.library.cards[: len(old) - k] == old[k:]  # cards below the exiled ones keep their order
    rest = old[: k - 1] if event.hit is not None else old[:k]
    assert Counter(new.library.cards[len(old) - k :]) == Counter(rest)  # the others went to the bottom
    assert new.library.cards[len(old) - k :] == event.bottom
    # every card before the hit did not qualify; the hit does
    assert not any(qualifies(c, n) for c in (old[: k - 1] if event.hit is not None else old[:k]))
    if event.hit is not None:
        assert qualifies(event.hit, n) and event.hit == old[k - 1]


@given(states, seeds)
def test_seek_thrills_conserves(state, seed):  # Seek Thrills, 701.17a
    for s in (None, seed):
        new, event = seek_thrills(state, s)
        assert new.multiset() == state.multiset()
        assert dumps(new, event) == dumps(*seek_thrills(state, s))
        assert event.count == min(7, len(state.library))
        assert new.hand == state.hand + tuple(c for c in event.milled if c.has_adventure)
        assert new.graveyard == state.graveyard + tuple(c for c in event.milled if not c.has_adventure)


@given(st.integers(min_value=0, max_value=40), seeds)
def test_seeded_permutation_is_a_permutation(n, seed):  # 701.57a: the bottom order is a permutation
    order = seeded_permutation(n, seed)
    assert sorted(order) == list(range(n))
    assert order == seeded_permutation(n, seed)


def test_seeded_permutation_is_uniform():  # 701.57a "in a random order"
    freq = Counter(seeded_permutation(3, s) for s in range(6000))
    assert len(freq) == 6
    assert all(abs(v - 1000) < 150 for v in freq.values())


def test_seeded_permutation_is_pinned():  # 701.57a random order; determinism contract of the transforms
    # The stream behind a seed is part of the contract (same seed, same bytes, on any Python version).
    assert seeded_permutation(8, 0) == seeded_permutation(8, 0)
    assert seeded_permutation(5, 42) == (0, 2, 1, 3, 4)
    assert seeded_permutation(10, 2024) == (2, 5, 3, 6, 8, 1, 4, 9, 0, 7)


@given(st.lists(cards_st, max_size=12), seeds)
def test_shuffle_library_conserves(cards, seed):  # shuffling (a seeded mill/Seek Thrills sample) conserves cards
    new, _ = shuffle_library(lib(*cards), seed)
    assert Counter(new.library.cards) == Counter(cards)


# ---------------------------------------------------------------------------------------------
# Mill (701.17)
# ---------------------------------------------------------------------------------------------


def test_mill_more_than_the_library_mills_all():  # 701.17b: as many as possible
    new, event = mill(lib(FOREST, BOLT), 5)
    assert event.count == 2 and event.requested == 5
    assert new.library.cards == () and new.graveyard == (FOREST, BOLT)
    assert event.went_to == ("graveyard", "graveyard")


def test_mill_zero_and_empty_library():  # 701.17a
    new, event = mill(lib(FOREST), 0)
    assert event.count == 0 and new.library.cards == (FOREST,)
    new, event = mill(lib(), 3)
    assert event.count == 0 and new == GameState()


def test_mill_cost_not_payable():  # 701.17b: a cost that mills more than the library holds cannot be paid
    state = lib(FOREST, BOLT)
    assert can_pay_mill_cost(state, 2)
    assert not can_pay_mill_cost(state, 3)
    new, event = mill(state, 3, as_cost=True)
    assert not event.performed and not event.cost_payable and event.count == 0
    assert new == GameState(library=state)
    new, event = mill(state, 2, as_cost=True)
    assert event.performed and event.count == 2


def test_milled_card_answers_are_summed():  # 701.17d
    _, event = mill(lib(GIANT, BOLT, FOREST, ELVES), 3)
    assert event.answers("mana_value") == (4, 1, 0)
    assert event.numeric_answer("mana_value") == 5
    assert event.answers("id") == (None, None, None)
    assert event.to_json()["mana_value_total"] == 5


def test_mill_negative_n_is_rejected():  # 701.17a: N is a number of cards
    with pytest.raises(FormatError, match="n: must not be negative"):
        mill(lib(FOREST), -1)
    with pytest.raises(FormatError, match="n: expected an integer"):
        mill(lib(FOREST), 1.5)


def test_seek_thrills_puts_adventurers_into_hand():  # Seek Thrills; 701.17c finds milled cards
    cards = (FOREST, GIANT, BOLT, BONECRUSHER, FIRE_ICE, MOUNTAIN, WEAR_TEAR, ELVES, GIANT)
    new, event = seek_thrills(lib(*cards))
    assert event.milled == cards[:7]
    assert new.hand == (GIANT, BONECRUSHER)
    assert new.graveyard == (FOREST, BOLT, FIRE_ICE, MOUNTAIN, WEAR_TEAR)
    assert new.library.cards == (ELVES, GIANT)
    assert event.went_to == ("graveyard", "hand", "graveyard", "hand", "graveyard", "graveyard", "graveyard")


def test_seek_thrills_with_a_short_library():  # 701.17b: mills as many as possible
    new, event = seek_thrills(lib(GIANT, FOREST))
    assert event.count == 2 and new.hand == (GIANT,) and new.graveyard == (FOREST,)


# ---------------------------------------------------------------------------------------------
# Discover (701.57)
# ---------------------------------------------------------------------------------------------


def test_discover_stops_at_first_nonland_with_low_mana_value():  # 701.57a
    state = lib(FOREST, BIG, GIANT, BOLT, ELVES)
    new, event = discover(state, 3, seed=1)
    assert event.exiled == (FOREST, BIG, GIANT, BOLT)
    assert event.hit == BOLT and event.discovered_card == BOLT  # 701.57c
    assert event.destination == "stack" and event.cast_face == "Lightning Bolt"
    assert new.stack == (Spell(BOLT, "Lightning Bolt"),)
    assert new.library.cards[0] == ELVES
    assert Counter(new.library.cards[1:]) == Counter([FOREST, BIG, GIANT])


def test_discover_split_card_casts_a_half():  # 701.57a with 709.3: a split card is cast as one half
    new, event = discover(lib(FIRE_ICE), 4, seed=0)
    assert event.hit == FIRE_ICE
    assert event.castable_faces == ("Fire", "Ice")
    assert event.cast_face == "Fire"  # ties between faces go to the first
    assert new.stack == (Spell(FIRE_ICE, "Fire"),)
    new, event = discover(lib(FIRE_ICE), 4, seed=0, face="Ice")
    assert new.stack == (Spell(FIRE_ICE, "Ice"),)


def test_discover_skips_split_card_whose_combined_mana_value_is_too_high():  # 701.57a, 709.4
    # Fire // Ice has mana value 4 in the library, though each half costs 2: discover 3 passes it by.
    new, event = discover(lib(FIRE_ICE, WEAR_TEAR), 3, seed=0)
    assert event.hit == WEAR_TEAR
    assert event.castable_faces == ("Wear", "Tear") and event.cast_face == "Wear"
    assert new.library.cards == (FIRE_ICE,)


def test_discover_adventurer_faces():  # 701.57a: only a face with mana value <= N can be cast
    _, event = discover(lib(GIANT), 4, seed=0)
    assert event.castable_faces == ("Galvanic Giant",)  # Storm Reading has mana value 7
    assert event.cast_face == "Galvanic Giant"
    with pytest.raises(FormatError, match="Storm Reading has mana value 7, more than 4"):
        discover(lib(GIANT), 4, seed=0, face="Storm Reading")
    new, event = discover(lib(GIANT), 7, seed=0)
    assert event.castable_faces == ("Galvanic Giant", "Storm Reading")
    assert event.cast_face == "Storm Reading"  # default: the face of highest mana value
    assert new.stack == (Spell(GIANT, "Storm Reading"),)
    new, event = discover(lib(BONECRUSHER), 3, seed=0, face="Stomp")  # the cheaper Adventure
    assert new.stack == (Spell(BONECRUSHER, "Stomp"),)
    with pytest.raises(FormatError, match="no face named"):
        discover(lib(BONECRUSHER), 3, seed=0, face="Fire")


def test_discover_choice_hand():  # 701.57a: "If you don't cast it, put that card into your hand"
    new, event = discover(lib(FOREST, BOLT), 1, seed=3, choice="hand")
    assert event.destination == "hand" and event.cast_face is None
    assert new.hand == (BOLT,) and new.stack == ()
    assert event.to_json()["went_to"] == "hand"
    with pytest.raises(FormatError, match="choice"):
        discover(lib(BOLT), 1, seed=0, choice="graveyard")


def test_discover_zero():  # 701.57a with N = 0: only a nonland card of mana value 0 qualifies
    new, event = discover(lib(FOREST, BOLT, THOPTER, ELVES), 0, seed=5)
    assert event.hit == THOPTER and event.exiled_count == 3
    assert new.stack == (Spell(THOPTER, "Ornithopter"),)


def test_discover_no_qualifying_card():  # 701.57a, 701.57c: the library runs out on a nonland card
    state = lib(FOREST, BIG, GIANT)
    new, event = discover(state, 3, seed=11)
    assert event.hit is None and event.library_ran_out
    assert event.discovered_card is None  # the final card exiled (Giant, mana value 4) is not <= 3
    assert event.exiled_count == 3 and event.destination is None
    assert Counter(new.library.cards) == Counter(state.cards)
    assert event.discovered  # 701.57b: discovered anyway


def test_discover_final_land_when_the_library_runs_out():  # 701.57c read literally
    new, event = discover(lib(BIG, GIANT, FOREST), 3, seed=2)
    assert event.hit is None
    assert event.discovered_card == FOREST and event.literal_final_land
    js = event.to_json()
    assert js["literal_final_land"] is True and js["went_to"] == "bottom"
    assert "literally" in js["note"] and "701.57c" in js["note"]
    assert new.hand == () and new.stack == ()  # the land was neither cast nor put into hand
    assert Counter(new.library.cards) == Counter([BIG, GIANT, FOREST])


def test_discover_empty_library():  # 701.57b: the player has discovered even though nothing happened
    new, event = discover(lib(), 4, seed=0)
    assert event.discovered and event.exiled == () and event.discovered_card is None
    assert new == GameState()
    assert "701.57b" in event.to_json()["note"]


def test_discover_bottom_order_follows_the_seed():  # 701.57a "in a random order"
    state = lib(FOREST, MOUNTAIN, BIG, GIANT, FOREST, BIG, BOLT)
    orders = {discover(state, 1, seed=s)[1].bottom for s in range(60)}
    assert len(orders) > 10
    assert discover(state, 1, seed=9)[0] == discover(state, 1, seed=9)[0]


def test_discover_bad_parameters():  # 701.57a: N and the seed are whole numbers
    with pytest.raises(FormatError, match="n: must not be negative"):
        discover(lib(BOLT), -1, seed=0)
    with pytest.raises(FormatError, match="seed"):
        discover(lib(BOLT), 1, seed=-3)
    with pytest.raises(FormatError, match="seed"):
        discover(lib(BOLT), 1, seed=None)


# ---------------------------------------------------------------------------------------------
# Exact distributions
# ---------------------------------------------------------------------------------------------


def _enumerate_discover(cards, n):
    """Every order of the library (copies told apart), run through the real transform: exact frequencies."""
    disc, exiled, literal = Counter(), Counter(), Fraction(0)
    perms = list(itertools.permutations(range(len(cards))))
    w = Fraction(1, len(perms))
    for perm in perms:
        _, event = discover(lib(*(cards[i] for i in perm)), n, seed=0)
        exiled[event.exiled_count] += w
        if event.discovered_card is not None:
            disc[perm[event.exiled_count - 1]] += w
            literal += w if event.literal_final_land else 0
    return disc, exiled, literal


@given(st.lists(cards_st, max_size=5), st.integers(min_value=0, max_value=8))
def test_discover_distribution_matches_every_order(cards, n):  # 701.57a, 701.57c
    dist = discover_distribution(cards, n)
    disc, exiled, literal = _enumerate_discover(cards, n)
    assert dict(dist.exiled) == dict(exiled)
    assert {i: p for i, p in enumerate(dist.discovered) if p} == dict(disc)
    assert dist.literal_final_land == literal
    assert dist.none + sum(dist.discovered) == 1
    assert sum(p for _, p in dist.mana_value) == 1 - dist.none


@given(st.lists(cards_st, max_size=6), st.integers(min_value=0, max_value=8))
def test_mill_distribution_matches_every_subset(cards, n):  # 701.17a, 701.17d
    dist = mill_distribution(cards, n)
    m = min(n, len(cards))
    adv, total = Counter(), Counter()
    subsets = list(itertools.combinations(range(len(cards)), m))
    for sub in subsets:
        _, event = mill(lib(*(cards[i] for i in sub)), n)
        adv[sum(c.has_adventure for c in event.milled)] += Fraction(1, len(subsets))
        total[event.numeric_answer("mana_value")] += Fraction(1, len(subsets))
    assert dict(dist.adventurers) == {k: v for k, v in adv.items()}
    assert dict(dist.mana_value_total) == dict(total)


@given(
    st.lists(st.sampled_from([0, 1, 2, 3, 7, 40, 999, 10**6]), max_size=9),
    st.integers(min_value=-1, max_value=10),
)
def test_subset_sums_packed_and_sparse_agree_with_every_subset(values, size):  # 701.17d
    # the packed rows (dense totals) and the sparse table (far-apart totals, 10^6) against itertools
    from trample.library import exact

    expect: Counter = Counter()
    if 0 <= size <= len(values):
        for sub in itertools.combinations(values, size):
            expect[sum(sub)] += 1
    assert exact.subset_sum_counts(values, size) == dict(expect)
    groups = sorted(Counter(values).items())
    assert (exact._subset_sum_counts_sparse(groups, size) if 0 <= size <= len(values) else {}) == dict(expect)


def test_subset_sums_of_many_distinct_values_take_the_packed_rows():
    # mill 40 --distribution over distinct mana values 0..119 (14.5 s of CPU with the sparse table alone): the
    # packed rows; the counts of the smallest and largest totals and the total number of subsets checked by hand
    values = list(range(120))
    sums = subset_sum_counts(values, 40)
    assert min(sums) == sum(range(40)) and max(sums) == sum(range(80, 120))
    assert sums[sum(range(40))] == 1 and sums[sum(range(40)) + 1] == 1  # {0..39}, {0..38, 40}
    assert sum(sums.values()) == comb(120, 40)


def test_mill_distribution_is_hypergeometric():  # Seek Thrills: adventurers among seven of forty
    cards = [GIANT] * 8 + [FOREST] * 17 + [BOLT] * 15
    dist = mill_distribution(cards, 7)
    assert dict(dist.adventurers)[0] == Fraction(comb(32, 7), comb(40, 7))
    assert dict(dist.adventurers)[7] == Fraction(comb(8, 7), comb(40, 7))
    assert dist.expected_adventurers == Fraction(7 * 8, 40)
    assert dist.expected_mana_value_total == Fraction(7, 40) * (8 * 4 + 15)


def test_discover_distribution_formulas():  # 701.57a: first qualifying card among q; exiled count
    cards = [FOREST] * 6 + [BOLT, ELVES, BIG, GIANT]
    dist = discover_distribution(cards, 2)
    assert dist.qualifying == 2
    assert dist.discovered[6] == dist.discovered[7] == Fraction(1, 2)
    assert dict(dist.exiled)[1] == Fraction(2, 10)
    assert dict(dist.exiled)[9] == Fraction(comb(1, 1), comb(10, 2))
    assert dist.expected_mana_value == 1 and dist.none == 0


def test_discover_distribution_literal_lands_and_empty():  # 701.57c, 701.57b
    dist = discover_distribution([FOREST, MOUNTAIN, BIG, GIANT], 3)
    assert dist.qualifying == 0
    assert dist.literal_final_land == Fraction(1, 2) and dist.none == Fraction(1, 2)
    assert dict(dist.exiled) == {4: 1}
    assert all(row["literal_final_land"] for row in dist.to_json()["discovered_card"])
    empty = discover_distribution([], 5)
    assert dict(empty.exiled) == {0: 1} and empty.none == 1


def test_discover_distribution_faces():  # 701.57a: the cast face's mana value (split halves, adventures)
    dist = discover_distribution([FIRE_ICE, GIANT, FOREST], 7)
    assert dict(dist.cast_mana_value) == {2: Fraction(1, 2), 7: Fraction(1, 2)}  # Fire; Storm Reading
    assert dict(dist.mana_value) == {4: 1}


MC_LIBRARY = [FOREST] * 7 + [MOUNTAIN] * 3 + [BOLT, ELVES, THOPTER, GIANT, BONECRUSHER, FIRE_ICE, WEAR_TEAR, BIG]


@pytest.mark.parametrize("n", [0, 2, 3])
def test_discover_exact_equals_monte_carlo(n):  # 701.57a, 701.57c
    dist = discover_distribution(MC_LIBRARY, n)
    mc = simulate_discover(MC_LIBRARY, n, trials=40000, seed=n)
    for k, p in dist.exiled:
        assert abs(mc["exiled"][k] - float(p)) < 0.015
    for i, p in enumerate(dist.discovered):
        assert abs(mc["discovered"][i] - float(p)) < 0.015
    for v, p in dist.mana_value:
        assert abs(mc["mana_value"].get(v, 0.0) - float(p)) < 0.015


def test_discover_exact_equals_monte_carlo_when_nothing_qualifies():  # 701.57c literal lands
    cards = [FOREST, FOREST, BIG, GIANT, MOUNTAIN]
    dist = discover_distribution(cards, 3)
    mc = simulate_discover(cards, 3, trials=40000, seed=1)
    assert abs(mc["literal_final_land"] - float(dist.literal_final_land)) < 0.015
    assert abs(mc["none"] - float(dist.none)) < 0.015


def test_mill_exact_equals_monte_carlo():  # 701.17a, 701.17d; Seek Thrills mills seven
    dist = mill_distribution(MC_LIBRARY, 7)
    mc = simulate_mill(MC_LIBRARY, 7, trials=40000, seed=3)
    for k, p in dist.adventurers:
        assert abs(mc["adventurers"].get(k, 0.0) - float(p)) < 0.015
    for s, p in dist.mana_value_total:
        assert abs(mc["mana_value_total"].get(s, 0.0) - float(p)) < 0.015


def test_transform_agrees_with_exact_distribution_over_shuffles():  # 701.57a through the real transform
    cards = MC_LIBRARY
    dist = discover_distribution(cards, 2)
    hits = Counter()
    trials = 3000
    for s in range(trials):
        shuffled, _ = shuffle_library(lib(*cards), s)
        _, event = discover(shuffled, 2, seed=s)
        hits[event.hit.name] += 1
    for i, p in enumerate(dist.discovered):
        if p:
            assert abs(hits[cards[i].name] / trials - float(p)) < 0.05


# ---------------------------------------------------------------------------------------------
# The card model: loading, dumping, bad input
# ---------------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
extra_fields = st.dictionaries(st.sampled_from(["id", "oracle_text", "set", "rarity", "x"]), json_values, max_size=3)


@pytest.mark.slow
@given(st.sampled_from(POOL), extra_fields)
def test_card_round_trip_carries_extra_fields(base, extra):  # docs/format.md: further fields travel unchanged
    data = {**base.to_json(), **extra}
    original = json.dumps(data, sort_keys=True)
    c = load_card(data)
    assert json.dumps(data, sort_keys=True) == original  # loading does not touch its input
    assert c.to_json() == data
    assert load_card(c.to_json()) == c
    for k, v in extra.items():
        assert c.get(k) == v


def test_library_and_state_round_trip():  # docs/format.md "Library"; 701.57a results load back
    doc = {"cards": [GIANT.to_json(), FIRE_ICE.to_json(), {**BOLT.to_json(), "id": 3}]}
    library = load_library(doc)
    assert library.to_json() == doc
    state, _ = discover(library, 7, seed=1)
    assert load_state(state.to_json()) == state
    assert load_library_or_state(state.to_json()) == state
    assert load_library_or_state(doc) == GameState(library=library)
    assert load_library(json.dumps(doc)) == library


def test_halves_inherit_types_and_adventure_face_name():  # 709.3, 715.3
    assert [f.types for f in FIRE_ICE.spell_faces()] == [("Instant",), ("Instant",)]
    assert GIANT.main_face_name == "Galvanic Giant" and GIANT.has_adventure
    assert FOREST.is_land and not BOLT.is_land and THOPTER.types == ("Artifact", "Creature")


@pytest.mark.parametrize(
    "doc, message",
    [
        ({"cards": [{"name": "Bolt"}]}, "cards[0].mana_value: required field is missing"),
        ({"cards": [{"mana_value": 1}]}, "cards[0].name: required field is missing"),
        ({"cards": [{"name": "Bolt", "mana_value": "1"}]}, 'cards[0].mana_value: expected an integer, got "1"'),
        ({"cards": [{"name": "Bolt", "mana_value": 1.0}]}, "cards[0].mana_value: expected an integer, got 1.0"),
        ({"cards": [{"name": "Bolt", "mana_value": True}]}, "cards[0].mana_value: expected an integer, got true"),
        ({"cards": [{"name": "Bolt", "mana_value": -1}]}, "cards[0].mana_value: must not be negative, got -1"),
        ({"cards": [{"name": 3, "mana_value": 1}]}, "cards[0].name: expected a string, got 3"),
        ({"cards": [{"name": "X", "mana_value": 1, "types": "Land"}]}, 'cards[0].types: expected a list, got "Land"'),
        ({"cards": [{"name": "X", "mana_value": 1, "types": ["Lnad"]}]}, 'cards[0].types[0]: unknown card type "Lnad"'),
        ({"cards": [{"name": "X", "mana_value": 1, "types": [1]}]}, "cards[0].types[0]: expected a string, got 1"),
        (
            {"cards": [FOREST.to_json(), {"name": "X", "mana_value": 1, "adventure": {"name": "Y"}}]},
            "cards[1].adventure.mana_value: required field is missing",
        ),
        ({"cards": [{"name": "X", "mana_value": 1, "adventure": "Y"}]}, "cards[0].adventure: expected an object"),
        (
            {"cards": [{"name": "X", "mana_value": 1, "halves": [{"name": "Y", "mana_value": 1}]}]},
            "cards[0].halves: a split card has at least two halves, got 1",
        ),
        (
            {
                "cards": [
                    {
                        "name": "X",
                        "mana_value": 4,
                        "halves": [{"name": "Y", "mana_value": 2}, {"name": "Z", "mana_value": "2"}],
                    }
                ]
            },
            'cards[0].halves[1].mana_value: expected an integer, got "2"',
        ),
        (
            {
                "cards": [
                    {
                        "name": "X",
                        "mana_value": 4,
                        "adventure": {"name": "A", "mana_value": 1},
                        "halves": [{"name": "Y", "mana_value": 2}, {"name": "Z", "mana_value": 2}],
                    }
                ]
            },
            "cards[0].halves: a card cannot have both halves and an adventure",
        ),
        ({"cards": [{"name": "X", "mana_value": 1_000_001}]}, "cards[0].mana_value: must be at most 1000000"),
        ({"cards": [{"name": "X", "mana_value": 1, "value": 1e308}]}, "cards[0].value: must be at most 1000000"),
        (
            {
                "cards": [
                    {
                        "name": "X",
                        "mana_value": 1,
                        "back": {"name": "Y", "mana_value": 1, "value": 1e7},
                        "double_faced": "modal",
                    }
                ]
            },
            "cards[0].back.value: must be at most 1000000",
        ),
        (
            {"cards": [{"name": "X", "mana_value": 1, "adventure": {"name": "Y", "mana_value": 1, "aftermath": True}}]},
            "cards[0].adventure.aftermath: only a split card's half has aftermath (702.127a)",
        ),
        (
            {
                "cards": [
                    {
                        "name": "X",
                        "mana_value": 4,
                        "halves": [{"name": "Y", "mana_value": 2}, {"name": "Z", "mana_value": 2, "aftermath": 1}],
                    }
                ]
            },
            "cards[0].halves[1].aftermath: expected true or false, got 1",
        ),
        (
            {"cards": [{"name": "X", "mana_value": 1, "id": json.loads("[" * 65 + "]" * 65)}]},
            "cards[0].id: nested more than 64 levels deep",
        ),
        ({"cards": {"name": "X"}}, "cards: expected a list, got an object"),
        ({"cards": ["Forest"]}, 'cards[0]: expected an object, got "Forest"'),
        ({"deck": []}, "deck: unknown field"),
        ([], "library: expected an object, got a list"),
        ("{", "not JSON"),
    ],
)
def test_bad_library_input(doc, message):  # docs/format.md "Library": a one-line error naming the JSON path
    with pytest.raises(FormatError) as err:
        load_library(doc)
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


def test_bad_state_input():  # docs/format.md: bad input names its JSON path
    with pytest.raises(FormatError, match=r"^sideboard: unknown zone"):
        load_state({"library": [], "sideboard": []})
    with pytest.raises(FormatError, match=r"^stack\[0\]\.card: required field is missing"):
        load_state({"stack": [{"face": "X"}]})
    with pytest.raises(FormatError, match=r"^graveyard\[0\]\.mana_value"):
        load_library_or_state({"graveyard": [{"name": "X"}]})
