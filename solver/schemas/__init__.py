"""JSON Schemas (draft 2020-12) of every document trample reads or writes, shipped as data files.

>>> from trample import schemas
>>> schemas.names()[:3]
['arena-decision', 'arena-results', 'arena-suite-line']
>>> schemas.load("scenario")["$schema"]
'https://json-schema.org/draft/2020-12/schema'

The schemas of the input formats are built (``_build.py``) from :mod:`trample.models.fields`, the tables the
loaders read, so the two agree field by field. The loaders in :mod:`trample.models` stay the authority: they name
the JSON path of a problem in one line, and they check what a schema cannot say (ids that must name other objects,
a key written twice, ...). docs/format.md lists those differences; ``tests/models/test_schemas.py`` and
``tests/models/test_fields.py`` hold the schemas and the loaders together.
"""

from __future__ import annotations

import json
from importlib import resources

__all__ = ["names", "load", "text"]


def names() -> list[str]:
    """The names of the shipped schemas, sorted (``scenario``, ``assignment``, ...)."""
    files = resources.files(__name__)
    return sorted(f.name[: -len(".json")] for f in files.iterdir() if f.name.endswith(".json"))


def text(name: str) -> str:
    """The schema ``name`` as JSON text, exactly as shipped. :class:`KeyError` for an unknown name."""
    if name not in names():
        raise KeyError(f"unknown schema {name!r} (expected one of {', '.join(names())})")
    return resources.files(__name__).joinpath(f"{name}.json").read_text(encoding="utf-8")


def load(name: str) -> dict:
    """The schema ``name`` as a dict (a fresh copy each call)."""
    return json.loads(text(name))
