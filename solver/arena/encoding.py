"""A fixed-size numeric encoding of a board and of the decision being made (for the learning environments).

The observation is a float32 vector of :data:`OBS_SIZE` numbers, in this order (docs/arena.md lists it too):

- ``MAX_ATTACKERS`` (8) attacker slots of :data:`ATTACKER_FEATURES` numbers: present, power, toughness, damage
  marked, in combat, blocked, trample, trample over planeswalkers, deathtouch, first strike, double strike,
  indestructible, damage assigned to it in this step so far (by blockers), one-hot of what it attacks over the
  defender slots (players, then planeswalkers, then battles), and which blocker slots block it (0/1 each);
- ``MAX_BLOCKERS`` (8) blocker slots: present, power, toughness, damage marked, in combat, deathtouch, first strike,
  double strike, indestructible, value, damage assigned to it in this step so far;
- ``MAX_PLAYERS`` (2) player slots: present, life, damage assigned so far;
- ``MAX_PLANESWALKERS`` (2) slots: present, loyalty, in combat, value, damage assigned so far, one-hot controller;
- ``MAX_BATTLES`` (2) slots: present, defense, in combat, damage assigned so far, one-hot protector;
- the decision: one-hot of the source (attacker slots, then blocker slots), one-hot of the recipient (attacker,
  blocker, player, planeswalker, battle slots), the source's damage still to assign, 1 in the first-strike step,
  1 when the defending player decides.

Objects are put in slots in the scenario's order; boards with more objects than slots are refused (ValueError).
Flags and one-hots are 0 or 1; every quantity (power, toughness, damage, life, loyalty, defense, value, damage
still to assign) is divided by :data:`SCALE` (20) and clipped to ``[-1, 1]``, so the whole vector lies in
``[-1, 1]`` (``observation_space()`` is ``Box(-1, 1)``): a 5/5 is 0.25, a life total of 20 is 1.0, and anything
from 20 up reads 1.0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..models import Keyword

MAX_ATTACKERS = 8
MAX_BLOCKERS = 8
MAX_PLAYERS = 2
MAX_PLANESWALKERS = 2
MAX_BATTLES = 2
DEFENDERS = MAX_PLAYERS + MAX_PLANESWALKERS + MAX_BATTLES
ATTACKER_FEATURES = 13 + DEFENDERS + MAX_BLOCKERS
BLOCKER_FEATURES = 11
PLAYER_FEATURES = 3
PLANESWALKER_FEATURES = 5 + MAX_PLAYERS
BATTLE_FEATURES = 4 + MAX_PLAYERS
SLOTS = MAX_ATTACKERS + MAX_BLOCKERS + DEFENDERS
OBS_SIZE = (
    MAX_ATTACKERS * ATTACKER_FEATURES
    + MAX_BLOCKERS * BLOCKER_FEATURES
    + MAX_PLAYERS * PLAYER_FEATURES
    + MAX_PLANESWALKERS * PLANESWALKER_FEATURES
    + MAX_BATTLES * BATTLE_FEATURES
    + (MAX_ATTACKERS + MAX_BLOCKERS)
    + SLOTS
    + 3
)
SCALE = 20.0  # quantities are divided by this (docs/arena.md)
LIMIT = 1.0  # and the vector is clipped to [-LIMIT, LIMIT]


def _q(x) -> float:
    """A quantity, scaled."""
    return float(x) / SCALE


def check_fits(scenario) -> None:
    """ValueError when the board has more objects than the encoding has slots."""
    for what, objs, cap in (
        ("attackers", scenario.attackers, MAX_ATTACKERS),
        ("blockers", scenario.blockers, MAX_BLOCKERS),
        ("players", scenario.players, MAX_PLAYERS),
        ("planeswalkers", scenario.planeswalkers, MAX_PLANESWALKERS),
        ("battles", scenario.battles, MAX_BATTLES),
    ):
        if len(objs) > cap:
            raise ValueError(f"{what}: {len(objs)} on this board, the observation encoding holds at most {cap}")


def encode(
    scenario,
    received: dict,
    source: str | None,
    recipient: str | None,
    remaining: int,
    first_strike: bool,
    defending: bool,
):
    """The observation vector. ``received``: recipient id -> damage assigned to it so far in this step."""
    import numpy as np

    s = scenario
    defenders = (
        [p.id for p in s.players]
        + [""] * (MAX_PLAYERS - len(s.players))
        + [w.id for w in s.planeswalkers]
        + [""] * (MAX_PLANESWALKERS - len(s.planeswalkers))
        + [b.id for b in s.battles]
        + [""] * (MAX_BATTLES - len(s.battles))
    )
    blocker_slot = {b.id: k for k, b in enumerate(s.blockers)}
    player_slot = {p.id: k for k, p in enumerate(s.players)}
    out: list[float] = []
    for k in range(MAX_ATTACKERS):
        if k >= len(s.attackers):
            out += [0.0] * ATTACKER_FEATURES
            continue
        a = s.attackers[k]
        row = [1, _q(a.power), _q(a.toughness), _q(a.damage_marked), a.in_combat, a.blocked, a.has(Keyword.TRAMPLE),
               a.has(Keyword.TRAMPLE_OVER_PLANESWALKERS), a.has(Keyword.DEATHTOUCH), a.has(Keyword.FIRST_STRIKE),
               a.has(Keyword.DOUBLE_STRIKE),
               a.has(Keyword.INDESTRUCTIBLE), _q(received.get(a.id, 0))]  # fmt: skip
        row += [1 if d and d == a.attacking else 0 for d in defenders]
        blocks = [0] * MAX_BLOCKERS
        for b in a.blocked_by:
            blocks[blocker_slot[b]] = 1
        out += row + blocks
    for k in range(MAX_BLOCKERS):
        if k >= len(s.blockers):
            out += [0.0] * BLOCKER_FEATURES
            continue
        b = s.blockers[k]
        out += [1, _q(b.power), _q(b.toughness), _q(b.damage_marked), b.in_combat, b.has(Keyword.DEATHTOUCH),
                b.has(Keyword.FIRST_STRIKE), b.has(Keyword.DOUBLE_STRIKE), b.has(Keyword.INDESTRUCTIBLE), _q(b.value),
                _q(received.get(b.id, 0))]  # fmt: skip
    for k in range(MAX_PLAYERS):
        p = s.players[k] if k < len(s.players) else None
        out += [0.0] * PLAYER_FEATURES if p is None else [1, _q(p.life), _q(received.get(p.id, 0))]
    for k in range(MAX_PLANESWALKERS):
        w = s.planeswalkers[k] if k < len(s.planeswalkers) else None
        if w is None:
            out += [0.0] * PLANESWALKER_FEATURES
            continue
        ctl = [0] * MAX_PLAYERS
        if w.controller in player_slot:
            ctl[player_slot[w.controller]] = 1
        out += [1, _q(w.loyalty), w.in_combat, _q(w.value), _q(received.get(w.id, 0))] + ctl
    for k in range(MAX_BATTLES):
        t = s.battles[k] if k < len(s.battles) else None
        if t is None:
            out += [0.0] * BATTLE_FEATURES
            continue
        prot = [0] * MAX_PLAYERS
        if t.protector in player_slot:
            prot[player_slot[t.protector]] = 1
        out += [1, _q(t.defense), t.in_combat, _q(received.get(t.id, 0))] + prot
    sources = [a.id for a in s.attackers] + [""] * (MAX_ATTACKERS - len(s.attackers))
    sources += [b.id for b in s.blockers] + [""] * (MAX_BLOCKERS - len(s.blockers))
    out += [1 if source and x == source else 0 for x in sources]
    slots = sources + defenders
    out += [1 if recipient and x == recipient else 0 for x in slots]
    out += [_q(remaining), 1 if first_strike else 0, 1 if defending else 0]
    vec = np.asarray(out, dtype=np.float32)
    assert vec.shape == (OBS_SIZE,)
    return np.clip(vec, -LIMIT, LIMIT)


def encode_walk(scenario, walk, first_strike: bool = False, defending: bool = False, over: bool = False):
    """The observation of a decision walk (:class:`trample.arena.sequential.StepWalk`) on ``scenario``: the damage
    assigned so far, the source and recipient being decided and what the source has left (no decision once the
    walk is done, or ``over``)."""
    received: dict = {}
    for split in walk.assignment().values():
        for r, n in split.items():
            received[r] = received.get(r, 0) + n
    if walk.done or over:
        return encode(scenario, received, None, None, 0, first_strike, defending)
    source, recipient = walk.decoder.current(walk.state)
    return encode(scenario, received, source, recipient, walk.state[1], first_strike, defending)


def choose_board(
    options: Mapping, boards: Sequence | None, draw: Callable[[int], int], generated: Callable[[int], Any]
):
    """The board of a new game (every environment's reset): ``options["scenario"]``, else one of ``boards`` (the
    ``draw(len(boards))``-th), else ``generated(draw(2**62))``; ``draw(n)`` is a random whole number below n."""
    if "scenario" in options:
        return options["scenario"]
    if boards is not None:
        return boards[draw(len(boards))]
    return generated(draw(2**62))


def observation_space():
    import numpy as np
    from gymnasium import spaces

    return spaces.Box(low=-LIMIT, high=LIMIT, shape=(OBS_SIZE,), dtype=np.float32)
