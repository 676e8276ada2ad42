"""``solitaire poison`` keeps its work: checkpointed by chunk in the store's journal, stopped cleanly by
a signal, resumed to the counts of an uninterrupted run, a finished one served from the store (one
record), with progress on stderr; ``solve --decks`` shows progress too; seeds of 2^53 or more are
JSON strings that ``--seed`` takes back."""
import json
import signal

import pytest

import exact.hand.poison as poison_module
import sim.progress
from sim.interrupts import Interrupted
from sim.store import ResultsStore

#: A small deck with many capped runs; chunks of 40 decks, so that 150 decks are 4 chunks.
ARGS = ("poison", "--suits", "2", "--ranks", "3", "--cap", "40", "--decks", "150", "--checkpoint-seconds", "0",
        "--no-progress")


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(poison_module, "CHUNK_DECKS", 40)


def _without_time(record: dict) -> dict:
    return {k: v for k, v in record.items() if k != "seconds"}


def test_a_stopped_classification_resumes_to_the_uninterrupted_counts(cli_run, tmp_path, monkeypatch, small_chunks):
    path = tmp_path / "p.h5"
    real, calls = poison_module.classify_chunk, []

    def stop_in_the_third_chunk(*args, **kwargs):
        calls.append(kwargs["chunk"])
        if len(calls) == 3:
            raise Interrupted(signal.SIGTERM)  # as sim.interrupts.check() raises it after a SIGTERM
        return real(*args, **kwargs)

    monkeypatch.setattr(poison_module, "classify_chunk", stop_in_the_third_chunk)
    code, out, err = cli_run(*ARGS, "--out", str(path), "--json")  # no --seed: a fresh one
    assert (code, out) == (143, "") and "Traceback" not in err
    assert err == f"solitaire: interrupted: 2 of 4 chunks saved to {path}; run the same command to resume\n"
    [unfinished] = ResultsStore(path).unfinished_parts()
    assert (unfinished["kind"], unfinished["done"], unfinished["total"], unfinished["unit"]) == ("poison", 2, 4,
                                                                                               "chunks")
    code, listing, _ = cli_run("runs", "--out", str(path))
    assert code == 0 and "2/4 chunks done" in listing

    monkeypatch.setattr(poison_module, "classify_chunk", real)
    calls.clear()
    monkeypatch.setattr(poison_module, "classify_chunk", lambda *a, **k: calls.append(k["chunk"]) or real(*a, **k))
    code, out, err = cli_run(*ARGS, "--out", str(path), "--json")  # the same command: resumes, same seed
    assert code == 0, err
    assert calls == [2, 3] and "2 of 4 chunks already done" in err
    resumed = json.loads(out)
    code, out, _ = cli_run(*ARGS, "--seed", str(resumed["seed"]), "--json")  # no store: played in one go
    assert code == 0 and _without_time(json.loads(out)) == _without_time(resumed)

    calls.clear()
    code, out, err = cli_run(*ARGS, "--seed", str(resumed["seed"]), "--out", str(path), "--json")
    assert code == 0 and calls == [] and "shown from there" in err
    assert json.loads(out) == resumed
    store = ResultsStore(path)
    assert len(store.names(kind="poison")) == 1 and store.unfinished_parts() == []


def test_no_resume_plays_again_and_a_whole_graph_is_stored_once(cli_run, tmp_path, small_chunks):
    path = tmp_path / "p.h5"
    args = ("poison", "--suits", "3", "--ranks", "2", "--cap", "40", "--decks", "50", "--seed", "9", "--all",
            "--out", str(path), "--json")
    code, first, err = cli_run(*args)
    assert code == 0, err
    code, again, err = cli_run(*args)
    assert code == 0 and err.count("shown from there") == 2  # the graph and the classification
    assert json.loads(again) == json.loads(first)
    store = ResultsStore(path)
    assert len(store.names(kind="poison")) == 1 and len(store.names(kind="hand-graph")) == 1


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_whole_graph_resumes_from_the_store_journal(cli_run, tmp_path, stop_after, signum):
    args = ("poison", "--suits", "2", "--ranks", "5", "--variant", "step7=off", "--all", "--json")
    code, whole, err = cli_run(*args)
    assert code == 0, err
    steps = stop_after(37, signum)  # during lifting step 37 of 200
    path = tmp_path / "p.h5"
    code, out, err = cli_run(*args, "--out", str(path))
    assert (code, out) == (128 + signum, "")
    assert err.startswith(f"solitaire: interrupted: 37 lifting steps saved to {path}.journal/"), err
    assert err.endswith("; run the same command to resume\n") and err.count("\n") == 1
    assert len(list(tmp_path.rglob("*.npz"))) == 2, "the explored graph and the lifting"
    code, out, err = cli_run(*args, "--out", str(path))
    assert code == 0, err
    assert list(dict.fromkeys(steps[37:])) == list(range(38, 201)), "the lifting resumed from the next step"
    assert json.loads(out) == json.loads(whole)
    assert not (tmp_path / "p.h5.journal").exists(), "nothing is left once the result is stored"
    assert len(ResultsStore(path).names(kind="hand-graph")) == 1


def test_no_resume_starts_a_stopped_whole_graph_again(cli_run, tmp_path, stop_after):
    args = ("poison", "--suits", "2", "--ranks", "5", "--variant", "step7=off", "--all", "--json",
            "--out", str(tmp_path / "p.h5"))
    steps = stop_after(37)  # during lifting step 37 of 200
    code, out, err = cli_run(*args)
    assert code == 130 and out == "", err
    code, out, err = cli_run(*args, "--no-resume")
    assert code == 0, err
    assert list(dict.fromkeys(steps[37:])) == list(range(1, 201)), "the lifting started again from its first step"
    assert not (tmp_path / "p.h5.journal").exists()
    code, again, err = cli_run(*args)
    assert code == 0 and "shown from there" in err and json.loads(again) == json.loads(out)


def test_a_whole_graph_stopped_while_exploring_says_that_nothing_was_kept(monkeypatch, capfd, tmp_path):
    import exact.hand.whole_deck as whole_deck
    from sim import interrupts
    from solitaire.cli import main

    exits = []
    monkeypatch.setattr(interrupts.os, "_exit", lambda status: exits.append(status))

    def stopped(*a, **k):
        interrupts._handler(signal.SIGTERM, None)  # the handler's immediate stop, os._exit caught
        raise KeyboardInterrupt

    monkeypatch.setattr(whole_deck, "analyse_deck", stopped)
    code = main(["poison", "--suits", "2", "--ranks", "4", "--all", "--out", str(tmp_path / "p.h5")])
    assert exits == [143] and code == 130
    assert "interrupted: the whole-graph analysis was still exploring its graph: nothing of it was kept\n" in \
        capfd.readouterr().err
    assert list(tmp_path.iterdir()) == [], "no store, no journal"


def test_poison_and_solve_decks_show_progress(cli_run, tmp_path, monkeypatch, small_chunks):
    monkeypatch.setattr(sim.progress, "DELAY_SECONDS", 0)
    monkeypatch.setattr(sim.progress, "MIN_INTERVAL", 0)  # every update drawn, however fast the run
    code, out, err = cli_run("poison", "--suits", "2", "--ranks", "3", "--cap", "40", "--decks", "100", "--seed",
                             "1", "--json")
    assert code == 0 and json.loads(out)["decks"] == 100
    assert "poison:" in err and "40/100" in err
    code, out, err = cli_run("solve", "--suits", "2", "--ranks", "4", "--decks", "5", "--seed", "1", "--json")
    assert code == 0 and json.loads(out)["decks"] == 5
    assert "solve:" in err and "/5 " in err
    code, out, err = cli_run("solve", "--suits", "2", "--ranks", "4", "--decks", "5", "--seed", "1", "--json",
                             "--no-progress")
    assert code == 0 and err == ""


def test_large_seeds_are_json_strings_that_seed_takes_back(cli_run, tmp_path):
    big = 2**64 + 17
    path = tmp_path / "s.h5"
    code, out, err = cli_run("simulate", "--suits", "2", "--ranks", "3", "--games", "500", "--seed", str(big),
                             "--out", str(path), "--json")
    assert code == 0, err
    first = json.loads(out)
    assert first["seed"] == str(big)
    # the string as jq prints it (quotes and all) is a seed: the same games
    code, out, err = cli_run("simulate", "--suits", "2", "--ranks", "3", "--games", "500", "--seed", f'"{big}"',
                             "--json")
    assert code == 0 and json.loads(out)["score_counts"] == first["score_counts"]
    assert ResultsStore(path).list()[0]["seed"] == big  # the store keeps the integer, exactly
    code, out, _ = cli_run("runs", "--out", str(path), "--json")
    assert code == 0 and json.loads(out)["results"][0]["seed"] == str(big)
    # derived seeds (a sweep's cells) are 64-bit: strings too; small seeds stay integers
    code, out, _ = cli_run("sweep", "--suits", "2", "--ranks", "4", "--games", "500", "--exact-max-cards", "0",
                           "--seed", "3", "--json")
    sweep = json.loads(out)
    assert code == 0 and sweep["seed"] == 3
    [cell] = sweep["cells"]
    assert isinstance(cell["seed"], str) and int(cell["seed"]) >= 2**53


@pytest.mark.slow
def test_two_processes_asking_for_one_classification_make_one_record(tmp_path):
    import subprocess
    import sys
    import time

    path = tmp_path / "p.h5"
    command = [sys.executable, "-m", "solitaire.cli", "poison", "--decks", "600000", "--seed", "12",
               "--checkpoint-seconds", "0", "--no-progress", "--out", str(path), "--json"]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not ResultsStore(path).unfinished_parts():  # the first has saved a chunk: it holds the run
        assert first.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    second = subprocess.run(command, capture_output=True, text=True, timeout=600)
    out_first, err_first = first.communicate(timeout=600)
    assert first.returncode == 0 and second.returncode == 0, (err_first, second.stderr)
    assert "waiting for it to finish" in second.stderr and "shown from there" in second.stderr
    assert json.loads(second.stdout) == json.loads(out_first)
    assert len(ResultsStore(path).names(kind="poison")) == 1


def test_a_long_whole_graph_analysis_says_where_it_is():
    """``poison --all`` passes the analysis a progress callable: a line per phase once it has run a
    while, lifting lines at most every so often, nothing for a quick analysis."""
    from exact.hand.whole_deck import analyse_deck
    from sim import Deck, Variant
    from solitaire.commands.poison import graph_progress

    lines = []
    analyse_deck(Deck(2, 4), Variant.make("hand", step7="off"), progress=graph_progress(lines.append, after=0.0))
    phases = [line.split(":")[1].strip().split(" ")[0] for line in lines]
    assert phases == ["explored", "lumped", "sparse", "factored", "lifting"][:len(phases)] and len(phases) >= 4
    assert all(line.startswith("whole graph: ") and line.endswith("CPU-s)") for line in lines)
    lifting = [line for line in lines if line.startswith("whole graph: lifting")]
    assert len(lifting) <= 1  # the first lifting line, then none within 30 s
    quiet = []
    analyse_deck(Deck(2, 4), Variant.make("hand", step7="off"), progress=graph_progress(quiet.append, after=3600.0))
    assert quiet == []


@pytest.mark.slow
def test_sigint_during_a_real_whole_graph_lifting_keeps_it_and_resumes(tmp_path):
    # in a child process: 2x6 hand(), SIGINT once the lifting has said where it is
    import subprocess
    import sys
    import time

    cmd = [sys.executable, "-m", "solitaire.cli", "poison", "--suits", "2", "--ranks", "6", "--all", "--json"]
    store, log = tmp_path / "p.h5", tmp_path / "err"
    with open(log, "wb") as err:
        proc = subprocess.Popen(cmd + ["--out", str(store)], stdout=subprocess.PIPE, stderr=err)
        deadline = time.monotonic() + 600
        while b"lifting:" not in log.read_bytes() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=600)
    text = log.read_text()
    assert proc.returncode == 130 and out == b"", text
    assert text.splitlines()[-1].startswith("solitaire: interrupted: ") and " lifting steps saved to " in text, text
    again = subprocess.run(cmd + ["--out", str(store)], capture_output=True, text=True, timeout=900)
    fresh = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0 and json.loads(again.stdout) == json.loads(fresh.stdout)
    assert not (tmp_path / "p.h5.journal").exists()


def test_a_whole_graph_that_cannot_be_stored_keeps_its_checkpoint_and_a_stale_one_is_cleared(cli_run, tmp_path,
                                                                                           monkeypatch):
    from sim.store.errors import StoreWriteError

    args = ("poison", "--suits", "2", "--ranks", "4", "--all", "--json", "--out", str(tmp_path / "p.h5"))
    real = ResultsStore.save

    def full(self, result, *a, **k):
        raise StoreWriteError("cannot write the results store (no space left on the device, in the test)")

    monkeypatch.setattr(ResultsStore, "save", full)
    code, out, err = cli_run(*args)
    assert code == 1 and out == "" and err.count("\n") == 1
    kept = list((tmp_path / "p.h5.journal").rglob("*.npz"))
    assert len(kept) == 2, "the analysis is kept for the next run"
    monkeypatch.setattr(ResultsStore, "save", real)
    code, first, err = cli_run(*args)
    assert code == 0, err
    assert not (tmp_path / "p.h5.journal").exists()
    # a folder left by a run killed between storing and clearing goes when the result is served
    graph_folder = kept[0].parent
    graph_folder.mkdir(parents=True)
    (graph_folder / "left.npz").write_bytes(b"")
    code, again, err = cli_run(*args)
    assert code == 0 and "shown from there" in err and json.loads(again) == json.loads(first)
    assert not (tmp_path / "p.h5.journal").exists()
