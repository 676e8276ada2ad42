"""``solitaire export``: a stored result as a tidy table that pandas reads back as it is, counts and
seeds exact; bad input is one line, exit status 2, nothing created."""
import json
import sys
from pathlib import Path

import pytest

pd = pytest.importorskip("pandas")

from exact.result import ExactResult  # noqa: E402
from sim.montecarlo import SimulationResult  # noqa: E402
from sim.store import ResultsStore  # noqa: E402
from sim.tables import frame, rows  # noqa: E402

STORE = Path(__file__).resolve().parents[2] / "results" / "solitaire.h5"


def _stored(kind, **fields):
    """The newest stored result of ``kind`` in the project's store matching ``fields``."""
    found = ResultsStore(STORE).find(kind=kind, **fields)
    assert found, (kind, fields)
    return found[-1][0]


def _as_text(frame):
    """The cells as the CSV writes them: Python ints as digits, floats by repr, None as nothing."""
    return frame.map(lambda v: "" if v is None else repr(v) if isinstance(v, float) else str(v))


@pytest.fixture(scope="module")
def big_run():
    return _stored("simulation", suits=4, ranks=13, games=25_000_000_000)


@pytest.fixture(scope="module")
def exact_33():
    """An exact One-Handed result over 33! orders: counts far beyond 64 bits."""
    return _stored("exact", suits=11, ranks=3)


def test_csv_of_the_25e9_game_run_reads_back_equal_in_pandas(cli_run, tmp_path, big_run):
    target = tmp_path / "run.csv"
    code, out, err = cli_run("export", big_run, "--out", str(STORE), "--to", str(target))
    assert code == 0 and err == "" and "53 row(s)" in out
    record = ResultsStore(STORE).load(big_run)
    result = SimulationResult.from_record(record)
    expected = frame(rows(record, big_run))
    pd.testing.assert_frame_equal(expected.drop(columns="name"), result.to_frame().drop(columns="name"))
    back = pd.read_csv(target)  # as a user reads it: no options
    assert list(back.columns) == list(expected.columns)
    assert back["count"].tolist() == list(result.score_counts) and back["count"].sum() == 25_000_000_000
    assert set(back["games"]) == {25_000_000_000} and set(back["seed"]) == {result.seed}
    assert set(back["name"]) == {big_run} and (back["commit"] == result.provenance["git_commit"]).all()
    pd.testing.assert_frame_equal(pd.read_csv(target, dtype=str, keep_default_na=False), _as_text(expected))


def test_csv_of_an_exact_table_reads_back_equal_in_pandas(cli_run, tmp_path, exact_33):
    target = tmp_path / "exact.csv"
    assert cli_run("export", exact_33, "--out", str(STORE), "--to", str(target))[0] == 0
    record = ResultsStore(STORE).load(exact_33)
    result = ExactResult.from_record(record)
    expected = frame(rows(record, exact_33))
    pd.testing.assert_frame_equal(expected.drop(columns="name"), result.to_frame().drop(columns="name"))
    pd.testing.assert_frame_equal(pd.read_csv(target, dtype=str, keep_default_na=False), _as_text(expected))
    back = pd.read_csv(target)
    counts = [int(c) for c in back["count"]]  # 33! does not fit 64 bits: pandas keeps Python ints
    assert counts == list(result.score_counts) and sum(counts) == result.orders
    assert set(back["p_win"]) == {f"{result.p_win.numerator}/{result.p_win.denominator}"}


def test_json_keeps_counts_exact(cli_run, tmp_path, exact_33):
    target = tmp_path / "exact.json"
    assert cli_run("export", exact_33, "--out", str(STORE), "--to", str(target))[0] == 0
    rows = json.loads(target.read_text())
    result = ExactResult.from_record(ResultsStore(STORE).load(exact_33))
    assert [r["count"] for r in rows] == list(result.score_counts)
    assert all(r["orders"] == result.orders for r in rows)


def test_without_to_the_table_goes_to_stdout(cli_run, big_run):
    code, out, err = cli_run("export", big_run, "--out", str(STORE), "--format", "json")
    assert code == 0 and err == ""
    assert len(json.loads(out)) == 53


def test_a_large_seed_stays_exact(cli_run, tmp_path):
    from sim import Deck, simulate

    store = ResultsStore(tmp_path / "s.h5")
    seed = 2**64 - 5
    name = store.save(simulate(Deck(2, 3), games=500, seed=seed, progress=False))
    code, out, _ = cli_run("export", name, "--out", str(store.path))
    assert code == 0
    back = pd.read_csv(__import__("io").StringIO(out), dtype={"seed": str})
    assert set(back["seed"]) == {str(seed)}
    code, out, _ = cli_run("export", name, "--out", str(store.path), "--format", "json")
    assert {r["seed"] for r in json.loads(out)} == {str(seed)}  # as every --json writes seeds of 2^53 or more


def _every_kind_store(tmp_path):
    from tests.unit.test_tables import RESULTS

    store = ResultsStore(tmp_path / "all.h5")
    return store, [store.save(r) for r in RESULTS if hasattr(r, "from_record")]


def test_every_stored_kind_exports(cli_run, tmp_path):
    store, names = _every_kind_store(tmp_path)
    for name in names:
        code, out, err = cli_run("export", name, "--out", str(store.path))
        assert code == 0 and err == "", name
        frame = pd.read_csv(__import__("io").StringIO(out))
        assert len(frame) >= 1 and set(frame["name"]) == {name}


@pytest.mark.parametrize("args, message", [
    (["no-such-result"], "no result named"),
    (["{run}", "--to", "{tmp}/missing/t.csv"], "does not exist"),
    (["{run}", "--to", "{tmp}"], "is a folder"),
    (["{run}", "--format", "xls", "--to", "{tmp}/t.csv"], "format must be one of"),
    (["{run}", "--to", "{tmp}/t.xlsx"], "cannot tell the format"),
    (["{run}", "--format", "parquet"], None),
])
def test_bad_input_is_one_line_and_creates_nothing(cli_run, tmp_path, big_run, args, message):
    before = sorted(tmp_path.rglob("*"))
    args = [a.format(run=big_run, tmp=tmp_path) for a in args]
    code, out, err = cli_run("export", *args, "--out", str(STORE))
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("solitaire: error:")
    if message:
        assert message in err
    assert sorted(tmp_path.rglob("*")) == before


def test_a_missing_store_is_refused(cli_run, tmp_path, big_run):
    code, out, err = cli_run("export", big_run, "--out", str(tmp_path / "none.h5"), "--to", str(tmp_path / "t.csv"))
    assert code == 2 and "no results store" in err and list(tmp_path.iterdir()) == []


def test_parquet_without_pyarrow_says_so(cli_run, tmp_path, monkeypatch, big_run):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    code, out, err = cli_run("export", big_run, "--out", str(STORE), "--to", str(tmp_path / "t.parquet"))
    assert code == 2 and "pyarrow" in err and list(tmp_path.iterdir()) == []


def test_parquet_with_pyarrow_round_trips(cli_run, tmp_path, exact_33):
    pytest.importorskip("pyarrow")
    target = tmp_path / "t.parquet"
    assert cli_run("export", exact_33, "--out", str(STORE), "--to", str(target))[0] == 0
    back = pd.read_parquet(target)
    result = ExactResult.from_record(ResultsStore(STORE).load(exact_33))
    assert [int(c) for c in back["count"]] == list(result.score_counts)  # beyond 64 bits: as text
