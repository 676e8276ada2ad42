"""Figures of the report (PNG, matplotlib), drawn from the plain ``to_dict()`` records in the store."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np

from exact.fractions_text import fraction_from_text


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _fraction(text) -> Fraction:
    return fraction_from_text(text) if isinstance(text, str) else Fraction(text)


def score_distribution(standard: dict | None, exact_relatives: list[dict], path: Path) -> Path:
    """P(score = s) of the standard-deck simulation (with 95% bars) beside exact small decks."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 5))
    if standard is not None:
        counts = np.array(standard["score_counts"], dtype=float)
        games = counts.sum()
        p = counts / games
        se = np.sqrt(p * (1 - p) / games)
        scores = np.arange(len(counts))
        keep = counts > 0
        ax.errorbar(scores[keep], p[keep], yerr=1.96 * se[keep], fmt="o-", ms=3, lw=1.2, capsize=2,
                    label=f"{standard['suits']}x{standard['ranks']} simulated ({int(games):,} games)")
    for record in exact_relatives:
        counts = [int(c) for c in record["score_counts"]]
        orders = int(record["orders"])
        scores = [s for s, c in enumerate(counts) if c]
        ax.plot(scores, [counts[s] / orders for s in scores], "s--", ms=3, lw=0.9, alpha=0.8,
                label=f"{record['suits']}x{record['ranks']} exact")
    ax.set_xlabel("score (cards left)")
    ax.set_ylabel("probability")
    ax.set_yscale("log")
    ax.set_title("One-Handed Solitaire: score distribution")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    _save(fig, path)
    return path


def p_win_heatmap(cells: list[dict], path: Path, title: str) -> Path:
    """p_win over suits x ranks; exact cells marked '=', parity-theorem zeros '#'."""
    plt = _pyplot()
    suits = sorted({c["suits"] for c in cells})
    ranks = sorted({c["ranks"] for c in cells})
    grid = np.full((len(suits), len(ranks)), np.nan)
    for c in cells:
        grid[suits.index(c["suits"]), ranks.index(c["ranks"])] = c["p_win"] * 100
    fig, ax = plt.subplots(figsize=(1.0 + 0.75 * len(ranks), 1.2 + 0.6 * len(suits)))
    im = ax.imshow(grid, cmap="viridis", origin="lower", aspect="auto")
    fig.colorbar(im, ax=ax, label="p_win (%)")
    marks = {"exact": "=", "theorem": "#", "simulated": ""}
    for c in cells:
        i, j = suits.index(c["suits"]), ranks.index(c["ranks"])
        value = c["p_win"] * 100
        text = "0" if value == 0 else f"{value:.3g}"  # significant digits: a 0.0123 cell is not "0.01"
        ax.text(j, i, text + marks.get(c["source"], ""), ha="center", va="center", fontsize=7,
                color="white" if value < np.nanmax(grid) * 0.6 else "black")
    ax.set_xticks(range(len(ranks)), ranks)
    ax.set_yticks(range(len(suits)), suits)
    ax.set_xlabel("ranks (R)")
    ax.set_ylabel("suits (S)")
    sources = {c["source"] for c in cells}
    legend = ", ".join(text for key, text in (("exact", "'=' exact"), ("theorem", "'#' zero by the parity theorem"),
                                              ("simulated", "unmarked: simulated")) if key in sources)
    ax.set_title(title + "\n" + legend, fontsize=8)
    fig.tight_layout()
    _save(fig, path)
    return path


def iterations_histogram(record: dict, path: Path) -> Path:
    """Hand Solitaire: runs won on each iteration, and the cumulative share won."""
    plt = _pyplot()
    counts = np.array(record["iterations_to_win"], dtype=float)
    runs = record["games"]
    its = np.arange(len(counts))
    # The cap (e.g. 1000) is far beyond almost every win: show up to the 99.9th percentile of wins.
    won = np.cumsum(counts[1:])
    shown = int(np.searchsorted(won, 0.999 * won[-1]) + 1) if len(won) and won[-1] > 0 else len(counts) - 1
    shown = max(shown, 1)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    ax.bar(its[1:shown + 1], counts[1:shown + 1] / runs, width=0.9, label="won on that iteration (left axis)")
    ax2 = ax.twinx()
    ax2.plot(its[1:shown + 1], won[:shown] / runs, "k-", lw=1.2, label="won within (right axis)")
    ax.set_xlim(0.5, shown + 0.5)
    ax2.set_ylim(0, 1)
    handles = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    ax.legend(handles, [h.get_label() for h in handles], loc="center right", fontsize=8)
    ax.set_xlabel(f"iteration (shown up to {shown}, the 99.9th percentile of wins; cap {record.get('cap', len(counts) - 1)})")
    ax.set_ylabel("share of runs won on that iteration")
    ax2.set_ylabel("share of runs won within")
    ax.set_title(f"Hand Solitaire ({record['variant']}, {record['suits']}x{record['ranks']}, {runs:,} runs)")
    fig.tight_layout()
    _save(fig, path)
    return path


def game_sizes(trace, path) -> Path:
    """One game (a :class:`sim.trace.Trace`): the row's length (Hand Solitaire: the stack's size;
    Prisoner's Patience: the number of piles) after every card dealt and every removal."""
    plt = _pyplot()
    sizes = trace.sizes
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.step(range(len(sizes)), sizes, where="post", lw=1.3)
    if trace.game == "hand":  # a faint line where each iteration starts
        drawn = 0
        for e in trace.steps:
            if e["event"] == "iteration" and drawn:
                ax.axvline(drawn - 0.5, color="0.8", lw=0.6)
            drawn += "stack" in e
    unit = {"one-handed": "cards in the row", "hand": "cards in the stack", "prisoners": "piles"}[trace.game]
    ax.set_xlabel("step (each card dealt, each removal or move)")
    ax.set_ylabel(unit)
    ax.set_title(f"{trace.variant}, {trace.deck.suits}x{trace.deck.ranks}: score {trace.score}, "
                 + ("won" if trace.won else "lost"), fontsize=10)
    fig.tight_layout()
    _save(fig, path)
    return Path(path)


def odds_curve(rows: list, path, title: str) -> Path:
    """The chance of winning after every card of one game (``solitaire odds --each``), with the 95%
    interval where it was simulated."""
    plt = _pyplot()
    xs = [len(r["dealt"].split()) for r in rows]  # cards dealt (``dealt`` is their card notation)
    ps = [float(_fraction(r["p_win"])) for r in rows]
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.plot(xs, ps, "o-", ms=3, lw=1.2)
    sims = [(x, r["ci95"]) for x, r in zip(xs, rows) if r.get("ci95")]
    if sims:
        ax.fill_between([x for x, _ in sims], [c[0] for _, c in sims], [c[1] for _, c in sims], alpha=0.25,
                        step=None, label="95% interval (simulated)")
        ax.legend(fontsize=8)
    ax.set_xlabel("cards dealt")
    ax.set_ylabel("P(win) from here")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)
    return Path(path)


def _save(fig, path) -> None:
    """Save and close ``fig``; a file that cannot be written is one line (:class:`sim.errors.WriteError`)."""
    plt = _pyplot()
    try:
        fig.savefig(path, dpi=120)
    except OSError as exc:
        from sim.errors import WriteError

        raise WriteError(f"cannot write the figure {path} ({exc.strerror or exc}): free space or choose another "
                         "file") from None
    finally:
        plt.close(fig)
