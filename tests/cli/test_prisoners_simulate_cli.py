"""``solitaire simulate --game prisoners``: the other move policy's wins on the same decks, with their
interval, and --cap refused for games that have no iteration cap."""
import json

import pytest

from sim.stats import binomial_interval

ARGS = ("simulate", "--game", "prisoners", "--suits", "2", "--ranks", "5", "--games", "4000", "--seed", "5",
        "--no-progress")


@pytest.mark.parametrize("moves, other", [("published", "physical"), ("physical", "published")])
def test_json_has_an_interval_for_each_policy(cli_run, moves, other):
    code, out, err = cli_run(*ARGS, "--variant", f"moves={moves}", "--json")
    assert code == 0, err
    obj = json.loads(out)
    assert obj[f"wins_moves_{moves}"] == obj["wins"] and obj[f"ci95_moves_{moves}"] == obj["ci95"]
    wins = obj[f"wins_moves_{other}"]
    assert wins != obj["wins"]  # 2x5: the policies differ a lot (about 60% against 25%)
    assert obj[f"ci95_moves_{other}"] == list(binomial_interval(wins, 4000)[0])
    low, high = obj[f"ci95_moves_{other}"]
    assert low < wins / 4000 < high


def test_text_prints_the_other_policy_on_the_same_decks(cli_run):
    code, out, _ = cli_run(*ARGS, "--json")
    obj = json.loads(out)
    code, text, _ = cli_run(*ARGS)
    assert code == 0
    (line,) = [x for x in text.splitlines() if x.startswith("moves=physical on the same decks")]
    low, high = obj["ci95_moves_physical"]
    assert f"wins {obj['wins_moves_physical']:,} " in line and f"[{low:.6%}, {high:.6%}]" in line


@pytest.mark.parametrize("game", ["prisoners", "one-handed"])
@pytest.mark.parametrize("cap", ["5", "1000"])  # also the default value, when given explicitly
def test_cap_is_refused_for_games_without_iterations(cli_run, game, cap):
    code, out, err = cli_run("simulate", "--game", game, "--cap", cap, "--games", "10", "--json")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--cap" in err


def test_cap_is_accepted_for_hand(cli_run):
    code, out, err = cli_run("simulate", "--game", "hand", "--suits", "2", "--ranks", "3", "--cap", "20",
                             "--games", "200", "--seed", "1", "--no-progress", "--json")
    assert code == 0, err
    assert json.loads(out)["cap"] == 20
