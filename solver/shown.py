"""Solver results a notebook shows as a picture: :func:`shown_result` gives a result ``_repr_svg_`` (its board and
line, drawn by :mod:`trample.render` when it is shown, not when it is made: a solve does not import the renderer)."""

from __future__ import annotations

from typing import TypeVar

_R = TypeVar("_R")


def shown_result(result: _R, combat: object) -> _R:
    """``result`` (a :class:`trample.optimize.SolveResult`) with ``_repr_svg_``: its board and line."""
    cls = type(result)
    shown = _SHOWN.get(cls)
    if shown is None:
        body = {
            "_repr_svg_": _result_svg,
            "__module__": cls.__module__,
            "__qualname__": cls.__qualname__,
            "__reduce__": lambda self: (_plain_result, (cls, _fields(self))),  # pickles as the plain class
            "__eq__": lambda self, other: _fields(self) == _fields(other) if isinstance(other, cls) else NotImplemented,
            "__hash__": None,
        }
        shown = _SHOWN[cls] = type(cls.__name__, (cls,), body)
    result.__class__ = shown
    result._combat = combat  # type: ignore[attr-defined]
    return result


_SHOWN: dict[type, type] = {}


def _fields(result) -> dict:
    return {k: v for k, v in vars(result).items() if k != "_combat"}


def _plain_result(cls, fields: dict):
    obj = cls.__new__(cls)
    obj.__dict__.update(fields)
    return obj


def _result_svg(self) -> str:
    from .render import render  # the renderer, when a picture is asked for

    title = f"{self.status}: " + ", ".join(f"{k} {v}" for k, v in self.objectives.items())
    return render(self._combat, self.assignment, title)


__all__ = ["shown_result"]
