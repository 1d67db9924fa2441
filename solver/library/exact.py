"""Exact distributions over a uniformly shuffled library (fractions, no sampling).

The library is taken as a multiset: every one of its ``L!`` orders (copies told apart) is equally likely.

Discover N (701.57). Let ``q`` be the number of qualifying cards (nonland, mana value <= N).

- ``q > 0``: each qualifying card is equally likely to come first among them, so each is the discovered card
  with probability ``1/q``; the number of cards exiled is ``k`` with probability ``C(L-k, q-1) / C(L, q)``
  (``k - 1`` non-qualifying cards, then a qualifying one), for ``k = 1 .. L-q+1``.
- ``q = 0``: every card is exiled; the final card exiled is each card with probability ``1/L``, and it is the
  701.57c discovered card when its mana value is <= N, i.e. (read literally) a land.
- ``L = 0``: nothing is exiled; there is no discovered card (but the player has discovered, 701.57b).

Mill N (701.17): ``m = min(N, L)`` cards are milled, a uniformly random ``m``-subset. The number of cards with
an Adventure among them is hypergeometric, ``C(a, x) C(L-a, m-x) / C(L, m)``; the distribution of the milled
cards' total mana value (the 701.17d numeric answer) comes from counting ``m``-subsets by total, a product of
binomial generating functions over the groups of equal mana value.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np

from ..models.cards import Card, GameState, Library, as_state
from ..models.errors import expect_int
from ..models.vocabulary import Zone
from .transforms import best_face, qualifies


def library_cards(library) -> tuple[Card, ...]:
    if isinstance(library, (GameState, Library)):
        return as_state(library).library.cards
    return tuple(library)


def prob_json(p: Fraction) -> dict:
    """A probability in JSON: the exact fraction as text, and a float."""
    return {"probability": str(p), "p": float(p)}


def exact_json(x: Fraction) -> dict:
    return {"exact": str(x), "value": float(x)}


def _expect(dist) -> Fraction:
    return sum((Fraction(v) * p for v, p in dist), Fraction(0))


@dataclass(frozen=True)
class DiscoverDistribution:
    """Discover ``n`` on a uniformly shuffled library. Probabilities are :class:`~fractions.Fraction`.

    ``discovered[i]``: the probability that ``cards[i]`` is the 701.57c discovered card. When ``qualifying`` is
    0 that can only be a land that was exiled last (``literal_final_land`` is the total of those); otherwise it
    is the card cast or put into hand. ``none``: no discovered card. ``mana_value``: the discovered card's mana
    value, given there is one (the pairs sum to ``1 - none``). ``exiled``: how many cards are exiled.
    ``cast_mana_value``: the mana value of the face cast (our default face, the highest castable one), given
    a card is found. Expected values count "no card" as 0.
    """

    n: int
    cards: tuple[Card, ...]
    qualifying: int
    discovered: tuple[Fraction, ...]
    literal_final_land: Fraction
    none: Fraction
    mana_value: tuple[tuple[int, Fraction], ...]
    exiled: tuple[tuple[int, Fraction], ...]
    cast_mana_value: tuple[tuple[int, Fraction], ...]

    @property
    def expected_mana_value(self) -> Fraction:
        """E[mana value of the discovered card], 0 when there is none: the Gnome's default criterion."""
        return _expect(self.mana_value)

    @property
    def expected_exiled(self) -> Fraction:
        return _expect(self.exiled)

    @property
    def expected_cast_mana_value(self) -> Fraction:
        return _expect(self.cast_mana_value)

    @property
    def found(self) -> Fraction:
        """The probability that a card is cast or put into hand (a qualifying card exists)."""
        return Fraction(1) if self.qualifying else Fraction(0)

    def by_card(self) -> list[dict]:
        """The discovered-card probabilities grouped over identical copies, nonzero ones only, in library order."""
        groups: dict[Card, list[int]] = {}
        for i, c in enumerate(self.cards):
            if self.discovered[i]:
                groups.setdefault(c, []).append(i)
        out = []
        for card, idx in groups.items():
            total = sum((self.discovered[i] for i in idx), Fraction(0))
            out.append(
                {
                    "name": card.name,
                    "mana_value": card.mana_value,
                    "copies": len(idx),
                    "indices": idx,
                    **prob_json(total),
                    "literal_final_land": self.qualifying == 0,
                }
            )
        return out

    def to_json(self) -> dict:
        return {
            "n": self.n,
            "library_size": len(self.cards),
            "qualifying": self.qualifying,
            "found": prob_json(self.found),
            "discovered_card": self.by_card(),
            "literal_final_land": prob_json(self.literal_final_land),
            "none": prob_json(self.none),
            "mana_value": [{"mana_value": v, **prob_json(p)} for v, p in self.mana_value],
            "expected_mana_value": exact_json(self.expected_mana_value),
            "cast_mana_value": [{"mana_value": v, **prob_json(p)} for v, p in self.cast_mana_value],
            "expected_cast_mana_value": exact_json(self.expected_cast_mana_value),
            "exiled": [{"count": k, **prob_json(p)} for k, p in self.exiled],
            "expected_exiled": exact_json(self.expected_exiled),
        }


def discover_distribution(library, n: int) -> DiscoverDistribution:
    """Exact distribution of discover ``n`` (701.57) over a uniformly shuffled ``library``."""
    n = expect_int(n, "n", minimum=0)
    cards = library_cards(library)
    size = len(cards)
    hits = [i for i, c in enumerate(cards) if qualifies(c, n)]
    q = len(hits)
    disc = [Fraction(0)] * size
    cast: dict[int, Fraction] = defaultdict(Fraction)
    literal = Fraction(0)
    if q:
        for i in hits:
            disc[i] = Fraction(1, q)
            faces = cards[i].castable_faces(n)
            if faces:
                cast[best_face(faces).mana_value] += Fraction(1, q)
        total = comb(size, q)
        exiled = tuple((k, Fraction(comb(size - k, q - 1), total)) for k in range(1, size - q + 2))
    elif size:
        for i, c in enumerate(cards):
            if c.mana_value <= n:  # 701.57c read literally: a land exiled last
                disc[i] = Fraction(1, size)
        literal = sum(disc, Fraction(0))
        exiled = ((size, Fraction(1)),)
    else:
        exiled = ((0, Fraction(1)),)
    mv: dict[int, Fraction] = defaultdict(Fraction)
    for i, p in enumerate(disc):
        if p:
            mv[cards[i].mana_value] += p
    return DiscoverDistribution(
        n=n,
        cards=cards,
        qualifying=q,
        discovered=tuple(disc),
        literal_final_land=literal,
        none=1 - sum(disc, Fraction(0)),
        mana_value=tuple(sorted(mv.items())),
        exiled=exiled,
        cast_mana_value=tuple(sorted(cast.items())),
    )


@dataclass(frozen=True)
class MillDistribution:
    """Mill ``n`` on a uniformly shuffled library: ``milled`` = min(n, library size) cards."""

    n: int
    library_size: int
    milled: int
    adventurers_in_library: int
    adventurers: tuple[tuple[int, Fraction], ...]
    mana_value_total: tuple[tuple[int, Fraction], ...]
    as_cost: bool = False
    zone: str = Zone.GRAVEYARD
    end: str = "top"

    @property
    def performed(self) -> bool:
        """False for a cost that cannot be paid (701.17b): then nothing is milled, whatever the order."""
        return not (self.as_cost and self.n > self.library_size)

    @property
    def expected_adventurers(self) -> Fraction:
        return _expect(self.adventurers)

    @property
    def expected_mana_value_total(self) -> Fraction:
        return _expect(self.mana_value_total)

    def to_json(self) -> dict:
        return {
            "n": self.n,
            "library_size": self.library_size,
            "milled": self.milled,
            "cost_payable": self.n <= self.library_size,
            **({"as_cost": True, "performed": self.performed} if self.as_cost else {}),
            **({"milled_to": self.zone} if self.zone != Zone.GRAVEYARD else {}),
            **({"from": self.end} if self.end != "top" else {}),
            "adventurers_in_library": self.adventurers_in_library,
            "adventurers": [{"count": k, **prob_json(p)} for k, p in self.adventurers],
            "expected_adventurers": exact_json(self.expected_adventurers),
            "mana_value_total": [{"total": s, **prob_json(p)} for s, p in self.mana_value_total],
            "expected_mana_value_total": exact_json(self.expected_mana_value_total),
        }


def hypergeometric(population: int, successes: int, draws: int) -> tuple[tuple[int, Fraction], ...]:
    """P(x successes in ``draws`` draws without replacement), for every possible x."""
    total = comb(population, draws)
    lo = max(0, draws - (population - successes))
    hi = min(successes, draws)
    return tuple(
        (x, Fraction(comb(successes, x) * comb(population - successes, draws - x), total)) for x in range(lo, hi + 1)
    )


DENSE_TOTALS = 1 << 20  # subset_sum_counts packs a row of totals into one integer up to this many totals
DENSE_ROW_BYTES = 1 << 25  # and 32 MB per row
DENSE_WORK_BYTES = 1 << 37  # and about 10^11 bytes of additions in all (tens of seconds): else the sparse table


def subset_sum_counts(values, size: int) -> dict[int, int]:
    """How many ``size``-subsets of the multiset ``values`` (copies told apart) have each total.

    The product of ``(1 + y x^v)^copies`` over the groups of equal value, truncated at ``y^size``. When the totals
    are few enough, each power of ``y`` is one Python integer holding its polynomial in ``x`` (one fixed-width
    slot per total, wide enough for the largest count, so no slot carries into the next): multiplying by
    ``y^j x^(v j)`` is a shift, and a group costs a few big-integer additions per row instead of one dictionary
    update per (cards, total) state (``mill 40 --distribution`` over 200 distinct mana values: 52 s of CPU
    before, well under a second now). Far apart totals (mana values up to 10^6) keep the sparse table."""
    groups = sorted(Counter(values).items())
    n = sum(copies for _, copies in groups)
    if size < 0 or size > n:
        return {}
    top = sum(sorted(values, reverse=True)[:size])  # the largest total
    width = (comb(n, min(size, n // 2)).bit_length() + 8) // 8  # bytes per slot: every count is at most this
    work = len(groups) * (size + 1) * (top + 1) * width  # bytes added, at most, over the whole product
    if top >= DENSE_TOTALS or (top + 1) * width > DENSE_ROW_BYTES or work > DENSE_WORK_BYTES:
        return _subset_sum_counts_sparse(groups, size)
    shift = 8 * width
    rows = [1] + [0] * size  # rows[t]: slot s (bits s*shift ...) counts the t-subsets of total s seen so far
    for value, copies in groups:
        for t in range(size - 1, -1, -1):  # downwards: rows[t + j] is read before this group adds to it
            row = rows[t]
            if row:
                for j in range(1, min(copies, size - t) + 1):
                    rows[t + j] += (row * comb(copies, j)) << (value * j * shift)
    packed = rows[size].to_bytes((top + 1) * width, "little")
    slots = np.frombuffer(packed, dtype=np.uint8).reshape(top + 1, width)
    return {
        int(total): int.from_bytes(packed[total * width : (total + 1) * width], "little")
        for total in np.flatnonzero(slots.any(axis=1))
    }


def _subset_sum_counts_sparse(groups, size: int) -> dict[int, int]:
    ways: dict[tuple[int, int], int] = {(0, 0): 1}  # (cards taken, total) -> number of ways
    for value, copies in groups:
        nxt: dict[tuple[int, int], int] = defaultdict(int)
        for (taken, total), w in ways.items():
            for t in range(0, min(copies, size - taken) + 1):
                nxt[(taken + t, total + t * value)] += w * comb(copies, t)
        ways = nxt
    return {total: w for (taken, total), w in ways.items() if taken == size}


def mill_distribution(
    library, n: int, *, as_cost: bool = False, to: str = Zone.GRAVEYARD, end: str = "top"
) -> MillDistribution:
    """Exact distribution of mill ``n`` (701.17) over a uniformly shuffled ``library``: the number of adventurers
    milled (Seek Thrills mills seven and keeps those) and the milled cards' total mana value (701.17d).

    ``as_cost``: a cost of ``n`` on a smaller library cannot be paid and mills nothing (701.17b): every
    distribution is then "0 with probability 1" and ``performed`` is False. ``to`` (where the milled cards go)
    and ``end`` (top or bottom) do not change the distributions: the cards of either end of a uniformly
    shuffled library are a uniformly random subset, and a replacement effect moves the same cards elsewhere
    (701.17c: they are still the milled cards). Both are recorded in the result.
    """
    from .transforms import zone_and_end

    n = expect_int(n, "n", minimum=0)
    zone_and_end(to, end)
    cards = library_cards(library)
    size = len(cards)
    m = 0 if as_cost and n > size else min(n, size)
    a = sum(1 for c in cards if c.has_adventure)
    total = comb(size, m)
    sums = subset_sum_counts([c.mana_value for c in cards], m)
    return MillDistribution(
        n=n,
        library_size=size,
        milled=m,
        adventurers_in_library=a,
        adventurers=hypergeometric(size, a, m),
        mana_value_total=tuple((s, Fraction(w, total)) for s, w in sorted(sums.items())),
        as_cost=as_cost,
        zone=to,
        end=end,
    )
