"""The narrow families of One-Handed decks, exact: S suits x 2 ranks and 2 suits x R ranks.

    .venv/bin/python scripts/exact_families.py [--compute] [--decks 16x2,2x13,...] [--hours H]
                                               [--checkpoint-dir results/word-jobs/narrow]
                                               [--out results/solitaire.h5]
                                               [--table results/exact_families.md]
                                               [--figure results/exact_families.png]

Without ``--compute`` nothing is computed: the table and the figure are drawn from the exact
results already in the store (the plain game and ``win=any``; a deck's plain game is also read
from ``reverse=on`` on its transpose, the same counts). With ``--compute`` the decks of
``--decks`` (default: S x 2 for S = 13 .. 31, then 2 x R for R = 13 .. 31, the cheap family
first) that the store lacks are computed by the word method, each deck's finished jobs kept in
``--checkpoint-dir`` as they finish, and stored (the plain game and ``win=any``, one set of jobs);
the run stops starting new decks after ``--hours`` of wall time, and Ctrl-C or SIGTERM stops it at
once (one line, exit status 130 or 143, the finished jobs kept), so the same command continues it.

The table gives p_win exactly and in per cent for each deck, and the figure p_win against the
number of cards, S x 2 with even and odd S apart (they tend to different values) and 2 x R. The
curves drawn through them are least-squares fits, stated as fits: ``p = a + b / S`` for each
parity of S on S x 2, and ``p = c * R^-k`` on 2 x R, over the decks with S (or R) at least
:data:`FIT_FROM` (the smallest decks follow neither form). They describe the computed decks;
nothing here proves a limit.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from fractions import Fraction
from pathlib import Path

from exact.result import ExactResult
from sim import Deck, Variant, interrupts
from sim.store import DEFAULT_PATH, ResultsStore

PLAIN = "one-handed(win=end,reverse=off,first4=kept)"
WIN_ANY = "one-handed(win=any,reverse=off,first4=kept)"
#: the fits use the decks with at least this many suits (S x 2) or ranks (2 x R)
FIT_FROM = 6
DEFAULT_DECKS = [(s, 2) for s in range(13, 32)] + [(2, r) for r in range(13, 32)]


def family_values(store: ResultsStore | None) -> dict:
    """``{(S, R): {"plain": ExactResult | None, "any": ExactResult | None}}`` for every stored deck
    with S == 2 or R == 2 (at least 2 x 2); the plain game also from ``reverse=on`` on the transpose."""
    out: dict = {}
    if store is None or not store.exists():
        return out
    for _, rec in store.find(kind="exact", game="one-handed"):
        s, r = rec["suits"], rec["ranks"]
        variant = Variant.parse(rec["variant"])
        rules = variant.rules
        if rules.final_once or rules.first4_reversed:
            continue
        if rules.reverse:
            s, r = r, s  # reverse=on on S x R is the plain game on R x S
        if not (s >= 2 and r >= 2 and 2 in (s, r)):
            continue
        key = "any" if rules.win_any else "plain"
        result = ExactResult.from_record(rec)
        out.setdefault((s, r), {"plain": None, "any": None})
        if out[(s, r)][key] is None or not rules.reverse:  # the deck's own record first
            out[(s, r)][key] = result
    return out


def fit_inverse(points):
    """Least squares ``p = a + b / x`` over ``(x, p)``: ``(a, b)``."""
    xs = [1 / x for x, _ in points]
    ys = [p for _, p in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def fit_power(points):
    """Least squares of ``log p = log c - k log x`` over ``(x, p)``: ``(c, k)``."""
    xs = [math.log(x) for x, _ in points]
    ys = [math.log(p) for _, p in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return math.exp(my - slope * mx), -slope


def fits(values: dict) -> dict:
    """The fitted curves (see the module docstring) over the stored plain games."""
    plain = {k: float(v["plain"].p_win) for k, v in values.items() if v["plain"] is not None}
    out = {}
    for parity, name in ((0, "even"), (1, "odd")):
        pts = [(s, p) for (s, r), p in plain.items() if r == 2 and s >= FIT_FROM and s % 2 == parity]
        if len(pts) >= 3:
            out[f"Sx2, {name} S"] = ("inverse", fit_inverse(pts), len(pts), min(x for x, _ in pts))
    pts = [(r, p) for (s, r), p in plain.items() if s == 2 and r >= FIT_FROM]
    if len(pts) >= 3:
        out["2xR"] = ("power", fit_power(pts), len(pts), min(x for x, _ in pts))
    return out


def table(values: dict, fitted: dict) -> str:
    lines = ["# One-Handed Solitaire on narrow decks, exact", "",
             "Written by `scripts/exact_families.py` from the exact results in the store. S x 2: S suits of "
             "2 ranks; 2 x R: 2 suits of R ranks. p_win of the plain game (win=end) and of win=any; "
             "exact fractions, each the count of winning orders over all (S*R)! orders.", "",
             "| deck | cards | p_win (plain) | p_win ~ | p_win (win=any) ~ | method |", "|---|---|---|---|---|---|"]
    order = sorted(values, key=lambda k: (0 if k[1] == 2 else 1, k[0] * k[1], k))
    for s, r in order:
        v = values[(s, r)]
        plain, anyw = v["plain"], v["any"]
        if plain is None:
            continue
        lines.append(f"| {s}x{r} | {s * r} | {plain.p_win} | {float(plain.p_win):.6%} | "
                     + (f"{float(anyw.p_win):.6%}" if anyw is not None else "") + f" | {plain.method} |")
    lines += ["", "Fitted curves (least squares over the decks above; fits that describe them, not theorems):", ""]
    for name, (kind, params, npts, first) in fitted.items():
        if kind == "inverse":
            a, b = params
            lines.append(f"- {name}: p_win ~ {a:.5f} {'+' if b >= 0 else '-'} {abs(b):.5f} / S "
                         f"({npts} decks, S >= {first})")
        else:
            c, k = params
            lines.append(f"- {name}: p_win ~ {c:.5f} * R^-{k:.4f} ({npts} decks, R >= {first})")
    return "\n".join(lines) + "\n"


def figure(values: dict, fitted: dict, path: Path) -> None:
    from solitaire.figures import _pyplot, _save

    plt = _pyplot()
    plain = {k: float(v["plain"].p_win) * 100 for k, v in values.items() if v["plain"] is not None}
    fig, ax = plt.subplots(figsize=(8, 5))
    series = [("S x 2, even S", lambda s, r: r == 2 and s % 2 == 0, "o", "Sx2, even S", "tab:blue"),
              ("S x 2, odd S", lambda s, r: r == 2 and s % 2 == 1, "s", "Sx2, odd S", "tab:orange"),
              ("2 x R", lambda s, r: s == 2 and r > 2, "^", "2xR", "tab:green")]
    for label, keep, marker, fit_name, colour in series:
        pts = sorted((s * r, p, s, r) for (s, r), p in plain.items() if keep(s, r) and s * r >= 4)
        if not pts:
            continue
        ax.plot([n for n, *_ in pts], [p for _, p, *_ in pts], marker, color=colour, label=f"{label} (exact)")
        if fit_name in fitted:
            kind, params, _, first = fitted[fit_name]
            lo, hi = 2 * first, max(n for n, *_ in pts)
            ns = [lo + (hi - lo) * i / 200 for i in range(201)]
            if kind == "inverse":
                a, b = params
                ys = [(a + b / (n / 2)) * 100 for n in ns]
                text = f"fit {a * 100:.2f} {'+' if b >= 0 else '-'} {abs(b) * 100:.2f}/S %, S >= {first}"
            else:
                c, k = params
                ys = [c * (n / 2) ** -k * 100 for n in ns]
                text = f"fit {c * 100:.1f} R^-{k:.2f} %, R >= {first}"
            ax.plot(ns, ys, "--", color=colour, linewidth=1, label=text)
    ax.set_yscale("log")
    from matplotlib import ticker

    shown = list(plain.values())
    ax.set_yticks([t for t in (1, 2, 3, 4, 5, 7, 10, 15, 20, 30, 40, 50, 70, 100)
                   if min(shown) / 1.2 <= t <= max(shown) * 1.2])
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_xlabel("cards (S x R)")
    ax.set_ylabel("p_win (%), logarithmic scale")
    ax.set_title("One-Handed Solitaire, exact p_win on narrow decks (plain rules)\n"
                 "dashed: least-squares fits, not theorems")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="center right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    _save(fig, path, svg=True)  # the SVG without a date, so that a rerun leaves git clean


def compute(store: ResultsStore, decks, checkpoint_dir: str, hours: float, workers: int = 1) -> None:
    from exact.one_handed import exact_distribution

    have = family_values(store)
    t0 = time.monotonic()
    for s, r in decks:
        if (s, r) in have and have[(s, r)]["plain"] is not None and have[(s, r)]["any"] is not None:
            continue
        if time.monotonic() - t0 > hours * 3600:
            print(f"stopped after {hours} h: the same command continues", file=sys.stderr)
            return
        stored = have.get((s, r), {"plain": None, "any": None})
        for key, text in (("plain", PLAIN), ("any", WIN_ANY)):  # one set of jobs: the second read from the journal
            if stored[key] is not None:
                continue
            result = exact_distribution(Deck(s, r), Variant.parse(text), method="word", checkpoint_dir=checkpoint_dir,
                                        workers=workers)
            name = store.save(result)
            print(f"{s}x{r} {text}: p_win {result.p_win} ({float(result.p_win):.6%}) stored as {name}", flush=True)


def parse_decks(text: str):
    out = []
    for spec in text.split(","):
        s, r = (int(x) for x in spec.lower().split("x"))
        if 2 not in (s, r) or s * r > 62:
            raise SystemExit(f"exact_families.py: {spec} is not a narrow deck (S x 2 or 2 x R, at most 62 cards)")
        out.append((s, r))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compute", action="store_true", help="compute the decks the store lacks")
    parser.add_argument("--decks", default=None, help="SxR decks, comma separated (default: 13x2 .. 31x2, 2x13 .. 2x31)")
    parser.add_argument("--hours", type=float, default=math.inf, help="start no new deck after this many hours")
    parser.add_argument("--workers", type=int, default=1, help="a deck's jobs run at once, on threads of this process (default 1)")
    parser.add_argument("--checkpoint-dir", default="results/word-jobs/narrow")
    parser.add_argument("--out", default=str(DEFAULT_PATH))
    parser.add_argument("--table", default="results/exact_families.md")
    parser.add_argument("--figure", default="results/exact_families.png")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"--workers must be at least 1, not {args.workers}")
    decks = parse_decks(args.decks) if args.decks else DEFAULT_DECKS
    store = ResultsStore(args.out)
    if args.compute:
        # Ctrl-C or SIGTERM: one line and exit status 130 / 143 at once; the finished jobs stay in the
        # journal and every deck already stored stays stored
        with interrupts.handling_signals("exact_families.py"), interrupts.keeping(
                f": the finished jobs are kept in {args.checkpoint_dir}; the same command continues"):
            compute(store, decks, args.checkpoint_dir, args.hours, args.workers)
    values = family_values(store)
    if not values:
        print(f"exact_families.py: no narrow deck in {args.out}", file=sys.stderr)
        return 1
    fitted = fits(values)
    Path(args.table).parent.mkdir(parents=True, exist_ok=True)
    Path(args.table).write_text(table(values, fitted))
    figure(values, fitted, Path(args.figure))
    print(f"{len(values)} decks: {args.table}, {args.figure}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
