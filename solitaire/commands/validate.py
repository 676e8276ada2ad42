"""``solitaire validate``: the simulator checked against exact values."""
from __future__ import annotations

import sys

import click

from ..options import emit_json, game_option, json_option, open_store, seed_option, workers_option


@click.command("validate")
@game_option()
@click.option("--max-cards", type=click.IntRange(1, 12), default=10, show_default=True,
              help="Validate every deck with 4 <= S*R <= this many cards.")
@click.option("--variant", "variant_filter", multiple=True, metavar="KEY=VALUE",
              help="Only variants with these values (repeatable); default: every variant.")
@click.option("--games", type=click.IntRange(min=1), default=200_000, show_default=True,
              help="Games per deck and variant.")
@click.option("--coverage", type=click.IntRange(min=0), default=20, show_default=True,
              help="Repeated seeds for the interval-coverage check (0: skip).")
@click.option("--coverage-games", type=click.IntRange(min=1), default=20_000, show_default=True)
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.01,
              show_default=True, help="Family-wise error rate (Holm).")
@seed_option
@workers_option
@click.option("--out", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Results store to save the validation to (`solitaire report` summarises it).")
@json_option
def validate_command(game, max_cards, variant_filter, games, coverage, coverage_games, alpha, seed, workers, out,
                     as_json):
    """Compare the Monte Carlo engine with exact values on every small deck and variant.

    For each case: a G-test of the whole score distribution, an exact binomial test of p_win
    (and whether the exact value lies in the 95% interval), and interval coverage over repeated
    seeds; all p-values corrected together with Holm's method. Exits with status 1 when any
    comparison fails, so it can run in CI.
    """
    from sim import Variant

    from ..validate import default_cases, validate

    wanted = Variant.from_options(game, variant_filter).as_dict() if variant_filter else {}
    given = {option.partition("=")[0].strip() for option in variant_filter}
    cases = [(d, v) for d, v in default_cases(max_cards, game=game)
             if all(v[k] == wanted[k] for k in given)]
    store = open_store(out)
    report = validate(cases, games=games, seed=seed if seed is not None else 0, coverage=coverage,
                      coverage_games=coverage_games, alpha=alpha, workers=workers)
    if store is not None:
        store.save(report)
    if as_json:
        emit_json(report.to_dict())
    else:
        click.echo(f"{'deck':>5}  {'variant':<45} {'test':<12} {'p-value':>10}  verdict  detail")
        for c in report.checks:
            click.echo(f"{str(c.deck):>5}  {str(c.variant):<45} {c.test:<12} {c.p_value:>10.3g}  "
                       f"{'FAIL' if c.rejected else 'ok':<7}  {c.detail}")
        n_failed = sum(c.rejected for c in report.checks)
        click.echo(f"{len(report.checks)} comparisons, Holm-corrected at alpha={alpha}: "
                   + ("all passed" if report.passed else f"{n_failed} FAILED"))
    if not report.passed:
        sys.exit(1)
