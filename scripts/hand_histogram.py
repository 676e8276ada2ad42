"""The distribution of iterations to win of Hand Solitaire, as a histogram figure like the published
one (bcrist/hand-solitaire, 1,000,000 random games), from `solitaire simulate --game hand --json`.

Usage:
  solitaire simulate --game hand --variant rank_resets=published --games 1000000 --seed 1 --json > hand.json
  python scripts/hand_histogram.py hand.json hand_histogram.png [--max-iterations 200]
"""
from __future__ import annotations

import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def plot(data: dict, path: str, *, max_iterations: int = 200) -> None:
    counts = data["iterations_to_win"]
    games = data["games"]
    shown = counts[1:max_iterations + 1]
    stats = data.get("iteration_stats", {})
    fig, ax = plt.subplots(figsize=(10, 5))
    # one filled outline: hundreds of adjacent bars alias into moire
    ax.stairs(shown, [t + 0.5 for t in range(len(shown) + 1)], fill=True, color="#3b6ea5", lw=0)
    ax.set_xlabel("iteration on which the run was won")
    ax.set_ylabel(f"runs (of {games:,})")
    lines = [f"{data['variant']}, deck {data['suits']}x{data['ranks']}, seed {data['seed']}"]
    for last, (p, low, high) in stats.get("p_win_within", {}).items():
        lines.append(f"won within {last}: {p:.2%} [{low:.2%}, {high:.2%}]")
    if "mean_iterations_to_win" in stats:
        lines.append(f"mean {stats['mean_iterations_to_win']:.2f}, median {stats['median_iterations_to_win']}")
    lines.append(f"capped at {data['cap']}: {data['capped']:,}")
    ax.text(0.98, 0.95, "\n".join(lines), transform=ax.transAxes, ha="right", va="top", fontsize=9,
            bbox=dict(facecolor="white", alpha=0.8, edgecolor="#999999"))
    ax.set_title("Hand Solitaire: iterations to win")
    fig.tight_layout()
    fig.savefig(path, dpi=300)
    if str(path).endswith(".png"):
        fig.savefig(str(path)[:-4] + ".svg")  # an SVG beside the PNG
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json_file")
    parser.add_argument("png_file")
    parser.add_argument("--max-iterations", type=int, default=200)
    args = parser.parse_args(argv)
    with open(args.json_file) as f:
        data = json.load(f)
    plot(data, args.png_file, max_iterations=args.max_iterations)


if __name__ == "__main__":
    main()
