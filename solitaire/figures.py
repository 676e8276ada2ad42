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
    """One game (a :class:`sim.trace.Trace`) as a figure: Prisoner's Patience draws its piles
    (:func:`prisoners_piles`); the other games the row's length (Hand Solitaire: the stack's size)
    after every card dealt and every removal, Hand Solitaire's iterations marked and numbered."""
    if get_game(trace.game).trace_row == "piles":  # a row of piles: drawn as the piles themselves
        return prisoners_piles(trace, path)
    plt = _pyplot()
    sizes = trace.sizes
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.step(range(len(sizes)), sizes, where="post", lw=1.3)
    if any(e["event"] == "iteration" for e in trace.steps):  # a line where each iteration starts, numbered
        drawn, starts = 0, []
        for e in trace.steps:
            if e["event"] == "iteration":
                starts.append(drawn)
            drawn += "stack" in e
        top = max(sizes) if len(sizes) else 1
        for number, start in enumerate(starts, 1):
            if start:
                ax.axvline(start - 0.5, color="0.6", lw=0.7, ls="--")
            ax.text(start + 0.5, top * 1.02, f"iteration {number}" if len(starts) <= 8 or number == 1 else str(number),
                    fontsize=7, color="0.35", va="bottom")
        ax.set_ylim(0, top * 1.12 + 0.5)
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # cards: whole numbers only
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    unit = get_game(trace.game).trace_row_label
    ax.set_xlabel("step (each card dealt, each removal or move)")
    ax.set_ylabel(unit)
    ax.set_title(f"{trace.variant}, {trace.deck.suits}x{trace.deck.ranks}: score {trace.score}, "
                 + ("won" if trace.won else "lost"), fontsize=10)
    fig.tight_layout()
    _save(fig, path)
    return Path(path)


def prisoners_piles(trace, path) -> Path:
    """One game of Prisoner's Patience: above, the row after every step (each pile a column of
    cards, bottom card at the foot, names written in), at most 52 piles drawn; below, the height of
    every pile position over the game (a map: which piles grow, where moves close the gaps)."""
    from matplotlib.patches import Rectangle

    from sim.cards import card_name

    plt = _pyplot()
    rows = [e["piles"] for e in trace.steps if "piles" in e]
    width = max(len(r) for r in rows)
    heights = np.zeros((width, len(rows)))
    for t, row in enumerate(rows):
        for i, pile in enumerate(row):
            heights[i, t] = len(pile)
    final = rows[-1]
    tallest = max(len(p) for p in final)
    fig, (piles_ax, map_ax) = plt.subplots(2, 1, figsize=(10, 7.5), gridspec_kw={"height_ratios": [1.1, 1]})
    for i, pile in enumerate(final):
        for k, card in enumerate(pile):
            top = k == len(pile) - 1
            piles_ax.add_patch(Rectangle((i - 0.42, k), 0.84, 0.94, facecolor="#fdf6e3" if not top else "#f4d58d",
                                         edgecolor="0.3", lw=0.6))
            piles_ax.text(i, k + 0.47, card_name(card, trace.deck), ha="center", va="center",
                          fontsize=7 if len(final) <= 26 else 5.5, rotation=0 if len(final) <= 26 else 90)
    piles_ax.set_xlim(-0.6, max(len(final), 4) - 0.4)
    piles_ax.set_ylim(0, tallest + 0.3)
    piles_ax.set_xticks(range(len(final)))
    piles_ax.set_xticklabels([str(i + 1) for i in range(len(final))], fontsize=6 if len(final) > 26 else 8)
    piles_ax.set_yticks(range(0, tallest + 1, max(1, tallest // 6)))
    piles_ax.set_xlabel("pile, left to right (top card shaded)")
    piles_ax.set_ylabel("cards in the pile")
    piles_ax.set_title(f"{trace.variant}, {trace.deck.suits}x{trace.deck.ranks}: the row at the end, "
                       f"{len(final)} {'pile' if len(final) == 1 else 'piles'} ({'won' if trace.won else 'lost'})",
                       fontsize=10)
    shown = np.ma.masked_equal(heights, 0)
    image = map_ax.imshow(shown, aspect="auto", origin="lower", interpolation="nearest", cmap="viridis",
                          extent=(-0.5, len(rows) - 0.5, 0.5, width + 0.5))
    colorbar = fig.colorbar(image, ax=map_ax, pad=0.01)
    colorbar.set_label("cards in the pile")
    from matplotlib.ticker import MaxNLocator

    colorbar.locator = MaxNLocator(integer=True)
    colorbar.update_ticks()
    map_ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    map_ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    map_ax.set_xlabel("step (each card dealt, each move)")
    map_ax.set_ylabel("pile position")
    map_ax.set_title("the row over the game (blank: no pile there)", fontsize=10)
    fig.tight_layout()
    _save(fig, path)
    return Path(path)


def odds_curve(rows: list, path, title: str) -> Path:
    """The chance of winning after every card of one game (``solitaire odds --each``) on a log scale
    (early odds of a fraction of a per cent stay readable), with the 95% interval where it was
    simulated drawn as a band and as error bars; a chance of 0 is drawn at the
    foot of the axis as a cross."""
    plt = _pyplot()
    xs = [len(r["dealt"].split()) for r in rows]  # cards dealt (``dealt`` is their card notation)
    ps = [float(_fraction(r["p_win"])) for r in rows]
    positive = [p for p in ps if p > 0] + [c for r in rows if r.get("ci95") for c in r["ci95"] if c > 0]
    floor = 10 ** np.floor(np.log10(min(positive))) / 2 if positive else 1e-3
    fig, ax = plt.subplots(figsize=(9, 4.2))
    ax.set_yscale("log")
    ax.plot(xs, [max(p, floor) if p > 0 else np.nan for p in ps], "o-", ms=3, lw=1.2, color="C0", label="P(win)")
    zeros = [x for x, p in zip(xs, ps) if p == 0]
    if zeros:
        ax.plot(zeros, [floor] * len(zeros), "x", color="C3", ms=6, label="P(win) = 0 (at the foot)")
    sims = [(x, p, r["ci95"]) for x, p, r in zip(xs, ps, rows) if r.get("ci95")]
    if sims:
        low = [max(c[0], floor) for _, _, c in sims]
        high = [max(c[1], floor) for _, _, c in sims]
        ax.fill_between([x for x, _, _ in sims], low, high, color="C1", alpha=0.35, lw=0,
                        label="95% interval (simulated)")
        ax.errorbar([x for x, _, _ in sims], [max(p, floor) for _, p, _ in sims],
                    yerr=[[max(p, floor) - lo for (_, p, _), lo in zip(sims, low)],
                          [hi - max(p, floor) for (_, p, _), hi in zip(sims, high)]],
                    fmt="none", ecolor="C1", elinewidth=0.8, capsize=2)
    ax.set_ylim(floor * 0.8, 1.3)
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v * 100:.3g}%"))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(min(xs) - 1, max(xs) + 1)
    ax.grid(True, which="major", color="0.9", lw=0.6)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_xlabel("cards dealt")
    ax.set_ylabel("P(win) from here (log scale)")
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
