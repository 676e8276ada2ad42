"""The HDF5 results store: lossless round trips, refusal of files that are not ours, atomic writes."""
import math
import threading
from dataclasses import dataclass, field

import h5py
import numpy as np
import pytest

from sim import Deck, simulate
from sim.montecarlo import SimulationResult
from sim.store import SCHEMA_VERSION, ResultsStore, StoreError

BIG = math.factorial(25)  # 25! > 2**83: the size of exact counts from 21 cards on


@dataclass(frozen=True)
class StandInExact:
    """Shaped like exact.ExactResult (kind, to_dict, provenance), without importing exact."""

    kind = "exact"
    score_counts: tuple
    provenance: dict = field(default_factory=dict)

    def to_dict(self):
        return {"game": "one-handed", "suits": 5, "ranks": 5, "variant": "one-handed(win=end,reverse=off,first4=kept)",
                "method": "dp", "orders": BIG, "score_counts": list(self.score_counts),
                "wins": self.score_counts[0], "p_win": "1/7", "mean_score": "22/7",
                "poison_set_sizes": {"4": 12, "48": BIG}}


def stand_in(first=BIG // 7):
    counts = (first, 3, BIG - first - 3)
    return StandInExact(counts, {"started": "2026-01-01T00:00:00+00:00", "finished": "2026-01-01T00:00:01+00:00",
                                 "libraries": {"numpy": "2"}, "seed_entropy": 2**127 + 5, "note": None})


@pytest.fixture
def store(tmp_path):
    return ResultsStore(tmp_path / "results" / "s.h5")


def test_big_exact_counts_round_trip_without_loss(store):
    result = stand_in()
    name = store.save(result)
    record = store.load(name)
    assert record["score_counts"] == list(result.score_counts)
    assert sum(record["score_counts"]) == record["orders"] == BIG
    assert record["poison_set_sizes"] == {"4": 12, "48": BIG}
    assert record["kind"] == "exact" and record["p_win"] == "1/7"
    assert record["provenance"]["seed_entropy"] == 2**127 + 5 and record["provenance"]["note"] is None
    with h5py.File(store.path, "r") as f:
        dataset = f["results"][name]["score_counts"]
        assert dataset.attrs["encoding"] == "decimal"  # too big for int64: decimal strings
        assert f.attrs["schema_version"] == SCHEMA_VERSION


def test_small_counts_are_int64_datasets(store):
    r = simulate(Deck(2, 3), games=2000, seed=1, progress=False)
    name = store.save(r)
    with h5py.File(store.path, "r") as f:
        group = f["results"][name]
        assert group["score_counts"].dtype == np.int64
        assert group.attrs["game"] == "one-handed" and group.attrs["_kind"] == "simulation"
        assert "git_commit" in group["provenance"].attrs and "started" in group["provenance"].attrs


def test_simulation_result_round_trips(store):
    r = simulate(Deck(4, 5), "one-handed(win=any)", games=5000, seed=2**100 + 1, progress=False)
    back = SimulationResult.from_record(store.load(store.save(r)))
    assert back == r


def test_find_and_list(store):
    a = store.save(stand_in())
    b = store.save(simulate(Deck(4, 5), games=3000, seed=3, progress=False))
    assert [n for n, _ in store.find(kind="exact")] == [a]
    assert [n for n, _ in store.find(suits=4, ranks=5)] == [b]
    assert store.find(game="prisoners") == []
    rows = {r["name"]: r for r in store.list()}
    assert rows[a]["kind"] == "exact" and rows[a]["orders"] == BIG and rows[a]["method"] == "dp"
    assert rows[b]["games"] == 3000 and rows[b]["provenance"]["method"] == "monte-carlo" and len(rows[b]["ci95"]) == 2


def test_failed_transaction_leaves_store_unchanged(store):
    name = store.save(stand_in())
    before = store.path.read_bytes()
    with pytest.raises(RuntimeError):
        with store.transaction() as f:
            del f["results"][name]
            raise RuntimeError("killed mid-write")
    assert store.path.read_bytes() == before
    assert not store.path.with_name(store.path.name + ".tmp").exists()
    assert store.load(name)["orders"] == BIG


def test_stale_temporary_file_is_never_read(store):
    name = store.save(stand_in())
    tmp = store.path.with_name(store.path.name + ".tmp")
    tmp.write_bytes(b"half-written")  # what a writer killed mid-write leaves
    assert [r["name"] for r in store.list()] == [name]
    second = store.save(stand_in(5))
    assert [r["name"] for r in store.list()] == [name, second] and not tmp.exists()


def test_concurrent_writers_lose_nothing(store):
    names = []

    def save_some():
        for _ in range(5):
            names.append(store.save(stand_in()))

    threads = [threading.Thread(target=save_some) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r["name"] for r in store.list()) == sorted(names) and len(names) == 15


def _truncated(store):
    store.save(stand_in())
    store.save(stand_in(7))
    data = store.path.read_bytes()
    store.path.write_bytes(data[: len(data) // 2])


def _garbage(store):
    store.path.parent.mkdir(parents=True)
    store.path.write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(range(256)) * 8)


def _foreign(store):
    store.path.parent.mkdir(parents=True)
    with h5py.File(store.path, "w") as f:
        f["measurements"] = np.arange(10)
        f.attrs["instrument"] = "not ours"


def _other_schema(store):
    store.save(stand_in())
    with h5py.File(store.path, "r+") as f:
        f.attrs["schema_version"] = SCHEMA_VERSION + 1


def _empty(store):
    store.path.parent.mkdir(parents=True)
    store.path.write_bytes(b"")


BAD_FILES = {"truncated": _truncated, "garbage": _garbage, "foreign": _foreign, "other-schema": _other_schema,
             "empty": _empty}


@pytest.mark.parametrize("make_bad", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_bad_files_are_refused_and_kept(store, make_bad):
    make_bad(store)
    before = store.path.read_bytes()
    for attempt in (store.list, lambda: store.save(stand_in()), store.checkpoints, store.names):
        with pytest.raises(StoreError) as info:
            attempt()
        assert "\n" not in str(info.value) and str(store.path) in str(info.value)
    with pytest.raises(StoreError):
        with store:
            pass
    assert store.path.read_bytes() == before


@pytest.mark.parametrize("make_bad", [_truncated, _foreign, _other_schema], ids=["truncated", "foreign", "schema"])
def test_cli_refuses_bad_store_with_one_line(cli_run, store, make_bad):
    make_bad(store)
    before = store.path.read_bytes()
    for args in (["runs", "--out", str(store.path)],
                 ["simulate", "--suits", "2", "--ranks", "3", "--games", "100", "--out", str(store.path), "--json"]):
        code, out, err = cli_run(*args)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and err.startswith("solitaire: error: ") and "Traceback" not in err
    assert store.path.read_bytes() == before


def test_unknown_name_is_a_usage_error(store):
    store.save(stand_in())
    with pytest.raises(StoreError, match="no result named"):
        store.load("nope")


def test_cli_runs_lists_results(cli_run, tmp_path):
    path = tmp_path / "r.h5"
    code, out, _ = cli_run("simulate", "--suits", "4", "--ranks", "5", "--games", "3000", "--seed", "8",
                           "--out", str(path), "--json")
    assert code == 0
    import json

    simulated = json.loads(out)
    code, out, err = cli_run("runs", "--out", str(path), "--json")
    listing = json.loads(out)
    assert code == 0 and len(listing["results"]) == 1 and listing["unfinished"] == []
    row = listing["results"][0]
    assert (row["games"], row["wins"], row["seed"]) == (3000, simulated["wins"], 8)
    code, out, err = cli_run("runs", "--out", str(path))
    assert code == 0 and "4x5" in out and "3,000 games" in out and row["name"] in out
    # a named store that does not exist is a misspelt name, not an empty store
    code, out, err = cli_run("runs", "--out", str(tmp_path / "none.h5"), "--json")
    assert code == 2 and out == "" and "no results store" in err and not (tmp_path / "none.h5").exists()


def test_rewrites_do_not_grow_the_file_without_bound(store, monkeypatch):
    import sim.store.transactions
    from sim.store import Checkpoint

    monkeypatch.setattr(sim.store.transactions, "_COMPACT_SLACK", 50_000)
    name = store.save(stand_in())
    identity = {"game": "one-handed", "variant": "v", "suits": 4, "ranks": 13, "seed": 1, "games": 10**9,
                "chunk_games": 1 << 18, "options": {}}
    sizes = []
    for k in range(120):
        done = np.zeros(3815, dtype=bool)
        done[:k] = True
        store.write_checkpoint(Checkpoint(identity, 3815, done, {"score_counts": np.arange(53) * k, "wins": k},
                                          sessions=[{"n": "x" * k}]))
        sizes.append(store.path.stat().st_size)
    assert max(sizes) < 4 * 50_000 + 2 * sizes[0]
    assert store.load(name)["orders"] == BIG
    checkpoint = store.load_checkpoint(identity)
    assert checkpoint.chunks_done == 119 and checkpoint.counts["wins"] == 119
    assert list(checkpoint.counts["score_counts"]) == list(np.arange(53) * 119)


def test_default_store_path_is_defined_once():
    """The CLI's default --out is the store's default path, not a second copy that could drift."""
    from pathlib import Path

    from sim.store import DEFAULT_PATH
    from solitaire.options import DEFAULT_STORE

    assert Path(DEFAULT_STORE) == DEFAULT_PATH


@dataclass(frozen=True)
class StandInSweep:
    """A record with seeds at every depth: its own, its cells', its provenance's."""

    kind = "sweep"
    seed: int
    cell_seed: int
    provenance: dict = field(default_factory=dict)

    def to_dict(self):
        return {"game": "one-handed", "seed": self.seed, "games": 2**64 + 3,
                "cells": [{"suits": 3, "ranks": 9, "seed": self.cell_seed}, {"suits": 3, "ranks": 10, "seed": 7}],
                "coverage_seeds": [1, self.cell_seed]}


def test_seeds_of_2_53_or_more_are_decimal_strings_in_the_file_and_ints_when_read(store):
    import json

    from sim.store import Checkpoint, run_key

    big, derived = 2**64 + 1, 2**60 + 5  # a user's seed past int64, a sweep cell's 64-bit seed
    name = store.save(StandInSweep(derived, big, {"seed": big, "seed_entropy": 2**70}))
    with h5py.File(store.path, "r") as f:
        group = f["results"][name]
        assert group.attrs["seed"] == str(derived)  # a string attribute, not int64
        cells = json.loads(group.attrs["cells"])
        assert [c["seed"] for c in cells] == [str(big), 7]  # small seeds stay integers
        assert "coverage_seeds" in group  # a list of integers is a dataset (decimal strings past int64), not JSON
        assert json.loads(group.attrs["games"]) == 2**64 + 3  # counts are never strings
        assert group["provenance"].attrs["seed"] == str(big)
        assert json.loads(f["index"][()])[0]["seed"] == str(derived)
    record = store.load(name)
    assert (record["seed"], [c["seed"] for c in record["cells"]], record["coverage_seeds"]) == (derived, [big, 7],
                                                                                              [1, big])
    assert record["provenance"]["seed"] == big and record["provenance"]["seed_entropy"] == 2**70
    assert [n for n, _ in store.find(kind="sweep", seed=derived)] == [name]

    # the journal: a computation made of parts, and a Monte Carlo checkpoint
    identity = {"kind": "poison", "game": "hand", "seed": big, "decks": 10}
    store.write_parts(identity, {"tally": {"chunks": 1, "seed": big}}, done=1, total=2)
    text = (store.journal / f"{run_key(identity)}.json").read_text()
    assert f'"seed": "{big}"' in text and f'"seed": {big}' not in text
    assert store.load_parts(identity) == {"tally": {"chunks": 1, "seed": big}}
    assert store.unfinished_parts()[0]["seed"] == big
    assert store.latest_checkpoint_seed({**identity, "seed": None}) == big
    run = {"game": "one-handed", "variant": "v", "suits": 2, "ranks": 3, "seed": derived, "games": 30,
           "chunk_games": 10}
    store.write_checkpoint(Checkpoint(run, 3, np.array([True, False, False]), {"wins": 4}))
    with h5py.File(store.journal / f"{run_key(run)}.h5", "r") as f:
        assert json.loads(f.attrs["identity"])["seed"] == str(derived)
    assert store.load_checkpoint(run).identity == run and store.checkpoints()[0]["seed"] == derived


def test_stores_and_journals_written_with_integer_seeds_still_read(store):
    import json

    from sim.store import family_key, run_key

    big = 2**64 + 1
    name = store.save(stand_in())
    with h5py.File(store.path, "r+") as f:  # as written before seeds became strings: JSON integers
        group = f["results"][name]
        group.attrs["seed"] = json.dumps(big)
        group.attrs["_json_keys"] = json.dumps(json.loads(group.attrs["_json_keys"]) + ["seed"])
    assert store.load(name)["seed"] == big
    identity = {"kind": "validation", "seed": big, "games": 5}
    store.journal.mkdir(parents=True, exist_ok=True)
    (store.journal / f"{run_key(identity)}.json").write_text(json.dumps(
        {"identity": identity, "family": family_key(identity), "updated": "2026-01-01", "done": 1, "total": 2,
         "unit": "cases", "parts": {"0": {"seed": big}}}))
    assert store.load_parts(identity) == {"0": {"seed": big}}
    assert store.latest_checkpoint_seed({**identity, "seed": None}) == big
