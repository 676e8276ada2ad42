"""The report builds from a small store, and every number in it comes from the store."""
import functools

from sim import Deck, Variant, simulate
from sim.store import ResultsStore
from solitaire.report import write_report
from solitaire.sweep import sweep
from solitaire.validate import validate

from .naive import brute_force_one_handed


def test_report_builds_from_a_small_store(tmp_path):
    store = ResultsStore(tmp_path / "store.h5")
    plain = Variant.make("one-handed")
    standard = simulate(Deck(4, 13), plain, games=50_000, seed=3, out=store, progress=False)
    simulate(Deck(4, 13), Variant.make("one-handed", reverse="on"), games=20_000, seed=3, out=store, progress=False)
    exact = functools.lru_cache(maxsize=None)(brute_force_one_handed)
    store.save(sweep([2, 3], [3, 4], variant=plain, games=5_000, seed=1, exact_max_cards=0, progress=False))
    store.save(validate([(Deck(2, 3), plain)], games=20_000, coverage=3, coverage_games=2_000, seed=1,
                        exact_source=exact, progress=False))
    readme = write_report(store, tmp_path / "report")
    text = readme.read_text()
    assert f"{standard.wins:,}" in text and f"{standard.games:,}" in text  # numbers from the store
    assert "1/√2" in text and "reverse=on" in text
    assert "Sweep over deck shapes" in text and "Validation of the simulator" in text
    for figure in ("score_distribution.png", "sweep_p_win_heatmap.png"):
        assert (tmp_path / "report" / figure).stat().st_size > 1000
        assert figure in text


def test_report_of_an_empty_store_says_so(tmp_path):
    readme = write_report(ResultsStore(tmp_path / "empty.h5"), tmp_path / "r")
    assert "No simulation of the standard deck" in readme.read_text()
