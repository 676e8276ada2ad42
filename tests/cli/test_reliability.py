"""Nothing lost, nothing confusing: signals save the run and say so, a full disk or an unwritable
store is one line with the last checkpoint kept, one run makes one record, long computations resume,
huge runs are refused up front, and fresh seeds survive JSON readers that use doubles."""
import collections
import errno
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

import sim.store.transactions as store_writes  # where the store calls shutil
from sim import Deck, Variant, simulate
from sim.errors import UsageError
from sim.interrupts import Interrupted
from sim.store import ResultsStore, StoreWriteError


def _command(path, *, seed=5, games=3_000_000, workers=1, extra=()):
    return [sys.executable, "-m", "solitaire.cli", "simulate", "--games", str(games), "--seed", str(seed),
            "--chunk-games", "10000", "--checkpoint-seconds", "0", "--workers", str(workers), "--no-progress",
            "--out", str(path), "--json", *extra]


def _wait_for_checkpoint(proc, store, timeout=120):
    deadline = time.monotonic() + timeout
    while not store.checkpoints():
        assert proc.poll() is None, "the run ended before it could be stopped: make it longer"
        assert time.monotonic() < deadline
        time.sleep(0.02)


# --- signals ----------------------------------------------------------------------------------

@pytest.mark.parametrize("signum, workers", [(signal.SIGINT, 1), (signal.SIGTERM, 2)])
def test_signal_saves_the_run_and_says_so(tmp_path, signum, workers):
    path = tmp_path / "s.h5"
    store = ResultsStore(path)
    proc = subprocess.Popen(_command(path, workers=workers), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    _wait_for_checkpoint(proc, store)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signum, err
    assert out == "" and "Traceback" not in err
    match = re.fullmatch(r"solitaire: interrupted: (\d+) of 300 chunks saved to (.+); run the same command to "
                         r"resume\n", err)
    assert match, err
    [unfinished] = store.checkpoints()
    assert unfinished["chunks_done"] == int(match.group(1)) and match.group(2) == str(path)
    # Resuming after a stop gives the counts of an uninterrupted run: test_resume.py (SIGKILL).


def _wait_for_cpu_seconds(proc, seconds: float, timeout: float = 120) -> None:
    stat = f"/proc/{proc.pid}/stat"
    if not os.path.exists(stat):
        pytest.skip("needs /proc to see how far the child is")
    deadline = time.monotonic() + timeout
    while True:
        assert proc.poll() is None, "the child ended before it could be stopped"
        with open(stat) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") >= seconds:
            return
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_a_signal_with_nothing_to_save_stops_at_once_in_one_line():
    # poison's search runs compiled code that calls back into Python: an exception raised from the
    # signal handler there became a SystemError traceback or a segfault; the handler never raises
    proc = subprocess.Popen([sys.executable, "-m", "solitaire.cli", "poison", "--decks", "9999999", "--seed", "1",
                             "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_cpu_seconds(proc, 2.0)  # past the imports (1.1 CPU-s; main() installs the handler)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out, err) == (130, "", "solitaire: interrupted\n")


def test_the_same_signal_delivered_twice_at_once_is_one_request(monkeypatch, capfd):
    # GNU timeout sends SIGTERM to the process and to its process group: two deliveries at once, which
    # once made a run stop at once ("interrupted again") instead of saving its checkpoint
    from sim import interrupts

    exits = []
    monkeypatch.setattr(interrupts.os, "_exit", lambda status: exits.append(status))
    clock = [100.0]
    monkeypatch.setattr(interrupts.time, "monotonic", lambda: clock[0])
    with pytest.raises(Interrupted) as stopped:
        with interrupts.deferred():
            interrupts._handler(signal.SIGTERM, None)
            clock[0] += 0.01
            interrupts._handler(signal.SIGTERM, None)  # the same request: ignored
            assert exits == []
            clock[0] += interrupts.DUPLICATE_SECONDS
            interrupts._handler(signal.SIGTERM, None)  # a second request, later: stop at once
            assert exits == [143]
            interrupts._handler(signal.SIGINT, None)  # another signal: at once too
            assert exits == [143, 130]
    assert stopped.value.signum == signal.SIGTERM
    assert capfd.readouterr().err.count("again: stopped at once") == 2


# --- disk full, unwritable store ----------------------------------------------------------------

def _disk_full_after(monkeypatch, writes: int):
    """The disk reports room for ``writes`` more writes, then none."""
    usage = collections.namedtuple("usage", "total used free")
    calls = []

    def disk_usage(path):
        calls.append(path)
        return usage(1 << 40, 0, (1 << 40) if len(calls) <= writes else 0)

    monkeypatch.setattr(store_writes.shutil, "disk_usage", disk_usage)


def test_disk_full_mid_run_is_one_line_and_keeps_the_last_checkpoint(cli_run, tmp_path, monkeypatch):
    path = tmp_path / "s.h5"
    _disk_full_after(monkeypatch, writes=3)
    code, out, err = cli_run("simulate", "--suits", "4", "--ranks", "5", "--games", "200000", "--chunk-games",
                             "10000", "--seed", "2", "--workers", "1", "--checkpoint-seconds", "0", "--out",
                             str(path), "--no-progress")
    assert code == 1 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert "bytes free" in err and "checkpoint already written is kept" in err
    [unfinished] = ResultsStore(path).checkpoints()
    assert unfinished["chunks_done"] == 3  # three checkpoints written, the fourth refused
    monkeypatch.undo()
    code, out, err = cli_run("simulate", "--suits", "4", "--ranks", "5", "--games", "200000", "--chunk-games",
                             "10000", "--seed", "2", "--workers", "1", "--out", str(path), "--json")
    reference = simulate(Deck(4, 5), games=200_000, chunk_games=10_000, seed=2, progress=False)
    assert code == 0 and json.loads(out)["score_counts"] == list(reference.score_counts)


@pytest.mark.parametrize("errno_, words", [(errno.EROFS, "Read-only file system"),
                                            (errno.ENOSPC, "No space left on device")])
def test_report_and_figures_that_cannot_be_written_are_one_line(cli_run, tmp_path, monkeypatch, errno_, words):
    # a read-only file system passes the permission check up front (as root, or a read-only mount);
    # the writes themselves then fail: one line, exit status 1, no README half-written
    import matplotlib.figure

    store = ResultsStore(tmp_path / "s.h5")
    store.save(simulate(Deck(4, 13), games=2000, seed=1, progress=False))

    def savefig(*args, **kwargs):
        raise OSError(errno_, os.strerror(errno_))

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    code, out, err = cli_run("report", "--no-compute", "--out", str(store.path), "--dir", str(tmp_path / "r"))
    assert (code, out) == (1, "") and err.count("\n") == 1 and words in err and str(tmp_path / "r") in err, err
    assert not (tmp_path / "r" / "README.md").exists() and not list((tmp_path / "r").glob("*.tmp"))
    code, out, err = cli_run("play", "--suits", "1", "--ranks", "4", "--order", "0,1,2,3", "--figure",
                             str(tmp_path / "f.png"))
    assert (code, out) == (1, "") and err.count("\n") == 1 and words in err and "f.png" in err, err


def test_a_failed_write_leaves_the_store_as_it_was(tmp_path, monkeypatch):
    store = ResultsStore(tmp_path / "s.h5")
    store.save(simulate(Deck(2, 3), games=1000, seed=1, progress=False))
    before = store.path.read_bytes()

    def copyfile(*args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_writes.shutil, "copyfile", copyfile)
    with pytest.raises(StoreWriteError, match="No space left"):
        store.save(simulate(Deck(2, 3), games=1000, seed=2, progress=False))
    assert store.path.read_bytes() == before
    assert not store.path.with_name("s.h5.tmp").exists()


# --- one run, one record --------------------------------------------------------------------

@pytest.mark.slow
def test_two_processes_asking_for_one_run_make_one_record(tmp_path):
    path = tmp_path / "s.h5"
    command = _command(path, seed=11, games=6_000_000)
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_checkpoint(first, ResultsStore(path))
    second = subprocess.run(command, capture_output=True, text=True, timeout=300)
    out_first, err_first = first.communicate(timeout=300)
    assert first.returncode == 0 and second.returncode == 0, (err_first, second.stderr)
    # the second waits for the first (its lock) and is then served its record
    assert "shown from there" in second.stderr
    assert json.loads(out_first)["score_counts"] == json.loads(second.stdout)["score_counts"]
    assert len(ResultsStore(path).list()) == 1


def test_a_finished_sweep_is_served_from_the_store(cli_run, tmp_path):
    args = ("sweep", "--suits", "2-3", "--ranks", "3,4", "--games", "2000", "--exact-max-cards", "8",
            "--seed", "1", "--out", str(tmp_path / "s.h5"), "--json")
    code, first, _ = cli_run(*args)
    code_again, again, err = cli_run(*args)
    assert code == code_again == 0 and "shown from there" in err
    assert json.loads(again)["cells"] == json.loads(first)["cells"]
    assert [r["kind"] for r in ResultsStore(tmp_path / "s.h5").list()].count("sweep") == 1


def test_a_stored_exact_result_is_served_not_stored_again(cli_run, tmp_path):
    path = str(tmp_path / "e.h5")
    code, first, _ = cli_run("exact", "--suits", "2", "--ranks", "3", "--out", path, "--json")
    code_again, again, err = cli_run("exact", "--suits", "2", "--ranks", "3", "--out", path, "--json")
    assert code == code_again == 0 and "shown from there" in err
    assert json.loads(again) == json.loads(first)
    code, _, err = cli_run("exact", "--suits", "2", "--ranks", "3", "--method", "enumerate", "--out", path)
    assert code == 0 and "shown from there" not in err  # another method asked for: computed (a second witness)
    assert [r["method"] for r in ResultsStore(path).list()] == ["dp", "enumerate"]


def test_an_interrupted_validation_resumes_by_case(tmp_path, monkeypatch):
    import solitaire.validate as validate_module

    cases = [(Deck(2, 2), Variant.make("one-handed")), (Deck(1, 4), Variant.make("one-handed")),
             (Deck(2, 3), Variant.make("one-handed", win="any"))]
    kwargs = dict(games=3000, seed=4, coverage=2, coverage_games=1000, progress=False)
    reference = validate_module.validate(cases, **kwargs)
    real, calls = validate_module.simulate, []

    def stop_in_the_second_case(*args, **kw):
        calls.append(1)
        if len(calls) > 3:  # a case is 1 + coverage runs
            raise Interrupted(signal.SIGTERM)
        return real(*args, **kw)

    store = ResultsStore(tmp_path / "s.h5")
    monkeypatch.setattr(validate_module, "simulate", stop_in_the_second_case)
    with pytest.raises(Interrupted) as stopped:
        validate_module.validate(cases, out=store, **kwargs)
    assert stopped.value.saved.startswith("1 of 3 cases saved")
    monkeypatch.setattr(validate_module, "simulate", real)
    messages = []
    resumed = validate_module.validate(cases, out=store, notify=messages.append, **kwargs)
    assert "1 of 3 cases already done" in messages[0]
    assert [c.to_dict() for c in resumed.checks] == [c.to_dict() for c in reference.checks]
    again = validate_module.validate(cases, out=store, notify=messages.append, **kwargs)
    assert "shown from there" in messages[-1] and again.to_dict() == resumed.to_dict()
    assert len(store.list()) == 1


# --- the journal ------------------------------------------------------------------------------

def test_checkpoints_never_rewrite_the_store_file(tmp_path, stop_simulation_after):
    store = ResultsStore(tmp_path / "s.h5")
    store.save(simulate(Deck(2, 3), games=1000, seed=1, progress=False))
    before = store.path.read_bytes()
    stop_simulation_after(4)
    with pytest.raises(KeyboardInterrupt):
        simulate(Deck(4, 5), games=100_000, chunk_games=10_000, seed=3, workers=1, out=store, checkpoint_seconds=0,
                 progress=False)
    assert store.path.read_bytes() == before  # the checkpoints went to the journal
    assert store.checkpoints()[0]["chunks_done"] == 4


# --- huge runs, seeds -------------------------------------------------------------------------

def test_runs_too_long_are_refused_up_front_with_their_estimate():
    with pytest.raises(UsageError, match=r"would take about .* --yes"):
        simulate(Deck(4, 13), games=10**12, seed=1, max_hours=1.0)
    with pytest.raises(UsageError, match="chunks"):
        simulate(Deck(4, 13), games=10**15, seed=1)


def test_a_sweep_too_long_is_refused_before_its_first_cell(monkeypatch):
    import solitaire.sweep as sweep_module

    played = []
    monkeypatch.setattr(sweep_module, "simulate", lambda *args, **kwargs: played.append(args))
    with pytest.raises(UsageError, match=r"3 simulated cells of .* would take about .* --yes"):
        sweep_module.sweep([2, 4], [3, 9], games=10**10, exact_max_cards=6, max_hours=0.001)
    with pytest.raises(UsageError, match="chunks"):
        sweep_module.sweep([2, 4], [3, 9], games=10**15, exact_max_cards=6)
    assert played == []  # 2x3 is exact, the three others simulated: nothing played before the refusal


def test_fresh_seeds_survive_json_readers_that_use_doubles():
    seeds = [simulate(Deck(2, 2), games=10, progress=False).seed for _ in range(20)]
    assert all(0 <= s < 2**53 and int(float(s)) == s for s in seeds)
    assert len(set(seeds)) == 20


@pytest.mark.parametrize("game, args", [("prisoners", ("--suits", "2", "--ranks", "3")),
                                        ("hand", ("--suits", "2", "--ranks", "3", "--cap", "20"))])
def test_json_and_the_stored_record_are_one_record(cli_run, tmp_path, game, args):
    code, out, err = cli_run("simulate", "--game", game, *args, "--games", "2000", "--seed", "3", "--out",
                             str(tmp_path / "s.h5"), "--json")
    assert code == 0, err
    shown = json.loads(out)
    [stored] = ResultsStore(tmp_path / "s.h5").list()
    derived = [k for k in shown if k.startswith("ci95_") or k in ("iteration_stats", "cap")]
    assert derived and all(stored[k] == shown[k] for k in derived)
