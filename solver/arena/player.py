"""The in-process player interface (players.py has the baselines and make_player; external.py the programs)."""

from __future__ import annotations

from collections.abc import Mapping

from ..models import Scenario


class Player:
    """Base class of in-process players. Subclasses set ``name`` and implement :meth:`decide`."""

    name = "player"

    def decide(self, scenario: Scenario, objective: str, seed: int) -> Mapping[str, Mapping[str, int]]:
        raise NotImplementedError

    def close(self) -> None:
        """Release resources (processes, files). Called when a chunk of work is done."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
