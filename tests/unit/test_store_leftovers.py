"""A store leaves nothing beside itself once its runs are done: no lock file, no empty journal folder
(resumed runs included); the lock stays exclusive although its file is removed with it."""
import threading
import time

import pytest

from sim import Deck, simulate
from sim.store import ResultsStore
from sim.store.files import _locked

RUN = dict(games=12_000, chunk_games=1_000, progress=False, workers=1)


def test_a_finished_run_leaves_only_the_store(tmp_path):
    simulate(Deck(2, 3), seed=1, out=tmp_path / "s.h5", **RUN)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.h5"]


def test_an_interrupted_then_resumed_run_leaves_only_the_store(tmp_path, monkeypatch, stop_simulation_after):
    stop_simulation_after(3)
    with pytest.raises(KeyboardInterrupt):
        simulate(Deck(2, 3), seed=2, out=tmp_path / "s.h5", checkpoint_seconds=3600, **RUN)
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.h5.journal"]  # the checkpoint, kept
    assert [p.suffix for p in (tmp_path / "s.h5.journal").iterdir()] == [".h5"]
    resumed = simulate(Deck(2, 3), seed=2, out=tmp_path / "s.h5", **RUN)
    assert resumed.wins == simulate(Deck(2, 3), seed=2, **RUN).wins
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.h5"]
    assert len(ResultsStore(tmp_path / "s.h5").list()) == 1


def test_the_lock_stays_exclusive_though_its_file_goes_with_it(tmp_path):
    lock, inside, overlaps = tmp_path / "j" / "x.lock", [], []

    def worker():
        for _ in range(20):
            with _locked(lock):
                inside.append(1)
                if len(inside) > 1:
                    overlaps.append(len(inside))
                time.sleep(0.001)
                inside.pop()
            try:  # the last one out removes the folder, as a journal's is removed once empty
                lock.parent.rmdir()
            except OSError:
                pass

    lock.parent.mkdir()
    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlaps == [] and not lock.exists()


def test_a_small_store_fits_on_a_small_disk(tmp_path, monkeypatch):
    """The free-space margin is sized from the write, not a fixed 16 MiB: a store of a few KB is written
    on a disk with 3 MiB free, and refused (one line, nothing changed) only where it cannot fit."""
    import collections

    import sim.store.transactions as transactions
    from sim.store import StoreWriteError

    usage = collections.namedtuple("usage", "total used free")
    free = {"bytes": 3 << 20}
    monkeypatch.setattr(transactions.shutil, "disk_usage", lambda path: usage(4 << 20, 0, free["bytes"]))
    result = simulate(Deck(2, 3), seed=3, out=tmp_path / "s.h5", **RUN)
    assert ResultsStore(tmp_path / "s.h5").list()[0]["wins"] == result.wins
    free["bytes"] = 10_000
    before = (tmp_path / "s.h5").read_bytes()
    with pytest.raises(StoreWriteError, match="bytes free"):
        simulate(Deck(2, 3), seed=4, out=tmp_path / "s.h5", **RUN)
    assert (tmp_path / "s.h5").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.h5"]
