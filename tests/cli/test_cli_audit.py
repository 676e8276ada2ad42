"""The reliability audit of the command line, as a test: every bad invocation ends with exit status
2, one line on stderr, nothing on stdout, no traceback, and no file created or changed."""
import hashlib
import shutil
import sys
from pathlib import Path

import h5py
import pytest

from sim import Deck, simulate
from sim.store import ResultsStore

#: (arguments, a word the one-line message must contain). Run in a folder holding ``good.h5`` (a
#: store with one result), ``bad.h5`` (an HDF5 file of another schema) and ``afile`` (a plain file).
BAD_INVOCATIONS = [
    # simulate
    (["simulate", "--suits", "0"], "suits"),
    (["simulate", "--ranks", "-2"], "ranks"),
    (["simulate", "--games", "-5"], "games"),
    (["simulate", "--games", "lots"], "games"),
    (["simulate", "--games", str(10**15), "--no-store"], "games"),  # stored by default: its folder is checked first
    (["simulate", "--games", str(10**15), "--out", "new.h5"], "games"),
    (["simulate", "--variant", "colour=red"], "colour"),
    (["simulate", "--variant", "win"], "win"),
    (["simulate", "--game", "klondike"], "klondike"),
    (["simulate", "--seed", "-1"], "seed"),
    (["simulate", "--seed", '"1e20"'], "seed"),
    (["sweep", "--seed", '"-2"'], "seed"),
    (["simulate", "--workers", "0", "--games", "1000"], "workers"),
    (["simulate", "--chunk-games", "0", "--games", "1000"], "chunk"),
    (["simulate", "--checkpoint-seconds", "nan", "--out", "new.h5", "--games", "1000"], "checkpoint"),
    (["simulate", "--checkpoint-seconds", "-1", "--out", "new.h5", "--games", "1000"], "checkpoint"),
    (["simulate", "--cap", "5", "--games", "1000"], "cap"),
    (["simulate", "--out", "bad.h5", "--games", "1000"], "bad.h5"),
    (["simulate", "--out", "afile/new.h5", "--games", "1000"], "afile"),
    (["simulate", "--out", "new.h5", "--no-store", "--games", "1000"], "--no-store"),
    (["simulate", "--scheduler", "tcp://127.0.0.1:1", "--games", "1000"], "dask"),
    # exact
    (["exact", "--suits", "4", "--ranks", "13"], "4x13"),
    (["exact", "--method", "bogus"], "method"),
    (["exact", "--suits", "4", "--ranks", "13", "--out", "new.h5"], "simulate"),  # refused inside the run's lock
    (["exact", "--game", "prisoners", "--suits", "4", "--ranks", "13", "--out", "good.h5"], "simulate"),
    (["exact", "--game", "prisoners", "--suits", "2", "--ranks", "3", "--workers", "2", "--out", "good.h5"], "zeta"),
    # sweep
    (["sweep", "--suits", "0-2"], "suits"),
    (["sweep", "--ranks", "a-b"], "ranks"),
    (["sweep", "--ranks", "9,,10"], "ranks"),
    (["sweep", "--suits", "7-3"], "7-3"),
    (["sweep", "--suits", "1-100000", "--ranks", "9"], "suits"),
    (["sweep", "--suits", "1-500", "--ranks", "9"], "4096"),
    (["sweep", "--suits", "3", "--ranks", "3", "--workers", "0"], "workers"),
    (["sweep", "--suits", "3", "--ranks", "3", "--out", "bad.h5"], "bad.h5"),
    (["sweep", "--suits", "2-4", "--ranks", "3-9", "--games", str(10**15), "--out", "new.h5"], "games"),
    # validate
    (["validate", "--max-cards", "40"], "max-cards"),
    (["validate", "--max-cards", "3"], "max-cards"),
    (["validate", "--game", "hand"], "hand"),
    (["validate", "--max-cards", "4", "--workers", "0"], "workers"),
    (["validate", "--max-cards", "4", "--out", "bad.h5"], "bad.h5"),
    (["validate", "--max-cards", "4", "--variant", "win=sometimes"], "win"),
    # poison
    (["poison", "--decks", "0"], "decks"),
    (["poison", "--variant", "win=any"], "win"),
    (["poison", "--suits", "2", "--ranks", "2", "--decks", "10", "--out", "bad.h5"], "bad.h5"),
    (["poison", "--decks", str(10**15)], "decks"),
    (["poison", "--decks", "10", "--cap", "0"], "cap"),
    (["poison", "--decks", "10", "--budget", "0"], "budget"),
    (["poison", "--decks", "10", "--seed", "-4"], "seed"),
    (["poison", "--decks", "10", "--checkpoint-seconds", "nan", "--out", "new.h5"], "checkpoint"),
    (["poison", "--decks", "10", "--out", "afile/new.h5"], "afile"),
    # solve
    (["solve", "--suits", "1", "--ranks", "4", "--order", "0,1,2,3", "--seed", "3"], "--seed"),
    (["solve", "--suits", "1", "--ranks", "4", "--order", "0,1,x"], "order"),
    (["solve", "--decks", "0"], "decks"),
    (["solve", "--decks", str(10**15)], "decks"),
    (["solve", "--all"], "--decks"),
    (["solve", "--suits", "1", "--ranks", "4", "--order", "0,1,2,3", "--out", "bad.h5"], "bad.h5"),
    (["solve", "--decks", "5", "--checkpoint-seconds", "nan", "--out", "new.h5"], "checkpoint"),
    (["solve", "--decks", "5", "--checkpoint-seconds", "-3", "--out", "new.h5"], "checkpoint"),
    (["solve", "--decks", "5", "--node-budget", "0", "--out", "new.h5"], "budget"),
    (["solve", "--decks", "5", "--time-budget", "nan", "--out", "new.h5"], "time budget"),
    (["solve", "--decks", "5", "--out", "afile/new.h5"], "afile"),
    (["solve", "--suits", "2", "--ranks", "3", "--all", "--decks", "5"], "at most one"),
    (["solve", "--strategy", "bogus"], "strategy"),
    (["solve", "--suits", "2", "--ranks", "3", "--all", "--strategy", "beam", "--out", "new.h5"], "--strategy"),
    (["solve", "--suits", "5", "--ranks", "13", "--decks", "3", "--strategy", "nrpa", "--out", "new.h5"], "dfs"),
    # play
    (["play", "--suits", "0"], "suits"),
    (["play", "--suits", "1", "--ranks", "4", "--order", "0,1,x"], "order"),
    (["play", "--suits", "1", "--ranks", "4", "--order", "0,1,2"], "order"),
    (["play", "--suits", "1", "--ranks", "4", "--order", "0,1,2,3", "--seed", "3"], "seed"),
    (["play", "--suits", "1", "--ranks", "4", "--order", "0,1,2,3", "--figure", "afile/f.png"], "afile"),
    # odds
    (["odds", "--dealt", "AS", "--each", "AS"], "--each"),
    (["odds", "--figure", "f.png", "--dealt", "AS"], "--figure"),
    (["odds", "--dealt", "AS", "--games", "0"], "games"),
    (["odds", "--dealt", "AS", "--games", str(10**12)], "games"),
    (["odds", "--dealt", "ZZ"], "ZZ"),
    (["odds", "--dealt", "AS", "--workers", "0"], "workers"),
    (["odds", "--variant", "moves=physical"], "moves"),
    (["odds", "--each", "0,1,2,3", "--suits", "1", "--ranks", "4", "--figure", "afile/f.png"], "afile"),
    # runs
    (["runs", "--out", "nope.h5"], "nope.h5"),
    (["runs", "--out", "bad.h5"], "bad.h5"),
    # report
    (["report", "--out", "good.h5", "--workers", "0", "--dir", "newdir"], "workers"),
    (["report", "--out", "bad.h5", "--dir", "newdir"], "bad.h5"),
    (["report", "--no-compute", "--out", "nope.h5", "--dir", "newdir"], "nope.h5"),
    (["report", "--no-compute", "--out", "good.h5", "--dir", "afile/sub"], "afile"),
    (["report", "--seed", "-1", "--dir", "newdir"], "seed"),
    (["nonsense"], "nonsense"),
    # a store that cannot be created: its journal folder is refused in one line (as root, /proc passes the
    # access check and then takes no folder; otherwise the access check refuses it)
    (["simulate", "--games", "1000", "--out", "/proc/x.h5"], "cannot write"),
    (["sweep", "--suits", "3", "--ranks", "4", "--games", "1000", "--out", "/proc/x.h5"], "cannot write"),
    (["solve", "--decks", "2", "--out", "/proc/x.h5"], "cannot write"),
    (["exact", "--suits", "2", "--ranks", "3", "--out", "/proc/x.h5"], "cannot write"),
    (["poison", "--suits", "2", "--ranks", "2", "--decks", "10", "--out", "/proc/x.h5"], "cannot write"),
    (["validate", "--max-cards", "4", "--games", "1000", "--out", "/proc/x.h5"], "cannot write"),
    # a missing folder is refused, never created (a typo must not make folders anywhere)
    (["simulate", "--games", "1000", "--out", "no/such/dir/x.h5"], "no folder"),
    (["sweep", "--suits", "3", "--ranks", "4", "--games", "100", "--out", "no/x.h5"], "no folder"),
    (["solve", "--decks", "2", "--out", "no/x.h5"], "no folder"),
    (["exact", "--suits", "2", "--ranks", "3", "--out", "no/x.h5"], "no folder"),
    (["poison", "--suits", "2", "--ranks", "2", "--decks", "10", "--out", "no/x.h5"], "no folder"),
    (["validate", "--max-cards", "4", "--games", "1000", "--out", "no/x.h5"], "no folder"),
    # default paths are relative to the current folder; outside a checkout (no results/ here):
    (["simulate", "--games", "10000000"], "no folder results"),
    (["runs"], "no results store"),
    (["runs", "--out", "missing.h5"], "no results store"),
    (["report"], "checkout"),
    (["report", "--no-compute"], "checkout"),
    # numbers: ASCII digits only (int() reads a full-width digit), and no absurd worker count
    (["simulate", "--suits", "５", "--games", "100"], "digits 0-9"),
    (["play", "--suits", "1", "--ranks", "4", "--order", "0,1,2,3", "--cap", "５"], "digits 0-9"),
    (["validate", "--max-cards", "５"], "digits 0-9"),
    (["sweep", "--suits", "3", "--ranks", "4", "--games", "１００"], "digits 0-9"),
    (["simulate", "--checkpoint-seconds", "５", "--games", "10"], "digits 0-9"),
    (["simulate", "--games", "1000", "--workers", "100000000000000000000"], "workers"),
    (["sweep", "--suits", "3", "--ranks", "4", "--workers", str(10**6)], "workers"),
    # figures: a name, a figure format and an existing folder, checked before the game is played
    (["play", "--suits", "1", "--ranks", "4", "--order", "0,1,2,3", "--figure", "out.txt"], "figure"),
    (["play", "--suits", "1", "--ranks", "4", "--order", "0,1,2,3", "--figure", "no/such/x.png"], "no folder"),
    (["play", "--suits", "1", "--ranks", "4", "--order", "0,1,2,3", "--figure", ""], "figure.png"),
    (["odds", "--each", "0,1,2,3", "--suits", "1", "--ranks", "4", "--figure", "out.txt"], "figure"),
    (["odds", "--each", "0,1,2,3", "--suits", "1", "--ranks", "4", "--figure", "no/x.png"], "no folder"),
    (["odds", "--each", "0,1,2,3", "--suits", "1", "--ranks", "4", "--figure", ""], "figure.png"),
]


@pytest.fixture(scope="module")
def good_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("audit") / "good.h5"
    ResultsStore(path).save(simulate(Deck(2, 3), games=1000, seed=1, progress=False))
    return path


def _snapshot(folder: Path) -> dict:
    """Every file and folder under ``folder``, with a hash of each file's bytes."""
    return {str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir")
            for p in sorted(folder.rglob("*"))}


@pytest.fixture
def audit_dir(tmp_path, good_store, monkeypatch):
    shutil.copy(good_store, tmp_path / "good.h5")
    with h5py.File(tmp_path / "bad.h5", "w") as f:
        f.attrs["format"] = "solitaire-odds results store"
        f.attrs["schema_version"] = 99
        f.attrs["progress"] = "long"
    (tmp_path / "afile").write_text("not a folder\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _assert_clean(code, out, err, word, before, after):
    assert code == 2, err
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("solitaire: error: "), err
    assert "Traceback" not in err
    assert word.lower() in err.lower(), err
    assert after == before, "a file was created or changed"


@pytest.mark.parametrize("args, word", BAD_INVOCATIONS, ids=[" ".join(a) for a, _ in BAD_INVOCATIONS])
def test_bad_invocation_is_clean(cli_run, audit_dir, args, word):
    before = _snapshot(audit_dir)
    code, out, err = cli_run(*args)
    _assert_clean(code, out, err, word, before, _snapshot(audit_dir))


@pytest.mark.parametrize("args", [("simulate", "--games", "1000", "--seed", "1"),
                                  ("sweep", "--suits", "4", "--ranks", "9", "--games", "1000", "--out", "new.h5"),
                                  ("exact", "--suits", "3", "--ranks", "3", "--method", "zeta", "--out", "new.h5")],
                         ids=lambda args: args[0])
def test_dask_backend_without_distributed_is_one_line(cli_run, audit_dir, monkeypatch, args):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    before = _snapshot(audit_dir)
    code, out, err = cli_run(*args, "--backend", "dask")
    _assert_clean(code, out, err, "distributed", before, _snapshot(audit_dir))


def test_every_option_has_help_and_variant_lists_the_commands_own_keys():
    import click

    from sim import GAMES
    from solitaire.cli import cli

    commands = {name: cli.get_command(None, name) for name in cli.list_commands(None)}
    for name, command in commands.items():
        assert command.help, name
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"solitaire {name} {param.opts[0]} has no help text"
    own_keys = {"poison": "hand", "solve": "prisoners", "odds": "one-handed"}
    for name, game in own_keys.items():
        [variant] = [p for p in commands[name].params if p.name == "variants"]
        others = {key for g, params in GAMES.items() if g != game for key in params} - set(GAMES[game])
        assert all(f" {key}=" not in variant.help for key in others), (name, variant.help)


def test_a_seed_of_any_size_is_read_and_printed(cli_run, audit_dir):
    """Python's int() and str() refuse more than 4,300 digits; a seed may be any size."""
    seed = "7" * 5000
    code, out, err = cli_run("play", "--suits", "1", "--ranks", "4", "--seed", seed)
    assert code == 0 and err == "" and f"seed {seed}" in out
    code, out, err = cli_run("simulate", "--suits", "2", "--ranks", "3", "--games", "100", "--seed", seed, "--json")
    assert code == 0 and f'"seed": "{seed}"' in out


def test_checkpoint_seconds_may_be_infinite(cli_run, audit_dir):
    """``inf``: no checkpoint on a timer, only when the run stops."""
    code, out, err = cli_run("simulate", "--suits", "2", "--ranks", "3", "--games", "1000", "--seed", "1",
                             "--out", "new.h5", "--checkpoint-seconds", "inf", "--no-progress")
    assert code == 0 and err == "" and (audit_dir / "new.h5").exists()
