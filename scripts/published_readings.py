"""Compute the runs behind "which rule reading gives which published figure" and print the section.

    python scripts/published_readings.py [--out results/readings.h5] [--games 10000000]
                                         [--hand-runs 200000] [--seed 1] [--workers N]

Plays the standard deck under every One-Handed reading of ``solitaire.readings.ONE_HANDED_READINGS``
(win x reverse x final, ``--games`` each, 10^7 by default) and under the Hand Solitaire readings of
``HAND_READINGS`` (step 7 as published and as written, and no step 7; ``--hand-runs`` runs each, cap
1000), all with one seed, into the results store ``--out`` (a new ``results/readings.h5`` by
default; the main store ``results/solitaire.h5`` is left alone). Runs already stored there are
reused, and an interrupted run resumes, so running it again is quick. Then it prints the section
that ``solitaire report`` puts in ``results/README.md`` (:func:`solitaire.readings.readings_section`)
and writes it to ``--markdown`` if given. About a minute of two quiet cores.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from sim import simulate
from sim.store import ResultsStore
from solitaire import readings


def main(argv=None) -> list[str]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=readings.DEFAULT_STORE)
    parser.add_argument("--games", type=int, default=readings.ONE_HANDED_GAMES)
    parser.add_argument("--hand-runs", type=int, default=readings.HAND_RUNS)
    parser.add_argument("--seed", type=int, default=readings.SEED)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--markdown", type=Path, default=None, help="also write the section to this file")
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    store = ResultsStore(args.out)
    for deck, variant, games, options in readings.planned_runs(args.games, args.hand_runs):
        result = simulate(deck, variant, games=games, seed=args.seed, workers=args.workers, progress=False,
                          options=options, out=store, reuse=True)
        print(f"{variant}: {result.wins:,} / {result.games:,} = {result.p_win:.4%} "
              f"[{result.ci95[0]:.4%}, {result.ci95[1]:.4%}] ({result.seconds:.1f} s)", flush=True)
    lines = readings.readings_section(args.out)
    print("\n".join(lines))
    if args.markdown is not None:
        args.markdown.write_text("\n".join(lines) + "\n")
    return lines


if __name__ == "__main__":
    main()
