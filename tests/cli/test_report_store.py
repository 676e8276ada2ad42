"""The committed results store holds the whole main job at the current engine versions, so
``solitaire report`` on a fresh clone computes nothing and leaves git clean; runs of an older engine
version are neither shown beside the current ones nor kept by the migration."""
import dataclasses
import json
from pathlib import Path

import numpy as np

from sim import Deck, Variant, games, simulate
from sim.montecarlo import stored_engine_version
from sim.store import ResultsStore
from solitaire.main_job import missing_defaults
from solitaire.report import current_simulations, write_report
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
RUN = dict(games=2_000, chunk_games=1_000, seed=7, progress=False)


def _bump_engine_version(monkeypatch, game: str) -> None:
    record = games.get_game(game)
    monkeypatch.setitem(games._REGISTRY, game, dataclasses.replace(record, engine_version=record.engine_version + 1))


def test_the_committed_store_holds_the_whole_main_job():
    """Otherwise `solitaire report` on a fresh clone recomputes (and rewrites the tracked store)."""
    assert missing_defaults(ResultsStore(ROOT / "results" / "solitaire.h5")) == []


def _two_engine_versions(tmp_path, monkeypatch) -> ResultsStore:
    store = ResultsStore(tmp_path / "store.h5")
    variant = Variant.make("one-handed")
    simulate(Deck(2, 3), variant, out=store, **RUN)
    _bump_engine_version(monkeypatch, "one-handed")
    simulate(Deck(2, 3), variant, out=store, reuse=True, **RUN)  # the old run is not served: played again
    return store


def test_an_older_engine_version_is_planned_again_and_never_shown(tmp_path, monkeypatch):
    store = ResultsStore(tmp_path / "store.h5")
    simulate(Deck(4, 13), Variant.make("one-handed"), out=store, games=2_000, seed=7, progress=False)
    plan = {"exact_max_cards": 0, "standard_games": 2_000, "reading_games": 0, "hand_runs": 0,
            "poison_decks": 0, "prisoners_games": 0}
    standard = f"simulation {Variant.make('one-handed')} 4x13, 2,000 games, seed 7"
    assert standard not in missing_defaults(store, plan=plan, standard_seed=7)
    _bump_engine_version(monkeypatch, "one-handed")
    assert standard in missing_defaults(store, plan=plan, standard_seed=7)
    monkeypatch.undo()
    store = _two_engine_versions(tmp_path / "b", monkeypatch)
    records = [r for _, r in store.find(kind="simulation")]
    assert [stored_engine_version(r) for r in records] == [1, 2]
    shown = current_simulations(records)
    assert len(shown) == 1 and stored_engine_version(shown[0]) == 2


def test_migration_drops_superseded_runs_and_keeps_every_other_record(tmp_path, monkeypatch, capsys):
    store = _two_engine_versions(tmp_path, monkeypatch)
    other = simulate(Deck(2, 2), Variant.make("one-handed"), out=store, **RUN)
    before = {name: json.dumps(store.load(name), sort_keys=True) for name in store.names()}
    old, new = [name for name, _ in store.find(kind="simulation", suits=2, ranks=3)]
    assert load_script("migrate_store").main(["--drop-superseded", str(store.path)]) == 0
    assert "dropping " + old in capsys.readouterr().out
    after = {name: json.dumps(store.load(name), sort_keys=True) for name in store.names()}
    assert after == {name: text for name, text in before.items() if name != old}
    assert [r["wins"] for _, r in store.find(kind="simulation", suits=2, ranks=2)] == [other.wins]
    assert load_script("migrate_store").main(["--drop-superseded", str(store.path)]) == 0  # nothing left to drop
    assert "0 superseded dropped" in capsys.readouterr().out and new in store.names()


def test_compaction_gives_back_the_space_of_replaced_objects_and_keeps_every_record(tmp_path, capsys):
    store = ResultsStore(tmp_path / "store.h5")
    for seed in range(6):
        simulate(Deck(2, 3), Variant.make("one-handed"), out=store, games=2_000, chunk_games=500, seed=seed,
                 progress=False)
    with store.transaction() as f:
        f.attrs["compacted_size"] = store.path.stat().st_size  # no compaction on its own below
        f.create_dataset("ballast", data=np.zeros(200_000))  # 1.6 MB that will be deleted
    with store.transaction() as f:
        del f["ballast"]
    grown = store.path.stat().st_size
    before = {name: json.dumps(store.load(name), sort_keys=True) for name in store.names()}
    assert load_script("migrate_store").main(["--compact", str(store.path)]) == 0
    assert "every other record reads back identical" in capsys.readouterr().out
    assert store.path.stat().st_size < grown - 1_000_000
    assert {name: json.dumps(store.load(name), sort_keys=True) for name in store.names()} == before


def test_a_report_with_nothing_new_leaves_its_readme_as_it_was(tmp_path):
    store = ResultsStore(tmp_path / "store.h5")
    simulate(Deck(4, 13), Variant.make("one-handed"), out=store, **RUN)
    readme = write_report(store, tmp_path / "report")
    first = readme.read_text()
    readme.write_text(first.replace(first.split("\n")[2], "Written by `solitaire report` long ago."))
    stamped = readme.read_text()
    write_report(store, tmp_path / "report")
    assert readme.read_text() == stamped  # only the stamp differed: left alone
    svg = (tmp_path / "report" / "score_distribution.svg").read_bytes()
    simulate(Deck(4, 13), Variant.make("one-handed"), out=store, games=4_000, chunk_games=1_000, seed=8,
             progress=False)
    write_report(store, tmp_path / "report")
    assert readme.read_text() != stamped and "4,000" in readme.read_text()
    assert b"<dc:date>" not in svg  # figures carry no date, so a rerun rewrites them identically
