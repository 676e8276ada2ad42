"""First runs: numba compiles the kernels on their first use. The console command says so once
("compiling kernels (first run only)"), the figures reported leave the compilation out
(sim.compiling's clocks), and progress bars do not count it in their rate and remaining time."""
import time

import pytest
from numba.core import event

from sim import compiling, progress
from sim._jit import jit


@pytest.fixture
def unsaid(monkeypatch):
    monkeypatch.setattr(compiling, "_said", [False])
    monkeypatch.setattr(compiling, "_announce", [None])


def _fresh_kernel():
    @jit(cache=False)  # compiled now, whatever the on-disk cache holds
    def kernel(n):
        total = 0
        for i in range(n):
            total += i * i
        return total

    return kernel


def test_compilation_is_announced_once_and_left_out_of_the_work_clocks(unsaid):
    said = []
    compiling.announce_with(lambda: said.append("compiling"))
    before, raw0, work0, cpu0 = compiling.compile_seconds(), time.perf_counter(), compiling.perf_counter(), \
        compiling.thread_time()
    raw_cpu0 = time.thread_time()
    assert _fresh_kernel()(10) == 285
    assert _fresh_kernel()(4) == 14  # a second compilation: no second notice
    compiled = compiling.compile_seconds() - before
    raw, work = time.perf_counter() - raw0, compiling.perf_counter() - work0
    raw_cpu, work_cpu = time.thread_time() - raw_cpu0, compiling.thread_time() - cpu0
    assert said == ["compiling"]
    assert compiled > 0
    assert abs((raw - work) - compiled) < 0.01  # the work clock is the wall clock less the compilation
    assert 0 <= work_cpu < raw_cpu
    kernel = _fresh_kernel()
    kernel(3)
    after = compiling.compile_seconds()
    kernel(5)  # compiled already: nothing is added
    assert compiling.compile_seconds() == after


def test_the_console_command_says_it_once_on_a_line_of_its_own(unsaid, cli_run, monkeypatch):
    from solitaire.cli import _compiling_notice

    code, _, _ = cli_run("--version")
    assert code == 0 and compiling._announce[0] is _compiling_notice
    start = event.Event("numba:compile", event.EventStatus.START)
    monkeypatch.setattr("os.isatty", lambda fd: False)
    compiling._start(start)  # into a file or a pipe: not said (scripts read stderr)
    assert cli_run("--version")[2] == ""
    monkeypatch.setattr(compiling, "_said", [False])
    monkeypatch.setattr("os.isatty", lambda fd: True)
    progress._Tracked(__import__("sys").stderr).write("\rexact:  10%|#  | 1/10")  # a bar drawn
    compiling._start(start)
    compiling._start(start)
    assert cli_run("--version")[2] == ("\rexact:  10%|#  | 1/10\r\x1b[Ksolitaire: compiling kernels (first run "
                                       "only)\n")


def test_a_progress_bar_leaves_compilation_out_of_its_times(monkeypatch):
    monkeypatch.setitem(compiling._totals, "wall", 0.0)
    with progress.progress_bar(10, False) as bar:
        bar.update(1)
        elapsed = bar.format_dict["elapsed"]
        compiling._totals["wall"] += 600.0  # ten minutes of compiling, as a first run under load
        assert bar.format_dict["elapsed"] - elapsed < 1.0
