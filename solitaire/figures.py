"""Figures of the report (PNG at print resolution with an SVG beside it; matplotlib), drawn from the plain
``to_dict()`` records in the store."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np

from sim.fractions_text import fraction_from_text
from sim.errors import WriteError
from sim.games import get_game


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
    _save(fig, path, svg=True)
    return path


def _step125(value: float, *, down: bool) -> float:
    """The nearest of 1, 2, 5 times a power of ten below (``down``) or above ``value``.

    >>> _step125(4.68, down=True), _step125(38.7, down=False), _step125(0.00343, down=True)
    (2.0, 50.0, 0.002)
    """
    decade = 10.0 ** np.floor(np.log10(value))
    steps = [decade * m for m in (1, 2, 5, 10)]
    if down:
        return float(max(x for x in steps if x <= value * (1 + 1e-12)))
    return float(min(x for x in steps if x >= value * (1 - 1e-12)))


def p_win_heatmap(cells: list[dict], path: Path, title: str) -> Path:
    """p_win over suits x ranks on a logarithmic colour scale (each decade its own band of colours,
    so 0.5% and 5% look different); exact cells marked '=', simulated unmarked, and the parity
    theorem's zeros hatched and labelled "0 proved" (a proved zero, not a tiny value). An SVG is
    written beside the PNG."""
    plt = _pyplot()
    from matplotlib import colors, ticker
    from matplotlib.patches import Rectangle

    suits = sorted({c["suits"] for c in cells})
    ranks = sorted({c["ranks"] for c in cells})
    grid = np.full((len(suits), len(ranks)), np.nan)
    for c in cells:
        if c["p_win"] > 0:
            grid[suits.index(c["suits"]), ranks.index(c["ranks"])] = c["p_win"] * 100
    positive = grid[np.isfinite(grid)]
    low = _step125(positive.min(), down=True) if positive.size else 0.1
    high = _step125(positive.max(), down=False) if positive.size else 100.0
    high = max(high, low * 10)
    norm = colors.LogNorm(vmin=low, vmax=high)
    cmap = plt.get_cmap("viridis")
    fig, ax = plt.subplots(figsize=(1.6 + 0.78 * len(ranks), 1.5 + 0.62 * len(suits)))
    im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, norm=norm, origin="lower", aspect="auto")
    bar = fig.colorbar(im, ax=ax, label="p_win (%), logarithmic scale")
    bar.locator = ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0))
    bar.formatter = ticker.FuncFormatter(lambda v, _: f"{v:g}")
    bar.update_ticks()
    bar.ax.yaxis.set_minor_formatter(ticker.NullFormatter())  # no "4 x 10^1" between the labelled ticks
    ax.set_facecolor("white")
    marks = {"exact": "=", "theorem": "", "simulated": ""}
    for c in cells:
        i, j = suits.index(c["suits"]), ranks.index(c["ranks"])
        value = c["p_win"] * 100
        if value == 0:
            proved = c["source"] in ("theorem", "exact")
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.88", edgecolor="0.55",
                                   hatch="///" if c["source"] == "theorem" else None, lw=0.0))
            label = "0\nproved" if c["source"] == "theorem" else "0" + ("=" if proved else "")
            ax.text(j, i, label, ha="center", va="center", fontsize=7, color="black", linespacing=0.9,
                    bbox=dict(boxstyle="round,pad=0.15", fc="0.88", ec="none"))
            continue
        text = f"{value:.3g}"  # significant digits: a 0.0123 cell is not "0.01"
        r, g, b, _ = cmap(norm(value))
        dark = 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5
        ax.text(j, i, text + marks.get(c["source"], ""), ha="center", va="center", fontsize=7,
                color="white" if dark else "black")
    ax.set_xticks(range(len(ranks)), ranks)
    ax.set_yticks(range(len(suits)), suits)
    ax.set_xlim(-0.5, len(ranks) - 0.5)
    ax.set_ylim(-0.5, len(suits) - 0.5)
    ax.set_xlabel("ranks (R)")
    ax.set_ylabel("suits (S)")
    sources = {c["source"] for c in cells}
    legend = "; ".join(text for key, text in (("exact", "'=' exact"),
                                              ("theorem", "hatched '0 proved': zero by the parity theorem"),
                                              ("simulated", "unmarked: simulated")) if key in sources)
    ax.set_title(title + "\n" + legend, fontsize=8)
    fig.tight_layout()
    _save(fig, path, svg=True)
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
    # One filled outline, no gaps: hundreds of separate bars a pixel apart alias into moire.
    ax.stairs(counts[1:shown + 1] / runs, np.arange(shown + 1) + 0.5, fill=True, color="C0", lw=0,
              label="won on that iteration (left axis)")
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
    _save(fig, path, svg=True)
    return path


def game_sizes(trace, path) -> Path:
    """One game (a :class:`sim.trace.Trace`): the row's length (Hand Solitaire: the stack's size;
    Prisoner's Patience: the number of piles) after every card dealt and every removal."""
    plt = _pyplot()
    sizes = trace.sizes
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.step(range(len(sizes)), sizes, where="post", lw=1.3)
    if any(e["event"] == "iteration" for e in trace.steps):  # a faint line where each iteration starts
        drawn = 0
        for e in trace.steps:
            if e["event"] == "iteration" and drawn:
                ax.axvline(drawn - 0.5, color="0.8", lw=0.6)
            drawn += "stack" in e
    unit = get_game(trace.game).trace_row_label
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


#: resolution of the PNG figures: print resolution
PRINT_DPI = 300


def _save(fig, path, *, svg: bool = False) -> None:
    """Save and close ``fig`` as a PNG at :data:`PRINT_DPI` (and, with ``svg``, an SVG beside it, same
    name); a file that cannot be written is one line (:class:`sim.errors.WriteError`)."""
    plt = _pyplot()
    try:
        fig.savefig(path, dpi=PRINT_DPI)
        if svg:  # no date, fixed element ids: the same figure is the same file (a rerun leaves git clean)
            with plt.rc_context({"svg.hashsalt": "solitaire-odds"}):
                fig.savefig(Path(path).with_suffix(".svg"), metadata={"Date": None})
    except OSError as exc:
        raise WriteError(f"cannot write the figure {path} ({exc.strerror or exc}): free space or choose another "
                         "file") from None
    finally:
        plt.close(fig)
