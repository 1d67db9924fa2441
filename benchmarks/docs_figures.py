"""The figures and tables of the docs, produced from runs, never pasted.

    python -m benchmarks.docs_figures           # run, then write the tables into the docs, the data and the PNGs
    python -m benchmarks.docs_figures --check   # run, then compare with what the docs hold (exit 1 on a drift)
    make docs-figures                           # the same as the first line

Each figure is a block of a doc between ``<!-- docs-figures:NAME -->`` and ``<!-- /docs-figures:NAME -->``, and a
data file under docs/data/ holding the numbers its PNG draws:

- ``arena-300``: the 300-board ``mixed`` run of docs/arena.md (the five baselines and the naive external player),
  its leaderboard without the timing column (decision times differ on every run), and docs/arena-report.png
  (``trample.arena.report.figure_data`` in docs/data/arena-report.json);
- ``train-ppo``: the regret curve of examples/train_ppo.py, from docs/data/train_ppo.json (training needs torch,
  so CI checks the table and the figure's data against the committed run, not a new one), and docs/train-ppo.png.

``--check`` regenerates the numbers (the arena is played again) and compares them with the docs' text and the data
files; the PNGs themselves are not compared (pixels differ between matplotlib versions).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DATA = DOCS / "data"


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _interval(ci, pct: bool) -> str:
    if not ci:
        return ""
    lo, hi = ci
    return f"{100 * lo:.0f}–{100 * hi:.0f}%" if pct else f"{lo:.2f}–{hi:.2f}"


def leaderboard_markdown(results: dict) -> str:
    """The leaderboard as a markdown table (the 95% interval beside each figure), then the rules broken."""
    lines = [
        "| # | player | illegal | mean regret | max | optimal | lethal |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in results["leaderboard"]:
        ci = row.get("ci") or {}
        regret = "-" if row["regret_mean"] is None else f"{row['regret_mean']:.3f}"
        lethal = f"{row['lethal_found']}/{row['lethal_exists']}" if row["lethal_exists"] else "-"
        lines.append(
            f"| {row['rank']} | {row['player']}"
            f" | {_pct(row['illegal_rate'])} ({_interval(ci.get('illegal_rate'), True)})"
            f" | {regret} ({_interval(ci.get('regret_mean'), False)}) | {row['regret_max']}"
            f" | {_pct(row['optimal_share'])} ({_interval(ci.get('optimal_share'), True)}) | {lethal} |"
        )
    broken = [
        f"`{row['player']}`: " + ", ".join(f"{rule} ×{n}" for rule, n in row["illegal_rules"].items())
        for row in results["leaderboard"]
        if row["illegal_rules"]
    ]
    text = "\n".join(lines) + "\n"
    if broken:
        text += "\nRules broken: " + "; ".join(broken) + ".\n"
    return text


# ---------------------------------------------------------------------------------------------
# arena-300
# ---------------------------------------------------------------------------------------------

ARENA_COMMAND = (
    "trample arena --level mixed --n 300 --seed 1 --workers 2 "
    '--external "naive=python3 benchmarks/arena/naive_player.py" --format table --out results.json --report report.png'
)


def arena_results(workers: int = 2) -> dict:
    from trample.arena import DEFAULT_PLAYERS, generate, run_arena

    naive = f"naive=cmd:{sys.executable} {ROOT / 'benchmarks' / 'arena' / 'naive_player.py'}"
    items = generate("mixed", 300, seed=1)
    return run_arena(
        items,
        players=[*DEFAULT_PLAYERS, naive],
        seed=1,
        workers=workers,
        suite={"files": [], "level": "mixed", "n": 300, "seed": 1},
    )


def arena_figure(results: dict) -> tuple[str, dict]:
    from trample.arena.report import figure_data

    text = (
        "Produced by `python -m benchmarks.docs_figures` (CI checks it with `--check`); the same run as\n"
        f"`{ARENA_COMMAND}`,\n"
        "without its timing column:\n\n" + leaderboard_markdown(results)
    )
    data = figure_data(results)
    return text, data


# ---------------------------------------------------------------------------------------------
# train-ppo
# ---------------------------------------------------------------------------------------------


def train_figure(run: dict) -> tuple[str, dict]:
    cfg = run["config"]
    base = run["baselines"]
    curve = run["curve"]
    best = min(curve, key=lambda p: p["regret_mean"])
    last = curve[-1]
    lines = [
        f"{cfg['algorithm']} on `{cfg['level']}` boards, objective `{cfg['objective']}`, {cfg['steps']} steps "
        f"({cfg['n_envs']} environments, {cfg['train_boards']} training boards), evaluated every "
        f"{cfg['eval_every']} steps on {cfg['eval_boards']} other boards (deterministic policy):",
        "",
        "| player | mean primary regret | optimal | mean reward |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name in ("random", "smallest", "greedy", "optimal"):
        b = base[name]
        lines.append(f"| {name} | {b['regret_mean']:.3f} | {_pct(b['optimal_share'])} | {b['reward_mean']:.3f} |")
    lines.append(
        f"| PPO, untrained | {curve[0]['regret_mean']:.3f} | {_pct(curve[0]['optimal_share'])} "
        f"| {curve[0]['reward_mean']:.3f} |"
    )
    lines.append(
        f"| PPO, best ({best['steps']} steps) | {best['regret_mean']:.3f} | {_pct(best['optimal_share'])} "
        f"| {best['reward_mean']:.3f} |"
    )
    lines.append(
        f"| PPO, last ({last['steps']} steps) | {last['regret_mean']:.3f} | {_pct(last['optimal_share'])} "
        f"| {last['reward_mean']:.3f} |"
    )
    data = {
        "steps": [p["steps"] for p in curve],
        "regret": [p["regret_mean"] for p in curve],
        "optimal": [p["optimal_share"] for p in curve],
        "baselines": {k: v["regret_mean"] for k, v in base.items()},
    }
    return "\n".join(lines) + "\n", data


def write_train_png(run: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _, data = train_figure(run)
    cfg = run["config"]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.plot(data["steps"], data["regret"], marker="o", color="tab:blue", label=f"{cfg['algorithm']} (deterministic)")
    styles = {"random": ("tab:red", "--"), "smallest": ("tab:orange", "-."), "greedy": ("tab:green", ":"),
              "optimal": ("black", "-")}  # fmt: skip
    for name, (colour, style) in styles.items():
        ax.axhline(data["baselines"][name], color=colour, linestyle=style, linewidth=1.5, label=name)
    ax.set_xlabel("training steps (decisions)")
    ax.set_ylabel(f"mean primary regret on {cfg['eval_boards']} held-out boards")
    ax.set_title(f"{cfg['algorithm']} on {cfg['level']} / {cfg['objective']}: regret (0 = optimal on the first)",
                 fontsize=10, loc="left")  # fmt: skip
    ax.set_ylim(bottom=-0.05)
    ax.legend(fontsize=8, loc="center right")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)


# ---------------------------------------------------------------------------------------------
# Blocks in the docs
# ---------------------------------------------------------------------------------------------


def _pattern(name: str) -> re.Pattern:
    return re.compile(rf"(<!-- docs-figures:{name} -->\n)(.*?)(<!-- /docs-figures:{name} -->)", re.S)


def block(doc: Path, name: str) -> str:
    m = _pattern(name).search(doc.read_text(encoding="utf-8"))
    if m is None:
        raise SystemExit(f"docs_figures: {doc}: no block <!-- docs-figures:{name} -->")
    return m.group(2)


def put_block(doc: Path, name: str, text: str) -> None:
    old = doc.read_text(encoding="utf-8")
    block(doc, name)
    doc.write_text(_pattern(name).sub(lambda m: m.group(1) + text + m.group(3), old), encoding="utf-8")


def _json_text(data) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="regenerate (or --check) the docs' figures and tables")
    parser.add_argument("--check", action="store_true", help="compare with the docs instead of writing them")
    parser.add_argument("--only", choices=["arena-300", "train-ppo"], default=None, help="one figure")
    args = parser.parse_args(argv)
    doc = DOCS / "arena.md"
    drift = []
    outputs = []
    if args.only in (None, "train-ppo"):
        run = json.loads((DATA / "train_ppo.json").read_text(encoding="utf-8"))
        text, _ = train_figure(run)
        outputs.append(("train-ppo", text, None, None))
    if args.only in (None, "arena-300"):
        results = arena_results()
        text, data = arena_figure(results)
        outputs.append(("arena-300", text, DATA / "arena-report.json", data))
    for name, text, data_path, data in outputs:
        if args.check:
            if block(doc, name) != text:
                drift.append(f"docs/arena.md: the {name} block differs from a new run")
            if data_path is not None and json.loads(data_path.read_text(encoding="utf-8")) != data:
                drift.append(f"{data_path.relative_to(ROOT)}: differs from a new run")
            continue
        put_block(doc, name, text)
        if data_path is not None:
            data_path.write_text(_json_text(data), encoding="utf-8")
        if name == "arena-300":
            from trample.arena.report import write_png

            write_png(results, str(DOCS / "arena-report.png"))
        else:
            write_train_png(json.loads((DATA / "train_ppo.json").read_text(encoding="utf-8")), DOCS / "train-ppo.png")
    for line in drift:
        print(f"docs_figures: {line} (run `make docs-figures`)", file=sys.stderr)
    return 1 if drift else 0


if __name__ == "__main__":
    sys.exit(main())
