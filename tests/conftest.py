import os

import pytest
from hypothesis import HealthCheck, settings

# Kernels compile on first use; that must not count against hypothesis' per-example deadline.
settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=60)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture(autouse=True)
def _zeta_memory_pinned(monkeypatch):
    """The zeta method's default memory limit follows the machine (70% of its memory): pin it to 6 GiB
    so that what the tests expect to be refused (4x6, about 10 GiB a pass) is refused everywhere, and
    no test starts a pass of that size. Tests of the default itself unset it."""
    monkeypatch.setenv("SOLITAIRE_ZETA_MAX_GIB", "6")


@pytest.fixture(autouse=True)
def _compiling_notice_said():
    """The console command says "compiling kernels (first run only)" once per process, when a kernel
    is first compiled; in the test process that is wherever a test happens to compile one, so it is
    taken as said (tests/cli/test_first_runs.py asks for it)."""
    from sim import compiling

    compiling._said[0] = True


@pytest.fixture
def stop_after(monkeypatch):
    """``stop_after(k, signum=SIGINT)``: a signal arrives after step k of the next computation that
    checkpoints step by step (:class:`exact.checkpoint.StepCheckpoint`), as the handler records it
    while the work defers signals; returns the steps each run did, in order."""
    import signal

    from exact.checkpoint import StepCheckpoint
    from sim import interrupts

    done_steps = []
    real = StepCheckpoint.step

    def arm(k, signum=signal.SIGINT):
        armed = [True]

        def step(self, done, total, snapshot):
            done_steps.append(done)
            if armed[0] and done == k:
                armed[0] = False
                interrupts._pending.append(signum)
            return real(self, done, total, snapshot)

        monkeypatch.setattr(StepCheckpoint, "step", step)
        return done_steps

    return arm


@pytest.fixture
def stop_simulation_after(monkeypatch):
    """``stop_simulation_after(k)``: the next simulations play ``k`` chunks (the kernels' compile
    warm-up, a throwaway stream, not counted), then Ctrl-C (``KeyboardInterrupt``) stops them at the
    next chunk; returns the games of the chunks played. Arming again replaces the stub."""
    import sim.montecarlo as montecarlo

    real = montecarlo.load_runner

    def arm(k):
        played = []

        def load_runner(deck, variant, options=None):
            runner = real(deck, variant, options)

            def run(state, games):
                if games != montecarlo.WARM_UP_GAMES:
                    if len(played) >= k:
                        raise KeyboardInterrupt
                    played.append(games)
                return runner(state, games)
            return run

        monkeypatch.setattr(montecarlo, "load_runner", load_runner)
        return played

    return arm


@pytest.fixture
def cli_run(capsys):
    """Run the CLI in-process; returns (exit_code, stdout, stderr)."""
    from solitaire.cli import main

    def run(*args):
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def pytest_collection_modifyitems(config, items):
    """Tiers: tests/unit (fast, the engines and their references), tests/cli (the command line,
    scripts and report, run as a user would), and slow tests in either, marked ``slow``."""
    for item in items:
        if "cli" in item.path.parts[-2:-1]:
            item.add_marker(pytest.mark.cli)
