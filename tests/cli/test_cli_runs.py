"""``solitaire runs``: every kind of stored result gets a row that says what it is about."""
import json

import pytest

from sim import Deck, Variant, simulate
from sim.store import ResultsStore


class StandIn:
    """A stored record of a given kind, shaped as that kind's ``to_dict()``."""

    def __init__(self, kind, record):
        self.kind, self.record, self.provenance = kind, record, {"finished": "2026-01-02T03:04:05+00:00"}

    def to_dict(self):
        return dict(self.record)


def _check(tested=True, rejected=False, **deck):
    return {"suits": deck.get("suits"), "ranks": deck.get("ranks"), "variant": None, "test": "p_win",
            "statistic": 0.0, "p_value": 0.5, "detail": "", "tested": tested, "rejected": rejected}


@pytest.fixture(scope="module")
def listed(tmp_path_factory):
    """A store holding one result of each kind, and its `runs` rows by kind."""
    from exact.hand.poison import classify_runs
    from solitaire.sweep import sweep

    path = tmp_path_factory.mktemp("runs") / "r.h5"
    store = ResultsStore(path)
    store.save(simulate(Deck(4, 5), games=3000, seed=8, progress=False))
    store.save(classify_runs(Deck(2, 3), Variant.make("hand"), decks=200, seed=1, cap=50, budget=1000))
    store.save(StandIn("validation", {"game": "one-handed,prisoners", "passed": False, "alpha": 0.01,
                                      "games": 20_000, "seed": 3, "correction": "holm", "tested": 3,
                                      "checks": [_check(), _check(rejected=True), _check(), _check(tested=False)]}))
    # a validation as stored by an older version: no game, no count of tested checks
    store.save(StandIn("validation", {"passed": True, "alpha": 0.01, "games": 500, "seed": 4,
                                      "checks": [_check(), _check(), _check(tested=False)]}))
    store.save(sweep([2, 3], [3, 4], games=2000, seed=1, exact_max_cards=6, progress=False))
    return path


def test_rows_by_kind(cli_run, listed):
    code, out, err = cli_run("runs", "--out", str(listed), "--json")
    assert code == 0, err
    rows = json.loads(out)["results"]
    assert [r["kind"] for r in rows] == ["simulation", "poison", "validation", "validation", "sweep"]
    sim_row, poison, validation, old_validation, swept = rows
    assert (poison["decks"], poison["trapped"], len(poison["ci95_trapped"])) == (200, 128, 2)  # Hand engine version 2
    assert (validation["comparisons"], validation["passed"], validation["rejected"]) == (3, False, 1)
    assert (old_validation["comparisons"], old_validation["passed"]) == (2, True)
    assert (swept["grid"], swept["cells"], swept["games_per_cell"]) == ("2-3x3-4", 4, 2000)
    # 3x3 is decided by the parity theorem; the others are exact or simulated, by the exact engine's limits
    assert swept["cell_sources"]["theorem"] == 1 and sum(swept["cell_sources"].values()) == 4
    # names say what a result is, without a made-up game or deck
    assert validation["name"].startswith("validation-one-handed+prisoners-")
    assert old_validation["name"].startswith("validation-") and "unknown" not in old_validation["name"]
    assert "0x0" not in old_validation["name"] and "0x0" not in swept["name"]
    assert swept["name"].startswith("sweep-one-handed-")


def test_text_is_one_table_with_something_in_every_row(cli_run, listed):
    code, out, err = cli_run("runs", "--out", str(listed))
    assert code == 0, err
    lines = out.splitlines()
    header, body = lines[1], lines[2:]
    assert header.split() == ["date", "kind", "deck", "variant", "method", "size", "result", "interval", "name"]
    assert len(body) == 5
    # one table: every column starts at the same place in every line
    name_at = header.index("name")
    assert all(len(line) > name_at and line[name_at - 2:name_at] == "  " and line[name_at] != " " for line in body)
    by_kind = {}
    for line in body:
        by_kind.setdefault(line.split()[2], []).append(line)
    [poison] = by_kind["poison"]
    assert "200 decks" in poison and "trapped 128 (64.0000%)" in poison and "bracket" in poison
    failed, passed = by_kind["validation"]
    assert "3 comparisons, 20,000 games each" in failed and "FAILED (1 rejected)" in failed
    assert "2 comparisons" in passed and "passed" in passed
    [swept] = by_kind["sweep"]
    code, out, _ = cli_run("runs", "--out", str(listed), "--json")
    sources = json.loads(out)["results"][-1]["cell_sources"]
    made = ", ".join(f"{n} {source}" for source, n in sorted(sources.items()))
    assert "2-3x3-4" in swept and "2,000 games per cell" in swept and f"4 cells ({made})" in swept
    [simulated] = by_kind["simulation"]
    assert "4x5" in simulated and "3,000 games" in simulated and "p_win" in simulated


def test_game_filter_keeps_validations_of_that_game(cli_run, listed):
    code, out, _ = cli_run("runs", "--out", str(listed), "--game", "prisoners", "--json")
    assert code == 0 and [r["kind"] for r in json.loads(out)["results"]] == ["validation"]
