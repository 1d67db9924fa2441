"""Mill (701.17), discover (701.57) and Seek Thrills as pure transforms of a :class:`~trample.models.cards.GameState`.

Every transform has the shape ``f(state, parameters..., seed) -> (new_state, event)``:

- the input is never mutated (states, libraries and cards are frozen);
- the multiset of cards over all zones is conserved;
- the result depends only on the arguments: the same seed gives the same state and event, byte for byte.

Randomness: :func:`seeded_permutation` is a Fisher-Yates shuffle whose index draws come from
``random.Random(seed).random()`` (53-bit values, turned into uniform integers by rejection sampling). Python
guarantees that stream for a given integer seed across versions (unlike ``Random.shuffle``'s internals), so a
seed means the same order everywhere. Seeds are integers >= 0.

Seeds mean:

- ``discover``: the random order of the cards put on the bottom (701.57a). The library is never shuffled first.
- ``mill`` and ``seek_thrills``: ``None`` (the default) mills the library in the order given; an integer first
  shuffles the library with that seed (a sample game from an unknown order) and the event records it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from ..models.cards import Card, Face, GameState, Library, Spell, as_state
from ..models.errors import FormatError, expect_int
from ..models.vocabulary import Zone

_TWO53 = 1 << 53
CHOICES = ("cast", Zone.HAND)
#: Where milled cards go: the graveyard (701.17a), or exile under a replacement effect (Rest in Peace-style, 614.1).
MILL_ZONES = (Zone.GRAVEYARD, Zone.EXILE)
#: Which end of the library is milled: the top (701.17a), or the bottom where a card says so.
MILL_ENDS = ("top", "bottom")


# ---------------------------------------------------------------------------------------------
# Parameters and randomness
# ---------------------------------------------------------------------------------------------


def _count(n, what: str) -> int:
    return expect_int(n, what, minimum=0)


def _seed(seed, what: str = "seed") -> int:
    return expect_int(seed, what, minimum=0)


def _below(rng: random.Random, m: int) -> int:
    """A uniform integer in ``[0, m)`` from 53-bit draws of ``rng.random()`` (rejection sampling: exact)."""
    limit = _TWO53 - _TWO53 % m
    while True:
        r = int(rng.random() * _TWO53)  # random() is k / 2**53 with k uniform: r == k exactly
        if r < limit:
            return r % m


def seeded_permutation(length: int, seed: int) -> tuple[int, ...]:
    """A uniformly random permutation of ``range(length)``, a pure function of ``(length, seed)``."""
    rng = random.Random(_seed(seed))
    order = list(range(length))
    for i in range(length - 1, 0, -1):
        j = _below(rng, i + 1)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def shuffle_library(state, seed: int) -> tuple[GameState, dict]:
    """Shuffle the library uniformly with ``seed`` (the other zones are untouched)."""
    state = as_state(state)
    cards = state.library.cards
    order = seeded_permutation(len(cards), seed)
    return replace(state, library=Library(tuple(cards[i] for i in order))), {"action": "shuffle", "seed": seed}


# ---------------------------------------------------------------------------------------------
# Mill (701.17) and Seek Thrills
# ---------------------------------------------------------------------------------------------


def can_pay_mill_cost(state, n: int) -> bool:
    """701.17b: a cost that mills ``n`` cards can be paid only if the library holds at least ``n`` cards."""
    return _count(n, "n") <= len(as_state(state).library)


@dataclass(frozen=True)
class MillEvent:
    """What a mill did. ``milled`` is in the order the cards left the library (from the end milled: top first, or
    bottom first for a mill from the bottom); ``went_to[i]`` is the zone ``milled[i]`` ended in ("graveyard", or
    "exile" under a replacement effect, or "hand" after Seek Thrills)."""

    action: str  # "mill" or "seek_thrills"
    requested: int
    milled: tuple[Card, ...]
    went_to: tuple[str, ...]
    library_before: int
    as_cost: bool = False
    performed: bool = True  # False only for a cost that could not be paid (701.17b): nothing moved
    shuffle_seed: int | None = None
    zone: str = Zone.GRAVEYARD  # where milled cards were put (a replacement effect may say exile)
    end: str = "top"

    @property
    def count(self) -> int:
        return len(self.milled)

    @property
    def cost_payable(self) -> bool:
        """701.17b: could ``requested`` cards be milled as a cost from the library as it was?"""
        return self.requested <= self.library_before

    def answers(self, field: str) -> tuple:
        """701.17d: a question about "the milled card" gets one answer per milled card."""
        return tuple(c.get(field) for c in self.milled)

    def numeric_answer(self, field: str) -> int | float:
        """701.17d: a numeric question about "the milled card" (mana value, say) is answered by the sum."""
        total: int | float = 0
        for i, value in enumerate(self.answers(field)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise FormatError(f"milled[{i}].{field}", f"not a number: {value!r}")
            total += value
        return total

    def to_json(self) -> dict:
        out = {
            "action": self.action,
            "requested": self.requested,
            "count": self.count,
            "milled": [{"card": c.to_json(), "to": z} for c, z in zip(self.milled, self.went_to)],
            "mana_values": list(self.answers("mana_value")),
            "mana_value_total": self.numeric_answer("mana_value"),
        }
        if self.action == "mill":
            out["cost_payable"] = self.cost_payable
        if self.as_cost:
            out["as_cost"] = True
            out["performed"] = self.performed
        if self.shuffle_seed is not None:
            out["shuffled_first_with_seed"] = self.shuffle_seed
        if self.zone != Zone.GRAVEYARD:
            out["milled_to"] = self.zone
        if self.end != "top":
            out["from"] = self.end
        return out


def zone_and_end(to: str, end: str) -> None:
    if to not in MILL_ZONES:
        raise FormatError("to", f'expected "graveyard" or "exile", got {to!r}')
    if end not in MILL_ENDS:
        raise FormatError("from", f'expected "top" or "bottom", got {end!r}')


def mill(
    state, n: int, seed: int | None = None, *, as_cost: bool = False, to: str = Zone.GRAVEYARD, end: str = "top"
) -> tuple[GameState, MillEvent]:
    """Mill ``n`` (701.17a): the top ``n`` cards go to the graveyard; with fewer, all of them (701.17b).

    ``as_cost=True``: milling as a cost that cannot be paid (``n`` > library size) does nothing and the event
    says ``performed=False`` (701.17b). ``seed``: see the module docstring (``None``: the order given).
    ``to="exile"``: a replacement effect puts the milled cards into exile instead; they are still the milled
    cards (701.17c). ``end="bottom"``: the cards come from the bottom of the library (bottom card first).
    """
    state = as_state(state)
    n = _count(n, "n")
    zone_and_end(to, end)
    if as_cost and n > len(state.library):
        event = MillEvent(
            "mill", n, (), (), len(state.library), as_cost=True, performed=False, shuffle_seed=seed, zone=to, end=end
        )
        return state, event
    if seed is not None:
        state, _ = shuffle_library(state, _seed(seed))
    cards = state.library.cards
    k = min(n, len(cards))
    if end == "top":
        milled, left = cards[:k], cards[k:]
    else:
        milled, left = tuple(reversed(cards[len(cards) - k :])), cards[: len(cards) - k]
    if to == Zone.GRAVEYARD:
        new = replace(state, library=Library(left), graveyard=state.graveyard + milled)
    else:
        new = replace(state, library=Library(left), exile=state.exile + milled)
    event = MillEvent("mill", n, milled, (to,) * k, len(cards), as_cost=as_cost, shuffle_seed=seed, zone=to, end=end)
    return new, event


def seek_thrills(
    state, seed: int | None = None, *, to: str = Zone.GRAVEYARD, end: str = "top"
) -> tuple[GameState, MillEvent]:
    """Seek Thrills: mill seven, then put each milled card that has an Adventure into its owner's hand.

    The adventurers are "the milled cards" of 701.17c: they are found wherever the mill put them (the
    graveyard, or exile under a replacement effect, ``to="exile"``) and moved to the hand, in milled order; the
    other milled cards stay where they went. ``end="bottom"`` mills from the bottom (see :func:`mill`).
    """
    state = as_state(state)
    after_mill, event = mill(state, 7, seed, to=to, end=end)
    stay = tuple(c for c in event.milled if not c.has_adventure)
    up = tuple(c for c in event.milled if c.has_adventure)
    zone = getattr(after_mill, to)
    base = zone[: len(zone) - event.count]
    new = replace(after_mill, **{to: base + stay}, hand=after_mill.hand + up)
    went = tuple(Zone.HAND if c.has_adventure else to for c in event.milled)
    return new, replace(event, action="seek_thrills", went_to=went)


# ---------------------------------------------------------------------------------------------
# Discover (701.57)
# ---------------------------------------------------------------------------------------------


def qualifies(card: Card, n: int) -> bool:
    """701.57a: discover N stops at the first nonland card with mana value N or less."""
    return not card.is_land and card.mana_value <= n


def best_face(faces: tuple[Face, ...]) -> Face:
    """Our default face to cast: the highest mana value; ties go to the first (main face, then Adventure;
    halves in their order)."""
    best = faces[0]
    for f in faces[1:]:
        if f.mana_value > best.mana_value:
            best = f
    return best


@dataclass(frozen=True)
class DiscoverEvent:
    """What discover N did.

    - ``exiled``: the cards exiled, in order (top first); the last one is the final card exiled.
    - ``hit``: the nonland card with mana value <= N that stopped the process, or None if the library ran out.
    - ``discovered_card``: 701.57c, the final card exiled when its mana value is <= N. Normally ``hit``; read
      literally it is a *land* when the library ran out on one (``literal_final_land``), and None when the
      library was empty or ran out on a card with a greater mana value.
    - ``destination``: where ``hit`` went: "stack" (cast as ``cast_face``) or "hand"; None without a hit.
    - ``bottom``: the other exiled cards, in the order they now sit at the bottom of the library (upper first).
    - ``discovered``: always True (701.57b), even when the library was empty.
    """

    n: int
    seed: int
    choice: str
    exiled: tuple[Card, ...]
    hit: Card | None
    discovered_card: Card | None
    literal_final_land: bool
    castable_faces: tuple[str, ...]
    cast_face: str | None
    destination: str | None
    bottom: tuple[Card, ...]
    discovered: bool = True
    requested_face: str | None = None  # the face asked for (kept when nothing was found to cast it)

    @property
    def library_ran_out(self) -> bool:
        return self.hit is None

    @property
    def exiled_count(self) -> int:
        return len(self.exiled)

    def note(self) -> str:
        if self.hit is not None:
            if self.destination == Zone.STACK:
                return f"cast {self.cast_face} without paying its mana cost (701.57a)"
            if self.choice == "cast":
                return f"no face of {self.hit.name} has mana value {self.n} or less: put into hand (701.57a)"
            return "put into hand by choice (701.57a)"
        unused = ""
        if self.requested_face is not None:
            unused = f" (no card was found, so the face {self.requested_face} was not cast)"
        if not self.exiled:
            return "the library was empty: nothing exiled, and the player has still discovered (701.57b)" + unused
        if self.literal_final_land:
            assert self.discovered_card is not None  # read literally, the final card exiled is the discovered one
            return (
                f"the library ran out; the final card exiled, {self.discovered_card.name}, is a land with "
                f"mana value {self.discovered_card.mana_value} <= {self.n}, so read literally it is the "
                "discovered card (701.57c), though it was neither cast nor put into hand: it went to the "
                "bottom with the others" + unused
            )
        return (
            f"the library ran out without a nonland card of mana value {self.n} or less; no discovered card (701.57c)"
            + unused
        )

    def to_json(self) -> dict:
        went = []
        hit_index = len(self.exiled) - 1 if self.hit is not None else None
        for i, c in enumerate(self.exiled):
            went.append({"card": c.to_json(), "to": self.destination if i == hit_index else "bottom"})
        if self.discovered_card is None:
            discovered_to = None
        elif self.literal_final_land:
            discovered_to = "bottom"
        else:
            discovered_to = self.destination
        return {
            "action": "discover",
            "n": self.n,
            "seed": self.seed,
            "choice": self.choice,
            "discovered": self.discovered,
            "exiled": went,
            "exiled_count": self.exiled_count,
            "library_ran_out": self.library_ran_out,
            "discovered_card": None if self.discovered_card is None else self.discovered_card.to_json(),
            "went_to": discovered_to,
            "literal_final_land": self.literal_final_land,
            "castable_faces": list(self.castable_faces),
            "cast_face": self.cast_face,
            "bottom": [c.to_json() for c in self.bottom],
            **({} if self.requested_face is None else {"requested_face": self.requested_face}),
            "note": self.note(),
        }


def discover(
    state, n: int, seed: int, *, choice: str = "cast", face: str | None = None
) -> tuple[GameState, DiscoverEvent]:
    """Discover ``n`` (701.57a).

    Exile from the top until a nonland card with mana value <= ``n`` is exiled. With ``choice="cast"`` it is
    cast (it goes to the stack as a :class:`~trample.models.cards.Spell`) through a face whose mana value is <= ``n``:
    ``face`` names it, by default the highest such face (:func:`best_face`); with no such face, or with
    ``choice="hand"``, it goes to the hand. The other exiled cards go to the bottom in the random order given by
    ``seed`` (:func:`seeded_permutation`). The exile zone ends as it began: the cards only pass through it.
    """
    state = as_state(state)
    n = _count(n, "n")
    seed = _seed(seed)
    if choice not in CHOICES:
        raise FormatError("choice", f'expected "cast" or "hand", got {choice!r}')
    cards = state.library.cards
    k = 0
    hit = None
    while k < len(cards):
        card = cards[k]
        k += 1
        if qualifies(card, n):
            hit = card
            break
    exiled = cards[:k]
    final = exiled[-1] if exiled else None
    discovered_card = final if final is not None and final.mana_value <= n else None  # 701.57c
    literal = discovered_card is not None and hit is None

    rest = exiled[:-1] if hit is not None else exiled
    order = seeded_permutation(len(rest), seed)
    bottom = tuple(rest[i] for i in order)
    library = Library(cards[k:] + bottom)

    if face is not None and choice == Zone.HAND:
        raise FormatError("face", 'a face is chosen only to cast the card; with choice "hand" nothing is cast')
    castable: tuple[Face, ...] = ()
    cast_face = None
    destination = None
    new_stack, new_hand = state.stack, state.hand
    if hit is not None:
        castable = hit.castable_faces(n)
        if face is not None:
            check_face(hit, face, n)
        if choice == "cast" and castable:
            chosen = next(f for f in castable if f.name == face) if face is not None else best_face(castable)
            cast_face = chosen.name
            destination = Zone.STACK
            new_stack = new_stack + (Spell(hit, chosen.name),)
        else:
            destination = Zone.HAND
            new_hand = new_hand + (hit,)

    new = replace(state, library=library, hand=new_hand, stack=new_stack)
    event = DiscoverEvent(
        n=n,
        seed=seed,
        choice=choice,
        exiled=exiled,
        hit=hit,
        discovered_card=discovered_card,
        literal_final_land=literal,
        castable_faces=tuple(f.name for f in castable),
        cast_face=cast_face,
        destination=destination,
        bottom=bottom,
        requested_face=face,
    )
    return new, event


def check_face(card: Card, face: str, n: int) -> Face:
    """The face named ``face`` of ``card`` if discover ``n`` may cast it, else a :class:`FormatError` saying why:
    no such face, a land face (played, never cast: 305.1, 305.9), a half with aftermath (cast only from a
    graveyard: 702.127a), a transforming card's back face (712.11a), or a resulting spell with mana value
    greater than ``n`` (701.57a)."""
    printed = card.face(face)
    if printed is None:
        names = [f.name for f in card.faces()]
        raise FormatError("face", f"{card.name} has no face named {face!r} (faces: {', '.join(names)})")
    if printed.is_land:
        raise FormatError("face", f"{face} is a land face: lands are played, never cast (305.1, 305.9)")
    spell = next((f for f in card.spell_faces() if f.name == face), None)
    if spell is None and printed.aftermath:
        raise FormatError("face", f"{face} has aftermath: it is cast only from a graveyard, not from exile (702.127a)")
    if spell is None:
        raise FormatError("face", f"{face} is the back face of a transforming double-faced card: never cast (712.11a)")
    if spell.mana_value > n:
        raise FormatError(
            "face", f"{face} has mana value {spell.mana_value}, more than {n}: it cannot be cast (701.57a)"
        )
    return spell
