"""Which rule reading gives which published figure: the published counts reproduced, the section."""
import pytest

from sim import Deck, Variant, simulate
from solitaire import readings

STANDARD = Deck(4, 13)


def _run(variant, games):
    return simulate(STANDARD, variant, games=games, seed=readings.SEED, progress=False)


def _check(figure: str, games: int, min_p: float):
    """The published count agrees with its reading (same-rate p >= min_p, intervals overlap) and
    disagrees with the rules as written (p < 1e-6)."""
    published = readings.reading(figure)
    ours = _run(published.variant, games)
    p = readings.same_rate_p(ours.wins, ours.games, published.wins, published.games)
    assert p >= min_p, (figure, ours.p_win, p)
    from sim.stats import binomial_interval

    (low, high), _ = binomial_interval(published.wins, published.games)
    assert ours.ci95[0] <= high and low <= ours.ci95[1], (figure, ours.ci95, (low, high))
    as_written = _run(Variant.make(**{**published.variant.as_dict(), "final": "cascade"}), games)
    assert readings.same_rate_p(as_written.wins, as_written.games, published.wins, published.games) < 1e-6


@pytest.mark.parametrize("figure", ["0.52%", "5.19%"])
def test_published_counts_are_the_final_once_reading(figure):
    # github.com/kctrey/onehand stats: 23,601 / 4,497,135 (0.52%) and, effects reversed,
    # 233,564 / 4,497,135 (5.19%). 3*10^5 games: agreement at p >= 0.001 (a wider bound than the slow
    # test's), and the rules as written (0.706%, 5.45%) are rejected all the same.
    _check(figure, 300_000, min_p=0.001)


@pytest.mark.slow
@pytest.mark.parametrize("figure", ["0.52%", "5.19%"])
def test_published_counts_are_the_final_once_reading_at_10_7_games(figure):
    _check(figure, 10_000_000, min_p=0.01)


def test_same_rate_p_and_compare():
    assert readings.same_rate_p(50, 1000, 50, 1000) == pytest.approx(1.0)
    assert readings.same_rate_p(100, 1000, 50, 1000) < 1e-4
    ok, how = readings.compare(readings.reading("1 in 140"), 0.00706, 0.00705, 0.00707)
    assert ok and "round" in how
    ok, _ = readings.compare(readings.reading("0.706%"), 0.0071, 0.00708, 0.00712)
    assert not ok  # misses the published 10^9-game interval [0.70543%, 0.7065%]
    ok, _ = readings.compare(readings.reading("about twice"), 1.62, 1.55, 1.69)
    assert not ok
    # a rounded figure from 10^6 runs: the values that round to it widened by that run's sampling error
    within10 = readings.reading("≈ 22.5%")
    assert readings.compare(within10, 0.2277, 0.2258, 0.2295)[0]  # rank_resets=published, 200,000 runs
    assert not readings.compare(within10, 0.2345, 0.2327, 0.2364)[0]  # the rules as written


def test_section_from_a_small_store(tmp_path):
    from tests.scripts import load_script

    script = load_script("published_readings")
    out = tmp_path / "readings.h5"
    lines = script.main(["--out", str(out), "--games", "40000", "--hand-runs", "300", "--workers", "1"])
    text = "\n".join(lines)
    assert f"| 0.52% | {readings.KCTREY}: 23,601 wins in 4,497,135 games | " \
           "`one-handed(win=end,reverse=off,first4=kept,final=once)` | 40,000 |" in text
    assert "| 0.206% |" in text and "withdrawn" in text and "| ≈ 1.3% |" in text and "about twice" in text
    assert text.count("not stored") == 0
    # the report reads the same store beside results/README.md
    from sim.store import ResultsStore
    from solitaire.report import write_report

    readme = write_report(ResultsStore(tmp_path / "main.h5"), tmp_path)
    assert "| 0.52% |" in readme.read_text()


def test_section_without_a_store_says_how_to_make_one(tmp_path):
    lines = readings.readings_section(tmp_path / "none.h5")
    assert any("scripts/published_readings.py" in line for line in lines)
