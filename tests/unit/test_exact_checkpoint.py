"""Long exact counts keep what they did: stopped by a signal after k steps, they save their state,
and the same computation run again starts at step k and ends with the counts of an uninterrupted
run (exact.checkpoint)."""
import json
import os
import signal

import numpy as np
import pytest

from exact.checkpoint import StepCheckpoint
from exact.one_handed import exact_distribution as one_handed
from exact.prisoners.distribution import exact_distribution as prisoners
from sim import interrupts
from sim.deck import Deck
from sim.errors import UsageError
from sim.interrupts import Interrupted
from sim.variant import Variant


def _stopped_after(k, run):
    """Run ``run(progress)`` with a SIGINT arriving after progress step ``k``; returns the Interrupted."""
    def progress(done, total, work):
        if done == k:
            interrupts._pending.append(signal.SIGINT)  # as the handler records a signal while deferred

    with pytest.raises(Interrupted) as stopped:
        with interrupts.deferred():
            run(progress)
    return stopped.value


def _steps_of(run):
    """(the result, every ``done`` reported) of ``run(progress)``."""
    seen = []
    result = run(lambda done, total, work: seen.append(done))
    return result, seen


CASES = [  # (name, run(progress, folder), steps to stop after)
    ("phase", lambda progress, folder: one_handed(Deck(3, 3), method="phase", progress=progress,
                                                  checkpoint_dir=folder, checkpoint_seconds=0), 3),
    ("dp", lambda progress, folder: one_handed(Deck(2, 5), "one-handed(win=any)", method="dp", progress=progress,
                                               checkpoint_dir=folder, checkpoint_seconds=0), 3),
    ("zeta", lambda progress, folder: one_handed(Deck(3, 3), method="zeta", progress=progress,
                                                 checkpoint_dir=folder, checkpoint_seconds=0), 5),
    ("prisoners dp", lambda progress, folder: prisoners(Deck(2, 4), "prisoners(moves=physical)", method="dp",
                                                        progress=progress, checkpoint_dir=folder,
                                                        checkpoint_seconds=0), 4),
]


@pytest.mark.parametrize("name, run, k", CASES, ids=[c[0] for c in CASES])
def test_a_stopped_count_resumes_where_it_stopped_to_the_same_counts(tmp_path, name, run, k):
    whole, whole_steps = _steps_of(lambda progress: run(progress, None))
    folder = tmp_path / "ck"
    stopped = _stopped_after(k, lambda progress: run(progress, str(folder)))
    assert stopped.saved is not None and f"{k} of " in stopped.saved and str(folder) in stopped.saved
    assert [p.name for p in folder.iterdir() if p.suffix == ".npz"], "the state is on disk"
    again, steps = _steps_of(lambda progress: run(progress, str(folder)))
    assert (again.score_counts, again.wins) == (whole.score_counts, whole.wins)
    # the work before the stop is not done again: the rerun reports k first (zeta announces its
    # finished passes, none, before) and then only later steps
    steps = steps[1:] if name == "zeta" and steps[0] == 0 else steps
    assert steps[0] == k and min(steps) == k and max(steps) == max(whole_steps)
    assert sorted(set(steps) - {k}) == sorted(s for s in set(whole_steps) if s > k)
    assert not [p for p in folder.iterdir() if p.suffix == ".npz"], "a finished count removes its state"


def test_the_zeta_method_keeps_finished_passes_and_the_pass_under_way(tmp_path):
    # 3x3 with primes near 1000: three passes (9! needs two primes' product); 10 set sizes a pass.
    # Stop in the second pass, after 3 of its sizes.
    from exact.one_handed.zeta import zeta_distribution

    def run(progress, folder):
        return zeta_distribution(Deck(3, 3), Variant.coerce(None, "one-handed"), primes=[1009, 1013, 1019],
                                 progress=progress, checkpoint_dir=folder, checkpoint_seconds=0)

    whole, whole_steps = _steps_of(lambda progress: run(progress, None))
    assert max(whole_steps) == 20, "two passes of 10 set sizes"
    stopped = _stopped_after(13, lambda progress: run(progress, str(tmp_path)))
    assert "3 of 10 set sizes of pass 2 of 2 (1 passes done)" in stopped.saved
    passes = json.loads((tmp_path / "zeta-passes-3x3.json").read_text())["passes"]
    assert list(passes) == ["1009"]
    again, steps = _steps_of(lambda progress: run(progress, str(tmp_path)))
    assert again == whole
    # the first pass and 3 sizes of the second are not done again
    assert steps[:2] == [10, 13] and sorted(set(steps[2:])) == list(range(14, 21))


def test_a_checkpoint_of_another_computation_or_a_torn_file_is_refused_in_one_line(tmp_path):
    path = tmp_path / "c.npz"
    StepCheckpoint(path, {"engine": "a"}).save(1, 3, {"x": 1}, {"v": np.arange(3)})
    state, arrays = StepCheckpoint(path, {"engine": "a"}).load()
    assert state == {"x": 1} and arrays["v"].tolist() == [0, 1, 2]
    with pytest.raises(UsageError, match="belongs to another computation"):
        StepCheckpoint(path, {"engine": "b"}).load()
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(UsageError, match="cannot read the checkpoint"):
        StepCheckpoint(path, {"engine": "a"}).load()


def test_a_write_killed_midway_leaves_the_previous_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "c.npz"
    ck = StepCheckpoint(path, {"engine": "a"})
    ck.save(1, 3, {"x": 1}, {})

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # as if the process died while writing the new file

    monkeypatch.setattr(np, "savez", killed)
    with pytest.raises(KeyboardInterrupt):
        ck.save(2, 3, {"x": 2}, {})
    monkeypatch.undo()
    assert StepCheckpoint(path, {"engine": "a"}).load()[0] == {"x": 1}
    assert os.listdir(tmp_path) == ["c.npz"], "no temporary file left"


def test_checkpoints_are_written_at_most_every_interval(tmp_path, monkeypatch):
    clock = [0.0]
    monkeypatch.setattr("exact.checkpoint.time.monotonic", lambda: clock[0])
    ck = StepCheckpoint(tmp_path / "c.npz", {"engine": "a"}, seconds=10)
    for done in range(1, 7):
        clock[0] += 4
        ck.step(done, 9, lambda: ({}, {}))
    assert ck.writes == 2  # at 12 s and 24 s (steps 3 and 6)
    ck.step(9, 9, lambda: ({}, {}))
    assert ck.writes == 2  # the last step is not saved: the result follows at once
    interrupts._pending.append(signal.SIGINT)
    ck.step(9, 9, lambda: ({}, {}))  # nor stopped there: a stop would keep nothing more than the result
    assert interrupts.pending() and ck.writes == 2
    interrupts.forget()


def test_the_word_method_stopped_after_some_jobs_keeps_them_and_runs_only_the_rest(tmp_path, monkeypatch):
    # the word method stops at once on a signal (a job can take hours): what it keeps is each job's
    # line in the journal, fsynced as the job ends. A stop right after job 2 (raised from the progress
    # callback, as the handler's immediate exit) keeps 2 jobs; the rerun runs only the others.
    import exact.one_handed.word_run as word_run

    whole = word_run.word_counts(3, 3)
    ran = []
    real = word_run.run_job
    monkeypatch.setattr(word_run, "run_job", lambda *a, **k: ran.append(a[2]) or real(*a, **k))

    def progress(done, total, cpu):
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        word_run.word_counts(3, 3, checkpoint_dir=str(tmp_path), progress=progress)
    first = list(ran)
    assert len(first) == 2
    ran.clear()
    again = word_run.word_counts(3, 3, checkpoint_dir=str(tmp_path))
    assert (again.ends, again.never) == (whole.ends, whole.never)
    assert ran and not set(ran) & set(first), "the two finished jobs are not run again"
    assert again.stats["jobs_reused"] == 2
