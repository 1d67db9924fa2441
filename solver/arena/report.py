"""Showing results: the leaderboard as a ``rich`` table, the results as JSON, a PNG report (matplotlib, Agg)."""

from __future__ import annotations

import io
import json
import statistics
from collections import defaultdict


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _num(x, digits=2) -> str:
    if x is None:
        return "-"
    if isinstance(x, int) or float(x).is_integer():
        return str(int(x))
    return f"{x:.{digits}f}"


def leaderboard_table(results: dict, title: str | None = None):
    from rich.table import Table

    cfg = results.get("config", {})
    objectives = sorted({b["objective"] for b in results.get("boards", [])}) or [cfg.get("objective", "?")]
    what = f"objective {objectives[0]}" if len(objectives) == 1 else "each board's own objective"
    if cfg.get("recorded"):
        title = title or f"trample score: {cfg.get('boards', '?')} recorded decisions, {what}"
    title = title or f"trample arena: {cfg.get('boards', '?')} boards, {what}"
    table = Table(title=title, title_justify="left")
    for col, just in (
        ("#", "right"),
        ("player", "left"),
        ("illegal", "right"),
        ("rules broken", "left"),
        ("mean regret", "right"),
        ("max regret", "right"),
        ("optimal", "right"),
        ("lethal found", "right"),
        ("ms/decision", "right"),
    ):
        table.add_column(col, justify=just, no_wrap=col != "rules broken")
    for row in results["leaderboard"]:
        rules = ", ".join(f"{r} ×{n}" for r, n in list(row["illegal_rules"].items())[:3]) or "-"
        lethal = f"{row['lethal_found']}/{row['lethal_exists']}" if row["lethal_exists"] else "-"
        table.add_row(
            str(row["rank"]),
            row["player"],
            _pct(row["illegal_rate"]),
            rules,
            _num(row["regret_mean"], 3),
            _num(row["regret_max"]),
            _pct(row["optimal_share"]),
            lethal,
            _num(row["time_ms_median"], 2),
        )
    return table


def print_leaderboard(results: dict, file=None, width: int | None = None) -> None:
    from rich.console import Console

    console = Console(file=file, width=width, highlight=False)
    if width is None and not console.is_terminal:
        console = Console(file=file, width=120, highlight=False)
    console.print(leaderboard_table(results))


def leaderboard_text(results: dict, width: int = 120) -> str:
    """The table as plain text (for files and tests)."""
    from rich.console import Console

    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None, highlight=False).print(leaderboard_table(results))
    return buf.getvalue()


def write_json(results: dict, path: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(results, fh, indent=1)
        fh.write("\n")


def _mpl_at_least(matplotlib, major: int, minor: int) -> bool:
    parts = matplotlib.__version__.split(".")
    try:
        return (int(parts[0]), int(parts[1])) >= (major, minor)
    except (ValueError, IndexError):
        return True


def write_png(results: dict, path: str) -> None:
    """Three panels: regret distribution per player, mean regret against board size, illegal and optimal shares."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    players = [row["player"] for row in results["leaderboard"]]
    regrets = {p: [] for p in players}
    by_size: dict = {p: defaultdict(list) for p in players}
    for board in results["boards"]:
        size = board["size"]["creatures"]
        for d in board["decisions"]:
            if d["player"] in regrets and d["legal"]:
                regrets[d["player"]].append(float(d["primary_regret"]))
                by_size[d["player"]][size].append(float(d["primary_regret"]))

    fig, axes = plt.subplots(1, 3, figsize=(16, max(4.0, 0.5 * len(players) + 2.5)))
    ax = axes[0]
    data = [regrets[p] or [0.0] for p in players]
    horizontal = {"orientation": "horizontal"} if _mpl_at_least(matplotlib, 3, 10) else {"vert": False}
    ax.boxplot(data, showmeans=True, widths=0.6, **horizontal)
    ax.set_yticks(range(1, len(players) + 1), players)
    ax.invert_yaxis()
    ax.set_xlabel(f"regret ({results['config'].get('objective', '').split(',')[0]}), legal decisions")
    ax.set_title("regret distribution per player")

    ax = axes[1]
    for p in players:
        sizes = sorted(by_size[p])
        if sizes:
            ax.plot(sizes, [statistics.fmean(by_size[p][s]) for s in sizes], marker="o", label=p)
    ax.set_xlabel("board size (attackers + blockers)")
    ax.set_ylabel("mean regret")
    ax.set_title("regret against board size")
    ax.legend(fontsize="small")

    ax = axes[2]
    rows = results["leaderboard"]
    ys = range(len(rows))
    ax.barh([y - 0.2 for y in ys], [r["illegal_rate"] or 0 for r in rows], height=0.4, label="illegal", color="tab:red")
    ax.barh(
        [y + 0.2 for y in ys], [r["optimal_share"] or 0 for r in rows], height=0.4, label="optimal", color="tab:green"
    )
    ax.set_yticks(list(ys), [r["player"] for r in rows])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of decisions")
    ax.set_title("illegal and optimal decisions")
    ax.legend(fontsize="small")

    fig.suptitle(f"trample arena: {results['config'].get('boards')} boards")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
