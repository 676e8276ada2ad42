"""``solitaire solve`` keeps its work: ``--decks`` with ``--out`` checkpoints by deck in the store's
journal, is stopped cleanly by a signal (one line, exit 130 or 143), resumes to the counts of an
uninterrupted run, and a finished run is served from the store (one record); a single deck's verdict
and a whole small deck's best play are served from the store too."""
import json
import re
import signal
import subprocess
import sys
import time

import exact.prisoners.best_play as best_play_module
from exact.prisoners.solver import make_searcher
from sim.interrupts import Interrupted
from sim.store import ResultsStore

#: 12 random decks of a small deck: each solved in milliseconds.
ARGS = ("solve", "--suits", "2", "--ranks", "5", "--decks", "12", "--node-budget", "2000", "--checkpoint-seconds",
        "0", "--no-progress")


def _without_time(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in ("seconds", "seconds_per_deck", "decks_per_second")}


class _Counting:
    """A searcher that records the decks it solves, and raises ``stop`` at deck number ``stop_at``
    (as :func:`sim.interrupts.check` raises after a signal)."""

    def __init__(self, searcher, solved, stop_at=None):
        self._searcher, self._solved, self._stop_at = searcher, solved, stop_at

    def __getattr__(self, name):
        return getattr(self._searcher, name)

    def solve_ranks(self, *args, **kwargs):
        if self._stop_at is not None and len(self._solved) + 1 == self._stop_at:
            raise Interrupted(signal.SIGTERM)
        self._solved.append(tuple(args[0]))
        return self._searcher.solve_ranks(*args, **kwargs)


def _count_decks(monkeypatch, solved, stop_at=None):
    monkeypatch.setattr(best_play_module, "make_searcher",
                        lambda *a, **k: _Counting(make_searcher(*a, **k), solved, stop_at))


def test_a_stopped_run_resumes_to_the_uninterrupted_counts_and_is_stored_once(cli_run, tmp_path, monkeypatch):
    path = tmp_path / "b.h5"
    solved = []
    _count_decks(monkeypatch, solved, stop_at=5)
    code, out, err = cli_run(*ARGS, "--out", str(path), "--json")  # no --seed: a fresh one
    assert (code, out) == (143, "") and "Traceback" not in err
    assert err == f"solitaire: interrupted: 4 of 12 decks saved to {path}; run the same command to resume\n"
    [unfinished] = ResultsStore(path).unfinished_parts()
    assert (unfinished["kind"], unfinished["done"], unfinished["total"], unfinished["unit"]) == ("best_play", 4, 12,
                                                                                               "decks")
    code, listing, _ = cli_run("runs", "--out", str(path))
    assert code == 0 and "4/12 decks done" in listing

    first_four = list(solved)
    solved.clear()
    _count_decks(monkeypatch, solved)
    code, out, err = cli_run(*ARGS, "--out", str(path), "--json")  # the same command: resumes, same seed
    assert code == 0, err
    assert len(solved) == 8 and "4 of 12 decks already done" in err
    resumed = json.loads(out)
    solved.clear()
    code, out, _ = cli_run(*ARGS, "--seed", str(resumed["seed"]), "--json")  # no store: solved in one go
    assert code == 0 and _without_time(json.loads(out)) == _without_time(resumed)
    assert solved[:4] == first_four  # the same decks, in the same order

    solved.clear()
    code, out, err = cli_run(*ARGS, "--seed", str(resumed["seed"]), "--out", str(path), "--json")
    assert code == 0 and solved == [] and "shown from there" in err
    assert json.loads(out) == resumed
    code, listing, _ = cli_run("runs", "--out", str(path))
    assert code == 0 and "proved won 12, proved lost 0, open 0" in listing
    store = ResultsStore(path)
    assert len(store.names(kind="best_play")) == 1 and store.unfinished_parts() == []
    # another budget is another run
    code, _, err = cli_run(*ARGS, "--seed", str(resumed["seed"]), "--node-budget", "3000", "--out", str(path))
    assert code == 0 and "shown from there" not in err and len(store.names(kind="best_play")) == 2


def test_no_resume_solves_again_from_the_first_deck(cli_run, tmp_path, monkeypatch):
    path = tmp_path / "b.h5"
    solved = []
    _count_decks(monkeypatch, solved, stop_at=3)
    code, _, _ = cli_run(*ARGS, "--seed", "5", "--out", str(path))
    assert code == 143 and len(solved) == 2
    solved.clear()
    _count_decks(monkeypatch, solved)
    code, _, err = cli_run(*ARGS, "--seed", "5", "--out", str(path), "--no-resume")
    assert code == 0 and len(solved) == 12 and "already done" not in err


def test_a_verdict_and_a_whole_deck_are_served_from_the_store(cli_run, tmp_path):
    path = str(tmp_path / "s.h5")
    one = ("solve", "--suits", "2", "--ranks", "4", "--order", "AS 2S 3S 4S AH 2H 3H 4H", "--out", path, "--json")
    whole = ("solve", "--suits", "2", "--ranks", "3", "--all", "--out", path, "--json")
    for args in (one, whole):
        code, first, err = cli_run(*args)
        assert code == 0 and "shown from there" not in err, err
        code, again, err = cli_run(*args)
        assert code == 0 and "shown from there" in err
        assert json.loads(again) == json.loads(first)
    code, _, err = cli_run(*one[:-1], "--node-budget", "5")  # another budget: solved and stored
    assert code == 0 and "shown from there" not in err
    # the move policy's exact distribution is not the stored best play of the same deck and variant
    code, out, err = cli_run("exact", "--game", "prisoners", "--variant", "moves=physical", "--suits", "2", "--ranks",
                             "3", "--out", path, "--json")
    assert code == 0 and "shown from there" not in err and json.loads(out)["method"] != "best-play"
    assert [r["kind"] for r in ResultsStore(path).list()] == ["solve", "exact", "solve", "exact"]


def test_a_verdict_or_run_of_another_strategy_is_not_served(cli_run, tmp_path):
    # an undecided verdict depends on the strategy that spent the budget: each is its own record
    path = str(tmp_path / "s.h5")
    one = ("solve", "--order", "4S QS AC 5C 6D 2H AD 8C 6S JH KD 3D 5S 2C JD 8H 4H QH JS 9C KS 7D 9H 10C 3C KC 4D "
           "9D 3S QC 5H AS 7S 2D 9S 2S 7C JC 4C QD 3H 10D 5D 8D 10S 6C 8S 10H AH 6H KH 7H", "--node-budget", "300",
           "--out", path)
    run = (*ARGS, "--seed", "3", "--out", path)
    for args, kind in ((one, "solve"), (run, "best_play")):
        strategies = {}
        for strategy in ("dfs", "beam", "dfs", None):
            code, out, err = cli_run(*args, "--json", *(("--strategy", strategy) if strategy else ()))
            assert code == 0, err
            record = json.loads(out)
            assert record["strategy"] == (strategy or "hybrid")  # the physical rule's default
            assert ("shown from there" in err) == (strategy in strategies), (strategy, err)
            strategies.setdefault(strategy, record)
        assert len(ResultsStore(path).names(kind=kind)) == 3
    code, out, _ = cli_run(*one[:-2], "--strategy", "nrpa")
    assert code == 0 and "open: no proof either way after " in out and "(strategy nrpa): its node budget of " in out
    code, out, _ = cli_run(*ARGS, "--seed", "3", "--strategy", "beam")
    assert code == 0 and "strategy beam" in out.splitlines()[0]


def test_a_verdict_stored_before_verdicts_named_their_strategy_is_the_restarts(cli_run, tmp_path):
    # the restarts were the default then; the physical rule's default is now the hybrid, another search
    import dataclasses

    from exact.prisoners.limits import DEFAULT_NODE_BUDGETS
    from exact.prisoners.solver import solve
    from sim.deck import Deck

    path = tmp_path / "s.h5"
    order = "AS 2S 3S 4S AH 2H 3H 4H"
    old = dataclasses.replace(solve([0, 1, 2, 3, 4, 5, 6, 7], Deck(2, 4), node_budget=DEFAULT_NODE_BUDGETS["physical"]),
                              strategy=None)  # at the default budget, which the command below uses
    ResultsStore(path).save(old)  # as stored before: no strategy
    args = ("solve", "--suits", "2", "--ranks", "4", "--order", order, "--out", str(path), "--json")
    for strategy, served in (("restarts", True), (None, False), ("beam", False)):
        code, out, err = cli_run(*args, *(("--strategy", strategy) if strategy else ()))
        assert code == 0 and ("shown from there" in err) == served, (strategy, err)


def test_sigterm_during_solve_decks_saves_the_decks_and_says_so(tmp_path):
    path = tmp_path / "b.h5"
    command = [sys.executable, "-m", "solitaire.cli", "solve", "--decks", "400", "--seed", "7", "--node-budget",
               "100000", "--checkpoint-seconds", "0", "--no-progress", "--out", str(path)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    store, deadline = ResultsStore(path), time.monotonic() + 120
    while not store.unfinished_parts():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert (proc.returncode, out) == (143, "") and "Traceback" not in err
    match = re.fullmatch(r"solitaire: interrupted: (\d+) of 400 decks saved to (.+); run the same command to "
                         r"resume\n", err)
    assert match, err
    [unfinished] = store.unfinished_parts()
    assert unfinished["done"] == int(match.group(1)) > 0 and match.group(2) == str(path)


def test_a_full_disk_ends_the_run_in_one_line_and_keeps_the_last_checkpoint(cli_run, tmp_path, monkeypatch):
    import collections

    import sim.store.transactions as store_writes  # where the store calls shutil

    usage, calls = collections.namedtuple("usage", "total used free"), []

    def disk_usage(path):  # room for three checkpoints, then none
        calls.append(path)
        return usage(1 << 40, 0, (1 << 40) if len(calls) <= 3 else 0)

    path = tmp_path / "b.h5"
    monkeypatch.setattr(store_writes.shutil, "disk_usage", disk_usage)
    code, out, err = cli_run(*ARGS, "--seed", "3", "--out", str(path), "--json")
    assert (code, out) == (1, "") and err.count("\n") == 1 and "Traceback" not in err
    assert "bytes free" in err and "checkpoint already written is kept" in err
    [unfinished] = ResultsStore(path).unfinished_parts()
    assert unfinished["done"] == 3
    monkeypatch.undo()
    code, out, err = cli_run(*ARGS, "--seed", "3", "--out", str(path), "--json")
    assert code == 0 and "3 of 12 decks already done" in err
    code, reference, _ = cli_run(*ARGS, "--seed", "3", "--json")
    assert _without_time(json.loads(out)) == _without_time(json.loads(reference))


def test_what_an_older_search_stored_is_not_served(cli_run, tmp_path, monkeypatch):
    # A verdict or a run stored by an earlier version of the search (SOLVER_VERSION) may be weaker
    # ("undecided" where the search now decides): asked for again, it is solved again and stored beside.
    import exact.prisoners.solver as solver

    path = str(tmp_path / "s.h5")
    one = ("solve", "--suits", "2", "--ranks", "4", "--order", "AS 2S 3S 4S AH 2H 3H 4H", "--out", path, "--json")
    run = (*ARGS, "--seed", "3", "--out", path, "--json")
    for args, kind in ((one, "solve"), (run, "best_play")):
        code, first, err = cli_run(*args)
        assert code == 0 and "shown from there" not in err, err
        assert cli_run(*args)[2].count("shown from there") == 1
        monkeypatch.setattr(solver, "SOLVER_VERSION", solver.SOLVER_VERSION + 1)
        code, again, err = cli_run(*args)
        assert code == 0 and "shown from there" not in err, err
        assert len(ResultsStore(path).names(kind=kind)) == 2
        monkeypatch.undo()
        if kind == "solve":  # a verdict names the search that gave it
            assert json.loads(first)["solver_version"] == solver.SOLVER_VERSION
