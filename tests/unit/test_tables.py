"""Results as tidy tables (:mod:`sim.tables`): every result class's ``to_frame()`` keeps seeds and
counts exact (Python ints, never floats), a stored result gives the same table as the one computed,
and the short ``repr``/``_repr_markdown_`` say what the result is in a line."""
import math
from fractions import Fraction

import pytest

pd = pytest.importorskip("pandas")

from exact.hand.poison import PoisonResult  # noqa: E402
from exact.hand.whole_deck import HandGraphResult  # noqa: E402
from exact.one_handed.odds import OddsResult  # noqa: E402
from exact.prisoners.best_play import BestPlayEstimate  # noqa: E402
from exact.prisoners.solver import SolveResult  # noqa: E402
from exact.result import ExactResult  # noqa: E402
from sim import Deck, Variant  # noqa: E402
from sim.montecarlo import SimulationResult  # noqa: E402
from sim.store import ResultsStore  # noqa: E402
from sim.tables import HEAD, TAIL, record_of, rows  # noqa: E402
from solitaire.sweep import SweepCell, SweepResult  # noqa: E402
from solitaire.validate import Check, ValidationReport  # noqa: E402

BIG_SEED = 2**64 - 1  # a double would round it
PROV = {"package_version": "9.9", "git_commit": "abc123"}
ONE = Variant.make("one-handed")


def _results():
    """One result of every class, with a 64-bit seed and counts beyond 2^53 where the class has them."""
    big = 2**60 + 1
    deck52 = Deck(4, 13)
    orders = math.factorial(52)
    yield SimulationResult("one-handed", deck52, ONE, BIG_SEED, 2 * big + 2, big, (big, 0, big + 2), (0.4, 0.6),
                           "wilson", 1.0, 0.01, 2.0, 2, 1 << 18, provenance=dict(PROV))
    yield ExactResult("one-handed", deck52, ONE, "zeta", orders, (7, 0, orders - 7), 7, provenance=dict(PROV))
    yield OddsResult(Deck(2, 4), ONE, (0, 1), "simulated", (big, big + 5), big, (0.4, 0.6), BIG_SEED)
    yield OddsResult(Deck(2, 4), ONE, (0, 1), "exact", (3, 0, 717), 3, engine="phase")
    yield SweepResult(ONE, (SweepCell(3, 3, "theorem", 0.0, (0.0, 0.0), Fraction(0)),
                            SweepCell(2, 4, "exact", 59 / 420, (59 / 420, 59 / 420), Fraction(59, 420)),
                            SweepCell(4, 13, "simulated", 0.007, (0.006, 0.008), None, big, BIG_SEED)),
                      BIG_SEED - 1, big, 12, dict(PROV))
    prisoners = Variant.make("prisoners", moves="physical")
    yield BestPlayEstimate(deck52, prisoners, BIG_SEED, 500, 10, 64, 426, 500_000, (0.02, 0.9), big, 3.0,
                           lost_by=(("disconnected", 60), ("exhaustion", 4)), provenance=dict(PROV))
    yield BestPlayEstimate(deck52, prisoners, BIG_SEED, 500, 10, 64, 426, 500_000, (0.02, 0.9), big, 3.0,
                           lost_by=(("exhaustion", 64),), open_by=(("layer_width", 400), ("node_budget", 26)),
                           provenance=dict(PROV))
    yield SolveResult(Deck(1, 4), prisoners, (3, 1, 0, 2), "won", ((1, 0), (2, 0)), big, big + 1, provenance=dict(PROV))
    yield SolveResult(deck52, prisoners, tuple(range(52)), "undecided", None, 3_000_000, 3_000_000,
                      strategy="hybrid", stop="layer_width", provenance=dict(PROV))
    hand = Variant.make("hand")
    yield PoisonResult(deck52, hand, BIG_SEED, 50_000, 1000, 200_000, 49_965, 35, 0, 0, {8: 1, 48: 34},
                       {8: {"2,2,2,2": 1}, 48: {"4,4": 34}}, 0, 0, 4.9, provenance=dict(PROV))
    yield HandGraphResult(Deck(2, 6), hand, math.factorial(12), big, 5, {12: 3}, {12: [2, 2, 8]}, Fraction(1, 3),
                          Fraction(2, 3), None, 10, 20, 0.1, provenance=dict(PROV))
    yield ValidationReport((Check(Deck(2, 4), ONE, "p_win", 0.5, 0.4, "ok"),
                            Check(None, None, "coverage", 1.0, 0.9, "10/10")), 0.01, big, BIG_SEED, dict(PROV))


RESULTS = list(_results())


def _ints(series):
    return [v for v in series if v is not None]


@pytest.mark.parametrize("result", RESULTS, ids=lambda r: f"{type(r).__name__}")
def test_to_frame_keeps_seeds_and_counts_exact(result):
    frame = result.to_frame()
    assert list(frame.columns[:len(HEAD)]) == list(HEAD) and list(frame.columns[-len(TAIL):]) == list(TAIL)
    assert len(frame) == len(rows(record_of(result)))
    # no integer column became float: every seed and count is a Python int
    for column in frame.columns:
        values = _ints(frame[column])
        if any(isinstance(v, int) and not isinstance(v, bool) for v in values):
            assert frame[column].dtype == object, column
            assert all(type(v) is int for v in values), column
    record = result.to_dict()
    if "seed" in record and record["seed"] is not None and not isinstance(result, SweepResult):
        assert set(frame["seed"]) == {record["seed"]}
    if "score_counts" in record:
        assert tuple(frame["count"]) == tuple(result.score_counts)
        assert list(frame["score"]) == list(range(len(result.score_counts)))
    if isinstance(result, SimulationResult):
        assert set(frame["games"]) == {result.games} and sum(frame["count"]) == result.games
    if isinstance(result, ExactResult):
        assert set(frame["orders"]) == {math.factorial(52)} and sum(frame["count"]) == result.orders
        assert set(frame["p_win"]) == {f"{result.p_win.numerator}/{result.p_win.denominator}"}
    if isinstance(result, SweepResult):
        assert list(frame["seed"]) == [c.seed for c in result.cells]
        assert list(frame["method"]) == ["theorem", "exact", "simulated"]
        assert list(frame["p_win_exact"]) == ["0/1", "59/420", None]
    if isinstance(result, BestPlayEstimate):
        assert sum(frame["count"]) == result.decks
        assert frame.loc[frame["outcome"] == "lost", "count"].sum() == result.lost
        undecided = frame[frame["outcome"] == "undecided"]
        assert undecided["count"].sum() == result.undecided
        if result.open_by:
            assert dict(zip(undecided["stop"], undecided["count"])) == dict(result.open_by)
        else:
            assert list(undecided["stop"]) == [None]
    if isinstance(result, PoisonResult):
        assert sum(frame["runs"]) == result.trapped
    if isinstance(result, SolveResult):
        assert list(frame["stop"]) == [result.stop]
    if isinstance(result, HandGraphResult):
        assert list(frame["poison_sets"]) == [3] and set(frame["orders"]) == {math.factorial(12)}
    if getattr(result, "provenance", None):
        assert set(frame["commit"]) == {"abc123"} and set(frame["package_version"]) == {"9.9"}


@pytest.mark.parametrize("result", [r for r in RESULTS if hasattr(r, "from_record")],
                         ids=lambda r: f"{type(r).__name__}")
def test_a_stored_result_gives_the_same_frame(tmp_path, result):
    store = ResultsStore(tmp_path / "s.h5")
    name = store.save(result)
    back = type(result).from_record(store.load(name))
    pd.testing.assert_frame_equal(back.to_frame(), result.to_frame())
    assert list(rows(store.load(name), name)[0].values())[1] == name


@pytest.mark.parametrize("result", RESULTS, ids=lambda r: f"{type(r).__name__}")
def test_repr_is_short_and_says_what_it_is(result):
    text = repr(result)
    assert text.startswith(type(result).__name__ + "(") and "\n" not in text
    assert len(text) < 220, text
    markdown = result._repr_markdown_()
    assert markdown.startswith(f"**{type(result).__name__}**") and "|---|" in markdown


def test_simulation_repr_names_p_win_games_and_seed():
    text = repr(RESULTS[0])
    assert f"seed {BIG_SEED}" in text and "games 2,305,843,009,213,693,956" in text and "p_win" in text


def test_to_frame_without_pandas_is_one_line(monkeypatch):
    import sys

    from sim.errors import UsageError

    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(UsageError, match=r"pip install 'solitaire-odds\[pandas\]'"):
        RESULTS[0].to_frame()
