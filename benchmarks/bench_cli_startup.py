"""How long the command line takes to answer before any work: ``solitaire --help``, a TAB completion
of the command names and of a command's options, ``solitaire simulate --help``, ``python -m
solitaire --version`` and ``import solitaire.cli``, each in a fresh process, best and median of
``--repeats`` (warm: the files are in the page cache after the first run, which is not counted).

Prints one line per case with the date and commit, to paste into the benchmark record.

Usage::

    .venv/bin/python benchmarks/bench_cli_startup.py
    .venv/bin/python benchmarks/bench_cli_startup.py --repeats 20
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from sim import provenance

BIN = Path(sys.executable).parent
CASES = {
    "solitaire --help": ([str(BIN / "solitaire"), "--help"], {}),
    "complete command names (solitaire s<TAB>)": (
        [str(BIN / "solitaire")], {"_SOLITAIRE_COMPLETE": "bash_complete", "COMP_WORDS": "solitaire s",
                                    "COMP_CWORD": "1"}),
    "complete options (solitaire simulate --g<TAB>)": (
        [str(BIN / "solitaire")], {"_SOLITAIRE_COMPLETE": "bash_complete", "COMP_WORDS": "solitaire simulate --g",
                                    "COMP_CWORD": "2"}),
    "solitaire simulate --help": ([str(BIN / "solitaire"), "simulate", "--help"], {}),
    "python -m solitaire --version": ([sys.executable, "-m", "solitaire", "--version"], {}),
    "python -c 'import solitaire.cli'": ([sys.executable, "-c", "import solitaire.cli"], {}),
}


def time_case(argv, env_extra, repeats: int) -> list[float]:
    env = dict(os.environ, **env_extra)
    subprocess.run(argv, env=env, capture_output=True)  # warm the page cache; not counted
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, check=False)
        times.append(time.perf_counter() - t0)
    return times


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    print(f"# {provenance.now()[:10]} commit {provenance.git_commit()[:12]} python {sys.version.split()[0]} "
          f"{os.cpu_count()} cores; seconds, best / median of {args.repeats}")
    for name, (command, env) in CASES.items():
        times = time_case(command, env, args.repeats)
        print(f"{name:<48} {min(times):6.3f} s / {statistics.median(times):6.3f} s")


if __name__ == "__main__":
    main()
