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


def test_validate_cli_passes_on_small_decks(cli_run):
    code, out, err = cli_run("validate", "--max-cards", "5", "--variant", "win=end", "--games", "20000",
                             "--coverage", "2", "--coverage-games", "2000", "--seed", "4", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["passed"] and report["correction"] == "holm"
    assert {c["test"] for c in report["checks"]} == {"distribution", "p_win", "coverage"}


def test_validate_table_columns_stay_in_line_with_final_once_variants(cli_run):
    code, out, err = cli_run("validate", "--max-cards", "4", "--games", "2000", "--coverage", "0", "--no-progress")
    assert code == 0, err
    header, *rows, summary = out.splitlines()
    assert any("final=once" in row for row in rows) and any("final=once" not in row for row in rows)
    column = header.index("p-value") + len("p-value")  # p-values are right-aligned under their heading
    assert all(row[column - 1] != " " and row[column:column + 2] == "  " for row in rows), out
    assert summary.endswith("all passed")


def test_sweep_cli_marks_exact_theorem_and_simulated_cells(cli_run):
    code, out, err = cli_run("sweep", "--suits", "2-3", "--ranks", "3,4", "--games", "3000",
                             "--exact-max-cards", "8", "--seed", "1", "--json")
    assert code == 0, err
    cells = {(c["suits"], c["ranks"]): c for c in json.loads(out)["cells"]}
    assert cells[(3, 3)]["source"] == "theorem" and cells[(3, 3)]["p_win"] == 0
    assert cells[(2, 3)]["source"] == "exact" and cells[(2, 3)]["p_win_exact"] == "2/15"
    assert cells[(3, 4)]["source"] == "simulated" and cells[(3, 4)]["games"] == 3000


@pytest.mark.parametrize("args", [["sweep", "--suits", "0-2"], ["sweep", "--ranks", "a-b"],
                                  ["validate", "--max-cards", "40"], ["exact", "--suits", "4", "--ranks", "13"]])
def test_more_bad_input_is_one_line_exit_2(cli_run, args):
    code, out, err = cli_run(*args)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("solitaire: error: ")
