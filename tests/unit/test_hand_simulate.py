"""Hand Solitaire Monte Carlo: published figures at a fixed seed, reproducibility, the CLI's JSON."""
import json

from sim import Deck, Variant, simulate
from sim.hand_stats import iteration_statistics, with_iteration_statistics

PUBLISHED = Variant.make("hand", rank_resets="published")
STANDARD = Deck(4, 13)


def _run(variant, games, seed, cap=1000, **kwargs):
    result = simulate(STANDARD, variant, games=games, seed=seed, progress=False, options={"cap": cap}, **kwargs)
    return with_iteration_statistics(result, cap)


def test_published_histogram_figures_are_reproduced():
    # Published (bcrist/hand-solitaire readme, 10^6 games): first iteration about 1.3%, within 10
    # about 22.5%, within 25 about 51%. Each published figure is rounded, so the 95% interval is
    # widened by half the rounding step: 0.1% for "1.3%", 1% for "51%", and 0.5% for "22.5%" (read as
    # a half-percent figure: the published program itself, built and run here by
    # benchmarks/bench_hand.py, gives 22.73% on 200,000 runs, and this engine 22.74% [22.61, 22.87] on
    # 400,000, so the figure is not good to 0.1%).
    result = _run(PUBLISHED, 100_000, seed=20260611)
    within = result.extra["iteration_stats"]["p_win_within"]
    for last, published, rounding in (("1", 0.013, 0.0005), ("10", 0.225, 0.0025), ("25", 0.51, 0.005)):
        _, low, high = within[last]
        assert low - rounding <= published <= high + rounding, (last, within[last])


def test_counts_are_consistent_and_do_not_depend_on_workers():
    runs = [_run(Variant.make("hand"), 3000, seed=5, cap=40, workers=w, chunk_games=700) for w in (1, 2)]
    assert runs[0].score_counts == runs[1].score_counts and runs[0].extra == runs[1].extra
    r = runs[0]
    iterations_to_win = r.extra["iterations_to_win"]
    assert len(iterations_to_win) == 41 and iterations_to_win[0] == 0
    assert sum(iterations_to_win) == r.wins == r.score_counts[0]
    assert r.wins + r.extra["capped"] == r.games and r.extra["cap"] == 40
    assert r.extra["capped"] > 0  # cap 40 leaves about a fifth of the runs unwon


def test_without_step7_runs_need_more_iterations_and_rank_resets_do_not_matter():
    with_step7 = _run(PUBLISHED, 20_000, seed=8)
    off = [_run(Variant.make("hand", step7="off", rank_resets=r), 20_000, seed=8) for r in ("written", "published")]
    assert off[0].extra["iterations_to_win"] == off[1].extra["iterations_to_win"]
    ratio = (off[0].extra["iteration_stats"]["mean_iterations_to_win"]
             / with_step7.extra["iteration_stats"]["mean_iterations_to_win"])
    # published: "about twice"; measured here about 1.6 (mean 56 against 35 iterations)
    assert 1.4 < ratio < 2.2


def test_rules_as_written_win_more_often_on_the_first_iteration():
    # A rank match in the rotation phase resets the count only as written, so the written rules can
    # only discard more: first-iteration wins are at least as frequent (1.5% against 1.3%).
    written = _run(Variant.make("hand"), 40_000, seed=9, cap=1)
    published = _run(PUBLISHED, 40_000, seed=9, cap=1)
    assert written.wins > published.wins


def test_iteration_statistics_on_a_known_histogram():
    stats = iteration_statistics([0, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1], games=10, capped=5)
    assert stats["p_win_within"]["1"][0] == 0.2 and stats["p_win_within"]["10"][0] == 0.4
    assert "25" not in stats["p_win_within"]
    assert stats["mean_iterations_to_win"] == (2 * 1 + 2 * 3 + 11) / 5
    assert stats["median_iterations_to_win"] == 3
    assert stats["p_capped"][0] == 0.5


def test_cli_simulate_hand_json(cli_run):
    code, out, err = cli_run("simulate", "--game", "hand", "--suits", "2", "--ranks", "4", "--games", "500",
                             "--seed", "1", "--cap", "30", "--no-progress", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["cap"] == 30 and len(data["iterations_to_win"]) == 31
    assert sum(data["iterations_to_win"]) == data["wins"] and data["wins"] + data["capped"] == 500
    assert sum(data["score_counts"]) == 500 and data["iteration_stats"]["p_capped"][0] == data["capped"] / 500


def test_cli_refuses_a_bad_cap(cli_run):
    code, out, err = cli_run("simulate", "--game", "hand", "--games", "10", "--cap", "0", "--no-progress")
    assert code == 2 and out == "" and "cap" in err
