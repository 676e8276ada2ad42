"""Which rule reading gives which published figure.

Published win rates of One-Handed Solitaire disagree (0.706%, 0.52%, 5.19%, 0.206%, "1 in 500",
"1 in 140", "about 5.2%" with the effects reversed), and so do some Hand Solitaire figures. This
module holds each published figure with its source (:data:`PUBLISHED`), the rule *reading* (a
variant of the game) that produces it, and the test of the figure against a stored run of that
reading; :func:`readings_section` writes the results page's section from a results store, and
``scripts/published_readings.py`` computes the runs it reads (:func:`planned_runs`).

The test against a published figure depends on what was published:

* a count (wins out of games): a two-sided exact test of "same rate" (given the wins of both runs,
  ours are binomial with success probability ``our games / all games``), :func:`same_rate_p`;
* an interval: whether it overlaps ours;
* a rounded figure only: whether the values that round to it (``rounds_from``; "about twice" is
  taken as 1.75 to 2.25), widened by the 95% sampling error of the published run when its size is
  known, overlap our 95% interval.

Examples
--------
>>> round(same_rate_p(531, 100_000, 23_601, 4_497_135), 3)
0.774
>>> str(reading("0.52%").variant)
'one-handed(win=end,reverse=off,first4=kept,final=once)'
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from scipy import stats

from sim import Deck, Variant
from sim.hand_stats import iteration_statistics
from sim.store import ResultsStore

STANDARD = Deck(4, 13)
#: Seed of the stored runs (the report's standard-deck runs use seed 1 too: same decks, other readings).
SEED = 1
#: Games of each One-Handed reading, and runs of each Hand Solitaire reading.
ONE_HANDED_GAMES = 10_000_000
HAND_RUNS = 200_000
HAND_CAP = 1000
#: The result store the script writes and the section reads by default (beside results/README.md).
DEFAULT_STORE = Path("results") / "readings.h5"

KCTREY = "github.com/kctrey/onehand, stats/stats.md"
BCRIST = "github.com/bcrist/hand-solitaire, readme (10^6 runs)"
BCRIST_RUNS = 1_000_000


@dataclass(frozen=True)
class Published:
    """One published figure and the reading that produces it (``variant`` None: no reading does)."""

    figure: str  #: as published
    source: str
    game: str
    value: float  #: the published rate (or ratio)
    variant: Variant | None
    wins: int | None = None  #: published wins, when given
    games: int | None = None  #: the games (runs) behind the published figure, when known
    interval: tuple[float, float] | None = None  #: a published 95% interval, when given
    rounds_from: tuple[float, float] | None = None  #: the values that round to the published figure
    statistic: str = "p_win"  #: p_win, p_win_within_1/10/25, mean_iterations_ratio
    note: str = ""


def _oh(**values) -> Variant:
    return Variant.make("one-handed", **values)


def _hand(**values) -> Variant:
    return Variant.make("hand", **values)


#: The published One-Handed figures (docs/published-figures.md and the sources named).
PUBLISHED_ONE_HANDED = (
    Published("0.706%", "10^9 games, 95% CI 0.70543%-0.7065% (docs/published-figures.md)", "one-handed", 0.00706, _oh(),
              interval=(0.0070543, 0.007065), note="the rules as written"),
    Published("1 in 140", "write-up (docs/published-figures.md)", "one-handed", 1 / 140, _oh(),
              rounds_from=(1 / 145, 1 / 135),
              note="the rules as written: 0.706% is 1 in 142; \"1 in 140\" covers 1 in 135 to 1 in 145"),
    Published("0.52%", f"{KCTREY}: 23,601 wins in 4,497,135 games", "one-handed", 23_601 / 4_497_135,
              _oh(final="once"), wins=23_601, games=4_497_135,
              note="that simulator's loop ends when the deck is empty: one check after the last card"),
    Published("5.19%", f"{KCTREY}: 233,564 wins in 4,497,135 games (reversed effects)", "one-handed",
              233_564 / 4_497_135, _oh(reverse="on", final="once"), wins=233_564, games=4_497_135,
              note="the same loop with the effects reversed"),
    Published("about 5.2%", "reversed effects (docs/published-figures.md)", "one-handed", 0.052,
              _oh(reverse="on", final="once"), rounds_from=(0.0515, 0.0525),
              note="as 5.19%; the reversed rules as written give 5.45%"),
    Published("0.206%", "write-up (docs/published-figures.md)", "one-handed", 0.00206, None,
              note="withdrawn by its author as a bug"),
    Published("1 in 500", "write-up (docs/published-figures.md)", "one-handed", 1 / 500, None,
              rounds_from=(1 / 550, 1 / 450), note="no reading tried comes near 0.2%"),
)

#: The published Hand Solitaire figures (bcrist/hand-solitaire; docs/published-figures.md).
PUBLISHED_HAND = (
    Published("≈ 1.3%", f"{BCRIST}: won on the first iteration", "hand", 0.013, _hand(rank_resets="published"),
              rounds_from=(0.0125, 0.0135), games=BCRIST_RUNS, statistic="p_win_within_1",
              note="the published code: a rank match in step 7 does not reset the count of 3"),
    Published("≈ 22.5%", f"{BCRIST}: won within 10 iterations", "hand", 0.225, _hand(rank_resets="published"),
              rounds_from=(0.2245, 0.2255), games=BCRIST_RUNS, statistic="p_win_within_10"),
    Published("≈ 51%", f"{BCRIST}: won within 25 iterations", "hand", 0.51, _hand(rank_resets="published"),
              rounds_from=(0.505, 0.515), games=BCRIST_RUNS, statistic="p_win_within_25"),
    Published("about twice", "mean iterations to win without step 7 against with it (docs/published-figures.md)", "hand",
              2.0, None, rounds_from=(1.75, 2.25), statistic="mean_iterations_ratio",
              note="not reproduced: the ratio of means is about 1.6 under either reading of step 7"),
)

PUBLISHED = PUBLISHED_ONE_HANDED + PUBLISHED_HAND

#: Every One-Handed reading the script runs (first4=reversed has the plain game's distribution,
#: proved exactly for small decks, so it is left out).
ONE_HANDED_READINGS = tuple(_oh(win=w, reverse=r, final=f) for f in ("cascade", "once")
                            for r in ("off", "on") for w in ("end", "any"))
#: The Hand Solitaire readings: step 7 as published and as written, and no step 7 (where the two
#: readings of step 7 coincide).
HAND_READINGS = (_hand(rank_resets="published"), _hand(), _hand(step7="off", rank_resets="published"))


def reading(figure: str) -> Published:
    """The published figure called ``figure``."""
    for p in PUBLISHED:
        if p.figure == figure:
            return p
    raise KeyError(figure)


def planned_runs(one_handed_games: int = ONE_HANDED_GAMES, hand_runs: int = HAND_RUNS):
    """``(deck, variant, games, options)`` of every run the section reads."""
    runs = [(STANDARD, v, one_handed_games, None) for v in ONE_HANDED_READINGS]
    runs += [(STANDARD, v, hand_runs, {"cap": HAND_CAP}) for v in HAND_READINGS]
    return runs


def same_rate_p(wins: int, games: int, published_wins: int, published_games: int) -> float:
    """Two-sided exact test that our wins and the published wins come from one rate: given the
    total wins, ours are Binomial(total, games / (games + published_games))."""
    total = wins + published_wins
    if total == 0:
        return 1.0
    return float(stats.binomtest(wins, total, games / (games + published_games)).pvalue)


def compare(published: Published, value: float, low: float, high: float, wins: int | None = None,
            games: int | None = None) -> tuple[bool, str]:
    """Whether a stored estimate (``value`` in ``[low, high]``, 95%) agrees with ``published``, and how
    that was tested (one line)."""
    if published.wins is not None and wins is not None:
        p = same_rate_p(wins, games, published.wins, published.games)
        return p >= 0.01, f"same rate as {published.wins:,}/{published.games:,}: exact test p = {p:.2g}"
    if published.interval is not None:
        a, b = published.interval
        ok = a <= high and low <= b
        return ok, f"published 95% interval [{a:.5%}, {b:.5%}] {'overlaps' if ok else 'misses'} ours"
    a, b = published.rounds_from if published.rounds_from is not None else (published.value, published.value)
    what = "ratio" if published.statistic == "mean_iterations_ratio" else "rate"
    widened = ""
    if published.games and what == "rate":  # the published run's own sampling error
        z = 1.959963984540054
        a -= z * math.sqrt(a * (1 - a) / published.games)
        b += z * math.sqrt(b * (1 - b) / published.games)
        widened = f", widened by the sampling error of {published.games:,} runs,"
    ok = a <= high and low <= b
    shown = (lambda x: f"{x:.2f}") if what == "ratio" else (lambda x: f"{x:.3%}")
    return ok, (f"{what}s that round to it{widened} [{shown(a)}, {shown(b)}] "
                f"{'overlap' if ok else 'miss'} our interval")


# --- reading the store --------------------------------------------------------------------------

def _best(store, deck: Deck, variant: Variant) -> dict | None:
    found = [r for _, r in store.find(kind="simulation", game=variant.game, suits=deck.suits, ranks=deck.ranks,
                                      variant=str(variant))]
    return max(found, key=lambda r: r["games"], default=None)


def hand_statistic(record: dict, statistic: str) -> tuple[float, float, float]:
    """``(value, low, high)`` of a Hand Solitaire statistic from a stored run's counts."""
    stats = iteration_statistics(record["iterations_to_win"], record["games"], record["capped"])
    last = statistic.rpartition("_")[2]
    return tuple(stats["p_win_within"][last])


def mean_iterations(record: dict) -> tuple[float, float]:
    """Mean iterations to win (runs won within the cap) and its standard error."""
    stats = iteration_statistics(record["iterations_to_win"], record["games"], record["capped"])
    return stats["mean_iterations_to_win"], stats["mean_iterations_to_win_se"]


def median_iterations(record: dict) -> int:
    return iteration_statistics(record["iterations_to_win"], record["games"], record["capped"])[
        "median_iterations_to_win"]


def ratio_interval(a: float, se_a: float, b: float, se_b: float, z: float = 1.959963984540054):
    """``a / b`` with a 95% interval by the delta method (independent runs)."""
    r = a / b
    se = r * math.sqrt((se_a / a) ** 2 + (se_b / b) ** 2)
    return r, r - z * se, r + z * se


def _pct(x: float, digits: int = 3) -> str:
    return f"{x * 100:.{digits}f}%"


def _prov(record: dict) -> str:
    p = record.get("provenance", {})
    return (f"seed {record.get('seed', '?')}, commit {str(p.get('git_commit', '?'))[:10]}, "
            f"{p.get('finished') or p.get('started') or '?'}")


def readings_section(path: Path | str = DEFAULT_STORE) -> list[str]:
    """The results page's section: every published figure, the reading that produces it, its stored
    run's estimate and interval, and the test against the published figure; where no reading does,
    what was tried. Reads the results store at ``path`` (written by ``scripts/published_readings.py``)."""
    path = Path(path)
    lines = ["## Published figures and the readings that produce them", ""]
    if not path.exists():
        return lines + [f"No stored runs at `{path}`: `python scripts/published_readings.py --out {path}` "
                        "computes them.", ""]

    store = ResultsStore(path)
    lines += [
        f"From the runs stored in `{path}` (`scripts/published_readings.py`; standard deck, seed {SEED}, every "
        "reading on the same decks). A published count is tested with a two-sided exact test of \"same rate\" "
        "(agreement: p ≥ 0.01); a published interval or rounded figure agrees when it overlaps our 95% interval "
        "(the values that round to a figure are widened by the published run's sampling error where its size "
        "is known).",
        "", "### One-Handed Solitaire", "",
        "| published | source | reading | games | p_win | 95% interval | test against the published figure | agrees | provenance |",
        "|---|---|---|---|---|---|---|---|---|"]
    for p in PUBLISHED_ONE_HANDED:
        if p.variant is None:
            lines.append(f"| {p.figure} | {p.source} | none | | | | {p.note} | no reading | |")
            continue
        r = _best(store, STANDARD, p.variant)
        if r is None:
            lines.append(f"| {p.figure} | {p.source} | `{p.variant}` | not stored | | | | | |")
            continue
        low, high = r["ci95"]
        ok, how = compare(p, r["p_win"], low, high, r["wins"], r["games"])
        lines.append(f"| {p.figure} | {p.source} | `{p.variant}` | {r['games']:,} | {_pct(r['p_win'])} | "
                     f"[{_pct(low)}, {_pct(high)}] | {how} | **{'yes' if ok else 'no'}** | {_prov(r)} |")
    lines += ["", "Every reading tried (win × reverse × final; `first4=reversed` has the plain game's "
              "distribution). No reading comes near 0.2% (\"1 in 500\", and 0.206%, which its author withdrew "
              "as a bug): the smallest is `final=once` at about 0.53%.", "",
              "| reading | games | p_win | 95% interval | odds | provenance |", "|---|---|---|---|---|---|"]
    for v in ONE_HANDED_READINGS:
        r = _best(store, STANDARD, v)
        if r is None:
            lines.append(f"| `{v}` | not stored | | | | |")
            continue
        low, high = r["ci95"]
        lines.append(f"| `{v}` | {r['games']:,} | {_pct(r['p_win'], 4)} | [{_pct(low, 4)}, {_pct(high, 4)}] | "
                     f"1 in {1 / r['p_win']:,.0f} | {_prov(r)} |")
    lines += ["", "### Hand Solitaire", "",
              "Each published figure against both readings of step 7: the published code (a rank match in the "
              "rotation phase does not reset the count of 3, `rank_resets=published`) and the rules as written. "
              "Within 10 and within 25 iterations tell them apart; the first iteration alone does not.", "",
              "| published | source | reading | runs | here | 95% interval | test against the published figure | agrees | provenance |",
              "|---|---|---|---|---|---|---|---|---|"]
    for p in PUBLISHED_HAND:
        if p.statistic == "mean_iterations_ratio":
            continue
        for v in (p.variant, _hand()):
            r = _best(store, STANDARD, v)
            if r is None:
                lines.append(f"| {p.figure} | {p.source} | `{v}` | not stored | | | | | |")
                continue
            value, low, high = hand_statistic(r, p.statistic)
            ok, how = compare(p, value, low, high)
            lines.append(f"| {p.figure} | {p.source} | `{v}` | {r['games']:,} | {_pct(value, 2)} | "
                         f"[{_pct(low, 2)}, {_pct(high, 2)}] | {how} | **{'yes' if ok else 'no'}** | {_prov(r)} |")
    lines += _step7_lines(store)
    return lines + [""]


def _step7_lines(store) -> list[str]:
    """The published "about twice" the mean iterations without step 7, against both readings of step 7."""
    p = reading("about twice")
    off = _best(store, STANDARD, HAND_READINGS[2])
    rows = []
    for v in HAND_READINGS[:2]:
        on = _best(store, STANDARD, v)
        if off is None or on is None:
            continue
        (m_off, se_off), (m_on, se_on) = mean_iterations(off), mean_iterations(on)
        ratio, low, high = ratio_interval(m_off, se_off, m_on, se_on)
        ok, how = compare(p, ratio, low, high)
        rows.append(f"| {p.figure} | without step 7 against `{v}` | {m_off:.2f} / {m_on:.2f} = **{ratio:.2f}** | "
                    f"[{low:.2f}, {high:.2f}] | {median_iterations(off)} / {median_iterations(on)} | {how} | "
                    f"**{'yes' if ok else 'no'}** |")
    if not rows:
        return ["", "Mean iterations without step 7: runs not stored.", ""]
    return ["", f"Mean iterations to win without step 7 against with it (published: \"{p.figure}\"; "
            f"{off['games']:,} runs each, cap {HAND_CAP}, runs won within the cap; `{HAND_READINGS[2]}`, which "
            "plays the same with either reading of step 7). What was tried: both readings of step 7; the "
            "medians as well as the means. Neither reaches 2.", "",
            "| published | compared | ratio of means | 95% interval (delta method) | medians | test | agrees |",
            "|---|---|---|---|---|---|---|", *rows]
