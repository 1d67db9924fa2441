"""Exact library distributions against Monte Carlo: time and agreement (no asserts; prints a table).

For libraries of 40, 60 and 100 cards and several N, the exact discover N and mill N distributions
(fractions) are timed against a numpy Monte Carlo estimate of the same quantities, and the largest absolute
difference between the two is printed with the ratio of the times. Run: ``python -m benchmarks library``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trample.library import discover_distribution, mill_distribution  # noqa: E402
from trample.library.montecarlo import simulate_discover, simulate_mill  # noqa: E402
from trample.models.cards import Card, Face  # noqa: E402

TRIALS = 100_000


def deck(size: int) -> list[Card]:
    """About 40% lands, a spread of mana values, a few adventurers and split cards."""
    cards: list[Card] = []
    lands = size * 2 // 5
    cards += [Card("Forest", 0, ("Land",))] * lands
    rest = size - lands
    for i in range(rest):
        mv = 1 + i % 6
        if i % 5 == 0:
            cards.append(
                Card(
                    f"Adventurer {i}", mv, ("Creature",), adventure=Face(f"Adventure {i}", max(1, mv - 1), ("Sorcery",))
                )
            )
        elif i % 7 == 0:
            cards.append(Card(f"Split {i}", mv + 1, ("Instant",), halves=(Face("A", 1), Face("B", mv))))
        else:
            cards.append(Card(f"Spell {i}", mv, ("Creature",)))
    return cards


def timed(fn, *args, **kw):
    start = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - start


def main() -> None:
    print(f"Monte Carlo: {TRIALS} trials each. diff = largest |exact - estimate| over all outcomes.")
    print(
        f"{'what':<14}{'size':>5}{'N':>4}{'exact ms':>10}{'MC ms':>9}{'MC/exact':>10}{'diff':>9}"
        f"{'E exact':>10}{'E MC':>10}{'ratio':>8}"
    )
    for size in (40, 60, 100):
        cards = deck(size)
        for n in (1, 3, 5):
            dist, te = timed(discover_distribution, cards, n)
            mc, tm = timed(simulate_discover, cards, n, TRIALS, 1)
            diff = max(abs(float(p) - mc["exiled"][k]) for k, p in dist.exiled)
            diff = max(diff, max(abs(float(p) - mc["discovered"][i]) for i, p in enumerate(dist.discovered)))
            e_exact = float(dist.expected_mana_value)
            e_mc = sum(v * p for v, p in mc["mana_value"].items())
            print(
                f"{'discover':<14}{size:>5}{n:>4}{te * 1e3:>10.2f}{tm * 1e3:>9.1f}{tm / te:>10.0f}{diff:>9.4f}"
                f"{e_exact:>10.4f}{e_mc:>10.4f}{e_mc / e_exact if e_exact else float('nan'):>8.4f}"
            )
        for n in (7, 20):
            dist, te = timed(mill_distribution, cards, n)
            mc, tm = timed(simulate_mill, cards, n, TRIALS, 2)
            diff = max(abs(float(p) - mc["adventurers"].get(k, 0.0)) for k, p in dist.adventurers)
            diff = max(diff, max(abs(float(p) - mc["mana_value_total"].get(s, 0.0)) for s, p in dist.mana_value_total))
            e_exact = float(dist.expected_adventurers)
            e_mc = sum(k * p for k, p in mc["adventurers"].items())
            print(
                f"{'mill':<14}{size:>5}{n:>4}{te * 1e3:>10.2f}{tm * 1e3:>9.1f}{tm / te:>10.0f}{diff:>9.4f}"
                f"{e_exact:>10.4f}{e_mc:>10.4f}{e_mc / e_exact if e_exact else float('nan'):>8.4f}"
            )


if __name__ == "__main__":
    main()
