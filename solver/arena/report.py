"""Showing results: the leaderboard as a table (``rich`` when it is installed, plain text otherwise), the results as
JSON, a PNG report (matplotlib, Agg)."""

from __future__ import annotations

import io
import json


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _num(x, digits=2) -> str:
    if x is None:
        return "-"
    if isinstance(x, int) or float(x).is_integer():
        return str(int(x))
    return f"{x:.{digits}f}"


def _ci(ci, pct: bool) -> str:
    if not ci:
        return ""
    lo, hi = ci
    if pct:
        return f"{100 * lo:.0f}–{100 * hi:.0f}%"
    return f"{_num(lo, 2 if abs(lo) < 10 else 1)}–{_num(hi, 2 if abs(hi) < 10 else 1)}"


def run_title(results: dict) -> str:
    """What was run: boards, suite, seed, objective (the table's and the PNG's title)."""
    cfg = results.get("config", {})
    objectives = sorted({b["objective"] for b in results.get("boards", [])}) or [cfg.get("objective", "?")]
    what = f"objective {objectives[0]}" if len(objectives) == 1 else "each board's own objective"
    suite = cfg.get("suite") or {}
    names = []
    if suite.get("level"):
        names.append(f"level {suite['level']}")
    names += ["standard input" if f == "-" else str(f).rsplit("/", 1)[-1] for f in suite.get("files") or []]
    where = f" ({', '.join(names)})" if names else ""
    seed = f", seed {cfg['seed']}" if cfg.get("seed") is not None else ""
    boards = "whole combats" if cfg.get("game") == "combat" else "boards"
    if cfg.get("recorded"):
        return f"trample score: {cfg.get('boards', '?')} recorded decisions{where}, {what}"
    return f"trample arena: {cfg.get('boards', '?')} {boards}{where}{seed}, {what}"


_COLUMNS = (
    ("#", "right"),
    ("player", "left"),
    ("illegal", "right"),
    ("mean regret", "right"),
    ("max", "right"),
    ("optimal", "right"),
    ("lethal", "right"),
    ("ms", "right"),
)
_CAPTION = "under each figure: its 95% confidence interval (bootstrap; rates: Wilson)"


def _cells(row: dict) -> list[tuple[str, str | None]]:
    """A leaderboard row's cells: (figure, its confidence interval) per column of :data:`_COLUMNS`; None for a
    figure without one."""
    ci = row.get("ci") or {}
    lethal = f"{row['lethal_found']}/{row['lethal_exists']}" if row["lethal_exists"] else "-"
    return [
        (str(row["rank"]), None),
        (_visible(row["player"]) + (" (benched)" if row.get("benched") else ""), None),
        (_pct(row["illegal_rate"]), _ci(ci.get("illegal_rate"), True)),
        (_num(row["regret_mean"], 3), _ci(ci.get("regret_mean"), False)),
        (_num(row["regret_max"]), None),
        (_pct(row["optimal_share"]), _ci(ci.get("optimal_share"), True)),
        (lethal, _ci(ci.get("lethal_rate"), True) if row["lethal_exists"] else None),
        (_num(row["time_ms_median"], 2), _ci(row.get("time_ms_median_ci"), False)),
    ]


def plain_table(results: dict, title: str | None = None, rows=None) -> list[str]:
    """The leaderboard as lines of plain text (the same cells as :func:`leaderboard_table`; no rich needed)."""
    cells = [_cells(row) for row in (rows if rows is not None else results["leaderboard"])]
    widths = [
        max([len(name)] + [max(len(a), len(b or "")) for row in cells for a, b in [row[k]]])
        for k, (name, _) in enumerate(_COLUMNS)
    ]

    def line(texts: list[str]) -> str:
        return "  ".join(
            t.ljust(w) if just == "left" else t.rjust(w) for t, w, (_, just) in zip(texts, widths, _COLUMNS)
        ).rstrip()

    out = [_visible(title or run_title(results)), line([name for name, _ in _COLUMNS])]
    out.append("-" * len(out[-1]))
    for row in cells:
        out.append(line([a for a, _ in row]))
        if any(b for _, b in row):
            out.append(line([b or "" for _, b in row]))
    if rows is None:
        out.append(_CAPTION)
    return out


def leaderboard_table(results: dict, title: str | None = None, rows=None):
    """The leaderboard: each figure with its 95% confidence interval under it (fits 80 columns)."""
    from rich import box
    from rich.markup import escape  # names and objectives are data, never markup ("[/]" crashed the table)
    from rich.table import Table

    table = Table(
        title=escape(_visible(title or run_title(results))), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False
    )
    for col, just in _COLUMNS:
        table.add_column(col, justify="left" if just == "left" else "right", no_wrap=col != "player", overflow="fold")
    for row in rows if rows is not None else results["leaderboard"]:
        table.add_row(*(escape(a) + ("" if b is None else "\n" + b) for a, b in _cells(row)))
    if rows is None:
        table.caption = _CAPTION
        table.caption_justify = "left"
    return table


def rules_broken(results: dict) -> list[str]:
    """One line per player that broke rules: the rules and how often."""
    out = []
    for row in results["leaderboard"]:
        if row["illegal_rules"]:
            rules = ", ".join(f"{_visible(r)} ×{n}" for r, n in row["illegal_rules"].items())
            out.append(f"{_visible(row['player'])}: {rules}")
    return out


def _renderables(results: dict):
    from rich.text import Text

    parts = [leaderboard_table(results)]
    broken = rules_broken(results)
    if broken:
        parts.append(Text("rules broken", style="bold"))
        parts += [Text("  " + line) for line in broken]
    levels = results.get("by_level") or {}
    if len(levels) > 1:
        for level, rows in levels.items():
            n = rows[0]["decisions"] if rows else 0
            parts.append(Text(""))
            parts.append(leaderboard_table(results, title=f"level {level}: {n} boards", rows=rows))
    return parts


def _plain_lines(results: dict) -> list[str]:
    """The leaderboard and what else the rich view shows, as plain lines."""
    out = plain_table(results)
    broken = rules_broken(results)
    if broken:
        out += ["", "rules broken"] + ["  " + line for line in broken]
    levels = results.get("by_level") or {}
    if len(levels) > 1:
        for level, rows in levels.items():
            n = rows[0]["decisions"] if rows else 0
            out += [""] + plain_table(results, title=f"level {level}: {n} boards", rows=rows)
    return out


def _has_rich() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("rich") is not None
    except (ImportError, ValueError):
        return False


def print_leaderboard(results: dict, file=None, width: int | None = None) -> None:
    """The leaderboard on ``file`` (standard output): a rich table, or plain text when rich is not installed."""
    if not _has_rich():
        import sys

        (file or sys.stdout).write("\n".join(_plain_lines(results)) + "\n")
        return
    from rich.console import Console

    console = Console(file=file, width=width, highlight=False)
    if width is None and not console.is_terminal:
        console = Console(file=file, width=100, highlight=False)
    for part in _renderables(results):
        console.print(part)


def leaderboard_text(results: dict, width: int = 120) -> str:
    """The leaderboard as plain text (for files and tests): rich's table without colour, or the plain table when
    rich is not installed."""
    if not _has_rich():
        return "\n".join(_plain_lines(results)) + "\n"
    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None, highlight=False)
    for part in _renderables(results):
        console.print(part)
    return buf.getvalue()


def write_json(results: dict, path: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json_text(results))
        fh.write("\n")


def json_text(value, depth: int = 0, open_levels: int = 2) -> str:
    """``value`` as JSON laid out like ``json.dumps(value, indent=1)`` for its first ``open_levels`` levels (the
    results' sections, then one board, one leaderboard row a line), each deeper value on one line. An indent
    makes ``json`` encode in pure Python, 0.25 s for the 540 boards of ``arena --time-limit 3``: a run stopped
    at its limit spent that writing them after the limit; one line a board takes the C encoder."""
    if depth >= open_levels or not isinstance(value, (dict, list)) or not value:
        return json.dumps(value)
    pad = "\n" + " " * (depth + 1)
    if isinstance(value, dict):
        parts = [f"{json.dumps(str(k))}: {json_text(v, depth + 1, open_levels)}" for k, v in value.items()]
        return "{" + pad + ("," + pad).join(parts) + "\n" + " " * depth + "}"
    parts = [json_text(v, depth + 1, open_levels) for v in value]
    return "[" + pad + ("," + pad).join(parts) + "\n" + " " * depth + "]"


def _visible(text) -> str:
    """A name as a terminal or a picture shows it literally: control characters (an ANSI escape sequence, a
    carriage return) as visible escapes (``\\x1b``)."""
    return "".join(
        c if c.isprintable() or c == " " else f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"
        for c in str(text)
    )


def _plain(text) -> str:
    """A name as matplotlib shows it literally: :func:`_visible`, and ``$`` escaped (no mathtext, which fails on
    text such as ``$\\foo{$``)."""
    return _visible(text).replace("$", r"\$")


def figure_data(results: dict) -> dict:
    """The numbers the PNG report draws (``write_png``), as JSON data: per player the sorted primary regrets of its
    legal decisions (the histogram and the ECDF), and the bars: the optimal share and the illegal rate by rule,
    with 95% Wilson intervals. ``python -m benchmarks.docs_figures --check`` compares these, not pixels."""
    from .stats import wilson

    rows = results["leaderboard"]
    regrets: dict = {row["player"]: [] for row in rows}
    for board in results["boards"]:
        for d in board["decisions"]:
            if d["player"] in regrets and d["legal"]:
                regrets[d["player"]].append(float(d["primary_regret"]))
    bars = []
    for row in rows:
        total = row["decisions"]
        ci = row.get("ci", {}).get("optimal_share") or wilson(row["optimal"], total) or [0, 0]
        bars.append({"label": f"{row['player']}: optimal", "rate": row["optimal_share"] or 0, "ci": list(ci)})
        for rule, count in row["illegal_rules"].items():
            bars.append(
                {
                    "label": f"{row['player']}: {rule} ({count}/{total})",
                    "rate": round(count / total, 6) if total else 0,
                    "ci": list(wilson(count, total) or [0, 0]),
                    "illegal": True,
                }
            )
    return {
        "title": run_title(results),
        "objective": results["config"].get("objective", "").split(",")[0],
        "regrets": {p: sorted(vs) for p, vs in regrets.items()},
        "bars": bars,
    }


LINE_STYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X")


def write_png(results: dict, path: str) -> None:
    """The arena report (the data of :func:`figure_data`): per player, a histogram of the primary regret with the
    count on each bar; the ECDFs of all players together (each its own line style, width and marker, so that lines
    that coincide stay visible); the optimal share and the illegal rate by rule, with 95% intervals; the title names
    the suite, seed and objective."""
    import matplotlib
    import matplotlib.pyplot as plt  # first: waits for an import of it still running in a thread (import_soon)

    matplotlib.use("Agg")
    data = figure_data(results)
    regrets = data["regrets"]
    n = max(1, len(regrets))
    fig = plt.figure(figsize=(15, max(6.0, 1.5 * n + 2.0)))
    grid = fig.add_gridspec(n, 2, width_ratios=[1.25, 1], hspace=0.55, wspace=0.45)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    _histograms(fig, grid, regrets, data["objective"], colours)
    right = grid[:, 1].subgridspec(2, 1, hspace=0.35)
    _ecdfs(fig.add_subplot(right[0]), regrets, data["objective"], colours)
    _share_bars(fig.add_subplot(right[1]), data["bars"])
    fig.suptitle(_plain(data["title"]), fontsize=13, x=0.01, ha="left")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)


def _regret_edges(regrets: dict):
    """The histograms' shared bin edges: one bin per integer regret when they are few, else up to 20 bins."""
    import numpy as np

    every = [v for vs in regrets.values() for v in vs] or [0.0]
    lo, hi = min(every), max(every)
    integral = all(float(v).is_integer() for v in every)
    if integral and hi - lo <= 30:
        return np.arange(lo - 0.5, hi + 1.5, 1.0)
    return np.histogram_bin_edges(every, bins=min(20, max(5, len(set(every)))))


def _histograms(fig, grid, regrets: dict, objective: str, colours) -> None:
    """The left column: per player, a histogram of the primary regret with the count on each bar."""
    from matplotlib.container import BarContainer

    players = list(regrets)
    n = max(1, len(players))
    edges = _regret_edges(regrets)
    first = None
    for k, p in enumerate(players):
        ax = fig.add_subplot(grid[k, 0], sharex=first)
        first = first or ax
        counts, _, bars = ax.hist(regrets[p], bins=edges.tolist(), color=colours[k % len(colours)], edgecolor="white")
        assert isinstance(bars, BarContainer)  # one data set: one container of bars
        for bar, c in zip(bars, counts):
            if c:
                ax.annotate(f"{int(c)}", (bar.get_x() + bar.get_width() / 2, c), ha="center", va="bottom",
                            fontsize=8, xytext=(0, 1), textcoords="offset points")  # fmt: skip
        ax.set_ylim(0, max(1, max(counts, default=0)) * 1.3)
        ax.set_ylabel("boards", fontsize=8)
        ax.set_title(f"{_plain(p)}: regret of {len(regrets[p])} legal decisions", fontsize=9, loc="left")
        ax.tick_params(labelsize=8)
        if k < n - 1:
            ax.tick_params(labelbottom=False)
    fig.axes[n - 1].set_xlabel(f"primary regret: {objective} of the optimum minus the player's (0: best {objective})")


def _ecdfs(ax, regrets: dict, objective: str, colours) -> None:
    """The regret ECDFs of all players on one axis (each its own line style, width and marker)."""
    import numpy as np

    for k, p in enumerate(regrets):
        vs = np.asarray(regrets[p])
        if len(vs):
            xs, ys = np.unique(vs, return_counts=True)
            cum = np.cumsum(ys) / len(vs)
            ax.step(np.concatenate([[xs[0]], xs]), np.concatenate([[0.0], cum]), where="post",
                    label=f"{_plain(p)} (n={len(vs)})", color=colours[k % len(colours)],
                    linestyle=LINE_STYLES[k % len(LINE_STYLES)], linewidth=max(1.0, 3.5 - 0.5 * k),
                    marker=MARKERS[k % len(MARKERS)], markevery=list(range(1, len(xs) + 1)), markersize=5,
                    alpha=0.9, zorder=2 + k)  # fmt: skip
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(f"primary regret ({objective})")
    ax.set_ylabel("share of legal decisions with regret ≤ x")
    ax.set_title("regret ECDF (markers at each step)", fontsize=10, loc="left")
    if any(len(vs) for vs in regrets.values()):  # no legal decision, no line: no legend (matplotlib warned)
        ax.legend(fontsize=8, loc="lower right")


def _share_bars(ax, bars_data: list) -> None:
    """The optimal share and the illegal rate by rule, with their 95% Wilson intervals."""
    import numpy as np

    labels = [_plain(b["label"]) for b in bars_data]
    rates = [b["rate"] for b in bars_data]
    errs = [[max(0, b["rate"] - b["ci"][0]) for b in bars_data], [max(0, b["ci"][1] - b["rate"]) for b in bars_data]]
    cols = ["tab:red" if b.get("illegal") else "tab:green" for b in bars_data]
    ys = np.arange(len(labels))
    ax.barh(ys, rates, xerr=errs, color=cols, capsize=3, height=0.6)
    ax.set_yticks(ys, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of decisions (bars: 95% Wilson interval)")
    broke = any(b.get("illegal") for b in bars_data)
    ax.set_title("optimal on every objective (green) and illegal by rule (red)" if broke
                 else "optimal share: optimal on every objective (no illegal decisions)",
                 fontsize=10, loc="left")  # fmt: skip
