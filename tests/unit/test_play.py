"""Games replayed step by step (sim.trace, ``solitaire play``) agree with the reference rules."""
import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.cards import format_cards, parse_cards
from sim.deck import Deck
from sim.errors import UsageError
from sim.rules import hand as hand_rules
from sim.rules import one_handed as oh_rules
from sim.rules import prisoners as pp_rules
from sim.trace import play
from sim.variant import Variant
from solitaire.cli import main

from ..strategies import all_variants, deck_orders, variants

SMALL_DECKS = [Deck(s, r) for s in range(1, 7) for r in range(1, 7) if 2 <= s * r <= 6]


def check_one_handed(order, deck, variant):
    trace = play(order, deck, variant)
    assert (trace.score, trace.won) == (oh_rules.play(order, deck, variant).score,
                                         oh_rules.play(order, deck, variant).won)
    # the row after every card, and the number of removals, as the reference settles it
    row, removals = [], 0
    rows_after_deal = []
    cards = oh_rules.dealing_order(order, variant)
    for i, card in enumerate(cards):
        row.append(card)
        last = variant.rules.final_once and i == len(cards) - 1
        removals += oh_rules.settle(row, deck, variant, max_removals=1 if last else None)
        rows_after_deal.append(tuple(row))
    events = list(trace.steps)
    assert sum(e["event"] == "remove" for e in events) == removals
    traced = []
    for i, e in enumerate(events):
        if e["event"] == "deal" and i:
            traced.append(events[i - 1]["row"])
        if e["event"] == "remove":
            assert len(e["removed"]) in (2, 4)
            assert e["top"] in (e["removed"] + e["row"])
    traced.append(events[-1]["row"])
    assert traced == rows_after_deal


@pytest.mark.parametrize("deck", SMALL_DECKS, ids=str)
def test_one_handed_every_order_small_decks(deck):
    for variant in all_variants("one-handed"):
        for order in itertools.permutations(range(deck.size)):
            check_one_handed(order, deck, variant)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), variant=variants("one-handed"))
def test_one_handed_random_52(data, variant):
    deck = Deck(4, 13)
    check_one_handed(data.draw(deck_orders(deck)), deck, variant)


def check_prisoners(order, deck, variant):
    trace = play(order, deck, variant)
    piles = []
    after_deal = []
    for card in order:
        piles.append([card])
        pp_rules.settle(piles, deck, variant)
        after_deal.append(tuple(tuple(p) for p in piles))
    events = list(trace.steps)
    traced = [events[i - 1]["piles"] for i, e in enumerate(events) if e["event"] == "deal" and i]
    traced.append(events[-1]["piles"])
    assert traced == after_deal
    outcome = pp_rules.play(order, deck, variant)
    assert (trace.score, trace.won) == (outcome.score, outcome.won)


@pytest.mark.parametrize("deck", SMALL_DECKS, ids=str)
def test_prisoners_every_order_small_decks(deck):
    for variant in all_variants("prisoners"):
        for order in itertools.permutations(range(deck.size)):
            check_prisoners(order, deck, variant)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), variant=variants("prisoners"))
def test_prisoners_random_52(data, variant):
    deck = Deck(4, 13)
    check_prisoners(data.draw(deck_orders(deck)), deck, variant)


def check_hand(order, deck, variant, seed, cap=30):
    trace = play(order, deck, variant, seed=seed, cap=cap)
    run = hand_rules.play_run(order, deck, variant, cap=cap, shuffle=random.Random(seed).shuffle)
    assert (trace.won, trace.score, trace.extra["iterations"]) == (run.won, run.cards_left, run.iterations)
    # every iteration as the reference plays it, and the next deck as the reference builds it
    ends = [e for e in trace.steps if e["event"] == "end"]
    starts = [e for e in trace.steps if e["event"] == "iteration"]
    for start, end in zip(starts, ends):
        it = hand_rules.play_iteration(start["order"], deck, variant)
        assert (end["discards"], end["leftovers"]) == (it.discards, it.leftovers)
        if "next_order" in end:
            assert end["next_order"][:len(it.discards)] == it.prefix
    assert tuple(map(tuple, trace.extra["choices"])) == tuple(map(tuple, run.choices))
    assert starts[-1]["order"] == run.final_order
    # the leftover orders used replay the same run
    replayed = play(order, deck, variant, choices=trace.extra["choices"], cap=cap, seed=seed + 1)
    assert replayed.steps == trace.steps


@pytest.mark.parametrize("deck", [Deck(1, 4), Deck(2, 2), Deck(2, 3), Deck(3, 2)], ids=str)
def test_hand_every_order_small_decks(deck):
    for variant in all_variants("hand"):
        for i, order in enumerate(itertools.permutations(range(deck.size))):
            check_hand(order, deck, variant, seed=i, cap=8)


@settings(max_examples=15, deadline=None)
@given(data=st.data(), variant=variants("hand"), seed=st.integers(0, 2**32))
def test_hand_random_52(data, variant, seed):
    deck = Deck(4, 13)
    check_hand(data.draw(deck_orders(deck)), deck, variant, seed)


def test_hand_witness_from_poison_replays_to_a_win():
    """A witness of exact.hand.poison (leftover orders leading to a win) replays with play(choices=...)
    and with `solitaire play --choices`."""
    from exact.hand.poison import explore

    deck = Deck(2, 4)
    variant = Variant.make("hand")
    replayed = 0
    for order in itertools.islice(itertools.permutations(range(8)), 0, 40320, 997):
        decision = explore(order, deck, variant)
        if not decision.witness:
            continue
        choices = [format_cards(c, deck) for c in decision.witness]
        trace = play(order, deck, variant, choices=choices, cap=len(choices) + 1)
        assert trace.won and trace.extra["iterations"] == len(choices) + 1
        assert main(["play", "--game", "hand", "--suits", "2", "--ranks", "4", "--order", format_cards(order, deck),
                     "--choices", ";".join(choices), "--cap", str(len(choices) + 1), "--json"]) == 0
        replayed += 1
        if replayed == 3:
            return
    pytest.fail("fewer than 3 witnesses found")


def test_hand_bad_choice_is_one_line():
    deck = Deck(2, 3)
    order = (0, 1, 2, 3, 4, 5)
    it = hand_rules.play_iteration(order, deck, Variant.make("hand"))
    assert not it.won
    with pytest.raises(UsageError, match="is not an order of iteration 1's leftovers"):
        play(order, deck, "hand", choices=[[c for c in range(6) if c not in it.leftovers][:len(it.leftovers)]])


def test_prisoners_solver_line_replays_with_play():
    from exact.prisoners.solver import solve
    from sim.trace import describe_line, line_tokens

    deck = Deck(2, 5)
    rng = random.Random(3)
    checked = 0
    for variant in ("prisoners(moves=physical)", "prisoners(moves=published)"):
        for _ in range(20):
            order = list(range(10))
            rng.shuffle(order)
            result = solve(order, deck, variant)
            if not result.won:
                continue
            tokens = line_tokens(order, deck, variant, result.line)
            trace = play(format_cards(order, deck), deck, variant, line=tokens)
            assert trace.won and trace.score == 1
            assert len(describe_line(order, deck, variant, result.line)) == len(result.line)
            checked += 1
    assert checked >= 10
    with pytest.raises(UsageError, match="--line, move 1"):
        play(list(range(10)), deck, "prisoners", line="AS>AH")


def test_cli_play_text_and_json(capsys):
    order = "AS 2S 3S 4S 5S AH 2H 3H 4H 5H"
    assert main(["play", "--suits", "2", "--ranks", "5", "--order", order]) == 0
    out = capsys.readouterr().out
    assert "deal A♠" in out and "score" in out
    assert main(["play", "--suits", "2", "--ranks", "5", "--order", order, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert set(record) >= {"game", "suits", "ranks", "variant", "order", "score", "won", "steps"}
    assert record["order"] == order
    expected = oh_rules.play(parse_cards(order, Deck(2, 5)), Deck(2, 5))
    assert (record["score"], record["won"]) == (expected.score, expected.won)
    assert record["steps"][0] == {"event": "deal", "card": "AS", "row": ["AS"]}


def test_cli_play_seed_prints_a_replayable_order(capsys):
    assert main(["play", "--game", "prisoners", "--seed", "5", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["play", "--game", "prisoners", "--order", first["order"], "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["steps"] == first["steps"]


def test_cli_solve_from_a_seed_reports_it_and_its_strategy(capsys):
    assert main(["solve", "--suits", "2", "--ranks", "5", "--json"]) == 0  # a fresh seed
    first = json.loads(capsys.readouterr().out)
    assert isinstance(first["seed"], int) and first["strategy"] == "hybrid"  # the physical rule's default
    assert main(["solve", "--suits", "2", "--ranks", "5", "--seed", str(first["seed"])]) == 0
    out = capsys.readouterr().out.splitlines()
    assert f"seed {first['seed']}  order {first['order_cards']}" in out[0]
    assert first["status"] == "undecided" or "strategy hybrid" in out[1]


def test_cli_play_hand_from_an_order_reports_the_seed_of_its_shuffles(capsys):
    # the leftovers of each iteration are shuffled: without --seed a fresh seed, printed so that the
    # game can be played again
    args = ["play", "--game", "hand", "--suits", "2", "--ranks", "5", "--order", "AS 2S 3S 4S 5S AH 2H 3H 4H 5H"]
    assert main(args + ["--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert isinstance(first["seed"], int)
    assert main(args + ["--seed", str(first["seed"]), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == first
    assert main(args + ["--seed", str(first["seed"])]) == 0
    assert f"seed {first['seed']}" in capsys.readouterr().out.splitlines()[0]


@pytest.mark.parametrize("args, message", [
    (["play", "--order", "AS AS"], "card 2 'AS': AS was already given as card 1"),
    (["play", "--suits", "1", "--ranks", "3", "--order", "AS 2S 4S"], "card 3 '4S': not in the deck 1x3"),
    (["play", "--order", "AS", "--seed", "1"], "give --order or --seed, not both"),
    (["play", "--game", "one-handed", "--line", "AS>2S", "--seed", "1"], "Prisoner's Patience only"),
    # a line solved under moves=physical (solve's default) replayed under play's default, published
    (["play", "--game", "prisoners", "--suits", "2", "--ranks", "5", "--order", "AS 2S 3S 4S 5S AH 2H 3H 4H 5H",
      "--line", "2S>AS 5S>4S AH>5S 2H>AH 2H>3S 3H>2H 3H>2S 4H>3H 5H>4H"], "uses moves=published: if the line was solved under the other"),
])
def test_cli_play_errors(capsys, args, message):
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err and captured.err.count("\n") == 1


def test_cli_play_figure(tmp_path, capsys):
    path = tmp_path / "game.png"
    assert main(["play", "--seed", "2", "--figure", str(path)]) == 0
    assert path.stat().st_size > 1000


def test_cli_solve_takes_cards_and_its_line_replays_with_play(capsys):
    order = "AS 3S 2S 5H 4S AH 3H 2H 5S 4H"
    assert main(["solve", "--suits", "2", "--ranks", "5", "--order", order, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["status"] == "won" and record["order_cards"] == order
    assert main(["play", "--game", "prisoners", "--suits", "2", "--ranks", "5", "--variant", "moves=physical",
                 "--order", order, "--line", record["line_cards"], "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["won"] and replayed["score"] == 1
    assert main(["solve", "--suits", "2", "--ranks", "5", "--order", order]) == 0
    text = capsys.readouterr().out
    assert " onto " in text and "replay: solitaire play --game prisoners" in text
    assert main(["solve", "--suits", "2", "--ranks", "5", "--order", "AS 3S 2S 5H 4S AH 3H 2H 5S 5S"]) == 2
    assert "--order, card 10 '5S': 5S was already given as card 9" in capsys.readouterr().err


def _drawn_figure(monkeypatch, trace):
    import solitaire.figures as figures

    drawn = []
    monkeypatch.setattr(figures, "_save", lambda fig, path: drawn.append(fig))
    figures.game_sizes(trace, "unused.png")
    return drawn[0]


def test_prisoners_figure_draws_the_final_row_and_the_piles_over_the_game(monkeypatch):
    from matplotlib.patches import Rectangle

    deck = Deck(4, 13)
    trace = play(random.Random(5).sample(range(52), 52), deck, Variant.make("prisoners"))
    fig = _drawn_figure(monkeypatch, trace)
    piles_ax, map_ax = fig.axes[:2]
    final = [e["piles"] for e in trace.steps if "piles" in e][-1]
    # every card of the final row is a box with its name, stacked in its pile
    boxes = [p for p in piles_ax.patches if isinstance(p, Rectangle)]
    assert len(boxes) == sum(len(p) for p in final)
    names = [t.get_text() for t in piles_ax.texts]
    assert names == [format_cards([c], deck) for pile in final for c in pile]
    assert sorted({round(b.get_x() + b.get_width() / 2) for b in boxes}) == list(range(len(final)))
    # the map: the height of each pile position after each step
    heights = map_ax.images[0].get_array()
    rows = [e["piles"] for e in trace.steps if "piles" in e]
    assert heights.shape == (max(len(r) for r in rows), len(rows))
    assert [int(h) for h in heights[:len(final), -1]] == [len(p) for p in final]
    assert heights.mask[len(rows[0]):, 0].all()  # no pile there yet


def test_hand_figure_has_whole_card_ticks_and_numbered_iterations(monkeypatch):
    deck = Deck(2, 5)
    trace = play(random.Random(3).sample(range(10), 10), deck, Variant.make("hand"), seed=3)
    [ax] = _drawn_figure(monkeypatch, trace).axes
    iterations = sum(e["event"] == "iteration" for e in trace.steps)
    assert iterations >= 2
    labels = [t.get_text() for t in ax.texts]  # one a line; past 8 iterations, numbers after the first
    assert labels == [f"iteration {i}" if i == 1 or iterations <= 8 else str(i) for i in range(1, iterations + 1)]
    assert all(float(t).is_integer() for t in ax.get_yticks())
    assert all(float(t).is_integer() for t in ax.get_xticks())
