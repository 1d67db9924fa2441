"""``enum.StrEnum`` (Python 3.11), with a small backport for Python 3.10 (pyproject: requires-python >= 3.10).

A member is a ``str``: it equals, hashes and prints as its value, and ``json.dumps`` writes its value, so the words
of the vocabulary read and write JSON byte for byte as the bare strings did.
"""

from __future__ import annotations

import sys
from enum import Enum

if sys.version_info >= (3, 11):
    from enum import StrEnum
else:  # pragma: no cover - Python 3.10

    class StrEnum(str, Enum):
        """Python 3.11's ``enum.StrEnum`` for 3.10: ``str()`` and ``format()`` give the value, not ``Cls.NAME``."""

        def __str__(self) -> str:
            return str.__str__(self)

        def __format__(self, format_spec: str) -> str:
            return str.__format__(self, format_spec)


__all__ = ["StrEnum"]
