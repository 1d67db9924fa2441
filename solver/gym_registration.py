"""The Gymnasium id ``trample/DamageAssignment-v0``, registered without importing gymnasium (an optional extra).

``import trample`` calls :func:`install`: when gymnasium is already imported the id is registered at once;
otherwise a finder on ``sys.meta_path`` waits for gymnasium's import and registers the id right after it (the
entry point is a string, so nothing of :mod:`trample.arena.gym_env` is imported until ``gym.make`` is called).
Without gymnasium installed nothing happens. (Gymnasium 1.x no longer reads a ``gymnasium.envs`` entry point.)
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

# The finder and the loader are plain classes with the methods the import system calls (find_spec; create_module
# and exec_module), not importlib.abc's: importing importlib.abc imports importlib.resources, which `import trample`
# (every command's start) does not otherwise need.

ENV_ID = "trample/DamageAssignment-v0"
ENTRY_POINT = "trample.arena.gym_env:DamageAssignmentEnv"


def register() -> None:
    """Register :data:`ENV_ID` with an imported gymnasium (once)."""
    gym = sys.modules.get("gymnasium")
    if gym is None or not hasattr(gym, "registry"):
        return
    if ENV_ID not in gym.registry:
        gym.register(id=ENV_ID, entry_point=ENTRY_POINT)


class _AfterGymnasium:
    """Finds nothing itself: on gymnasium's import it wraps the real loader so that :func:`register` runs after it."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "gymnasium":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                loader = spec.loader
                if loader is not None and hasattr(loader, "exec_module"):
                    spec.loader = cast("Loader", _RegisteringLoader(loader))
                return spec
        return None


class _RegisteringLoader:
    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        _uninstall()
        register()

    def __getattr__(self, name):  # get_resource_reader, is_package, ...: the real loader's
        return getattr(self.loader, name)


_FINDER = _AfterGymnasium()


def _uninstall() -> None:
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)


def install() -> None:
    """Register now if gymnasium is imported, else right after it is (``import trample`` calls this)."""
    if "gymnasium" in sys.modules:
        register()
    elif _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
