"""``--json`` output is strict JSON: no ``NaN`` or ``Infinity``, which strict readers reject."""
import json

import pytest

from solitaire.options import emit_json


def strict_loads(text):
    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")
    return json.loads(text, parse_constant=refuse)


def test_simulate_one_game_has_null_standard_error(cli_run, tmp_path):
    args = ["simulate", "--suits", "4", "--ranks", "5", "--games", "1", "--seed", "3", "--json"]
    code, out, err = cli_run(*args)
    assert code == 0
    record = strict_loads(out)
    assert record["games"] == 1 and record["mean_score_se"] is None
    # stored and then shown from the store: still null, not NaN
    path = str(tmp_path / "s.h5")
    code, first, _ = cli_run(*args, "--out", path)
    code, again, err = cli_run(*args, "--out", path)
    assert code == 0 and "already in" in err
    assert strict_loads(again)["mean_score_se"] is None and strict_loads(again) == strict_loads(first)


def test_simulate_two_games_has_a_standard_error(cli_run):
    code, out, _ = cli_run("simulate", "--suits", "4", "--ranks", "5", "--games", "2", "--seed", "3", "--json")
    assert code == 0 and isinstance(strict_loads(out)["mean_score_se"], float)


def test_emit_json_writes_non_finite_numbers_as_null(capsys):
    emit_json({"a": float("nan"), "b": [1.5, float("inf"), (float("-inf"), 2)], "c": {"d": float("nan")}, "e": 3})
    out, _ = capsys.readouterr()
    record = strict_loads(out)
    assert set(record.pop("versions")) == {"package", "engines"}
    assert record == {"a": None, "b": [1.5, None, [None, 2]], "c": {"d": None}, "e": 3}
    assert out.endswith("\n") and out.count("\n") == 1


def test_one_game_text_output_has_no_nan(cli_run):
    code, out, err = cli_run("simulate", "--suits", "2", "--ranks", "2", "--games", "1", "--seed", "1", "--no-store")
    assert code == 0, err
    assert "nan" not in out.lower() and "no s.e. from one game" in out


# Every command with --json, on a small deck: (arguments, the games whose engine versions it reports,
# the named engines it reports).
VERSIONED = [
    (["simulate", "--suits", "2", "--ranks", "3", "--games", "100", "--seed", "1", "--no-store"], ["one-handed"], {}),
    (["exact", "--suits", "2", "--ranks", "3"], ["one-handed"], {}),
    (["exact", "--suits", "2", "--ranks", "3", "--method", "word"], ["one-handed"], {"exact word"}),
    (["exact", "--suits", "2", "--ranks", "3", "--method", "word", "--plan"], ["one-handed"], {"exact word"}),
    (["odds", "--suits", "2", "--ranks", "4", "--dealt", "AS 2H"], ["one-handed"], {}),
    (["odds", "--suits", "2", "--ranks", "3", "--each", "AS 2S 3S AH 2H 3H"], ["one-handed"], {}),
    (["play", "--suits", "2", "--ranks", "3", "--order", "AS 2S 3S AH 2H 3H"], ["one-handed"], {}),
    (["play", "--game", "prisoners", "--suits", "2", "--ranks", "3", "--seed", "5"], ["prisoners"], {}),
    (["solve", "--suits", "2", "--ranks", "3", "--order", "AS 2S 3S AH 2H 3H"], ["prisoners"], {"prisoners solver"}),
    (["solve", "--suits", "2", "--ranks", "3", "--all"], ["prisoners"], {"prisoners solver"}),
    (["poison", "--suits", "2", "--ranks", "2", "--all"], ["hand"], {}),
    (["sweep", "--suits", "2", "--ranks", "2-3", "--games", "100"], ["one-handed"], {}),
    (["validate", "--max-cards", "4", "--games", "200", "--coverage", "1", "--coverage-games", "200"],
     ["one-handed"], {}),
]


@pytest.mark.parametrize("args, games, engines", VERSIONED, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_every_json_output_names_the_package_and_engine_versions(cli_run, args, games, engines):
    from sim import provenance
    from sim.games import get_game

    code, out, err = cli_run(*args, "--json")
    assert code == 0, err
    versions = strict_loads(out)["versions"]
    assert versions["package"] == provenance.package_version()
    for game in games:
        assert versions["engines"][game] == get_game(game).engine_version
    assert set(versions["engines"]) == set(games) | set(engines)
    assert all(isinstance(v, int) and v >= 1 for v in versions["engines"].values())


def test_runs_json_names_the_engines_of_the_stored_games(cli_run, tmp_path):
    from sim.games import get_game

    path = str(tmp_path / "r.h5")
    assert cli_run("exact", "--suits", "2", "--ranks", "3", "--out", path)[0] == 0
    code, out, err = cli_run("runs", "--out", path, "--json")
    assert code == 0, err
    assert strict_loads(out)["versions"]["engines"] == {"one-handed": get_game("one-handed").engine_version}


def test_json_versions_merges_games_and_named_engines():
    from solitaire.options import json_versions

    versions = json_versions(["hand", "one-handed", "hand"], {"exact zeta": 7})
    assert list(versions["engines"]) == ["hand", "one-handed", "exact zeta"]
    assert versions["engines"]["exact zeta"] == 7
