"""How much a core mode (p_win, win=any and the mean only) would narrow the position-odds phase
engine's vectors: the measurement behind leaving the odds engine with its score slots.

    .venv/bin/python benchmarks/odds_core_slots.py [--left 12,14,16] [--positions 20] [--seed 1]

In the word and zeta engines the ``end(j)`` slots are ``n + 1`` of a vector's slots and fold into five
(:func:`exact.one_handed.zeta_plan.end_slots`). The odds engine
(:mod:`exact.one_handed.odds_phase`) already keeps ``end(j)`` at ``j // 2`` (a set's size fixes the
parity of ``j``): ``cap // 2 + 1`` slots beside the window's own ``S1`` and ``S2`` slots (its ``w1``'s
and ``w2``'s suit mates in its universe) and ``R1, R2, R3``. A core mode would keep three per row
(the count of one parity, ``end(0)`` and the score sum). For the windows of three cards to come, the
engine's peak and most of its work (a table is rows x width, a split sum's cost is about
proportional to the width), on the positions of ``benchmarks/bench_odds.py`` (4x13, first ``52 - k``
cards dealt), this prints the mean width now, with three end slots, and the ratio. Pure Python, no
table is filled: seconds.
"""
from __future__ import annotations

import argparse
from itertools import permutations

import bench_odds  # the same positions as the engines' benchmark (run from benchmarks/ or the root)


def widths(row, undealt, labels):
    from exact.one_handed.odds_phase_groups import PositionCards, end_slots

    cards = PositionCards(labels(row), labels(undealt), False)
    m = cards.m
    now = core = 0
    for w in permutations(range(m), 3):
        universe = [u for u in range(m) if u not in w]
        mates = len(cards.mates(w[0], universe)) + len(cards.mates(w[1], universe)) + 3
        now += end_slots(m - 3) + mates
        core += min(3, end_slots(m - 3)) + mates
    count = m * (m - 1) * (m - 2)
    return now / count, core / count


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--left", default="12,14,16")
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    print("| cards left | positions | mean width now | with three end slots | ratio |")
    print("|---|---|---|---|---|")
    for k in (int(x) for x in args.left.split(",")):
        now = core = 0.0
        for index in range(args.positions):
            _, row, undealt, labels = bench_odds._position(k, args.seed, index)
            a, b = widths(row, undealt, labels)
            now, core = now + a, core + b
        print(f"| {k} | {args.positions} | {now / args.positions:.2f} | {core / args.positions:.2f} | "
              f"{now / core:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
