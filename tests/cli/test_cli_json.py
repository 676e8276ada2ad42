"""``--json`` output is strict JSON: no ``NaN`` or ``Infinity``, which strict readers reject."""
import json

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
    assert strict_loads(out) == {"a": None, "b": [1.5, None, [None, 2]], "c": {"d": None}, "e": 3}
    assert out.endswith("\n") and out.count("\n") == 1


def test_one_game_text_output_has_no_nan(cli_run):
    code, out, err = cli_run("simulate", "--suits", "2", "--ranks", "2", "--games", "1", "--seed", "1", "--no-store")
    assert code == 0, err
    assert "nan" not in out.lower() and "no s.e. from one game" in out
