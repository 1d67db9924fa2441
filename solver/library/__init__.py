"""Library transforms (mill 701.17, discover 701.57), the cards that use them, and exact distributions.

Pure functions ``(state, parameters, seed) -> (new state, event)``: the input state is never mutated (it is
immutable), every card is conserved, and the same seed gives the same result byte for byte. Nothing here imports
ortools; :func:`gnome_outcomes` imports the combat engine only when it is called.
"""

from .exact import DiscoverDistribution, MillDistribution, discover_distribution, mill_distribution
from .gnome import GnomeReport, gnome_outcomes
from .transforms import (
    DiscoverEvent,
    MillEvent,
    can_pay_mill_cost,
    discover,
    mill,
    seeded_permutation,
    seek_thrills,
    shuffle_library,
)

__all__ = [
    "DiscoverDistribution",
    "DiscoverEvent",
    "GnomeReport",
    "MillDistribution",
    "MillEvent",
    "can_pay_mill_cost",
    "discover",
    "discover_distribution",
    "gnome_outcomes",
    "mill",
    "mill_distribution",
    "seek_thrills",
    "seeded_permutation",
    "shuffle_library",
]
