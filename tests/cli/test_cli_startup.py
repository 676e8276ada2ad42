"""The command line starts without the heavy libraries: ``solitaire --help`` and completion of the
command names import no command module, numba, scipy or matplotlib (their time is measured by
benchmarks/bench_cli_startup.py, not here)."""
import os
import subprocess
import sys

import pytest

from solitaire.cli import COMMANDS, cli, main

HEAVY = ("numba", "scipy", "matplotlib", "pandas", "h5py")


def _modules_after(code: str) -> set:
    done = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sorted(sys.modules)))"],
                          capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_importing_the_cli_imports_no_heavy_library():
    loaded = _modules_after("import solitaire.cli")
    assert not {m for m in HEAVY if m in loaded}
    assert not {m for m in loaded if m.startswith("solitaire.commands.")}


def test_help_imports_no_command_module():
    loaded = _modules_after("from solitaire.cli import main\nmain(['--help'])")
    assert not {m for m in HEAVY if m in loaded}
    assert not {m for m in loaded if m.startswith("solitaire.commands.")}


def test_the_short_help_table_is_each_commands_own():
    for name, (_module, _attr, short) in COMMANDS.items():
        command = cli.get_command(None, name)
        assert command is not None and command.name == name
        assert short == command.get_short_help_str(limit=1000), name


def test_help_lists_every_command(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert f"  {name} " in out
    assert "_SOLITAIRE_COMPLETE=bash_source solitaire" in out


def test_python_dash_m_solitaire_runs_the_cli():
    done = subprocess.run([sys.executable, "-m", "solitaire", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and "commit" in done.stdout  # solitaire VERSION (commit HASH)
    done = subprocess.run([sys.executable, "-m", "solitaire", "simulate", "--suits", "0"], capture_output=True,
                          text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and not done.stdout


@pytest.mark.parametrize("words, cword, expected", [("solitaire s", 1, {"simulate", "solve", "sweep"}),
                                                     ("solitaire ex", 1, {"exact", "export"})])
def test_completion_of_command_names(words, cword, expected):
    env = dict(os.environ, _SOLITAIRE_COMPLETE="bash_complete", COMP_WORDS=words, COMP_CWORD=str(cword))
    code = ("import sys\nfrom solitaire.cli import cli\n"
            "try:\n    cli.main(prog_name='solitaire')\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write(' '.join(m for m in sys.modules if m.split('.')[0] in %r))" % (HEAVY,))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert {line.split(",")[1] for line in done.stdout.split()} == expected
    assert done.stderr == ""  # nothing heavy imported


def test_py_typed_ships_with_each_package():
    import exact
    import sim
    import solitaire

    for package in (sim, exact, solitaire):
        assert os.path.exists(os.path.join(os.path.dirname(package.__file__), "py.typed"))


@pytest.mark.parametrize("warm_up_seconds, shown", [(3.25, True), (0.01, False)])
def test_simulate_reports_compile_time_apart_from_speed(cli_run, monkeypatch, warm_up_seconds, shown):
    import sim.montecarlo

    calls = []

    def fake_warm_up(runner, plan):
        calls.append(plan.games)
        return warm_up_seconds

    monkeypatch.setattr(sim.montecarlo, "warm_up", fake_warm_up)
    code, out, err = cli_run("simulate", "--suits", "2", "--ranks", "4", "--games", "2000", "--seed", "3",
                             "--no-progress")
    assert code == 0 and calls == [2000]
    assert ("compiling kernels (first run only): 3.25 s" in out) is shown


@pytest.mark.parametrize("game", ["one-handed", "hand", "prisoners"])
def test_the_warm_up_does_not_change_the_counts(monkeypatch, game):
    import sim.montecarlo
    from sim import Deck, Variant, simulate

    warm = simulate(Deck(2, 4), Variant.make(game), games=3000, seed=11, progress=False, workers=1)
    monkeypatch.setattr(sim.montecarlo, "warm_up", lambda runner, plan: 0.0)
    cold = simulate(Deck(2, 4), Variant.make(game), games=3000, seed=11, progress=False, workers=1)
    assert warm.provenance["compile_seconds"] > 0
    assert (warm.score_counts, warm.wins, warm.extra) == (cold.score_counts, cold.wins, cold.extra)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_command_module_imports_no_heavy_library(name):
    """A command's options are completed from its module alone: the engines (numba, scipy, h5py,
    matplotlib, pandas) come with the command's run, not with its import."""
    loaded = _modules_after(f"import solitaire.commands.{COMMANDS[name][0]}")
    assert not {m for m in HEAVY if m in loaded}


@pytest.mark.parametrize("name", ["simulate", "exact", "solve", "odds", "play", "sweep"])
def test_completion_of_a_commands_options(name):
    env = dict(os.environ, _SOLITAIRE_COMPLETE="bash_complete", COMP_WORDS=f"solitaire {name} --", COMP_CWORD="2")
    code = ("import sys\nfrom solitaire.cli import cli\n"
            "try:\n    cli.main(prog_name='solitaire')\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write(' '.join(m for m in sys.modules if m.split('.')[0] in %r))" % (HEAVY,))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    offered = {line.split(",")[1] for line in done.stdout.split()}
    command = cli.get_command(None, name)
    assert "--help" in offered and offered >= {o for p in command.params for o in p.opts if o.startswith("--")}
    assert done.stderr == ""  # nothing heavy imported
