"""The report builds from a small store, and every number in it comes from the store."""
import functools
import re
from pathlib import Path

from sim import Deck, Variant, simulate
from sim.store import ResultsStore
from solitaire.main_job import DEFAULT_PLAN, DEFAULT_SEED, STANDARD_SEED, compute_defaults
from solitaire.report import write_report
from solitaire.sweep import sweep
from solitaire.validate import validate

from ..naive import brute_force_one_handed


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
    assert "pooled:" in text and "95% intervals cover the exact p_win" in text
    for figure in ("score_distribution.png", "sweep_p_win_heatmap.png"):
        assert (tmp_path / "report" / figure).stat().st_size > 1000
        assert figure in text
        assert (tmp_path / "report" / figure).with_suffix(".svg").stat().st_size > 1000  # an SVG beside it


def test_report_shows_the_standard_run_with_the_most_games(tmp_path):
    store = ResultsStore(tmp_path / "store.h5")
    plain = Variant.make("one-handed")
    small = simulate(Deck(4, 13), plain, games=10_000, seed=4, out=store, progress=False)
    large = simulate(Deck(4, 13), plain, games=30_000, seed=5, out=store, progress=False)
    simulate(Deck(4, 13), plain, games=20_000, seed=6, out=store, progress=False)
    text = write_report(store, tmp_path / "report").read_text()
    assert f"| {large.games:,} | {large.wins:,} |" in text
    assert f"| {small.games:,} |" not in text and "| 20,000 |" not in text
    assert "`scripts/standard_deck_long_run.sh`" in text  # fewer than 2.5*10^10 games: say how to get them


def test_run_rows_name_their_seed(tmp_path):
    store = ResultsStore(tmp_path / "store.h5")
    simulate(Deck(4, 13), Variant.make("one-handed", win="any"), games=5_000, seed=11, out=store, progress=False)
    simulate(Deck(4, 13), Variant.make("prisoners"), games=5_000, seed=12, out=store, progress=False)
    simulate(Deck(4, 13), Variant.make("hand"), games=200, seed=13, out=store, progress=False, options={"cap": 1000})
    text = write_report(store, tmp_path / "report").read_text()
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| `")}
    assert "| 5,000 |" in rows["`one-handed(win=any,reverse=off,first4=kept)`"]
    assert "seed 11, commit" in rows["`one-handed(win=any,reverse=off,first4=kept)`"]
    assert "seed 12, commit" in rows["`prisoners(moves=published,wrap=on)`"]
    assert "seed 13, commit" in rows["`hand(step7=on,rank_resets=written,reshuffle=on)`"]
    assert (tmp_path / "report" / "hand_iterations.png").stat().st_size > 1000


def test_sweep_section_shows_the_plain_variant_with_a_table(tmp_path):
    store = ResultsStore(tmp_path / "store.h5")
    plain = Variant.make("one-handed")
    store.save(sweep([3], [3, 4], variant=plain, games=2_000, seed=1, exact_max_cards=0, progress=False))
    # a bigger sweep of another variant must not be the one shown
    store.save(sweep([2, 3, 4], [3, 4, 5], variant=Variant.make("one-handed", win="any"), games=1_000, seed=1,
                     exact_max_cards=0, progress=False))
    text = write_report(store, tmp_path / "report").read_text()
    section = text.split("## Sweep over deck shapes")[1].split("\n## ")[0]
    assert f"`{plain}`" in section and "win=any" not in section
    assert "| S \\ R | 3 | 4 |" in section
    assert re.search(r"\| 3 \| 0 \(theorem\) \| [0-9.]+% \[[0-9.]+%, [0-9.]+%\] \(sim\.\) \|", section)


def test_main_job_plan_and_seeds(tmp_path, cli_run):
    assert DEFAULT_PLAN["sweep"]["games"] == 10**7  # the published sweep
    script = (Path(__file__).parents[2] / "scripts" / "standard_deck_long_run.sh").read_text()
    long_run_seed = int(re.search(r"--seed (\d+)", script).group(1))
    assert STANDARD_SEED != long_run_seed
    store = ResultsStore(tmp_path / "store.h5")
    plan = {"exact_max_cards": 4, "standard_games": 2_000, "reading_games": 1_000,
            "sweep": {"suits": [2, 3], "ranks": [3, 4], "games": 1_000},
            "validate": {"max_cards": 4, "games": 2_000, "coverage": 1, "coverage_games": 1_000},
            "hand_runs": 0, "poison_decks": 0, "prisoners_games": 0}
    compute_defaults(store, plan=plan, progress=False, say=lambda message: None)
    standard = store.find(kind="simulation", suits=4, ranks=13)
    assert len(standard) == 5 and {r["seed"] for _, r in standard} == {STANDARD_SEED}
    (_, sw), = store.find(kind="sweep")
    assert sw["seed"] == DEFAULT_SEED
    (_, va), = store.find(kind="validation")
    assert va["game"] == "one-handed,prisoners" and va["passed"]
    # the same sweep asked for by `solitaire sweep` is the report's record, not a second one
    code, _, err = cli_run("sweep", "--suits", "2,3", "--ranks", "3-4", "--games", "1000", "--exact-max-cards", "4",
                           "--seed", str(DEFAULT_SEED), "--out", str(store.path))
    assert code == 0 and "shown from there" in err and len(store.find(kind="sweep")) == 1


def test_report_of_an_empty_store_says_so(tmp_path):
    readme = write_report(ResultsStore(tmp_path / "empty.h5"), tmp_path / "r")
    assert "No simulation of the standard deck" in readme.read_text()


def test_mean_with_standard_error_and_published_interval_wording():
    from solitaire.report import PUBLISHED_CI, _mean_se, _published_agreement

    assert _mean_se(13.3195490084, 1.1e-5) == "13.319549 ± 0.000011"  # se to two significant digits
    assert _mean_se(2.5, float("nan")) == "2.5000"
    low, high = PUBLISHED_CI
    assert "contains" in _published_agreement(low + 1e-6, high - 1e-6)
    assert "disjoint" in _published_agreement(high + 1e-6, high + 2e-6)
    assert "overlap" in _published_agreement(low - 1e-6, low + 1e-6)


def test_odds_and_interval_widths_read_as_words():
    from solitaire.report import _width_comparison, odds_text

    assert odds_text(0.7) == "1 in 1.43" and odds_text(0.00706) == "1 in 142" and odds_text(0) == "-"
    assert _width_comparison(1.0, 3.0) == "3.0 times tighter than"  # never "0.3 times tighter"
    assert _width_comparison(3.0, 1.0) == "3.0 times as wide as"


def test_prisoners_best_play_estimates_are_reported(tmp_path):
    from exact.prisoners.best_play import estimate_best_play

    store = ResultsStore(tmp_path / "s.h5")
    estimate = estimate_best_play(Deck(2, 4), "prisoners(moves=physical)", decks=12, seed=3)
    store.save(estimate)
    text = write_report(store, tmp_path / "out").read_text()
    assert "### Best play" in text
    (row,) = [line for line in text.splitlines() if line.startswith("| `prisoners(moves=physical")]
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert cells[1] == "2x4" and cells[2] == "12"
    assert [int(c) for c in cells[3:6]] == [estimate.won, estimate.lost, estimate.undecided]
    assert "seed 3" in row


def test_a_provenance_note_is_named_in_its_row_and_listed_at_the_end():
    from solitaire import report

    report._NOTES.clear()
    noted = {"provenance": {"git_commit": "a" * 40, "git_commit_note": "computed before a rebase", "finished": "T"}}
    assert report._prov(noted) == "commit aaaaaaaaaa (note 1), T"
    assert report._prov({"provenance": {"git_commit": "b" * 40}}, seed=True) == "seed ?, commit bbbbbbbbbb, ?"
    assert report._prov(dict(noted, seed=3), seed=True) == "seed 3, commit aaaaaaaaaa (note 1), T"  # one note, one number
    assert report._notes_section() == ["## Provenance notes", "", "1. computed before a rebase", ""]
    report._NOTES.clear()
    assert report._notes_section() == []


def _heatmap_axes(tmp_path, cells):
    """Draw a heatmap and return its saved SVG text and the axes it was drawn on."""
    import matplotlib.pyplot as plt

    from solitaire import figures

    drawn = []
    real_save = figures._save
    figures._save = lambda fig, path, svg=False: (drawn.append(fig.axes[0]), real_save(fig, path, svg=svg))
    try:
        figures.p_win_heatmap(cells, tmp_path / "h.png", "t")
    finally:
        figures._save = real_save
        plt.close("all")
    return (tmp_path / "h.svg").read_text(), drawn[0]


def test_heatmap_marks_proved_zeros_and_tells_decades_apart(tmp_path):
    from matplotlib.colors import LogNorm
    from PIL import Image

    cells = [{"suits": 3, "ranks": 3, "p_win": 0.0, "source": "theorem"},
             {"suits": 3, "ranks": 4, "p_win": 0.005, "source": "simulated", "ci95": [0.004, 0.006]},
             {"suits": 4, "ranks": 3, "p_win": 0.05, "source": "exact"},
             {"suits": 4, "ranks": 4, "p_win": 0.3, "source": "exact"}]
    svg, ax = _heatmap_axes(tmp_path, cells)
    texts = [t.get_text() for t in ax.texts]
    assert "0\nproved" in texts and "0.5" in texts and "5=" in texts
    assert any(p.get_hatch() for p in ax.patches)  # the proved zero is hatched, not a colour of the scale
    norm = ax.images[0].norm
    assert isinstance(norm, LogNorm)
    assert norm(5.0) - norm(0.5) > 0.3  # 0.5% and 5% are far apart on the colour scale
    with Image.open(tmp_path / "h.png") as png:
        assert png.info["dpi"][0] >= 299  # print resolution
    assert "<svg" in svg


def test_hand_histogram_is_one_filled_outline(tmp_path):
    """Hundreds of separate bars a pixel apart alias into moire: the histogram is one outline."""
    import matplotlib.pyplot as plt

    from solitaire import figures

    counts = [0] + [1000 // (t + 1) for t in range(300)]
    drawn = []
    real_save = figures._save
    figures._save = lambda fig, path, svg=False: (drawn.append(fig.axes[0]), real_save(fig, path, svg=svg))
    try:
        figures.iterations_histogram({"iterations_to_win": counts, "games": sum(counts), "variant": "hand()",
                                      "suits": 4, "ranks": 13, "cap": 300}, tmp_path / "i.png")
    finally:
        figures._save = real_save
        plt.close("all")
    ax = drawn[0]
    assert len(ax.patches) <= 2  # a StepPatch, not one Rectangle per iteration
    assert (tmp_path / "i.svg").exists()
