"""Checkpointing: a run stopped at any moment and run again ends with the counts of an uninterrupted
run with that seed, no chunk counted twice; a file left by a crash is never read as a result."""
import dataclasses
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

import sim.games as games
import sim.montecarlo as montecarlo
from sim import Deck, simulate
from sim.store import ResultsStore

RUN = dict(games=120_000, chunk_games=10_000, progress=False)  # 12 chunks


def _bump_engine_version(monkeypatch, game: str) -> None:
    """Pretend the game's kernel changed its counts: its registered record gets the next version."""
    record = games.get_game(game)
    monkeypatch.setitem(games._REGISTRY, game, dataclasses.replace(record, engine_version=record.engine_version + 1))


def counts(result):
    return result.wins, result.score_counts, result.extra


def test_interrupted_run_resumes_to_identical_counts(tmp_path, stop_simulation_after, monkeypatch):
    store = ResultsStore(tmp_path / "s.h5")
    reference = simulate(Deck(4, 13), seed=21, workers=1, **RUN)
    stop_simulation_after(5)
    with pytest.raises(KeyboardInterrupt):
        simulate(Deck(4, 13), seed=21, workers=1, out=store, checkpoint_seconds=3600, **RUN)
    monkeypatch.undo()
    [unfinished] = store.checkpoints()
    assert (unfinished["chunks_done"], unfinished["n_chunks"]) == (5, 12)
    assert store.list() == []  # a run under way is never listed as a result
    messages = []
    resumed = simulate(Deck(4, 13), seed=21, workers=2, out=store, notify=messages.append, **RUN)
    assert counts(resumed) == counts(reference)
    assert "5 of 12 chunks" in messages[0]
    assert store.checkpoints() == [] and len(store.list()) == 1
    assert store.load(store.names()[0])["score_counts"] == list(reference.score_counts)


def test_without_seed_the_unfinished_run_is_resumed(tmp_path, stop_simulation_after, monkeypatch):
    store = ResultsStore(tmp_path / "s.h5")
    stop_simulation_after(3)
    with pytest.raises(KeyboardInterrupt):
        simulate(Deck(4, 5), workers=1, out=store, **RUN)
    monkeypatch.undo()
    seed = store.checkpoints()[0]["seed"]
    resumed = simulate(Deck(4, 5), workers=1, out=store, **RUN)
    assert resumed.seed == int(seed)
    assert counts(resumed) == counts(simulate(Deck(4, 5), seed=resumed.seed, workers=1, **RUN))
    # a run that differs in any parameter is another run: fresh seed
    other = simulate(Deck(4, 5), workers=1, out=store, **{**RUN, "games": 110_000})
    assert other.seed != resumed.seed


def test_no_resume_starts_again(tmp_path, stop_simulation_after, monkeypatch):
    store = ResultsStore(tmp_path / "s.h5")
    played = stop_simulation_after(4)
    with pytest.raises(KeyboardInterrupt):
        simulate(Deck(4, 5), seed=3, workers=1, out=store, **RUN)
    monkeypatch.undo()
    played = stop_simulation_after(100)
    again = simulate(Deck(4, 5), seed=3, workers=1, out=store, resume=False, **RUN)
    assert len(played) == 12 and store.checkpoints() == []
    assert counts(again) == counts(simulate(Deck(4, 5), seed=3, workers=1, **RUN))


def test_progress_bar_starts_from_chunks_done(tmp_path, stop_simulation_after, monkeypatch):
    store = ResultsStore(tmp_path / "s.h5")
    stop_simulation_after(4)
    with pytest.raises(KeyboardInterrupt):
        simulate(Deck(4, 5), seed=5, workers=1, out=store, **RUN)
    monkeypatch.undo()
    seen = []
    real_bar = montecarlo._progress_bar
    monkeypatch.setattr(montecarlo, "_progress_bar",
                        lambda total, progress, initial=0: seen.append(initial) or real_bar(total, False, initial))
    simulate(Deck(4, 5), seed=5, workers=1, out=store, **RUN)
    assert seen == [40_000]


def test_reuse_returns_the_stored_run(tmp_path):
    store = ResultsStore(tmp_path / "s.h5")
    first = simulate(Deck(4, 5), seed=9, workers=1, out=store, **RUN)
    again = simulate(Deck(4, 5), seed=9, workers=1, out=store, reuse=True, **RUN)
    assert again == first and len(store.list()) == 1


# --- a real crash: SIGKILL at an arbitrary moment --------------------------------------------

def _command(path, seed, games=1_500_000, chunk_games=10_000):
    return [sys.executable, "-m", "solitaire.cli", "simulate", "--games", str(games), "--seed", str(seed),
            "--chunk-games", str(chunk_games), "--checkpoint-seconds", "0", "--workers", "1", "--no-progress",
            "--out", str(path), "--json"]


def _chunks_done(store):
    try:
        rows = store.checkpoints()
    except Exception:  # noqa: BLE001 - the test fails below if the store is ever unreadable at the end
        return 0
    return rows[0]["chunks_done"] if rows else 0


def _kill_when(proc, store, min_chunks, delay=0.0, timeout=300):
    """SIGKILL ``proc`` ``delay`` seconds after its checkpoint shows ``min_chunks`` chunks done."""
    deadline = time.monotonic() + timeout
    while _chunks_done(store) < min_chunks:
        assert proc.poll() is None, "the run ended before it could be killed: make it longer"
        assert time.monotonic() < deadline
        time.sleep(0.01)
    time.sleep(delay)
    assert proc.poll() is None, "the run ended before it could be killed: make it longer"
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()  # waits, and closes its pipes (an unclosed pipe is a ResourceWarning, an error here)


def test_sigkill_then_same_command_gives_identical_counts(tmp_path):
    path = tmp_path / "s.h5"
    store = ResultsStore(path)
    proc = subprocess.Popen(_command(path, 77), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _kill_when(proc, store, min_chunks=3)
    assert proc.returncode == -signal.SIGKILL
    [unfinished] = store.checkpoints()  # the file is readable and holds a consistent checkpoint
    assert 3 <= unfinished["chunks_done"] < unfinished["n_chunks"] == 150
    assert store.list() == []
    finished = subprocess.run(_command(path, 77), capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    resumed = json.loads(finished.stdout)
    reference = simulate(Deck(4, 13), games=1_500_000, seed=77, chunk_games=10_000, progress=False)
    assert (resumed["wins"], tuple(resumed["score_counts"])) == (reference.wins, reference.score_counts)
    assert store.checkpoints() == [] and len(store.list()) == 1


@pytest.mark.slow
def test_repeated_sigkills_at_random_moments(tmp_path):
    path = tmp_path / "s.h5"
    store = ResultsStore(path)
    rng = random.Random(1)
    for kill in range(6):
        proc = subprocess.Popen(_command(path, 78, games=3_000_000), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # wait for progress, then kill at a random moment (computing, or writing a checkpoint)
        _kill_when(proc, store, min_chunks=_chunks_done(store) + 1, delay=rng.uniform(0.0, 0.2))
        assert proc.returncode == -signal.SIGKILL
        assert 0 < _chunks_done(store) < 300  # readable, consistent, unfinished
    finished = subprocess.run(_command(path, 78, games=3_000_000), capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, finished.stderr
    reference = simulate(Deck(4, 13), games=3_000_000, seed=78, chunk_games=10_000, progress=False)
    resumed = json.loads(finished.stdout)
    assert (resumed["wins"], tuple(resumed["score_counts"])) == (reference.wins, reference.score_counts)
    assert len(store.list()) == 1 and store.checkpoints() == []


def test_same_command_after_a_finished_run_shows_it_from_the_store(cli_run, tmp_path):
    path = tmp_path / "s.h5"
    args = ["simulate", "--suits", "4", "--ranks", "5", "--games", "30000", "--chunk-games", "10000", "--seed", "6",
            "--out", str(path), "--json"]
    code, first, _ = cli_run(*args)
    code, again, err = cli_run(*args)
    assert code == 0 and json.loads(again) == json.loads(first) and "already in" in err
    assert len(ResultsStore(path).list()) == 1  # a kill after the commit does not lead to a second copy
    code, replayed, _ = cli_run(*args, "--no-resume")
    assert json.loads(replayed)["score_counts"] == json.loads(first)["score_counts"]
    assert len(ResultsStore(path).list()) == 2


# --- engine versions: a run from an incompatible engine is never resumed or served ---------------

def _legacy_identity(monkeypatch):
    """Make runs record identities as before ``engine_version`` existed (no such field)."""
    real = montecarlo.run_identity

    def run_identity(*args, **kwargs):
        identity = real(*args, **kwargs)
        del identity["engine_version"]
        return identity
    monkeypatch.setattr(montecarlo, "run_identity", run_identity)


def test_other_engine_version_checkpoint_is_not_resumed(tmp_path, stop_simulation_after, monkeypatch):
    store = ResultsStore(tmp_path / "s.h5")
    stop_simulation_after(5)
    with pytest.raises(KeyboardInterrupt):
        simulate(Deck(4, 5), seed=8, workers=1, out=store, checkpoint_seconds=3600, **RUN)
    monkeypatch.undo()
    _bump_engine_version(monkeypatch, "one-handed")
    played, messages = stop_simulation_after(100), []
    fresh = simulate(Deck(4, 5), seed=8, workers=1, out=store, notify=messages.append, **RUN)
    assert len(played) == 12 and not any("resuming" in m for m in messages)
    assert counts(fresh) == counts(simulate(Deck(4, 5), seed=8, workers=1, **RUN))
    # the version-1 checkpoint is left alone (not ours to discard), and a seedless run does not pick it up
    [old] = store.checkpoints()
    assert "engine_version" not in old or old["engine_version"] == 1
    assert simulate(Deck(4, 5), workers=1, out=store, **RUN).seed != 8


def test_other_engine_version_stored_run_is_not_served(tmp_path, stop_simulation_after, monkeypatch):
    store = ResultsStore(tmp_path / "s.h5")
    first = simulate(Deck(4, 5), seed=9, workers=1, out=store, **RUN)
    _bump_engine_version(monkeypatch, "one-handed")
    played = stop_simulation_after(100)
    again = simulate(Deck(4, 5), seed=9, workers=1, out=store, reuse=True, **RUN)
    assert len(played) == 12 and len(store.list()) == 2
    assert again.provenance["stored_as"] != first.provenance["stored_as"]


def test_records_without_engine_version_are_version_1(tmp_path, stop_simulation_after, monkeypatch):
    """Checkpoints and results written before the field existed still resume and are still found."""
    store = ResultsStore(tmp_path / "s.h5")
    _legacy_identity(monkeypatch)
    finished = simulate(Deck(4, 5), seed=7, workers=1, out=store, **RUN)
    stop_simulation_after(5)
    with pytest.raises(KeyboardInterrupt):
        simulate(Deck(4, 5), seed=4, workers=1, out=store, checkpoint_seconds=3600, **RUN)
    monkeypatch.undo()
    [legacy] = store.checkpoints()
    assert "engine_version" not in legacy
    reference, messages = simulate(Deck(4, 5), seed=4, workers=1, **RUN), []
    played = stop_simulation_after(100)
    resumed = simulate(Deck(4, 5), seed=4, workers=1, out=store, notify=messages.append, **RUN)
    assert len(played) == 7 and "5 of 12 chunks" in messages[0]
    assert counts(resumed) == counts(reference)
    again = simulate(Deck(4, 5), seed=7, workers=1, out=store, reuse=True, **RUN)
    assert again == finished and len(played) == 7


def test_run_key_of_version_1_is_the_key_before_engine_versions():
    """Pinned: the hash of a version-1 identity equals that of the same identity without the field
    (the keys of runs already in stores), and any other version's differs."""
    import hashlib

    from sim.store import family_key, run_key

    legacy = {"game": "one-handed", "variant": "one-handed(win=end)", "suits": 4, "ranks": 13, "seed": 1,
              "games": 10, "chunk_games": 4, "options": {}, "package_version": "0.1.0"}
    text = json.dumps(legacy, sort_keys=True, separators=(",", ":"))
    assert run_key({**legacy, "engine_version": 1}) == "run-" + hashlib.sha256(text.encode()).hexdigest()[:20]
    assert run_key({**legacy, "engine_version": 1}) == run_key(legacy)
    assert family_key({**legacy, "engine_version": 1}) == family_key(legacy)
    assert run_key({**legacy, "engine_version": 2}) != run_key(legacy)
    assert family_key({**legacy, "engine_version": 2}) != family_key(legacy)
