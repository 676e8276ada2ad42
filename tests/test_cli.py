"""The command line: JSON keys of SPEC section 6, and one-line errors with exit status 2."""
import json
import subprocess
import sys

import pytest

SIMULATE_KEYS = {"game", "suits", "ranks", "variant", "seed", "games", "wins", "p_win", "ci95",
                 "score_counts", "mean_score", "seconds", "games_per_second"}


def test_simulate_json(cli_run):
    code, out, err = cli_run("simulate", "--suits", "2", "--ranks", "4", "--games", "5000", "--seed", "9",
                             "--json", "--variant", "reverse=on")
    assert code == 0
    obj = json.loads(out)
    assert SIMULATE_KEYS <= obj.keys()
    assert obj["variant"] == "one-handed(win=end,reverse=on,first4=kept)"
    assert sum(obj["score_counts"]) == obj["games"] == 5000
    assert obj["ci95"][0] <= obj["p_win"] <= obj["ci95"][1]


@pytest.mark.parametrize("args", [
    ["simulate", "--suits", "0"],
    ["simulate", "--ranks", "-2"],
    ["simulate", "--games", "-5"],
    ["simulate", "--games", "lots"],
    ["simulate", "--variant", "colour=red"],
    ["simulate", "--variant", "win"],
    ["simulate", "--game", "klondike"],
    ["simulate", "--seed", "-1"],
    ["nonsense"],
])
def test_bad_input_is_one_line_exit_2(cli_run, args):
    code, out, err = cli_run(*args, "--json") if args[0] == "simulate" else cli_run(*args)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("solitaire: error: ")
    assert "Traceback" not in err


def test_console_script_exit_status():
    proc = subprocess.run([sys.executable, "-m", "solitaire.cli", "simulate", "--suits", "0"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
