"""Scalesoul Gnome (combat damage X to a player -> discover X) and the library commands of the CLI."""

import argparse
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from boards import gnome_board

from trample.cli import main
from trample.library import discover_distribution, gnome_outcomes
from trample.models.cards import load_library
from trample.models.errors import FormatError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "library.json"


LIBRARY = {
    "cards": [
        {"name": "Forest", "mana_value": 0, "types": ["Land"]},
        {"name": "Lightning Bolt", "mana_value": 1, "types": ["Instant"]},
        {"name": "Counterspell", "mana_value": 2, "types": ["Instant"]},
        {"name": "Ancient Brontodon", "mana_value": 8, "types": ["Creature"]},
    ]
}
LANDS = {"cards": [{"name": "Forest", "mana_value": 0, "types": ["Land"]}] * 3}


# ---------------------------------------------------------------------------------------------
# Scalesoul Gnome
# ---------------------------------------------------------------------------------------------


def test_gnome_unblocked_discovers_three():  # 510.1b: all 3 to the player -> discover 3
    report = gnome_outcomes(gnome_board(), LIBRARY)
    assert [o.x for o in report.outcomes] == [3] and report.total_splits == 1
    assert report.best.x == 3
    expected = discover_distribution(load_library(LIBRARY), 3).expected_mana_value
    assert report.best.mana_value == expected == Fraction(3, 2)
    # Scalesoul Gnome's second ability: Bolt cast from exile conjures a Bolt (1 + 1), Counterspell 2 + 2
    assert report.best.score == Fraction(1, 2) * 2 + Fraction(1, 2) * 4 == 3


def test_gnome_trample_split_sets_x():  # 702.19b: lethal to the 1/1 first, the rest may trample over
    board = gnome_board([{"id": "elf", "power": 1, "toughness": 1}])
    report = gnome_outcomes(board, LIBRARY)
    assert [(o.x, o.splits) for o in report.outcomes] == [(0, 1), (1, 1), (2, 1)]
    x0, x1, x2 = report.outcomes
    assert not x0.triggers and x0.distribution is None  # no damage to a player: no trigger, not "discover 0"
    assert x1.mana_value == 1 and x2.mana_value == Fraction(3, 2)
    assert (
        x1.score == 2 and x2.score == 3
    )  # each cast conjures a duplicate of the card into hand  # discover 1 finds Bolt; discover 2 Bolt or Counterspell
    assert report.best.x == 2 and report.best.best_split.to_json() == {"gnome": {"elf": 1, "opp": 2}}
    js = report.to_json()
    assert js["reachable_x"] == [0, 1, 2] and js["best"]["kills"] == 1
    assert js["criterion_order"][0] == "highest expected score (face cast + conjured duplicate)"
    assert js["objective"] == ["score", "kills", "x"]


def test_gnome_split_counts_sum_to_the_combat_count():  # 510.1c, 702.19b
    from trample import Combat

    board = gnome_board([{"id": "a", "power": 1, "toughness": 1}, {"id": "b", "power": 0, "toughness": 1}])
    report = gnome_outcomes(board, LIBRARY)
    assert sum(o.splits for o in report.outcomes) == report.total_splits == Combat(board).count()
    assert [o.x for o in report.outcomes] == [0, 1]


def test_gnome_wall_blocks_every_trigger():  # 702.19b: no lethal to the 0/4, nothing reaches the player
    report = gnome_outcomes(gnome_board([{"id": "wall", "power": 0, "toughness": 4}]), LIBRARY)
    assert [o.x for o in report.outcomes] == [0]
    assert not report.best.triggers and report.best.max_kills == 0


def test_gnome_ties_go_to_kills_then_larger_x():  # our criterion: mana value, then kills, then X
    board = gnome_board([{"id": "bear", "power": 2, "toughness": 2}])
    report = gnome_outcomes(board, LANDS)  # nothing to discover: every X scores 0
    assert all(o.score == 0 for o in report.outcomes)
    assert [(o.x, o.max_kills) for o in report.outcomes] == [(0, 1), (1, 1)]
    assert report.best.x == 1
    assert gnome_outcomes(board, LANDS, criterion="kills").best.x == 1
    assert gnome_outcomes(board, LIBRARY, criterion="x").best.x == 1


def test_gnome_kills_criterion_prefers_kills_over_mana_value():  # 702.19b counts every attacker's damage
    # A 1/3 wall blocks the Gnome and a 2/2 bear; a 1/1 elf blocks the bear too. The bear's split decides how
    # much of the Gnome's damage the wall needs: bear 2 on the wall lets X reach 2 (kills: the wall);
    # bear 1 + 1 kills the elf as well but leaves X at most 1.
    wall = {"id": "wall", "power": 1, "toughness": 3}
    elf = {"id": "elf", "power": 1, "toughness": 1}
    bear = {"id": "bear", "power": 2, "toughness": 2, "attacking": "opp", "blocked_by": ["wall", "elf"]}
    board = gnome_board([wall], [bear])
    board["blockers"].append(elf)
    report = gnome_outcomes(board, LIBRARY)
    assert [(o.x, o.max_kills) for o in report.outcomes] == [(0, 2), (1, 2), (2, 1)]
    assert report.best.x == 2  # default: expected mana value 3/2 beats 1
    by_kills = gnome_outcomes(board, LIBRARY, criterion="kills").best
    assert (by_kills.x, by_kills.max_kills) == (1, 2)  # most kills, then the larger X
    assert by_kills.best_split.to_json() == {"gnome": {"wall": 2, "opp": 1}, "bear": {"wall": 1, "elf": 1}}


def test_gnome_known_order():  # 701.57a with the library in the order given: the first qualifying card
    board = gnome_board([{"id": "elf", "power": 1, "toughness": 1}])
    library = {"cards": [LIBRARY["cards"][0], LIBRARY["cards"][2], LIBRARY["cards"][1]]}  # Forest, Counterspell, Bolt
    report = gnome_outcomes(board, library, library_order="known")
    known = {o.x: o.known for o in report.outcomes if o.known}
    assert known[1]["discovered_card"] == "Lightning Bolt" and known[1]["exiled_count"] == 3
    assert known[2]["discovered_card"] == "Counterspell" and known[2]["exiled_count"] == 2
    assert report.best.x == 2 and report.best.mana_value == 2 and report.best.score == 4


def test_gnome_needs_a_name_among_several_attackers():  # Scalesoul Gnome: only its own damage sets X
    board = gnome_board(extra_attackers=[{"id": "bear", "power": 2, "toughness": 2, "attacking": "opp"}])
    assert gnome_outcomes(board, LIBRARY).gnome == "gnome"  # the only id containing "gnome"
    board["attackers"][0]["id"] = "g"
    with pytest.raises(FormatError, match="name the Scalesoul Gnome"):
        gnome_outcomes(board, LIBRARY)
    assert gnome_outcomes(board, LIBRARY, "g").best.x == 3
    with pytest.raises(FormatError, match="not an attacker"):
        gnome_outcomes(board, LIBRARY, "nobody")
    with pytest.raises(FormatError, match="criterion"):
        gnome_outcomes(board, LIBRARY, "g", criterion="fun")


def test_gnome_damage_to_a_planeswalker_is_not_x():  # the Gnome's trigger counts damage to a player only
    board = {
        "players": [{"id": "opp", "life": 20}],
        "planeswalkers": [{"id": "pw", "controller": "opp", "loyalty": 5}],
        "attackers": [{"id": "gnome", "power": 3, "toughness": 5, "keywords": ["trample"], "attacking": "pw"}],
    }
    report = gnome_outcomes(board, LIBRARY)
    assert [o.x for o in report.outcomes] == [0]


# ---------------------------------------------------------------------------------------------
# The command line (in process through trample.cli.main, and a few real processes)
# ---------------------------------------------------------------------------------------------


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_mill(capsys):  # 701.17a
    code, out, err = cli(capsys, "mill", EXAMPLE, 3)
    res = json.loads(out)
    assert code == 0 and err == ""
    assert [m["card"]["name"] for m in res["milled"]] == ["Forest", "Realm-Cloaked Giant // Cast Off", "Mountain"]
    assert {m["to"] for m in res["milled"]} == {"graveyard"}
    assert len(res["library"]["cards"]) == 14 and res["mana_value_total"] == 7


def test_cli_mill_cost_not_payable_exits_1(capsys):  # 701.17b
    code, out, _ = cli(capsys, "mill", EXAMPLE, 18, "--cost")
    res = json.loads(out)
    assert code == 1 and res["performed"] is False and res["count"] == 0
    code, out, _ = cli(capsys, "mill", EXAMPLE, 17, "--cost")
    assert code == 0 and json.loads(out)["count"] == 17


def test_cli_discover_is_deterministic_and_chains(capsys, tmp_path):  # 701.57a
    code, out, _ = cli(capsys, "discover", EXAMPLE, 3, "--seed", 7)
    again = cli(capsys, "discover", EXAMPLE, 3, "--seed", 7)[1]
    assert code == 0 and out == again
    res = json.loads(out)
    assert res["discovered_card"]["name"] == "Bonecrusher Giant // Stomp"
    assert res["went_to"] == "stack" and res["cast_face"] == "Bonecrusher Giant"
    assert res["exiled_count"] == 7 and res["discovered"] is True
    nxt = tmp_path / "next.json"
    nxt.write_text(json.dumps(res["library"]))
    res2 = json.loads(cli(capsys, "discover", nxt, 3, "--seed", 7, "--choice", "hand")[1])
    assert res2["discovered_card"]["name"] == "Llanowar Elves" and res2["went_to"] == "hand"


def test_cli_discover_face_and_zones(capsys, tmp_path):  # 701.57a: a cheaper Adventure face
    state = tmp_path / "state.json"
    doc = json.loads(EXAMPLE.read_text())
    state.write_text(json.dumps({"library": doc["cards"][6:], "hand": [], "graveyard": []}))
    res = json.loads(cli(capsys, "discover", state, 3, "--seed", 1, "--face", "Stomp")[1])
    assert res["cast_face"] == "Stomp"
    assert res["state"]["stack"][0]["face"] == "Stomp"


def test_cli_distributions(capsys):  # exact, over a uniformly shuffled library
    res = json.loads(cli(capsys, "discover", EXAMPLE, 3, "--distribution")[1])
    assert res["qualifying"] == 8 and res["found"]["probability"] == "1"
    assert sum(Fraction(r["probability"]) for r in res["exiled"]) == 1
    res = json.loads(cli(capsys, "mill", EXAMPLE, 7, "--distribution")[1])
    assert res["adventurers_in_library"] == 5
    assert sum(Fraction(r["probability"]) for r in res["adventurers"]) == 1
    res2 = json.loads(cli(capsys, "seek-thrills", EXAMPLE, "--distribution")[1])
    assert res2["adventurers"] == res["adventurers"]


def test_cli_seek_thrills(capsys):  # Seek Thrills
    res = json.loads(cli(capsys, "seek-thrills", EXAMPLE)[1])
    assert [m["to"] for m in res["milled"]].count("hand") == 3  # Realm-Cloaked, Galvanic, Bonecrusher
    a = cli(capsys, "seek-thrills", EXAMPLE, "--seed", 5)[1]
    assert a == cli(capsys, "seek-thrills", EXAMPLE, "--seed", 5)[1]
    assert json.loads(a)["shuffled_first_with_seed"] == 5


def test_cli_gnome(capsys):  # 702.19b split -> discover X (701.57a)
    code, out, _ = cli(capsys, "gnome", ROOT / "examples" / "gnome.json", EXAMPLE)
    res = json.loads(out)
    assert code == 0 and res["gnome"] == "gnome" and res["reachable_x"] == [0, 1, 2]
    assert res["best"]["x"] == 2


def test_cli_jsonl_batch(capsys, tmp_path):  # docs/format.md: one result line per input line
    batch = tmp_path / "libs.jsonl"
    batch.write_text(json.dumps(LIBRARY) + "\n" + json.dumps(LANDS) + "\n")
    code, out, _ = cli(capsys, "discover", batch, 2, "--seed", 0)
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [r["discovered_card"] and r["discovered_card"]["name"] for r in lines] == [
        "Lightning Bolt",
        "Forest",
    ]  # the second: 701.57c's literal final land
    assert lines[1]["literal_final_land"] is True


@pytest.mark.parametrize(
    "args, stdin, message",
    [
        (["mill", "-", "-2"], LIBRARY, "N: must not be negative"),  # 701.17a
        (["discover", "-", "2"], LIBRARY, "--seed: required"),
        (["discover", "-", "2", "--seed", "x"], LIBRARY, "--seed: expected a whole number"),
        (["mill", "-", "1"], {"cards": [{"name": "X"}]}, "cards[0].mana_value: required field is missing"),
        (["mill", "-", "1"], {"cards": [{"name": "X", "mana_value": [1]}]}, "cards[0].mana_value: expected an integer"),
        (
            ["discover", "-", "1", "--seed", "0"],
            {"cards": [{"name": "X", "mana_value": 1, "types": ["Lnd"]}]},
            'cards[0].types[0]: unknown card type "Lnd"',
        ),
        (["seek-thrills", "-"], "not json", "not JSON"),
        (["discover", "-", "4", "--seed", "0", "--choice", "exile"], LIBRARY, "invalid choice"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(capsys, monkeypatch, args, stdin, message):  # docs/format.md exit 2
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin if isinstance(stdin, str) else json.dumps(stdin)))
    code, out, err = cli(capsys, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err


@pytest.mark.slow
def test_cli_real_process_contract():  # docs/format.md: exit 2, one line on standard error, no traceback
    bad = subprocess.run(
        [sys.executable, "-m", "trample", "mill", "-", "3"],
        input='{"cards": [{"name": "X"}]}',
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip().splitlines() == ["trample: cards[0].mana_value: required field is missing"]
    good = subprocess.run(
        [sys.executable, "-m", "trample", "discover", str(EXAMPLE), "2", "--seed", "3"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert good.returncode == 0 and json.loads(good.stdout)["discovered"] is True


def test_add_commands_on_a_plain_parser(capsys):  # 701.17a through the registration contract with trample.cli
    from trample.cli.commands.library import add_commands

    parser = argparse.ArgumentParser(prog="t")
    add_commands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["mill", str(EXAMPLE), "1"])
    assert args.func(args) == 0
    assert json.loads(capsys.readouterr().out)["count"] == 1


def test_cli_library_does_not_import_ortools():  # docs/format.md CLI: library commands load no solver
    code = (
        "import sys, trample.cli.commands.library, trample.library; "
        "sys.exit(1 if any(m.startswith('ortools') for m in sys.modules) else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=60).returncode == 0
