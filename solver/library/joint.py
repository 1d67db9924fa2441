"""Exact joint distribution of one or two discovers in a row (Scalesoul Gnome dealing combat damage twice).

A double-striking Gnome (or one in a whole combat with a first-strike step) triggers once per combat damage step:
discover X₁, then discover X₂ on the library the first discover left (701.57a): the cards after the first hit,
then the cards exiled before it, on the bottom in a uniformly random order. Cards are told apart by their index in
the library; the result maps ``(hit₁, hit₂)`` (indices, ``None`` for "the library ran out") to an exact
:class:`~fractions.Fraction`.

Unknown order (every order of the library equally likely). Let ``Q₁`` be the cards qualifying for X₁ (nonland,
mana value <= X₁), ``q₁ = |Q₁|``, and ``N₁`` the others (``m₁`` of them).

- ``q₁ = 0``: the first discover exiles everything and puts it all on the bottom in a random order: the library is
  uniformly shuffled again, and the second discover finds each of its ``q₂`` qualifying cards with probability
  ``1/q₂``.
- ``q₁ > 0``: the first hit is each card of ``Q₁`` with probability ``1/q₁``, independently of how many cards
  ``t`` came before it (``P(t) = C(L-1-t, q₁-1) / C(L, q₁)``); those ``t`` cards are a uniformly random
  ``t``-subset of ``N₁`` and end on the bottom. The rest of the library (the other ``m₁ - t`` cards of ``N₁`` and
  ``Q₁`` minus the hit) lies above them in a uniformly random order. The second hit is the first X₂-qualifying
  card of that upper part if it has one (uniform among them), else a uniformly random X₂-qualifying card of the
  bottom part, else none. With ``A`` the X₂-qualifying cards of ``Q₁`` other than the first hit and ``B`` those of
  ``N₁`` (``b`` of them on the bottom, hypergeometric), the upper part holds ``|A| + |B| - b`` of them.

Known order (the library as given): the first hit and the upper part are fixed; only the bottom order is random.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from math import comb

from ..models.cards import Card
from .exact import hypergeometric
from .transforms import qualifies

Hits = dict[tuple, Fraction]


def _uniform(indices) -> dict:
    idx = list(indices)
    if not idx:
        return {None: Fraction(1)}
    return {i: Fraction(1, len(idx)) for i in idx}


def discover_hits(cards: tuple[Card, ...], xs, order: str = "unknown") -> Hits:
    """``{(hit for each X in xs): probability}`` for discovers of ``xs`` in a row (one or two values, each > 0).

    ``order="unknown"``: over a uniformly shuffled library; ``"known"``: the library in the order given (the
    cards put on the bottom still go there in a random order, 701.57a).
    """
    xs = tuple(xs)
    if not 1 <= len(xs) <= 2 or any(x <= 0 for x in xs):
        raise ValueError("one or two discovers, each of X >= 1")
    if order == "known":
        return _known(cards, xs)
    q1 = [i for i, c in enumerate(cards) if qualifies(c, xs[0])]
    if len(xs) == 1:
        return {(i,): p for i, p in _uniform(q1).items()}
    x2 = xs[1]
    q2_all = [i for i, c in enumerate(cards) if qualifies(c, x2)]
    if not q1:  # everything exiled and put back in a random order: a fresh uniform library
        return {(None, j): p for j, p in _uniform(q2_all).items()}
    size = len(cards)
    in_q1 = set(q1)
    n1 = [i for i in range(size) if i not in in_q1]
    m1 = len(n1)
    b_set = [i for i in n1 if qualifies(cards[i], x2)]
    nb = len(b_set)
    total = comb(size, len(q1))
    p_t = [Fraction(comb(size - 1 - t, len(q1) - 1), total) for t in range(m1 + 1)]

    def second(na: int) -> tuple[Fraction, Fraction, Fraction]:
        """(P for each card of A, P for each card of B, P of none) when A has ``na`` cards."""
        pa = pb = pn = Fraction(0)
        for t, pt in enumerate(p_t):
            if not pt:
                continue
            for b, pbt in hypergeometric(m1, nb, t):
                w = pt * pbt
                upper = na + nb - b
                if upper:
                    pa += w / upper
                    if nb:
                        pb += w * Fraction(nb - b, nb) / upper
                elif nb:
                    pb += w / nb
                else:
                    pn += w
        return pa, pb, pn

    out: Hits = defaultdict(Fraction)
    cache: dict[int, tuple] = {}
    qq = [i for i in q1 if qualifies(cards[i], x2)]
    for i in q1:
        a_set = [j for j in qq if j != i]
        na = len(a_set)
        if na not in cache:
            cache[na] = second(na)
        pa, pb, pn = cache[na]
        first = Fraction(1, len(q1))
        for j in a_set:
            out[(i, j)] += first * pa
        for j in b_set:
            out[(i, j)] += first * pb
        if pn:
            out[(i, None)] += first * pn
    return {k: v for k, v in out.items() if v}


def _known(cards: tuple[Card, ...], xs) -> Hits:
    hit = next((i for i, c in enumerate(cards) if qualifies(c, xs[0])), None)
    if len(xs) == 1:
        return {(hit,): Fraction(1)}
    x2 = xs[1]
    if hit is None:  # all exiled, all to the bottom in a random order
        return {(None, j): p for j, p in _uniform([i for i, c in enumerate(cards) if qualifies(c, x2)]).items()}
    upper = next((j for j in range(hit + 1, len(cards)) if qualifies(cards[j], x2)), None)
    if upper is not None:
        return {(hit, upper): Fraction(1)}
    return {(hit, j): p for j, p in _uniform([j for j in range(hit) if qualifies(cards[j], x2)]).items()}
