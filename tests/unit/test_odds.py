"""The odds from here (exact.one_handed.odds, ``solitaire odds``): exact against brute force and the
whole-deck engines, simulation against exact."""
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exact.one_handed import exact_distribution
from exact.one_handed import odds as odds_module
from exact.one_handed.odds import odds, odds_each, position_counts
from sim.cards import format_cards
from sim.deck import Deck
from sim.errors import UsageError
from sim.rules import one_handed as rules
from sim.variant import Variant
from solitaire.cli import main

from ..naive import brute_force_from
from ..strategies import deck_orders, decks, variants

# every reading, final=once included (counted by the search engine alone)
ODDS_VARIANTS = variants("one-handed")


def brute_force(dealt, deck, variant):
    result = brute_force_from(dealt, deck, variant)
    return list(result.score_counts), result.wins


@pytest.mark.parametrize("deck", [Deck(1, 6), Deck(2, 3), Deck(3, 2), Deck(2, 4), Deck(3, 3), Deck(2, 5)], ids=str)
def test_empty_prefix_equals_exact_distribution(deck):
    for variant in (Variant.make("one-handed"), Variant.make("one-handed", reverse="on", win="any"),
                    Variant.make("one-handed", first4="reversed")):
        whole = exact_distribution(deck, variant, method="dp")
        counts, emptied = position_counts([], list(range(deck.size)), deck,
                                          reverse=variant["reverse"] == "on", track_empty=True)
        assert tuple(counts) == whole.score_counts
        if variant["win"] == "any":
            assert emptied == whole.wins
        result = odds("", deck, variant)
        assert result.method == "exact" and result.score_counts == whole.score_counts
        assert result.p_win == whole.p_win


@settings(max_examples=60, deadline=None)
@given(data=st.data(), deck=decks(max_cards=20, max_suits=5, max_ranks=6), variant=ODDS_VARIANTS,
       left=st.integers(0, 7))
def test_k_left_equals_brute_force(data, deck, variant, left):
    order = data.draw(deck_orders(deck))
    dealt = tuple(order[:max(0, deck.size - left)])
    expected_counts, expected_wins = brute_force(dealt, deck, variant)
    result = odds(dealt, deck, variant, method="exact")
    assert list(result.score_counts) == expected_counts
    assert result.wins == expected_wins
    assert result.p_win == Fraction(expected_wins, math.factorial(deck.size - len(dealt)))


@settings(max_examples=15, deadline=None)
@given(data=st.data(), variant=ODDS_VARIANTS, left=st.integers(1, 7))
def test_k_left_equals_brute_force_52(data, variant, left):
    deck = Deck(4, 13)
    order = data.draw(deck_orders(deck))
    dealt = tuple(order[:52 - left])
    counts, wins = brute_force(dealt, deck, variant)
    result = odds(format_cards(dealt, deck), deck, variant)
    assert (list(result.score_counts), result.wins) == (counts, wins)


def test_memoised_search_equals_play_out_of_every_order():
    """Beyond PLAY_OUT_CARDS the search deals card by card; compare it with the numba play-out of all
    k! orders (exact.one_handed.finish), from positions of a 52-card deck."""
    from exact.one_handed.finish import play_out_distribution

    import numpy as np

    deck = Deck(4, 13)
    long_row = [(7 * i + 3) % 52 for i in range(52)]
    long_row = long_row[::2] + long_row[1::2]  # 35 cards in the row with 9 left
    short_row = np.random.default_rng(5).permutation(52).tolist()  # 3 cards with 9 left: can be emptied
    emptied_total = 0
    for order, left, reverse, once in ((long_row, 9, False, False), (long_row, 10, False, False),
                                       (long_row, 9, True, False), (short_row, 9, False, False),
                                       (short_row, 9, True, False), (long_row, 9, False, True),
                                       (short_row, 9, True, True)):
        variant = Variant.make("one-handed", reverse="on" if reverse else "off")
        row, _ = odds_module.settled_position(order[:52 - left], deck, variant)
        undealt = order[52 - left:]
        counts, emptied = position_counts(row, undealt, deck, reverse=reverse, track_empty=True, final_once=once)
        labels = lambda cards: [(deck.suit(c), deck.rank(c)) for c in cards]
        hist, hist_emptied = play_out_distribution(labels(row), labels(undealt), reverse=reverse, track_empty=True,
                                                   final_once=once)
        assert counts[:len(hist)] == hist and not any(counts[len(hist):])
        assert emptied == hist_emptied
        emptied_total += emptied
    assert emptied_total > 0


@settings(max_examples=30, deadline=None)
@given(data=st.data(), deck=decks(max_cards=52, max_suits=4, max_ranks=13), variant=ODDS_VARIANTS)
def test_after_the_whole_deck_odds_are_the_outcome(data, deck, variant):
    order = data.draw(deck_orders(deck))
    result = odds(order, deck, variant)
    outcome = rules.play(order, deck, variant)
    assert result.method == "exact" and result.remaining == 0
    assert result.p_win == (1 if outcome.won else 0)
    assert result.score_counts[outcome.score] == 1 and sum(result.score_counts) == 1


def test_simulated_intervals_cover_exact():
    """20 seeds: the 95% intervals cover the exact p_win at least 15 times (fails by chance with
    probability about 3e-4), and the whole distribution is close to the exact one."""
    deck = Deck(2, 5)
    variant = Variant.make("one-handed", win="any")
    dealt = (3, 7)
    exact = odds(dealt, deck, variant, method="exact")
    exact_share = [c / exact.total for c in exact.score_counts]
    covered = 0
    for seed in range(20):
        simulated = odds(dealt, deck, variant, method="simulate", games=50_000, seed=seed)
        low, high = simulated.ci95
        covered += low <= float(exact.p_win) <= high
        assert sum(simulated.score_counts) == 50_000
        assert max(abs(c / 50_000 - e) for c, e in zip(simulated.score_counts, exact_share)) < 0.015
    assert covered >= 15
    again = odds(dealt, deck, variant, method="simulate", games=50_000, seed=19)
    assert again.score_counts == simulated.score_counts  # reproducible from the seed


def test_each_starts_at_exact_and_ends_at_the_outcome():
    deck = Deck(2, 4)
    order = [0, 5, 2, 7, 1, 4, 3, 6]
    rows = odds_each(order, deck)
    assert len(rows) == 9
    assert rows[0].p_win == exact_distribution(deck).p_win
    assert rows[-1].p_win == (1 if rules.play(order, deck).won else 0)


def test_exact_refused_beyond_its_limit():
    with pytest.raises(UsageError, match="exact odds are computed for at most"):
        odds("AS", Deck(4, 13), method="exact")


def test_cli_odds_json_keys(capsys):
    assert main(["odds", "--suits", "2", "--ranks", "4", "--dealt", "AS 2H", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert set(record) >= {"dealt", "remaining", "p_win", "method", "score_counts"}
    assert record["method"] == "exact" and record["remaining"] == 6 and "ci95" not in record
    counts, wins = brute_force((0, 5), Deck(2, 4), Variant.make("one-handed"))
    assert record["score_counts"] == counts and Fraction(record["p_win"]) == Fraction(wins, 720)
    assert main(["odds", "--dealt", "KS 7H", "--games", "20000", "--seed", "3", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["method"] == "simulated" and isinstance(record["p_win"], float) and len(record["ci95"]) == 2


def test_cli_odds_each_figure(tmp_path, capsys):
    path = tmp_path / "odds.png"
    assert main(["odds", "--suits", "2", "--ranks", "3", "--each", "AS 2S 3S AH 2H 3H", "--figure", str(path)]) == 0
    assert "exact" in capsys.readouterr().out
    assert path.stat().st_size > 1000


def test_odds_curve_is_drawn_against_the_cards_dealt(tmp_path, monkeypatch):
    import solitaire.figures as figures

    deck = Deck(3, 5)
    order = np.random.default_rng(4).permutation(15).tolist()
    rows = [r.to_dict() for r in odds_each(order, deck, games=2000, seed=1, progress=False)]
    drawn = []
    monkeypatch.setattr(figures, "_save", lambda fig, path: drawn.append(fig))
    figures.odds_curve(rows, tmp_path / "x.png", "title")
    [ax] = drawn[0].axes
    assert list(ax.lines[0].get_xdata()) == list(range(16))  # numbers of cards, not their notation
    assert ax.get_yscale() == "log"  # early odds of a fraction of a per cent stay readable
    exact = [float(Fraction(r["p_win"])) for r in rows]
    drawn_y = [float(y) for y in ax.lines[0].get_ydata()]
    assert [y for y, p in zip(drawn_y, exact) if p > 0] == [p for p in exact if p > 0]
    assert all(math.isnan(y) for y, p in zip(drawn_y, exact) if p == 0)  # a lost position: a cross at the foot
    simulated = [r for r in rows if r.get("ci95")]
    assert simulated  # more than 13 cards to come: simulated, with an interval
    [band] = [c for c in ax.collections if c.get_label() == "95% interval (simulated)"]
    low, high = ax.get_ylim()
    edges = band.get_paths()[0].vertices[:, 1]
    assert low <= edges.min() and edges.max() <= high and high >= 1  # the whole band is in view
    assert edges.max() / edges.min() > 1.5  # and has a height to see


def test_cli_odds_each_reports_its_seed(capsys):
    args = ["odds", "--suits", "3", "--ranks", "5", "--each", "AS 2S 3S 4S 5S AH 2H 3H 4H 5H AD 2D 3D 4D 5D",
            "--games", "2000"]
    assert main(args) == 0
    out = capsys.readouterr().out
    seed = int(out.splitlines()[0].split("  seed ")[1].split()[0])
    assert main(args + ["--seed", str(seed)]) == 0
    assert capsys.readouterr().out == out  # the simulated rows again
    assert main(["odds", "--suits", "2", "--ranks", "4", "--each", "AS 2S 3S 4S AH 2H 3H 4H"]) == 0  # all exact
    assert "seed" not in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["odds", "--dealt", "AS ZZ"], "--dealt, card 2 'ZZ': not a card"),
    (["odds", "--dealt", "AS 2S AS"], "--dealt, card 3 'AS': AS was already given as card 1"),
    (["odds", "--suits", "2", "--ranks", "3", "--each", "AS 2S"], "missing 4"),
    (["odds", "--dealt", "AS", "--each", "AS"], "give --dealt or --each, not both"),
])
def test_cli_odds_errors(capsys, args, message):
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err and captured.err.count("\n") == 1


def test_final_once_by_the_search_only():
    """final=once: exact by the search (the phase engine is refused in one line), auto simulates beyond
    AUTO_SEARCH_CARDS, exact is refused beyond MAX_SEARCH_CARDS; the reading changes the odds."""
    once = Variant.make("one-handed", final="once")
    with pytest.raises(UsageError, match="phase engine does not count final=once") as info:
        odds("AS 2S", Deck(2, 3), once, engine="phase")
    assert "\n" not in str(info.value)
    deck = Deck(3, 2)  # the last card, 2, matches 3 by suit, then 0 by rank (sim.rules.one_handed.play)
    assert odds([0, 1, 3, 5, 4], deck, once).score_counts == (0, 0, 0, 0, 1, 0, 0)
    assert odds([0, 1, 3, 5, 4], deck).score_counts == (1, 0, 0, 0, 0, 0, 0)
    result = odds("AS 2S", Deck(2, 3), once)
    assert result.method == "exact" and result.engine == "search" and result.total == 24
    deck = Deck(4, 13)
    dealt = list(range(52 - odds_module.AUTO_SEARCH_CARDS - 1))
    assert odds(dealt, deck, once, games=1000, seed=1).method == "simulated"
    with pytest.raises(UsageError, match="under final=once are computed for at most"):
        odds(list(range(52 - odds_module.MAX_SEARCH_CARDS - 1)), deck, once, method="exact")
