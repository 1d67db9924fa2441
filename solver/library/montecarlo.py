"""Monte Carlo estimates of the same distributions, vectorised with numpy (for tests and benchmarks only).

Each batch draws ``trials`` uniformly random orders at once (``Generator(PCG64(seed))``, argsort of uniform
keys) and reads every outcome off boolean masks, so a hundred thousand discovers take a fraction of a second.
"""

from __future__ import annotations

import numpy as np

from .exact import library_cards
from .transforms import qualifies


def _orders(rng: np.random.Generator, trials: int, size: int) -> np.ndarray:
    return np.argsort(rng.random((trials, size)), axis=1)


def simulate_discover(library, n: int, trials: int, seed: int = 0, batch: int = 20000) -> dict:
    """Empirical frequencies for discover ``n``: ``exiled`` (array indexed by count), ``discovered`` (per card
    index, 701.57c, literal lands included), ``literal_final_land``, ``none`` and ``mana_value`` (dict)."""
    cards = library_cards(library)
    size = len(cards)
    rng = np.random.Generator(np.random.PCG64(seed))
    qual = np.array([qualifies(c, n) for c in cards], dtype=bool)
    low = np.array([c.mana_value <= n for c in cards], dtype=bool)
    mvs = np.array([c.mana_value for c in cards], dtype=np.int64)
    exiled = np.zeros(size + 1, dtype=np.int64)
    disc = np.zeros(size, dtype=np.int64)
    literal = 0
    done = 0
    while done < trials:
        t = min(batch, trials - done)
        done += t
        if size == 0:
            exiled[0] += t
            continue
        order = _orders(rng, t, size)
        q = qual[order]
        anyq = q.any(axis=1)
        first = q.argmax(axis=1)
        exiled += np.bincount(np.where(anyq, first + 1, size), minlength=size + 1)
        rows = np.arange(t)
        final = np.where(anyq, order[rows, first], order[:, -1])
        is_disc = anyq | low[final]
        disc += np.bincount(final[is_disc], minlength=size)
        literal += int((~anyq & low[final]).sum())
    freq = disc / trials
    mv: dict[int, float] = {}
    for i, f in enumerate(freq):
        if f:
            mv[int(mvs[i])] = mv.get(int(mvs[i]), 0.0) + float(f)
    return {
        "exiled": exiled / trials,
        "discovered": freq,
        "literal_final_land": literal / trials,
        "none": 1.0 - float(freq.sum()),
        "mana_value": mv,
    }


def simulate_mill(library, n: int, trials: int, seed: int = 0, batch: int = 20000) -> dict:
    """Empirical frequencies for mill ``n``: ``adventurers`` and ``mana_value_total`` (dicts value -> freq)."""
    cards = library_cards(library)
    size = len(cards)
    m = min(n, size)
    rng = np.random.Generator(np.random.PCG64(seed))
    adv = np.array([c.has_adventure for c in cards], dtype=np.int64)
    mvs = np.array([c.mana_value for c in cards], dtype=np.int64)
    counts: dict[int, int] = {}
    totals: dict[int, int] = {}
    done = 0
    while done < trials:
        t = min(batch, trials - done)
        done += t
        if m == 0:
            counts[0] = counts.get(0, 0) + t
            totals[0] = totals.get(0, 0) + t
            continue
        top = _orders(rng, t, size)[:, :m]
        for values, acc in ((adv[top].sum(axis=1), counts), (mvs[top].sum(axis=1), totals)):
            uniq, cnt = np.unique(values, return_counts=True)
            for u, c in zip(uniq.tolist(), cnt.tolist()):
                acc[u] = acc.get(u, 0) + c
    return {
        "adventurers": {k: v / trials for k, v in sorted(counts.items())},
        "mana_value_total": {k: v / trials for k, v in sorted(totals.items())},
    }
