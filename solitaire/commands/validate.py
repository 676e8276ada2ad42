"""``solitaire validate``: the simulator checked against exact values."""
from __future__ import annotations

import click

from sim import Variant

from ..options import int_range
from ..options import SEED, emit_json, game_option, json_option, open_store, workers_option


@click.command("validate")
@game_option()
@click.option("--max-cards", type=int_range(4, 12), default=10, show_default=True,
              help="Validate every deck with 4 <= S*R <= this many cards (4 to 12).")
@click.option("--variant", "variant_filter", multiple=True, metavar="KEY=VALUE",
              help="Only variants with these values (repeatable); default: every variant.")
@click.option("--games", type=int_range(min=1), default=200_000, show_default=True,
              help="Games per deck and variant.")
@click.option("--coverage", type=int_range(min=0), default=20, show_default=True,
              help="Repeated seeds per case for the pooled interval-coverage check (0: only each case's main interval is pooled).")
@click.option("--coverage-games", type=int_range(min=1), default=20_000, show_default=True,
              help="Games of each repeated-seed run of the coverage check.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.01,
              show_default=True, help="Family-wise error rate (Holm).")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the whole validation; each case's seed is derived from it, the deck and the variant.")
@workers_option
@click.option("--out", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Results store to save the validation to (`solitaire report` summarises it).")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress bar on stderr (cases done) once the validation runs a few seconds.")
@json_option
def validate_command(game, max_cards, variant_filter, games, coverage, coverage_games, alpha, seed, workers, out,
                     progress, as_json):
    """Compare the Monte Carlo engine with exact values on every small deck and variant
    (One-Handed Solitaire, or Prisoner's Patience under both move policies; Hand Solitaire has no
    exact score distribution and is refused).

    \b
    Tested, all p-values corrected together with Holm's method at --alpha:
      distribution  per case: G-test of the whole score distribution;
      p_win         per case: exact binomial test of the wins;
      coverage      pooled over all cases: how many of the 95% intervals (each case's main
                    run and --coverage repeated seeds) cover the exact p_win, against the
                    interval method's exact coverage (one-sided).
    Displayed only: whether each main interval contains the exact p_win, and each case's own
    coverage count (rows marked "shown").

    Exits with status 1 when any tested comparison fails, so it can run in CI.
    """
    from ..validate import default_cases, validate  # numba: only when a command runs (completion stays quick)

    cases = default_cases(max_cards, game=game)  # refuses Hand Solitaire (one line, status 2)
    wanted = Variant.from_options(game, variant_filter).as_dict() if variant_filter else {}
    given = {option.partition("=")[0].strip() for option in variant_filter}
    cases = [(d, v) for d, v in cases
             if all(v[k] == wanted[k] for k in given)]
    store = open_store(out)
    report = validate(cases, games=games, seed=seed, coverage=coverage, coverage_games=coverage_games, alpha=alpha,
                      workers=workers, out=store, progress=progress,
                      notify=lambda message: click.echo(f"solitaire: {message}", err=True))
    if as_json:
        emit_json(report.to_dict(), games={v.game for _, v in cases})
    else:
        # as wide as the longest variant (final=once makes them longer than the others)
        width = max([len("variant")] + [len(str(c.variant or "all cases")) for c in report.checks])
        test_width = max([len("test")] + [len(c.test) for c in report.checks])
        click.echo(f"{'deck':>5}  {'variant':<{width}} {'test':<{test_width}} {'p-value':>10}  verdict  detail")
        for c in report.checks:
            verdict = "FAIL" if c.rejected else "ok" if c.tested else "shown"
            click.echo(f"{'all' if c.deck is None else str(c.deck):>5}  {str(c.variant or 'all cases'):<{width}} "
                       f"{c.test:<{test_width}} {c.p_value:>10.3g}  {verdict:<7}  {c.detail}")
        n_failed = sum(c.rejected for c in report.checks)
        n_tested = sum(c.tested for c in report.checks)
        click.echo(f"{n_tested} tested comparisons, Holm-corrected at alpha={alpha}, seed {seed}: "
                   + ("all passed" if report.passed else f"{n_failed} FAILED"))
    return 0 if report.passed else 1
