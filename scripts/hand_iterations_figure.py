"""Hand Solitaire on a whole small deck: the exact distribution of the iteration on which a run is
won, against the histogram of simulated runs.

The exact probabilities of a win on iterations 1..K (``analyse_deck(..., iterations=K, tail=T)``:
Fractions for the first K, float64 up to T) are drawn as points over the simulated shares
(``sim.simulate`` with the same cap), with each bar's 95% interval.

Usage: python scripts/hand_iterations_figure.py --suits 2 --ranks 6 [--variant hand()] [--exact 10]
                                                [--tail 60] [--games 200000] [--seed 1] [--out FILE.png]
"""
from __future__ import annotations

import argparse
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from exact.hand.whole_deck import analyse_deck  # noqa: E402
from sim import Deck, Variant, simulate  # noqa: E402
from sim.stats import wilson_interval  # noqa: E402


def figure(deck: Deck, variant: Variant, *, exact: int, tail: int, games: int, seed: int, out: str) -> dict:
    result = analyse_deck(deck, variant, iterations=exact, tail=tail)
    probabilities = [float(x) for x in result.iterations_to_win] + list(result.iterations_to_win_tail)
    run = simulate(deck, variant, games=games, seed=seed, progress=False, options={"cap": tail})
    counts = run.extra["iterations_to_win"][1:tail + 1]
    shares = [c / games for c in counts]
    intervals = [wilson_interval(c, games) for c in counts]
    t = list(range(1, len(probabilities) + 1))
    fig, ax = plt.subplots(figsize=(10, 5))
    ax.bar(t[:len(shares)], shares, width=0.9, color="#9ab6d6", label=f"simulated ({games:,} runs, seed {seed})")
    ax.errorbar(t[:len(shares)], shares, yerr=[[s - lo for s, (lo, hi) in zip(shares, intervals)],
                                               [hi - s for s, (lo, hi) in zip(shares, intervals)]],
                fmt="none", ecolor="#3b6ea5", elinewidth=0.8, label="95% interval")
    ax.plot(t[:exact], probabilities[:exact], "o", color="#b22222", label=f"exact (Fractions), iterations 1-{exact}")
    ax.plot(t[exact:], probabilities[exact:], ".", color="#b22222", label="exact chain in float64")
    ax.set_yscale("log")
    ax.set_xlabel("iteration on which the run is won")
    ax.set_ylabel("probability")
    ax.set_title(f"Hand Solitaire {deck}, {variant}: p_win = {float(result.p_win):.6f}, "
                 f"E[iterations | win] = {float(result.expected_iterations_given_win or 0):.4f}", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    outside = sum(not lo <= p <= hi for p, (lo, hi) in zip(probabilities, intervals))
    return {"out": out, "iterations": len(shares), "exact_outside_95_interval": outside}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suits", type=int, default=2)
    parser.add_argument("--ranks", type=int, default=6)
    parser.add_argument("--variant", default="hand()")
    parser.add_argument("--exact", type=int, default=10, help="iterations with exact probabilities")
    parser.add_argument("--tail", type=int, default=60, help="last iteration shown (float64 beyond --exact)")
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="results/hand_iterations.png")
    args = parser.parse_args(argv)
    if not 1 <= args.exact <= args.tail:
        parser.error("need 1 <= --exact <= --tail")
    summary = figure(Deck(args.suits, args.ranks), Variant.parse(args.variant), exact=args.exact, tail=args.tail,
                     games=args.games, seed=args.seed, out=args.out)
    print(summary, file=sys.stderr)


if __name__ == "__main__":
    main()
