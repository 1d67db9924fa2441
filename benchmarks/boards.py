"""Generated boards shared by the benchmarks and the tests: whole combats (ladder, chained, the ladder on one
planeswalker, on one the first step can reach or defeat, on a battle, or split between two players), the sharing
graphs of the counting cliffs (cycles through planeswalkers, random sharing, stars, dense pairs, as-though-unblocked
chains) the chain of tramplers whose neighbours share a blocker (:func:`blocker_chain`) and one trampler against a
row of blockers (:func:`trampler`)."""

from __future__ import annotations

OPP = [{"id": "opp", "life": 20}]


def _double_strike_trampler(i: int, power: int, blocked_by: list[str]) -> dict:
    return {
        "id": f"a{i}",
        "power": power,
        "toughness": 3,
        "keywords": ["double_strike", "trample"],
        "attacking": "opp",
        "blocked_by": blocked_by,
    }


def trampler(power: int, needs, deathtouch: bool = False, **extra) -> dict:
    """One trampler "t" (power ``power``, toughness 5; with deathtouch if asked) blocked by 1/n blockers b0, b1, ...
    whose toughnesses are ``needs``, attacking opp (life 20); ``extra`` adds top-level fields (rules, step, ...)."""
    return {
        "players": OPP,
        "attackers": [
            {
                "id": "t",
                "power": power,
                "toughness": 5,
                "keywords": ["trample", *(["deathtouch"] if deathtouch else [])],
                "attacking": "opp",
                "blocked_by": [f"b{i}" for i in range(len(needs))],
            }
        ],
        "blockers": [{"id": f"b{i}", "power": 1, "toughness": n} for i, n in enumerate(needs)],
        **extra,
    }


def ladder(n: int, power: int = 4, life: int = 20) -> dict:
    """n double-strike tramplers (power ``power``, toughness 3), each blocked by its own 1/2 and by a first-strike
    2/3 shared per pair of attackers (it divides its first-strike damage: 510.1d). The pairs are independent; the
    defending player has ``life``."""
    attackers, blockers = [], []
    for i in range(n):
        blockers.append({"id": f"b{i}", "power": 1, "toughness": 2})
        if i % 2 == 0:
            blockers.append({"id": f"f{i // 2}", "power": 2, "toughness": 3, "keywords": ["first_strike"]})
        attackers.append(_double_strike_trampler(i, power, [f"b{i}", f"f{i // 2}"]))
    players = [{"id": "opp", "life": life}]
    return {"step": "combat", "players": players, "attackers": attackers, "blockers": blockers}


def chained(n: int, power: int = 4) -> dict:
    """The same tramplers in one group: attacker i shares a first-strike 2/3 with each neighbour (i-1 and i+1), so
    no part of the first step is independent of the rest."""
    attackers, blockers = [], []
    for i in range(n):
        blockers.append({"id": f"b{i}", "power": 1, "toughness": 2})
        if i < n - 1:
            blockers.append({"id": f"f{i}", "power": 2, "toughness": 3, "keywords": ["first_strike"]})
        shared = ([f"f{i - 1}"] if i > 0 else []) + ([f"f{i}"] if i < n - 1 else [])
        attackers.append(_double_strike_trampler(i, power, [f"b{i}", *shared]))
    return {"step": "combat", "players": OPP, "attackers": attackers, "blockers": blockers}


def on_planeswalker(n: int) -> dict:
    """The ladder's double strikers all attacking one planeswalker (loyalty 30): one group (702.19c)."""
    doc = ladder(n)
    doc["planeswalkers"] = [{"id": "pw", "controller": "opp", "loyalty": 30}]
    for a in doc["attackers"]:
        a["attacking"] = "pw"
    return doc


def low_planeswalker(n: int, power: int = 4, loyalty: int = 5, value: float = 1) -> dict:
    """The ladder's double strikers all attacking one planeswalker of low loyalty (``value`` to ``max-value``): with
    power 4 the first step cannot put damage through its blockers to it but the regular step can (the issue's
    loyalty-5 ladder); with power 5 each pair can trample 3 over in the first step, which takes the planeswalker
    out of combat from 4 attackers on (704.5i, 506.4c: its attackers then assign only to their blockers)."""
    doc = on_planeswalker(n)
    doc["planeswalkers"] = [{"id": "pw", "controller": "opp", "loyalty": loyalty, "value": value}]
    for a in doc["attackers"]:
        a["power"] = power
    return doc


def defeatable_planeswalker(n: int) -> dict:
    """:func:`low_planeswalker` with power 5 and value 2: the first step can take it out of combat (704.5i) and
    kill every blocker it tramples over (the double strikers' first step kills blockers)."""
    return low_planeswalker(n, power=5, value=2)


def defeatable_battle(n: int, defense: int = 5) -> dict:
    """The power-5 ladder attacking one battle of defense ``defense`` that opp protects: the first step can defeat
    it (704.5v: it leaves combat, 506.4c)."""
    doc = ladder(n, power=5)
    doc["battles"] = [{"id": "bt", "protector": "opp", "defense": defense}]
    for a in doc["attackers"]:
        a["attacking"] = "bt"
    return doc


def split_planeswalker(n: int) -> dict:
    """:func:`defeatable_planeswalker` with every other attacker on the player instead (one group through the
    shared first strikers): the first step can take the planeswalker out of combat while the player stays."""
    doc = defeatable_planeswalker(n)
    for i, a in enumerate(doc["attackers"]):
        if i % 2:
            a["attacking"] = "opp"
    return doc


#: the board shapes of :func:`defeatable_with`: what each adds to :func:`defeatable_planeswalker`
DEFEATABLE_KINDS = ("trample_over", "as_though_unblocked", "banding", "lifelink", "infect", "game_ending")


def defeatable_with(n: int, kind: str) -> dict:
    """:func:`defeatable_planeswalker` (the first step can take the planeswalker out of combat, 704.5i) with one
    more thing the plain search does not read: every attacker tramples over planeswalkers (``trample_over``,
    702.19c: the loyalty left goes to opp), may assign as though unblocked (``as_though_unblocked``), the first
    attacker bands (``banding``, 702.22j: the attacking player divides the damage of the blockers blocking it), the
    attackers have lifelink or the odd ones infect (damage effects), or the odd attackers attack opp of 8 life
    (``game_ending``: three of six can deal 9 through their blockers in the first step, 704.5a, and the regular
    step is not played). Kinds joined by ``+`` (``"trample_over+lifelink"``) are combined: every keyword and option
    of each on the attackers (the board of the first; ``game_ending`` first or not at all)."""
    kinds = kind.split("+")
    if len(kinds) > 1:  # several at once: "trample_over+lifelink"
        doc = defeatable_with(n, kinds[0])
        for other in kinds[1:]:
            for a, b in zip(doc["attackers"], defeatable_with(n, other)["attackers"]):
                a["keywords"] = sorted({*a["keywords"], *b["keywords"]})
                a.update({k: v for k, v in b.items() if k == "as_though_unblocked"})
        return doc
    if kind not in DEFEATABLE_KINDS:
        raise ValueError(f"defeatable_with: unknown kind {kind!r}")
    doc = split_planeswalker(n) if kind == "game_ending" else defeatable_planeswalker(n)
    for i, a in enumerate(doc["attackers"]):
        if kind == "trample_over":
            a["keywords"] = [*a["keywords"], "trample_over_planeswalkers"]
        elif kind == "as_though_unblocked":
            a["as_though_unblocked"] = True
        elif kind == "banding" and i == 0:
            a["keywords"] = [*a["keywords"], "banding"]
        elif kind == "lifelink":
            a["keywords"] = [*a["keywords"], "lifelink"]
        elif kind == "infect" and i % 2:
            a["keywords"] = [*a["keywords"], "infect"]
    if kind == "game_ending":
        doc["players"] = [{"id": "opp", "life": 8}]
    return doc


def two_players(n: int) -> dict:
    """The ladder's attackers split between two defending players (20 life each)."""
    doc = ladder(n)
    doc["players"] = [{"id": "opp", "life": 20}, {"id": "opp2", "life": 20}]
    for i, a in enumerate(doc["attackers"]):
        a["attacking"] = "opp" if i % 2 == 0 else "opp2"
    return doc


# -- one-step boards off the usual shapes (issue 21: counting on any sharing graph) -------------------------------
#
# Each returns a scenario dict (regular damage step, attacking side). Random shapes take a seed and are the same
# for the same seed (random.Random(seed)). tests/engines/test_elimination.py draws small versions of the same shapes.


def _attacker(i: int, power: int, attacking: str, blocked_by: list[str], *keywords: str, **extra) -> dict:
    return {
        "id": f"a{i}",
        "power": power,
        "toughness": 3,
        "keywords": ["trample", *keywords],
        "attacking": attacking,
        "blocked_by": blocked_by,
        **extra,
    }


def pw_cycle(n: int, power: int = 6, loyalty: int = 3) -> dict:
    """n trample-over-planeswalkers attackers (702.19c) whose blockers form a cycle: attacker i is blocked by b_i and
    b_{i+1 mod n}, and attacks planeswalker p_{i mod 3} (three planeswalkers of one controller, each attacked by a
    third of them): blockers and loyalties link every attacker to its neighbours and around the ring."""
    blockers = [{"id": f"b{j}", "power": 1, "toughness": 2 + j % 3} for j in range(n)]
    pws = [{"id": f"p{k}", "controller": "opp", "loyalty": loyalty + k, "in_combat": True} for k in range(3)]
    attackers = [
        _attacker(i, power, f"p{i % 3}", [f"b{i}", f"b{(i + 1) % n}"], "trample_over_planeswalkers") for i in range(n)
    ]
    return {"step": "regular", "players": OPP, "planeswalkers": pws, "attackers": attackers, "blockers": blockers}


def random_sharing(n: int, m: int, per: int = 3, seed: int = 0, power: tuple[int, int] = (3, 7)) -> dict:
    """n tramplers over m blockers (toughness 1-4), each blocked by ``per`` blockers drawn at random (every blocker
    blocks at least one attacker when m <= n * per): a random sharing graph."""
    import random

    rng = random.Random(seed)
    blocks = [rng.sample(range(m), per) for _ in range(n)]
    used = {j for b in blocks for j in b}
    for j in range(m):
        if j not in used:
            i = rng.randrange(n)
            blocks[i][rng.randrange(per)] = j
            used = {j for b in blocks for j in b}
    blockers = [{"id": f"b{j}", "power": 1, "toughness": rng.randint(1, 4)} for j in range(m) if j in used]
    attackers = [_attacker(i, rng.randint(*power), "opp", [f"b{j}" for j in sorted(blocks[i])]) for i in range(n)]
    return {"step": "regular", "players": OPP, "attackers": attackers, "blockers": blockers}


def unblocked_chain(n: int, power: int = 5) -> dict:
    """n tramplers that may each assign as though they weren't blocked, chained: attacker i is blocked by b_i and
    b_{i+1} (toughness 2 and 3), so neighbours share a blocker."""
    blockers = [{"id": f"b{j}", "power": 1, "toughness": 2 + j % 2} for j in range(n + 1)]
    attackers = [_attacker(i, power, "opp", [f"b{i}", f"b{i + 1}"], as_though_unblocked=True) for i in range(n)]
    return {"step": "regular", "players": OPP, "attackers": attackers, "blockers": blockers}


def star(n: int, power: int = 6, toughness: int = 4) -> dict:
    """n tramplers all blocked by one shared blocker, each also by a private one (toughness 1-3)."""
    blockers = [{"id": "hub", "power": 1, "toughness": toughness}]
    blockers += [{"id": f"b{i}", "power": 1, "toughness": 1 + i % 3} for i in range(n)]
    attackers = [_attacker(i, power, "opp", ["hub", f"b{i}"]) for i in range(n)]
    return {"step": "regular", "players": OPP, "attackers": attackers, "blockers": blockers}


def dense_pairs(n: int, power: int = 6) -> dict:
    """n tramplers and one blocker (toughness 1-3) for every pair of them, blocking both: every two attackers share
    a blocker (n (n - 1) / 2 blockers)."""
    blockers, blocks = [], [[] for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            name = f"b{i}_{j}"
            blockers.append({"id": name, "power": 1, "toughness": 1 + (i + j) % 3})
            blocks[i].append(name)
            blocks[j].append(name)
    attackers = [_attacker(i, power, "opp", blocks[i]) for i in range(n)]
    return {"step": "regular", "players": OPP, "attackers": attackers, "blockers": blockers}


def blocker_chain(
    n: int = 10, power: int = 40, per: int = 6, tough: tuple[int, ...] = (2, 3, 1, 4, 2, 3), rules: str | None = None
) -> dict:
    """``n`` tramplers of power ``power``, each blocked by ``per`` creatures (toughness cycling through ``tough``);
    each attacker shares its last blocker with the next (the README's "10 x power 40" board by default)."""
    blockers, attackers, bid, shared = [], [], 0, None
    for a in range(n):
        bl = [shared] if shared else []
        while len(bl) < per:
            blockers.append({"id": f"b{bid}", "power": 1, "toughness": tough[bid % len(tough)]})
            bl.append(f"b{bid}")
            bid += 1
        shared = bl[-1]
        attackers.append(
            {
                "id": f"a{a}",
                "power": power,
                "toughness": 5,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": bl,
            }
        )
    board = {"players": OPP, "attackers": attackers, "blockers": blockers}
    return board if rules is None else {"rules": rules, **board}


# -- one-group whole combats off the usual shapes (mixed keywords, effects, two players, a planeswalker, a battle) --


def mixed_group(n: int, seed: int = 0, shields: bool = True) -> dict:
    """A whole combat (``"step": "combat"``) of ``n`` attackers in one group, drawn from ``seed``: attacker i is
    blocked by its own blocker (now and then none) and shares a blocker with its neighbour (so every part of the
    first step reaches the rest, as in :func:`chained`). Each attacker has double strike, first strike or neither
    (double strike most often), trample (or trample over planeswalkers, 702.19c), now and then infect, lifelink,
    deathtouch or wither, and attacks one of two defending players (opp, opp2; 8-20 life), opp's planeswalker
    (loyalty 3-8) or a battle opp2 protects (defense 3-7). Blockers: 1-3 power, 1-4 toughness; the shared ones often
    first strike; now and then lifelink, deathtouch, infect, indestructible or a prevention shield (``prevent``);
    opp now and then has a shield too. Three players in the game (the attacker and the two defending), so a player
    who loses leaves it without ending it (800.4a). ``shields=False``: the same board without its prevention shields
    and indestructible blockers (615.7, 702.12b: the boards the bounded searches read, docs/combat.md)."""
    import random

    rng = random.Random(seed)
    targets = ["opp", "opp2", "pw", "bt"]
    attackers, blockers = [], []
    for i in range(n):
        own = [] if rng.random() < 0.15 else [f"b{i}"]
        if own:
            blockers.append(_mixed_blocker(rng, f"b{i}", first=rng.random() < 0.2))
        if i < n - 1:
            blockers.append(_mixed_blocker(rng, f"s{i}", first=rng.random() < 0.7))
        shared = ([f"s{i - 1}"] if i > 0 else []) + ([f"s{i}"] if i < n - 1 else [])
        strike = rng.choices(["double_strike", "first_strike", None], weights=[6, 2, 2])[0]
        keywords = [k for k in (strike,) if k]
        keywords.append("trample_over_planeswalkers" if rng.random() < 0.25 else "trample")
        for k, p in (("infect", 0.2), ("lifelink", 0.15), ("deathtouch", 0.15), ("wither", 0.08)):
            if rng.random() < p:
                keywords.append(k)
        attackers.append(
            {
                "id": f"a{i}",
                "power": rng.randint(2, 6),
                "toughness": rng.randint(2, 4),
                "keywords": keywords,
                "attacking": rng.choice(targets),
                "blocked_by": [*own, *shared],
            }
        )
    players = [{"id": "opp", "life": rng.randint(8, 20)}, {"id": "opp2", "life": rng.randint(8, 20)}]
    if rng.random() < 0.2:
        players[0]["prevent"] = rng.randint(1, 3)
    if not shields:
        for x in [*players, *blockers]:
            x.pop("prevent", None)
        for x in blockers:
            x["keywords"] = [k for k in x["keywords"] if k != "indestructible"]
    return {
        "step": "combat",
        "players": players,
        "players_in_game": 3,
        "planeswalkers": [{"id": "pw", "controller": "opp", "loyalty": rng.randint(3, 8)}],
        "battles": [{"id": "bt", "protector": "opp2", "defense": rng.randint(3, 7)}],
        "attackers": attackers,
        "blockers": blockers,
    }


def _mixed_blocker(rng, name: str, first: bool) -> dict:
    keywords = ["first_strike"] if first else []
    for k, p in (("lifelink", 0.2), ("deathtouch", 0.12), ("infect", 0.06), ("indestructible", 0.05)):
        if rng.random() < p:
            keywords.append(k)
    blocker = {"id": name, "power": rng.randint(1, 3), "toughness": rng.randint(1, 4), "keywords": keywords}
    if rng.random() < 0.1:
        blocker["prevent"] = rng.randint(1, 2)
    return blocker
