"""Who may attack what and who may block whom, rule by rule (508.1, 509.1, 702): written once, read by the
declaration space (counting, listing, the 509.1c maximum), the checker and the solver.

A *refusal* is ``(rule, reason)``; every function that refuses lists every rule broken, in a fixed order, so the
checker can cite them all and the space can take the first.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models import Keyword
from ..models.declare import ARTIFACT, COLORS, AttackersDoc, Attacks, BlockersDoc, Blocks
from ..models.mana import ZERO, Mana, payable

Refusal = tuple[str, str]


# ---------------------------------------------------------------------------------------------
# Blocks (509.1)
# ---------------------------------------------------------------------------------------------


def can_ever_block(doc: BlockersDoc, blocker: str) -> list[Refusal]:
    """What keeps a creature from blocking at all (509.1a untapped; 509.1b "can't block")."""
    out = []
    ab = doc.of(blocker)
    if ab.tapped:
        out.append(("509.1a", f"{blocker} is tapped: only untapped creatures can block"))
    if ab.has("cant_block"):
        out.append(("509.1b", f"{blocker} can't block"))
    return out


def block_refusals(doc: BlockersDoc, attacker: str, blocker: str) -> list[Refusal]:
    """Every rule that keeps ``blocker`` from blocking ``attacker`` (each rule alone, the other blockers aside)."""
    out = can_ever_block(doc, blocker)
    a, b = doc.board.attacker(attacker), doc.board.blocker(blocker)
    aa, bb = doc.of(attacker), doc.of(blocker)
    defending = doc.defending_player(attacker)
    if doc.controller(blocker) != defending:
        out.append(
            (
                "509.1a",
                f"{blocker} is controlled by {doc.controller(blocker)}, but {attacker} attacks {a.attacking} "
                f"({defending}'s to defend)",
            )
        )
    if aa.has("cant_be_blocked"):
        out.append(("509.1b", f"{attacker} can't be blocked"))
    if aa.has(Keyword.FLYING) and not (bb.has(Keyword.FLYING) or bb.has(Keyword.REACH)):
        out.append(("702.9b", f"{attacker} has flying: only creatures with flying or reach can block it"))
    if aa.has(Keyword.FEAR) and not (ARTIFACT in b.tags or "black" in b.tags):
        out.append(("702.36b", f"{attacker} has fear: only artifact and/or black creatures can block it"))
    if aa.has(Keyword.INTIMIDATE) and ARTIFACT not in b.tags and not (set(a.tags) & set(b.tags) & set(COLORS)):
        out.append(
            (
                "702.13b",
                f"{attacker} has intimidate: only artifact creatures and creatures sharing a color with it can "
                "block it",
            )
        )
    if aa.has(Keyword.SHADOW) and not bb.has(Keyword.SHADOW):
        out.append(("702.28b", f"{attacker} has shadow: only creatures with shadow can block it"))
    if bb.has(Keyword.SHADOW) and not aa.has(Keyword.SHADOW):
        out.append(("702.28b", f"{blocker} has shadow: it can block only creatures with shadow"))
    if aa.has(Keyword.HORSEMANSHIP) and not bb.has(Keyword.HORSEMANSHIP):
        out.append(("702.31b", f"{attacker} has horsemanship: only creatures with horsemanship can block it"))
    if aa.has(Keyword.SKULK) and b.power > a.power:
        out.append(("702.118b", f"{attacker} has skulk: {blocker}'s power {b.power} is greater than its {a.power}"))
    if a.receiving.protected_from(b):
        out.append(("702.16b", f"{attacker} has protection from a quality of {blocker}, which can't block it"))
    walked = [t for t in aa.landwalk if t in doc.lands.get(defending, ())]
    if walked:
        out.append(("702.14c", f"{attacker} has {walked[0]}walk and {defending} controls a {walked[0]}"))
    return out


def need_rule(doc: BlockersDoc, attacker: str) -> str:
    """The rule of "can't be blocked except by N or more creatures": menace's 702.111b, else 509.1b."""
    return "702.111b" if doc.of(attacker).has(Keyword.MENACE) else "509.1b"


@dataclass(frozen=True)
class Requirement:
    """One requirement of 509.1c (or 508.1d): obeyed by a declaration or not."""

    kind: str  # must_be_blocked | lure | blocks_each_combat | attacks_each_combat
    creature: str  # whose requirement: the attacker (must_be_blocked), else the creature that must act
    attacker: str | None = None  # lure: the attacker it must block

    def text(self) -> str:
        if self.kind == "must_be_blocked":
            return f"{self.creature} must be blocked if able"
        if self.kind == "lure":
            return f"{self.creature} must block {self.attacker} (all creatures able to block it do so)"
        if self.kind == "blocks_each_combat":
            return f"{self.creature} blocks each combat if able"
        return f"{self.creature} attacks each combat if able"

    def obeyed(self, declaration) -> bool:
        if self.kind == "must_be_blocked":
            return bool(declaration.of.get(self.creature))
        if self.kind == "lure":
            return self.creature in declaration.of.get(self.attacker, ())
        if self.kind == "blocks_each_combat":
            return any(self.creature in bs for bs in declaration.of.values())
        return self.creature in declaration.of


def block_requirements(doc: BlockersDoc) -> list[Requirement]:
    """509.1c: the requirements on the defending players' creatures, in document order. A lure requirement
    exists for each creature that could block the attacker on its own (509.1b restrictions aside from the
    number of blockers); one that no declaration can obey changes no maximum."""
    out = []
    for a in doc.board.attackers:
        if doc.of(a.id).has("must_be_blocked"):
            out.append(Requirement("must_be_blocked", a.id))
        if doc.of(a.id).has("lure"):
            out += [Requirement("lure", b.id, a.id) for b in doc.board.blockers if not block_refusals(doc, a.id, b.id)]
    for b in doc.board.blockers:
        if doc.of(b.id).has("blocks_each_combat") and not can_ever_block(doc, b.id):
            out.append(Requirement("blocks_each_combat", b.id))
    return out


def block_violations(doc: BlockersDoc, blocks: Blocks) -> list[Refusal]:
    """Every restriction a block declaration breaks (509.1a, 509.1b and the evasion rules); requirements are
    the space's (509.1c needs the maximum)."""
    out: list[Refusal] = []
    for attacker, bs in blocks.of.items():
        for blocker in bs:
            out += [
                (rule, f"{blocker} blocks {attacker}, but {why}")
                for rule, why in block_refusals(doc, attacker, blocker)
            ]
    for b in doc.board.blockers:
        limit = doc.of(b.id).block_limit
        n = len(blocks.blocking(b.id))
        if limit is not None and n > limit:
            can = "one creature" if limit == 1 else f"{limit} creatures"
            out.append(("509.1a", f"{b.id} blocks {n} creatures, but it can block {can}"))
    blocking = [b.id for b in doc.board.blockers if blocks.blocking(b.id)]
    for one in blocking:
        if doc.of(one).has("cant_block_alone") and len(blocking) == 1:
            out.append(("509.1b", f"{one} can't block alone, and no other creature blocks"))
    for a in doc.board.attackers:
        n, need = len(blocks.of.get(a.id, ())), doc.of(a.id).need_blockers
        if 0 < n < need:
            out.append(
                (need_rule(doc, a.id), f"{a.id} is blocked by {n}, but it can't be blocked except by {need} or more")
            )
    for player, total in block_costs(doc, blocks).items():
        have = doc.costs.available(player)
        if not payable(total, have):
            out.append(
                (
                    "509.1d",
                    f"the total cost to block is {total.cost_text()} for {player}, who has {have.pool_text()} (509.1f)",
                )
            )
    return out


def block_costs(doc: BlockersDoc, blocks: Blocks) -> dict[str, Mana]:
    """509.1d: each defending player's total cost to block, over their creatures that block (each once)."""
    out: dict[str, Mana] = {}
    for b in doc.board.blockers:
        cost = doc.block_cost(b.id)
        if cost and blocks.blocking(b.id):
            out[doc.controller(b.id)] = out.get(doc.controller(b.id), ZERO) + cost
    return out


# ---------------------------------------------------------------------------------------------
# Attacks (508.1)
# ---------------------------------------------------------------------------------------------


def can_ever_attack(doc: AttackersDoc, creature: str) -> list[Refusal]:
    out = []
    ab = doc.of(creature)
    if ab.tapped:
        out.append(("508.1a", f"{creature} is tapped: only untapped creatures can attack"))
    if ab.summoning_sick and not ab.has(Keyword.HASTE):
        out.append(("508.1a", f"{creature} has summoning sickness and no haste (302.6)"))
    if ab.has(Keyword.DEFENDER):
        out.append(("702.3b", f"{creature} has defender and can't attack"))
    if ab.has("cant_attack"):
        out.append(("508.1c", f"{creature} can't attack"))
    return out


def attack_refusals(doc: AttackersDoc, creature: str, target: str) -> list[Refusal]:
    out = can_ever_attack(doc, creature)
    if target in doc.own_battles:
        out.append(("508.1b", f"{target} is a battle {doc.active} protects: only its protector's opponents attack it"))
    return out


def attack_requirements(doc: AttackersDoc) -> list[Requirement]:
    """508.1d: "attacks each combat if able", for each creature that is able to attack."""
    return [
        Requirement("attacks_each_combat", a.id)
        for a in doc.board.attackers
        if doc.of(a.id).has("attacks_each_combat") and not can_ever_attack(doc, a.id)
    ]


def attack_violations(doc: AttackersDoc, attacks: Attacks) -> list[Refusal]:
    out: list[Refusal] = []
    for c, t in attacks.of.items():
        out += [(rule, f"{c} attacks {t}, but {why}") for rule, why in attack_refusals(doc, c, t)]
        if doc.of(c).has("cant_attack_alone") and len(attacks.of) == 1:
            out.append(("508.1c", f"{c} can't attack alone, and no other creature attacks"))
    for band in attacks.bands:
        out += band_refusals(doc, band)
        targets = sorted({attacks.of[c] for c in band})
        if len(targets) > 1:
            out.append(
                (
                    "702.22d",
                    f"the band {', '.join(band)} attacks {' and '.join(targets)}: all creatures in an attacking "
                    "band attack the same player, planeswalker or battle",
                )
            )
    total, have = attack_cost(doc, attacks), doc.costs.available(doc.active)
    if not payable(total, have):
        out.append(
            (
                "508.1h",
                f"the total cost to attack is {total.cost_text()}, and {doc.active} has {have.pool_text()} (508.1j)",
            )
        )
    return out


def attack_cost(doc: AttackersDoc, attacks: Attacks) -> Mana:
    """508.1h: the total cost to attack (each creature's own cost and the tax of what it attacks)."""
    return sum((doc.attack_cost(c, t) for c, t in attacks.of.items()), ZERO)


def may_band(doc: AttackersDoc | BlockersDoc, creature: str) -> bool:
    """Could this creature be in a band with another (702.22c): it has banding or "bands with other"?"""
    return doc.board.attacker(creature).has(Keyword.BANDING) or bool(doc.of(creature).bands_with_other)


def band_refusals(doc: AttackersDoc | BlockersDoc, band: tuple[str, ...]) -> list[Refusal]:
    """702.22c: a band is one or more creatures with banding and up to one without (even one with "bands with
    other"), or creatures of one quality of which one or more has "bands with other [that quality]"."""
    without = [c for c in band if not doc.board.attacker(c).has(Keyword.BANDING)]
    if len(without) <= 1:
        return []
    for quality in {q for c in band for q in doc.of(c).bands_with_other}:
        if all(quality in doc.board.attacker(c).tags for c in band):
            return []
    return [
        (
            "702.22c",
            f"the band {', '.join(band)} has {len(without)} creatures without banding ({', '.join(without)}), "
            'and no quality they all share that one of them "bands with other"',
        )
    ]


def requirements(doc) -> list[Requirement]:
    return block_requirements(doc) if isinstance(doc, BlockersDoc) else attack_requirements(doc)


def violations(doc, declaration) -> list[Refusal]:
    if isinstance(doc, BlockersDoc):
        return block_violations(doc, declaration)
    return attack_violations(doc, declaration)
