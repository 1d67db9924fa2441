"""Hypothesis profiles. ``ci`` (deterministic) is the default; pick another with HYPOTHESIS_PROFILE=dev."""

import os
import sys

from hypothesis import HealthCheck, settings

HERE = os.path.dirname(os.path.abspath(__file__))
# The tests are laid out like the package (tests/engines/, tests/whole/, ...); the independent oracles are in
# tests/oracles/, the shared helpers (boards, strategies, waiting) here. Every folder is importable by its module
# names (`import brute`, `import strategies`, `from test_outcomes import effect_boards`).
for _folder in sorted(os.listdir(HERE), reverse=True):
    if os.path.isdir(os.path.join(HERE, _folder)) and not _folder.startswith((".", "_")) and _folder != "data":
        sys.path.insert(0, os.path.join(HERE, _folder))
sys.path.insert(0, HERE)

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    max_examples=200,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile("thorough", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
