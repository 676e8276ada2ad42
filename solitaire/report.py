"""``solitaire report``: results/README.md and its figures, written from what the store holds.

Every number in the report is read from the results store, and printed with the provenance of the
record it came from (seed or method, games, commit, date). This module only reads the store and writes;
:mod:`solitaire.main_job` fills the store with the main job's computations first.
"""
from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

from sim.fractions_text import fraction_digest, fraction_from_text
from exact.hand.limits import MAX_GRAPH_CARDS
from sim import Deck, Variant, provenance
from sim.errors import UsageError, WriteError
from sim.store import ResultsStore

from . import figures
from .readings import readings_section

ONE_OVER_ROOT2_PERCENT = 1 / math.sqrt(2)  # the claim: p_win = (1/sqrt 2) %
PUBLISHED_CI = (0.0070543, 0.007065)  # 10^9 games, 95%
STANDARD = Deck(4, 13)
#: Games of ``scripts/standard_deck_long_run.sh``: 25 times the published 10^9, so a 5 times tighter interval.
LONG_RUN_GAMES = 25_000_000_000


def _frac(text) -> Fraction:
    return fraction_from_text(str(text))


def _pct(x: float, digits: int = 5) -> str:
    return f"{x * 100:.{digits}f}%"


#: The provenance notes met while a report is written (a record's ``git_commit_note``, e.g. a commit
#: of a branch from before its rebase), numbered in order of appearance; the report lists them at its
#: end and each row that has one names its number.
_NOTES: dict[str, int] = {}


def _prov(record: dict, *, seed: bool = False) -> str:
    """``commit C, DATE`` of a record; with ``seed``, ``seed S, commit C, DATE``; ``commit C (note N)``
    where the record carries a provenance note (listed at the end of the report)."""
    p = record.get("provenance", {})
    commit = str(p.get("git_commit", "?"))[:10]
    note = p.get("git_commit_note")
    if note:
        commit += f" (note {_NOTES.setdefault(str(note), len(_NOTES) + 1)})"
    when = p.get("finished") or p.get("started") or "?"
    return (f"seed {record.get('seed', '?')}, " if seed else "") + f"commit {commit}, {when}"


def _notes_section() -> list[str]:
    if not _NOTES:
        return []
    return ["## Provenance notes", ""] + [f"{n}. {note}" for note, n in _NOTES.items()] + [""]


def _pct_sig(x: float, digits: int = 4) -> str:
    """A percentage with ``digits`` significant digits (small cells keep their digits)."""
    return "0%" if x == 0 else f"{x * 100:#.{digits}g}%"


def best_simulation(store, deck: Deck, variant: Variant) -> dict | None:
    """The stored simulation of this deck and variant with the most games."""
    found = current_simulations([r for _, r in store.find(kind="simulation", game=variant.game, suits=deck.suits,
                                                         ranks=deck.ranks, variant=str(variant))])
    return max(found, key=lambda r: r["games"], default=None)


def exact_records(store, variant: Variant) -> list[dict]:
    found = [r for _, r in store.find(kind="exact", game=variant.game, variant=str(variant))]
    return sorted(found, key=lambda r: (r["suits"] * r["ranks"], r["suits"]))


def _standard_section(store, out: Path, lines: list[str]) -> None:
    variant = Variant.make("one-handed")
    sim = best_simulation(store, STANDARD, variant)
    lines += ["## One-Handed Solitaire, standard deck (4 x 13)", ""]
    if sim is None:
        lines += ["No simulation of the standard deck in the store yet.", ""]
        return
    low, high = sim["ci95"]
    lines += [
        f"| games | wins | p_win | 95% interval ({sim.get('interval_method', 'wilson')}) | mean score | seed | provenance |",
        "|---|---|---|---|---|---|---|",
        f"| {sim['games']:,} | {sim['wins']:,} | {_pct(sim['p_win'])} | [{_pct(low)}, {_pct(high)}] | "
        f"{_mean_se(sim['mean_score'], sim.get('mean_score_se'))} | {sim['seed']} | {_prov(sim)} |",
        "",
    ]
    claim = ONE_OVER_ROOT2_PERCENT / 100
    verdict = "inside" if low <= claim <= high else "outside"
    width, published_width = high - low, PUBLISHED_CI[1] - PUBLISHED_CI[0]
    lines += [
        "### Is the win rate 1/√2 %?",
        "",
        f"1/√2 % = {_pct(claim, 6)}. The interval above, [{_pct(low, 6)}, {_pct(high, 6)}], from "
        f"{sim['games']:,} games, is {_width_comparison(width, published_width)} the published 10^9-game "
        f"interval [{_pct(PUBLISHED_CI[0], 5)}, {_pct(PUBLISHED_CI[1], 5)}]; 1/√2 % lies **{verdict}** it"
        + (", so the claim is rejected at the 5% level." if verdict == "outside" else
           ", so these games cannot reject the claim.") + " " + _published_agreement(low, high),
        "",
    ]
    if sim["games"] < LONG_RUN_GAMES:
        lines += [f"`scripts/standard_deck_long_run.sh` plays {LONG_RUN_GAMES:,} games (25 times the published "
                  "10^9, resumable), whose interval is five times tighter than the published one; `solitaire "
                  "report` then shows that run, the stored run with the most games.", ""]
    all_left = sim["score_counts"][52] if len(sim["score_counts"]) > 52 else 0
    if all_left:
        lines += [f"All 52 cards left: {all_left:,} games, about 1 in {sim['games'] / all_left:,.0f}.", ""]
    else:
        lines += [f"All 52 cards left: not seen in {sim['games']:,} games.", ""]
    relatives = [r for r in exact_records(store, variant) if r["suits"] == 4 and r["ranks"] <= 5]
    figures.score_distribution(sim, relatives, out / "score_distribution.png")
    lines += ["![score distribution](score_distribution.png)", ""]


def _width_comparison(width: float, published_width: float) -> str:
    """``"3.2 times as wide as"`` or ``"5.0 times tighter than"``: never "0.3 times tighter"."""
    if width > published_width:
        return f"{width / published_width:.1f} times as wide as"
    return f"{published_width / width:.1f} times tighter than"


def odds_text(p: float) -> str:
    """``p`` as odds, "1 in N": N to three significant digits below 100 (never "1 in 1" for 0.7)."""
    if p <= 0:
        return "-"
    n = 1 / p
    return f"1 in {n:,.0f}" if n >= 100 else f"1 in {n:.3g}"


def _mean_se(mean: float, se) -> str:
    """``mean ± se`` with the standard error to two significant digits, the mean to the same place."""
    if se is None or not math.isfinite(se) or se <= 0:
        return f"{mean:.4f}"
    digits = max(0, 1 - math.floor(math.log10(se)))
    return f"{mean:.{digits}f} ± {se:.{digits}f}"


def _published_agreement(low: float, high: float) -> str:
    """How the published 10^9-game interval relates to ours (the published 0.706% is confirmed or not)."""
    p_low, p_high = PUBLISHED_CI
    if p_low <= low and high <= p_high:
        return "The published interval contains this one: the published 0.706% is confirmed."
    if high < p_low or low > p_high:
        return "The published interval and this one are disjoint: the published 0.706% is not confirmed."
    return "The published interval and this one overlap."


def _variants_section(store, lines: list[str]) -> None:
    rows = []
    for name, spec in (("plain", {}), ("win=any", {"win": "any"}), ("reverse=on", {"reverse": "on"}),
                       ("reverse=on, win=any", {"reverse": "on", "win": "any"}),
                       ("first4=reversed", {"first4": "reversed"})):
        variant = Variant.make("one-handed", **spec)
        sim = best_simulation(store, STANDARD, variant)
        if sim is not None:
            low, high = sim["ci95"]
            rows.append(f"| `{variant}` | {sim['games']:,} | {_pct(sim['p_win'], 4)} | "
                        f"[{_pct(low, 4)}, {_pct(high, 4)}] | {odds_text(sim['p_win'])} | {_prov(sim, seed=True)} |"
                        if sim["p_win"] > 0 else f"| `{variant}` | {sim['games']:,} | 0 | | | {_prov(sim, seed=True)} |")
    if rows:
        lines += ["### Which rule reading gives which published figure", "",
                  "Published One-Handed rates disagree (0.706%, 0.52%, 0.206%, \"1 in 500\", \"1 in 140\", "
                  "about 5.2% for the reversed effects); the standard deck under each reading:", "",
                  "| variant | games | p_win | 95% interval | odds | provenance |", "|---|---|---|---|---|---|",
                  *rows, ""]


def _exact_section(store, out: Path, lines: list[str]) -> None:
    variant = Variant.make("one-handed")
    records = exact_records(store, variant)
    lines += ["## Exact results (every deck order counted)", ""]
    if not records:
        lines += ["No exact results in the store yet.", ""]
        return
    lines += [
        "Every removal takes 2 or 4 cards, so the score has the parity of S·R: a deck with S and R both odd "
        "can never be won (the parity theorem, checked on every transition of the exact engines).", "",
        "| deck | cards | orders | wins | p_win | p_win (decimal) | mean score | method | provenance |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in records:
        p = _frac(r["p_win"])
        lines.append(f"| {r['suits']}x{r['ranks']} | {r['suits'] * r['ranks']} | {int(r['orders'])} | "
                     f"{int(r.get('wins', r['score_counts'][0]))} | {p} | {float(p):.6%} | {r['mean_score']} "
                     f"({float(_frac(r['mean_score'])):.4f}) | {r['method']} | {_prov(r)} |")
    lines.append("")
    published = [r for r in records if (r["suits"], r["ranks"]) == (4, 5)]
    if published:
        p = _frac(published[-1]["p_win"])
        lines += [f"The published \"20-card deck, about 7.5%\" (4 suits × 5 ranks) is exactly {p} ≈ "
                  f"{float(p):.4%} of its 20! orders.", ""]
    # 1-suit and 1-rank decks (p_win 0 or 1, shown in the table) would take most of the grid and the colour scale
    cells = [{"suits": r["suits"], "ranks": r["ranks"], "p_win": float(_frac(r["p_win"])),
              "source": "theorem" if r["suits"] % 2 and r["ranks"] % 2 else "exact"}
             for r in records if r["suits"] >= 2 and r["ranks"] >= 2]
    if not cells:
        return
    figures.p_win_heatmap(cells, out / "exact_p_win_heatmap.png", f"exact p_win (%), S and R >= 2\n{variant}")
    lines += ["![exact heatmap](exact_p_win_heatmap.png)", ""]


def sweep_table(cells: list[dict]) -> list[str]:
    """Markdown rows of a sweep: suits down, ranks across; p_win with its 95% interval, and how it is known."""
    suits = sorted({c["suits"] for c in cells})
    ranks = sorted({c["ranks"] for c in cells})
    by_deck = {(c["suits"], c["ranks"]): c for c in cells}

    def text(c: dict | None) -> str:
        if c is None:
            return ""
        if c["source"] == "theorem":
            return "0 (theorem)"
        if c["source"] == "exact":
            return f"{_pct_sig(c['p_win'], 6)} (exact)"
        low, high = c["ci95"]
        return f"{_pct_sig(c['p_win'])} [{_pct_sig(low)}, {_pct_sig(high)}] (sim.)"

    return ["| S \\ R | " + " | ".join(str(r) for r in ranks) + " |", "|---" * (len(ranks) + 1) + "|",
            *(f"| {s} | " + " | ".join(text(by_deck.get((s, r))) for r in ranks) + " |" for s in suits)]


def _sweep_section(store, out: Path, lines: list[str]) -> None:
    plain = str(Variant.make("one-handed"))
    sweeps = [r for _, r in store.find(kind="sweep", variant=plain)]
    if not sweeps:
        return
    sweep = max(sweeps, key=lambda r: (len(r["cells"]), r["games"]))
    figures.p_win_heatmap(sweep["cells"], out / "sweep_p_win_heatmap.png",
                          f"p_win (%) over suits x ranks, {sweep['games']:,} games a simulated cell\n{sweep['variant']}")
    lines += ["## Sweep over deck shapes", "",
              f"`{sweep['variant']}`, {sweep['games']:,} games a simulated cell, seed {sweep['seed']} ({_prov(sweep)}). "
              "Odd × odd cells are zero by the parity theorem, not by simulation. p_win with its 95% interval; "
              "*exact*: counted over every deck order; *theorem*: zero by the parity theorem; *sim.*: simulated.", "",
              *sweep_table(sweep["cells"]), "",
              "![sweep heatmap](sweep_p_win_heatmap.png)", ""]


def _validation_section(store, lines: list[str]) -> None:
    reports = [r for _, r in store.find(kind="validation")]
    if not reports:
        return
    latest = max(reports, key=lambda r: r.get("provenance", {}).get("finished", ""))
    checks = latest["checks"]
    tested = [c for c in checks if c.get("tested", True)]
    failed = sum(c["rejected"] for c in checks)
    cases = {(c["suits"], c["ranks"], c["variant"]) for c in checks if c.get("variant")}
    pooled = [c for c in checks if c.get("variant") is None]
    lines += ["## Validation of the simulator against exact values", "",
              f"{len(cases)} cases (deck and variant; games: {latest.get('game', 'one-handed')}), "
              f"{latest['games']:,} games each, seed {latest['seed']}: {len(tested)} tested comparisons (G-tests of "
              "whole score distributions and exact binomial tests of p_win per case, "
              + ("and one pooled coverage test of all 95% intervals" if pooled else
                 "and interval coverage over repeated seeds per case")
              + f"), Holm-corrected at alpha = {latest['alpha']}: "
              + ("**all passed**" if not failed else f"**{failed} failed**") + f" ({_prov(latest)}).", ""]
    if pooled:
        lines += [f"Interval coverage, {pooled[0]['detail']}; one-sided p = {pooled[0]['p_value']:.3g}.", ""]


def current_simulations(records: list[dict]) -> list[dict]:
    """One record per computation: runs of an older engine version of their game are left out
    (their counts come from a kernel no longer played; ``scripts/migrate_store.py --drop-superseded``
    removes them), and of several runs of the same deck, variant, seed, games and options the
    newest is kept."""
    from sim.games import get_game
    from sim.montecarlo import stored_engine_version

    newest: dict = {}
    for r in records:
        version = stored_engine_version(r)
        if version is not None and version < get_game(r["game"]).engine_version:
            continue
        key = (r["game"], r["variant"], r["suits"], r["ranks"], str(r.get("seed")), r["games"],
               repr(sorted(r.get("provenance", {}).get("options", {}).items())))
        newest[key] = r  # records come oldest first
    return list(newest.values())


def _hand_section(store, out: Path, lines: list[str]) -> None:
    found = current_simulations([r for _, r in store.find(kind="simulation", game="hand")])
    if not found:
        return
    lines += ["## Hand Solitaire", "",
              "| variant | deck | runs | won on 1st iteration | within 10 | within 25 | capped | provenance |",
              "|---|---|---|---|---|---|---|---|"]
    for r in sorted(found, key=lambda r: r["variant"]):
        its = r.get("iterations_to_win", [])
        runs = r["games"]
        within = lambda k: sum(its[1:k + 1]) / runs  # noqa: E731
        lines.append(f"| `{r['variant']}` | {r['suits']}x{r['ranks']} | {runs:,} | {_pct(within(1), 3)} | "
                     f"{_pct(within(10), 2)} | {_pct(within(25), 2)} | {r.get('capped', 0):,} | {_prov(r, seed=True)} |")
    lines.append("")
    main = max(found, key=lambda r: r["games"])
    figures.iterations_histogram(main, out / "hand_iterations.png")
    lines += ["![iterations to win](hand_iterations.png)", ""]
    poison = [r for _, r in store.find(kind="poison")]
    if poison:
        lines += ["### Poison sets (runs that reach the cap, decided exactly)", "",
                  "A capped run is *trapped* when everything reachable from it was exhausted without a win (a "
                  "certificate), and *undecided* when the search budget ran out (counted both ways in the bracket). "
                  "*Unwinnable* start decks (no win reachable at all) are a different, smaller share.", "",
                  "| variant | decks | trapped | 95% bracket | poison-set sizes (deck orders: runs) | unwinnable | undecided | provenance |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in sorted(poison, key=lambda r: r["variant"]):
            low, high = r["ci95_trapped"]
            sizes = ", ".join(f"{k}: {v}" for k, v in sorted(r["poison_set_sizes"].items(), key=lambda kv: int(kv[0])))
            lines.append(f"| `{r['variant']}` | {r['decks']:,} | {r['trapped']:,} ({_pct(r['p_trapped_runs'], 3)}) | "
                         f"[{_pct(low, 3)}, {_pct(high, 3)}] | {sizes or 'none'} | {r['unwinnable']:,} | "
                         f"{r['undecided']:,} | {_prov(r, seed=True)} |")
        lines.append("")


#: The store of whole-deck Hand Solitaire results (``scripts/hand_poison_survey.py --store``), beside
#: results/README.md: minutes per 12-card deck, so the report reads them and never recomputes them.
HAND_GRAPHS_STORE = "hand_graphs.h5"


def hand_graph_section(path: Path | str, *, min_cards: int = 12) -> list[str]:
    """The whole-deck table of Hand Solitaire (``solitaire poison --all``): every deck of at least
    ``min_cards`` cards stored at ``path`` in every stored variant, largest decks first; long
    fractions shortened (value, digits, hash). Smaller decks: ``results/hand_poison_survey.md``."""

    path = Path(path)
    lines = [f"### Whole decks of {min_cards} cards, exactly (`solitaire poison --all`)", ""]
    if not path.exists():
        return lines + [f"No stored results at `{path}`: `python scripts/hand_poison_survey.py 12 --min-cards 12 "
                        f"--store {path}` computes the 12-card decks (minutes each).", ""]
    found = [r for _, r in ResultsStore(path).find(kind="hand-graph") if r["suits"] * r["ranks"] >= min_cards]
    lines += [f"Every deck order of each deck, from the results stored in `{path}` "
              "(`scripts/hand_poison_survey.py --store`; the classes of deck orders up to relabelling, poison sets "
              "with networkx, the absorbing chain solved exactly: verified lumping, one factorization modulo a "
              "prime, p-adic lifting, checked modulo a second prime). `p_win` is the probability of an eventual "
              "win from a uniformly random order; a long fraction is shown as its value, the digits of its "
              "denominator and the first hex digits of the SHA-256 of its full `n/d` text (in full: "
              "`solitaire poison --all --json`, or the store). *Unwinnable* orders reach no win at all; "
              "`p_trapped = 1 - p_win`. Every deck up to 12 cards: `results/hand_poison_survey.md`.", "",
              "| deck | variant | p_win | poison sets {size in orders: count} | unwinnable orders | "
              "E[iterations given win] | CPU s | provenance |",
              "|---|---|---|---|---|---|---|---|"]
    # the four readings of the survey on every deck shape of the stored sizes: say which are missing

    readings = [str(Variant.make("hand", **spec)) for spec in
                ({}, {"rank_resets": "published"}, {"step7": "off"}, {"reshuffle": "off"})]
    have = {(r["suits"], r["ranks"], r["variant"]) for r in found}
    sizes = sorted({r["suits"] * r["ranks"] for r in found})
    missing = [f"{s_}x{c // s_} `{v}`" for c in sizes for s_ in range(1, c + 1) if c % s_ == 0 for v in readings
               if (s_, c // s_, v) not in have]
    for r in sorted(found, key=lambda r: (-r["suits"] * r["ranks"], r["suits"], r["variant"])):
        sets = ", ".join(f"{k}: {v:,}" for k, v in sorted(r["poison_sets"].items(), key=lambda kv: int(kv[0])))
        e = r.get("expected_iterations_given_win")
        e_text = "-" if e is None else f"{float(fraction_from_text(e)):.6f}"
        cpu = r.get("provenance", {}).get("solver", {}).get("cpu_seconds")
        lines.append(f"| {r['suits']}x{r['ranks']} | `{r['variant']}` | {fraction_digest(fraction_from_text(r['p_win']))} | "
                     f"{sets or 'none'} | {r['unwinnable_orders']:,} of {r['orders']:,} | {e_text} | "
                     f"{'-' if cpu is None else f'{cpu:.0f}'} | {_prov(r)} |")
    if missing:
        lines += ["", "Not stored yet (not computed, or stopped by a limit: see `benchmarks/README.md`): "
                  + ", ".join(missing) + "."]
    return lines + [""]


def _prisoners_section(store, lines: list[str]) -> None:
    found = current_simulations([r for _, r in store.find(kind="simulation", game="prisoners")])
    best = [r for _, r in store.find(kind="best_play", game="prisoners")]
    if not found and not best:
        return
    lines += ["## Prisoner's Patience", ""]
    if found:
        lines += ["| variant | deck | games | wins | p_win | 95% interval | provenance |", "|---|---|---|---|---|---|---|"]
        for r in sorted(found, key=lambda r: r["variant"]):
            low, high = r["ci95"]
            lines.append(f"| `{r['variant']}` | {r['suits']}x{r['ranks']} | {r['games']:,} | {r['wins']:,} | "
                         f"{_pct(r['p_win'], 5)} | [{_pct(low, 5)}, {_pct(high, 5)}] | {_prov(r, seed=True)} |")
        lines.append("")
    if best:
        from exact.prisoners.solver import COMMUTE_AFTER

        lines += ["### Best play (`solitaire solve`)", "",
                  "Whether some sequence of legal moves wins each random deck, decided by the solver within a node "
                  "budget: *proved won* (a replayable line), *proved lost* (a proof of loss: a static condition or the "
                  "exhausted search) or *open* (the search stopped before a proof either way: its node budget spent, or a layer of "
                  "the layered search past its width or memory cap); the 95% bracket "
                  "counts open decks as lost at its low end and as won at its high end. *search*: the "
                  "version of the solver (`exact.prisoners.solver.SOLVER_VERSION`; v6 stops the layered search at a "
                  "layer wider than a tenth of its budget, v5 at a memory cap, v4 cuts physical rows by the `used_partners` proof, v3 turns on the commuting-move "
                  f"reduction after {COMMUTE_AFTER['published']:,} nodes (published) or at once (physical), v2 keeps "
                  "every lost row of a "
                  "long search, v1 forgot them past 1,572,864), whose verdicts may decide more decks, and its "
                  "strategy (`layers`: every reachable row, layer by layer; `restarts`: depth-first runs; a node "
                  "of the layers is a row of a layer).", "",
                  "| variant | deck | decks | proved won | proved lost | open | 95% bracket | node budget | search | provenance |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for r in sorted(best, key=lambda r: (r["variant"], -r["decks"])):
            low, high = r["ci95"]
            lines.append(f"| `{r['variant']}` | {r['suits']}x{r['ranks']} | {r['decks']:,} | {r['won']:,} | "
                         f"{r['lost']:,} | {r['undecided']:,} | [{_pct(low, 2)}, {_pct(high, 2)}] | "
                         f"{r['node_budget']:,} | v{r.get('solver_version', 1)}"
                         + (f" {r['strategy']}" if r.get("strategy") else "") + f" | {_prov(r, seed=True)} |")
        lines.append("")


def write_report(store, out: Path | str = "results") -> Path:
    """Write ``out/README.md`` and its figures from the records in ``store``; return the README path."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot write the report in {out} ({exc.strerror or exc}): choose another --dir") from None
    try:
        return _write_report(store, out)
    except OSError as exc:  # disk full, a read-only file system

        raise WriteError(f"cannot write the report in {out} ({exc.strerror or exc}); the previous README.md is "
                         "kept: free space or choose another --dir") from None


def _same_but_stamp(readme: Path, text: str) -> bool:
    """Whether ``readme`` holds ``text`` but for its first paragraph (when and from which commit it was
    written)."""
    try:
        old = readme.read_text()
    except (OSError, UnicodeDecodeError):
        return False
    body = lambda t: t.split("\n\n", 2)[2:]  # noqa: E731  (after the title and the stamp)
    return body(old) == body(text) and old.split("\n\n", 1)[0] == text.split("\n\n", 1)[0]


def _write_report(store, out: Path) -> Path:
    _NOTES.clear()
    lines = ["# Results", "",
             f"Written by `solitaire report` from the results store `{store.path}` on {provenance.now()} "
             f"(package {provenance.package_version()}, commit {provenance.git_commit()[:10]}). Every number below "
             "is read from the store; each row names the seed (or method), the games (or runs, decks) and the "
             "commit and date of the computation it comes from.", ""]
    _standard_section(store, out, lines)
    _variants_section(store, lines)

    lines += readings_section(out / "readings.h5")
    _exact_section(store, out, lines)
    _sweep_section(store, out, lines)
    _validation_section(store, lines)
    before = len(lines)
    _hand_section(store, out, lines)
    if (out / HAND_GRAPHS_STORE).exists():
        if len(lines) == before:  # no Hand Solitaire runs stored: the whole decks still have a section
            lines += ["## Hand Solitaire", ""]

        lines += hand_graph_section(out / HAND_GRAPHS_STORE, min_cards=MAX_GRAPH_CARDS)
    _prisoners_section(store, lines)
    lines += _notes_section()
    readme = out / "README.md"
    text = "\n".join(lines) + "\n"
    if _same_but_stamp(readme, text):
        return readme  # nothing new in the store: the README keeps its stamp (a rerun leaves git clean)
    tmp = readme.with_suffix(".md.tmp")
    try:
        tmp.write_text(text)
        tmp.replace(readme)
    finally:
        tmp.unlink(missing_ok=True)
    return readme
