"""`solitaire exact` stopped by Ctrl-C or SIGTERM keeps what it did (in the store's journal with
--out, in --checkpoint-dir without), says so on a line of its own, and the same command run again
resumes to the counts of an uninterrupted run."""
import json
import signal
import subprocess
import sys

import pytest

from sim import interrupts, progress


@pytest.mark.parametrize("method, deck, k, unit, signum", [
    ("dp", ("2", "5"), 4, "cards", signal.SIGINT),
    ("phase", ("3", "3"), 2, "set sizes", signal.SIGTERM),
])
def test_an_interrupted_exact_count_resumes_from_the_store_journal(cli_run, tmp_path, stop_after, method, deck, k,
                                                                   unit, signum):
    args = ["exact", "--suits", deck[0], "--ranks", deck[1], "--method", method, "--json"]
    code, whole, _ = cli_run(*args)
    assert code == 0
    store = tmp_path / "ex.h5"
    steps = stop_after(k, signum)
    code, out, err = cli_run(*args, "--out", str(store))
    assert (code, out) == (128 + signum, "")
    assert err.startswith(f"solitaire: interrupted: {k} of ") and f" {unit} saved to {tmp_path}/ex.h5.journal/" in err
    assert err.endswith("; run the same command to resume\n") and err.count("\n") == 1
    kept = list((tmp_path / "ex.h5.journal").rglob("*.npz"))
    assert len(kept) == 1, "the state is in the store's journal"
    first_run = len(steps)
    code, out, err = cli_run(*args, "--out", str(store))
    assert code == 0, err
    rerun = steps[first_run:]
    assert rerun and min(rerun) == k + 1, "the steps done before the stop are not done again"
    import json

    again, whole = json.loads(out), json.loads(whole)
    assert (again["score_counts"], again["wins"]) == (whole["score_counts"], whole["wins"])
    assert not (tmp_path / "ex.h5.journal").exists(), "nothing is left once the result is stored"


def test_checkpoint_dir_keeps_the_state_without_a_store(cli_run, tmp_path, stop_after):
    args = ["exact", "--suits", "2", "--ranks", "5", "--method", "dp", "--checkpoint-dir", str(tmp_path)]
    stop_after(3)
    code, out, err = cli_run(*args)
    assert code == 130 and f"3 of 10 cards saved to {tmp_path}/one-handed-dp-2x5-" in err
    code, out, err = cli_run(*args)
    assert code == 0 and "orders 3,628,800" in out and not list(tmp_path.iterdir())


def test_without_a_place_to_keep_it_an_exact_count_says_that_nothing_was_kept(monkeypatch, capfd):
    from solitaire.commands.exact import _stopping

    exits = []
    monkeypatch.setattr(interrupts.os, "_exit", lambda status: exits.append(status))
    with _stopping("dp", {"checkpoint_dir": None}):
        interrupts._handler(signal.SIGINT, None)
    with _stopping("word", {"checkpoint_dir": "jobs"}):
        interrupts._handler(signal.SIGTERM, None)
    assert exits == [130, 143]
    err = capfd.readouterr().err.splitlines()
    assert "interrupted: nothing was kept (--out FILE or --checkpoint-dir DIR keep the work done" in err[0]
    assert err[1].endswith("interrupted: the finished jobs are kept in jobs; run the same command to resume")


def test_the_interrupt_line_starts_on_a_line_of_its_own_after_a_progress_bar(monkeypatch, capsys):
    # a bar drawn into a file (stderr redirected) ends with a carriage return, not a newline: the
    # line "solitaire: interrupted" was glued to it
    from solitaire.cli import _interrupted

    monkeypatch.setattr("os.isatty", lambda fd: False)
    progress._Tracked(sys.stderr).write("\rexact:  40%|####      | 4/10 [00:25<00:38]")  # a bar drawn
    assert _interrupted(None) == 130
    assert capsys.readouterr().err.endswith("4/10 [00:25<00:38]\nsolitaire: interrupted\n")
    assert _interrupted(None) == 130  # nothing drawn since: no blank line
    assert capsys.readouterr().err == "solitaire: interrupted\n"
    progress._Tracked(sys.stderr).write("\r" + " " * 40 + "\r")  # a bar closed: its line cleared
    assert _interrupted(None) == 130
    assert capsys.readouterr().err.endswith("\rsolitaire: interrupted\n")


@pytest.mark.slow
def test_sigint_during_a_real_exact_run_keeps_the_journal_and_resumes(tmp_path):
    # the case, in a child process: 4x5 (zeta, one pass at a time), SIGINT part way
    from tests.cli.test_reliability import _wait_for_cpu_seconds

    store = tmp_path / "ex.h5"
    cmd = [sys.executable, "-m", "solitaire.cli", "exact", "--suits", "4", "--ranks", "5", "--json"]
    proc = subprocess.Popen(cmd + ["--out", str(store)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_for_cpu_seconds(proc, 12.0, timeout=600)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=600)
    err = err.decode()  # bytes: text mode would read the bar's carriage returns as newlines
    assert proc.returncode == 130 and out == b"", err
    last = err.split("\n")[-2]  # the bar (redrawn after carriage returns) and then the message, on its own line
    assert last.startswith("solitaire: interrupted: ") and " set sizes of pass " in last, err
    assert last.endswith("; run the same command to resume") and err.endswith("\n"), err
    assert list(tmp_path.rglob("*.npz")), "the pass under way is kept"
    again = subprocess.run(cmd + ["--out", str(store)], capture_output=True, text=True, timeout=900)
    fresh = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    import json

    a, f = json.loads(again.stdout), json.loads(fresh.stdout)
    assert again.returncode == 0 and (a["score_counts"], a["wins"]) == (f["score_counts"], f["wins"])
    assert not (tmp_path / "ex.h5.journal").exists()


@pytest.mark.parametrize("args, module, name, note", [
    (["poison", "--suits", "2", "--ranks", "2", "--all"], "exact.hand.whole_deck", "analyse_deck",
     "the whole-graph analysis keeps its work only with --out FILE: nothing of it was kept"),
    (["odds", "--suits", "2", "--ranks", "2", "--dealt", "AS"], "exact.one_handed.odds", "odds",
     "nothing was kept (the exact phase engine keeps its counts with --checkpoint-dir DIR)"),
])
def test_computations_that_keep_nothing_say_so_when_stopped(monkeypatch, capfd, args, module, name, note):
    import importlib

    from solitaire.cli import main

    exits = []
    monkeypatch.setattr(interrupts.os, "_exit", lambda status: exits.append(status))

    def stopped(*a, **k):
        interrupts._handler(signal.SIGINT, None)  # the handler's immediate stop, os._exit caught
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib.import_module(module), name, stopped)
    code = main(args)
    assert exits == [130] and code == 130
    assert f"interrupted: {note}\n" in capfd.readouterr().err


@pytest.mark.parametrize("method", ["dp", "word"])
def test_exact_draws_its_progress_unless_told_not_to(cli_run, monkeypatch, method):
    monkeypatch.setattr(progress, "DELAY_SECONDS", 0)
    monkeypatch.setattr(progress, "MIN_INTERVAL", 0)  # every update drawn, however fast the count
    args = ("exact", "--suits", "2", "--ranks", "3", "--method", method, "--json")
    code, out, err = cli_run(*args)
    assert code == 0 and "exact:" in err
    code, quiet, err = cli_run(*args, "--no-progress")
    assert code == 0 and err == ""
    assert json.loads(quiet)["score_counts"] == json.loads(out)["score_counts"]


def test_validate_draws_its_progress_unless_told_not_to(cli_run, monkeypatch):
    monkeypatch.setattr(progress, "DELAY_SECONDS", 0)
    monkeypatch.setattr(progress, "MIN_INTERVAL", 0)
    args = ("validate", "--max-cards", "4", "--games", "2000", "--coverage", "0", "--variant", "win=end", "--json")
    code, _, err = cli_run(*args)
    assert code == 0 and "validate:" in err
    code, _, err = cli_run(*args, "--no-progress")
    assert code == 0 and err == ""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_odds_resume_from_their_checkpoint_to_the_same_counts(cli_run, tmp_path, stop_after, signum):
    args = ["odds", "--suits", "4", "--ranks", "5", "--dealt", "AS 2H 3D 4C 5S AH 2D 3C", "--method", "exact",
            "--engine", "phase", "--workers", "1", "--json"]
    code, whole, err = cli_run(*args)
    assert code == 0, err
    folder = tmp_path / "kept"
    steps = stop_after(1, signum)
    code, out, err = cli_run(*args, "--checkpoint-dir", str(folder))
    assert (code, out) == (128 + signum, "")
    assert err.startswith("solitaire: interrupted: 1 of ") and f" row depths saved to {folder}/" in err
    assert len(list(folder.glob("*.npz"))) == 1
    first_run = len(steps)
    code, out, err = cli_run(*args, "--checkpoint-dir", str(folder))
    assert code == 0, err
    rerun = steps[first_run:]
    assert rerun and min(rerun) == 2, "the depths dealt before the stop are not dealt again"
    again, whole = json.loads(out), json.loads(whole)
    assert (again["score_counts"], again["p_win"]) == (whole["score_counts"], whole["p_win"])
    assert list(folder.iterdir()) == [], "the checkpoint is removed once the odds are shown"


def test_odds_keep_nothing_without_a_checkpoint_dir_and_refuse_one_with_each(cli_run, tmp_path):
    code, out, err = cli_run("odds", "--suits", "2", "--ranks", "3", "--each", "AS 2S 3S AH 2H 3H",
                             "--checkpoint-dir", str(tmp_path / "k"))
    assert code == 2 and out == "" and err.count("\n") == 1 and "--checkpoint-dir" in err
    assert not (tmp_path / "k").exists()
