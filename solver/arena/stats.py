"""Statistics for publishable arena results: confidence intervals, and the facts of a run.

Intervals (95 % by default) on every leaderboard figure that is an estimate:

- **means and medians** (mean regret, median decision time): a percentile bootstrap over the decisions,
  ``RESAMPLES`` resamples, seeded (the same results give the same interval on any machine). ``scipy.stats.bootstrap``
  is used when scipy is installed (``pip install 'trample[stats]'``; BCa up to ``BCA_LIMIT`` values, percentile
  beyond, and percentile when BCa is undefined), else a numpy percentile bootstrap. A run stopped by an interrupt
  or its time limit (:func:`trample.limits.interrupted`) before scipy.stats was imported takes the numpy bootstrap
  too: importing scipy.stats costs 0.3 s of CPU, over a second of wall time on a loaded machine, and an import
  cannot be cut short, so the partial results of ``arena --time-limit 1`` came a second or more after the limit;
- **rates** (illegal, optimal, lethal found): the Wilson score interval. A bootstrap of a proportion collapses to a
  point when every decision agrees (0 % illegal over 100 boards would read "[0 %, 0 %]"), which claims certainty the
  data do not give; Wilson's interval for 0 of 100 is [0 %, 3.7 %].

A maximum (max regret) gets no interval: the sample maximum is a bound, not an estimate.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import math
from types import ModuleType

from ..limits import imported, interrupted

RESAMPLES = 2000
CONFIDENCE = 0.95
BCA_LIMIT = 1000  # more values than this: percentile intervals


def seed_of(*parts) -> int:
    digest = hashlib.sha256("/".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:4], "big")


def wilson(successes: int, n: int, confidence: float = CONFIDENCE) -> list[float] | None:
    """The Wilson score interval of a proportion ``successes / n`` (None when ``n == 0``)."""
    if n == 0:
        return None
    z = _z(confidence)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return [round(max(0.0, centre - half), 6), round(min(1.0, centre + half), 6)]


def _z(confidence: float) -> float:
    # the standard normal quantile, by bisection on erf (no scipy needed)
    target = 0.5 + confidence / 2
    lo, hi = 0.0, 10.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def bootstrap(values, statistic: str = "mean", seed: int = 0, confidence: float = CONFIDENCE,
              resamples: int = RESAMPLES) -> list[float] | None:  # fmt: skip
    """A bootstrap confidence interval ``[low, high]`` of the mean or median of ``values`` (None if empty)."""
    import numpy as np

    data = np.asarray(list(values), dtype=float)
    if data.size == 0:
        return None
    func = np.mean if statistic == "mean" else np.median
    if data.size == 1 or np.all(data == data[0]):
        v = float(data[0])  # every value the same: its mean and median
        return [round(v, 6), round(v, 6)]
    sstats = _scipy_stats()
    if sstats is not None:
        import warnings

        rng = np.random.default_rng(seed)
        how = "BCa" if data.size <= BCA_LIMIT else "percentile"  # BCa's jackknife is quadratic in memory
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = sstats.bootstrap(
                (data,), func, n_resamples=resamples, confidence_level=confidence, method=how, random_state=rng,
                vectorized=True, axis=-1,
            )  # fmt: skip
            lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
            if not (math.isfinite(lo) and math.isfinite(hi)):
                res = sstats.bootstrap(
                    (data,), func, n_resamples=resamples, confidence_level=confidence, method="percentile",
                    random_state=np.random.default_rng(seed), vectorized=True, axis=-1,
                )  # fmt: skip
                lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
        return [round(lo, 6), round(hi, 6)]
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, data.size, size=(resamples, data.size))
    stats = data[idx].mean(axis=1) if statistic == "mean" else _row_medians(data[idx])
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(stats, [alpha, 1 - alpha])
    return [round(float(lo), 6), round(float(hi), 6)]


def _row_medians(rows):
    """``np.median(rows, axis=1)`` (the same floats: the middle value, or the mean of the two middle values) without
    np.median, whose first call imports numpy.ma (0.1-0.2 s on a loaded machine: a run stopped by Ctrl-C wrote its
    results that much later)."""
    import numpy as np

    n = rows.shape[1]
    part = np.partition(rows, [(n - 1) // 2, n // 2], axis=1)
    return (part[:, (n - 1) // 2] + part[:, n // 2]) / 2


def _scipy_stats() -> ModuleType | None:
    """scipy.stats, or None: scipy is not installed, or the run was stopped (an interrupt, a time limit) before
    scipy.stats was imported -- its results are then written at once, not after the import."""
    if _stopped_before_scipy():
        return None
    try:
        from scipy import stats
    except ImportError:
        return None
    return stats


def _stopped_before_scipy() -> bool:
    """The run was stopped and scipy.stats is not (wholly) imported: the intervals are the numpy bootstrap's."""
    return interrupted() and not imported("scipy.stats")


def method() -> str:
    """How the intervals of this run are computed (recorded in the results): the method :func:`bootstrap` takes."""
    try:
        if _stopped_before_scipy():
            raise ImportError("scipy.stats is not imported in a stopped run")
        import scipy

        boot = f"scipy {scipy.__version__} bootstrap (BCa; percentile past {BCA_LIMIT} values), {RESAMPLES} resamples"
    except ImportError:
        boot = f"numpy percentile bootstrap, {RESAMPLES} resamples"
    return f"{int(CONFIDENCE * 100)}% intervals: means and medians by {boot}; rates by Wilson score"


# ---------------------------------------------------------------------------------------------
# The facts of a run, and the suite
# ---------------------------------------------------------------------------------------------


def suite_hash(items) -> str:
    """sha256 of the suite's boards (canonical JSON, in order): two runs on the same boards have the same hash."""
    h = SuiteHash()
    for item in items:
        h.add(item)
    return h.value()


class SuiteHash:
    """:func:`suite_hash` taken a board at a time, as a run reaches its boards; ``boards``: how many it covers."""

    def __init__(self) -> None:
        self._h = hashlib.sha256()
        self.boards = 0

    def add(self, item: dict) -> None:
        self._h.update(json.dumps(item, sort_keys=True, separators=(",", ":")).encode())
        self._h.update(b"\n")
        self.boards += 1

    def value(self) -> str:
        return "sha256:" + self._h.hexdigest()


def run_facts(seed=None, argv=None) -> dict:
    """Versions (trample, ortools, Python, numpy), the git commit when trample runs from a checkout, the machine,
    the seed and the command line."""
    import sys

    return {
        **setup_facts(),
        "seed": seed,
        "command": list(sys.argv if argv is None else argv),
        "statistics": method(),
    }


def setup_facts() -> dict:
    """The facts of :func:`run_facts` that are the same for every run of this process (versions, commit,
    machine), read once: a run calls this before it plays, so that a run stopped at its time limit does not read
    package metadata after the limit (tens of milliseconds on a loaded machine). A copy each time."""
    return copy.deepcopy(_setup_facts())


@functools.cache
def _setup_facts() -> dict:
    import os
    import platform
    from importlib import metadata

    def version(dist):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return None

    return {
        "trample": version("trample"),
        "ortools": version("ortools"),
        "python": platform.python_version(),
        "numpy": version("numpy"),
        "git_commit": _git_commit(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
        "machine": {
            "platform": platform.platform(),
            "processor": platform.machine(),
            "cpus": os.cpu_count(),
            "node": platform.node(),
        },
    }


def _git_commit(folder: str) -> str | None:
    """The commit of the checkout trample runs from (None outside a git checkout; git not needed)."""
    import os

    d = folder
    for _ in range(4):
        git = os.path.join(d, ".git")
        if os.path.exists(git):
            try:
                if os.path.isfile(git):  # a worktree: "gitdir: PATH"
                    with open(git, encoding="utf-8") as fh:
                        git = fh.read().split(":", 1)[1].strip()
                    if not os.path.isabs(git):
                        git = os.path.join(d, git)
                with open(os.path.join(git, "HEAD"), encoding="utf-8") as fh:
                    head = fh.read().strip()
                if not head.startswith("ref:"):
                    return head
                ref = head.split(" ", 1)[1]
                for base in (git, _common_dir(git)):
                    path = os.path.join(base, ref)
                    if os.path.exists(path):
                        with open(path, encoding="utf-8") as fh:
                            return fh.read().strip()
                    packed = os.path.join(base, "packed-refs")
                    if os.path.exists(packed):
                        with open(packed, encoding="utf-8") as fh:
                            for line in fh:
                                if line.strip().endswith(" " + ref):
                                    return line.split(" ", 1)[0]
            except OSError:
                return None
            return None
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return None


def _common_dir(git: str) -> str:
    import os

    path = os.path.join(git, "commondir")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            common = fh.read().strip()
        return common if os.path.isabs(common) else os.path.normpath(os.path.join(git, common))
    return git
