"""Declaring attackers and blockers (508, 509; docs/declare.md): the legal declarations of a document counted,
listed, checked and sampled, the 509.1c / 508.1d maximum of requirements, and the best declarations, each
turned into the damage-step scenario the rest of trample solves.

The package, bottom to top: :mod:`.legality` (the rules, once), :mod:`.space` (counting, listing, rank, unrank,
sampling, the CP-SAT reference), :mod:`.check` (one declaration judged), :mod:`.solve` (the best blocks and
attacks, with the whole-combat solver as the inner loop).
"""

from .check import check_declaration
from .legality import Requirement, block_refusals, requirements
from .space import DeclarationSpace

__all__ = ["DeclarationSpace", "Requirement", "block_refusals", "check_declaration", "requirements"]
