"""The page through its address contract, against the Python reference: every game on random 52-card
deals, a refused deal, stepping through a game, the One-Handed odds against exact/one_handed/odds.py,
and a screenshot of each game's page (kept under tests/browser/artifacts/)."""
import zlib
from fractions import Fraction
from urllib.parse import urlencode

import numpy as np
import pytest

from sim.games import get_game
from sim.cards import format_cards
from sim.deck import Deck
from sim.errors import UsageError
from sim.trace import play
from sim.variant import Variant

from .conftest import ARTIFACTS

STANDARD = Deck(4, 13)


def query(**params) -> str:
    return "?" + urlencode({k: v for k, v in params.items() if v is not None})


def outcome(page):
    return page.get_by_test_id("score").text_content(), page.get_by_test_id("result").text_content()


CASES = [("one-handed", ""), ("one-handed", "win=any,reverse=on"), ("one-handed", "first4=reversed,final=once"),
         ("hand", ""), ("hand", "step7=off,reshuffle=off"), ("hand", "rank_resets=published"),
         ("prisoners", ""), ("prisoners", "moves=physical,wrap=off")]


@pytest.mark.parametrize("game,variant", CASES)
def test_random_standard_deals_score_as_the_reference(open_page, game, variant):
    rng = np.random.default_rng(zlib.crc32(f"{game} {variant}".encode()))
    v = Variant.from_options(game, [kv for kv in variant.split(",") if kv])
    for _ in range(2):
        order = rng.permutation(52).tolist()
        seed = int(rng.integers(0, 2**53)) if game == "hand" else None
        page = open_page(query(game=game, variant=variant or None, deck=format_cards(order, STANDARD), seed=seed))
        trace = play(order, STANDARD, v, seed=seed)
        assert outcome(page) == (str(trace.score), "won" if trace.won else "lost")
        assert page.get_by_test_id("error").is_hidden()
        steps = page.evaluate("window.playPage.state.trace.steps.length")
        assert steps == len(trace.steps)


@pytest.mark.parametrize("game", ["one-handed", "hand", "prisoners"])
def test_a_seed_deals_what_solitaire_play_deals(open_page, game):
    seed = 20261128
    page = open_page(query(game=game, seed=seed))
    order = np.random.default_rng(seed).permutation(52).tolist()
    # as `solitaire play --seed` plays it: the seed deals the deck, and Hand Solitaire's shuffles too
    shuffles = {"seed": seed} if "seed" in get_game(game).options("play") else {}
    trace = play(order, STANDARD, Variant.make(game), **shuffles)
    assert outcome(page) == (str(trace.score), "won" if trace.won else "lost")
    assert page.locator("#deck").input_value() == format_cards(order, STANDARD)
    if game == "hand":
        assert page.evaluate("window.playPage.state.trace.extra.iterations") == trace.extra["iterations"]


def test_a_fresh_seed_is_drawn_and_kept_in_the_address(open_page):
    page = open_page("?game=prisoners")
    seed = page.locator("#seed").input_value()
    assert seed.isdigit() and int(seed) < 2**53
    assert f"seed={seed}" in page.url
    order = np.random.default_rng(int(seed)).permutation(52).tolist()
    trace = play(order, STANDARD, Variant.make("prisoners"))
    assert outcome(page) == (str(trace.score), "won" if trace.won else "lost")


BAD = [
    dict(deck="AS 2S ZZ"),
    dict(deck="AS 2S AS"),
    dict(deck="AS 2S 3S"),
    dict(suits="2", ranks="3", deck="AS 2S 3S AH 2H 4H"),
    dict(game="hand", variant="step7=sometimes", deck="AS"),
    dict(variant="colour=red", seed="1"),
    dict(suits="0", seed="1"),
    dict(seed="-4"),
    dict(game="poker"),
]


def reference_message(params) -> str:
    """What the command line says about the same input (the page names the deal 'deck')."""
    from sim.cards import parse_cards

    try:
        game = params.get("game", "one-handed")
        Variant.from_options(game, [kv for kv in params.get("variant", "").split(",") if kv])
        deck = Deck(int(params.get("suits", 4)), int(params.get("ranks", 13)))
        if "seed" in params and not params["seed"].isdigit():
            return f"seed must be a non-negative integer, got {params['seed']!r}"
        parse_cards(params["deck"], deck, what="deck")
    except UsageError as exc:
        return str(exc)
    raise AssertionError(f"the reference accepts {params}")


@pytest.mark.parametrize("params", BAD, ids=[str(i) for i in range(len(BAD))])
def test_a_refused_deal_says_why_in_one_line(open_page, params):
    page = open_page(query(**params))
    error = page.get_by_test_id("error")
    assert error.is_visible()
    assert error.text_content() == reference_message(params)
    assert "\n" not in error.text_content()
    assert page.get_by_test_id("result").text_content() == ""
    assert page.locator("#game-panel").is_hidden()


def test_typing_a_bad_card_is_refused_next_to_the_input(open_page):
    page = open_page("?seed=3")
    from sim.cards import parse_cards

    page.locator("#deck").fill("AS 2S JS ZH")
    error = page.get_by_test_id("error")
    with pytest.raises(UsageError) as refused:
        parse_cards("AS 2S JS ZH", STANDARD, complete=False, what="deck")  # a deal being typed
    assert error.text_content() == str(refused.value)
    assert "card 4 'ZH': not a card" in error.text_content()
    page.locator("#deck").fill("AS 2S")
    assert error.is_hidden()
    assert page.locator("#deck-count").text_content() == "2 of 52 cards"


def test_clicking_cards_in_order_builds_the_deal(open_page):
    page = open_page("?suits=2&ranks=2&seed=1")
    page.locator("#deck").fill("")
    page.locator("#picker-box summary").click()
    for name in ["2H", "AS", "AH", "2S"]:
        page.locator(f"#picker button[title='{name}']").click()
    assert page.locator("#deck").input_value() == "2H AS AH 2S"
    assert page.locator("#picker button[title='AS']").is_disabled()
    page.locator("#play").click()
    page.wait_for_url("**deck=2H+AS+AH+2S**")
    order = [3, 0, 2, 1]
    trace = play(order, Deck(2, 2), Variant.make("one-handed"))
    assert outcome(page) == (str(trace.score), "won" if trace.won else "lost")


def test_stepping_names_each_removal(open_page):
    order = np.random.default_rng(460).permutation(52).tolist()
    trace = play(order, STANDARD, Variant.make("one-handed"))
    page = open_page(query(deck=format_cards(order, STANDARD)))
    first = next(i for i, e in enumerate(trace.steps) if e["event"] == "remove")
    for _ in range(first + 1):
        page.locator("#forward").click()
    e = trace.steps[first]
    text = page.locator("#caption").text_content()
    from sim.cards import card_name

    assert f"{card_name(e['top'], STANDARD, symbols=True)} matches {card_name(e['fourth'], STANDARD, symbols=True)} by {e['match']}" in text
    assert page.locator("#board .card.removed").count() == len(e["removed"])
    page.locator("#last").click()
    assert "End of the game" in page.locator("#caption").text_content()
    # the last step is a removal: the row before it, the removed cards struck, the rest is the score
    assert page.locator("#board .card:not(.removed)").count() == trace.score


def test_one_handed_odds_after_each_card_match_the_exact_odds(open_page):
    """Where the page counts exactly, its fraction is exact/one_handed/odds.py's, position by position."""
    from exact.one_handed.odds import odds

    order = np.random.default_rng(460).permutation(52).tolist()  # a won deal: the odds stay above 0
    page = open_page(query(deck=format_cards(order, STANDARD)))
    page.wait_for_selector("#odds-figure[data-done]")
    rows = page.evaluate("window.playPage.odds.map(o => [o.dealt, o.method, o.wins, o.total, o.fraction || null])")
    exact_rows = [r for r in rows if r[1] == "exact"]
    assert len(exact_rows) >= 8  # at least the last 7 cards to come, counted exactly
    assert [r[0] for r in exact_rows] == list(range(52 - len(exact_rows) + 1, 53))
    for dealt, _, wins, total, fraction in exact_rows:
        if 52 - dealt > 11:
            continue  # the reference's search takes seconds past 11 cards to come
        ref = odds(order[:dealt], STANDARD, method="exact", engine="search")
        assert Fraction(wins, total) == ref.p_win, dealt
        assert Fraction(fraction) == ref.p_win
        assert total == ref.total
    assert any(0 < Fraction(r[2], r[3]) < 1 for r in exact_rows)
    simulated = [r for r in rows if r[1] == "simulated"]
    assert [r[0] for r in simulated] == list(range(len(simulated)))


@pytest.mark.parametrize("variant", ["win=any", "reverse=on,final=once", "first4=reversed", "win=any,first4=reversed"])
def test_odds_of_a_small_deck_are_exact_throughout(open_page, variant):
    from exact.one_handed.odds import odds

    deck = Deck(2, 4)
    v = Variant.from_options("one-handed", variant.split(","))
    order = np.random.default_rng(8).permutation(deck.size).tolist()
    page = open_page(query(variant=variant, suits=2, ranks=4, deck=format_cards(order, deck)))
    page.wait_for_selector("#odds-figure[data-done]")
    rows = page.evaluate("window.playPage.odds.map(o => [o.dealt, o.method, o.wins, o.total])")
    assert [r[1] for r in rows] == ["exact"] * (deck.size + 1)
    for dealt, _, wins, total in rows[1:]:
        ref = odds(order[:dealt], deck, v, method="exact", engine="search")
        assert Fraction(wins, total) == ref.p_win, (variant, dealt)
    # before the first card: the deck's exact value in the results store (first4=reversed has the
    # distribution of first4=kept; final=once is not stored)
    from sim.store import ResultsStore

    from .conftest import ROOT

    kept = Variant.make("one-handed", **{**v.as_dict(), "first4": "kept"})
    stored = ResultsStore(ROOT / "results" / "solitaire.h5").find(kind="exact", suits=2, ranks=4, variant=kept)
    if not v.rules.final_once:
        assert stored
        assert Fraction(rows[0][2], rows[0][3]) == Fraction(stored[-1][1]["p_win"])


SHOTS = {
    "one-handed": query(deck=format_cards(np.random.default_rng(460).permutation(52).tolist(), STANDARD)),
    "hand": query(game="hand", seed=20261128),
    "prisoners": query(game="prisoners", seed=7),
    "one-handed-5x14": query(suits=5, ranks=14, variant="win=any", seed=3),
}


@pytest.mark.parametrize("game", list(SHOTS))
def test_screenshot_of_each_game(open_page, game):
    """A full-page screenshot in the middle of a game: tests/browser/artifacts/play-GAME.png."""
    page = open_page(SHOTS[game])
    if game.startswith("one-handed"):
        page.wait_for_selector("#odds-figure[data-done]")
    steps = page.evaluate("window.playPage.state.trace.steps")
    kind = {"one-handed": "remove", "hand": "discard", "prisoners": "move"}[game.split("-5x")[0]]
    middle = [i for i, e in enumerate(steps) if e["event"] == kind]
    target = middle[len(middle) // 2] + 1
    page.evaluate(f"document.getElementById('slider').value = {target}; "
                  "document.getElementById('slider').dispatchEvent(new Event('input'))")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"play-{game}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 20_000
    assert page.locator("#board .card").count() > 0


def test_screenshot_of_a_refused_deal(open_page):
    """tests/browser/artifacts/play-refused.png: the reason beside the cards, nothing played."""
    page = open_page(query(game="hand", deck="AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH 2H 3H 4H 5H 6H 7H 8H 9H "
                                               "10H JH QH KH AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AC 2C 3C 4C 5C "
                                               "6C 7C 8C 9C 10C JC QC 1S"))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / "play-refused.png"
    page.screenshot(path=str(path), full_page=True)
    assert "card 52 '1S': AS was already given as card 1" in page.get_by_test_id("error").text_content()
    assert path.stat().st_size > 10_000


def test_screenshot_on_a_phone(browser, server):
    """tests/browser/artifacts/play-phone.png: the page at 390 pixels wide."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
    try:
        page = context.new_page()
        page.goto(f"{server}/docs/play/index.html" + query(seed=460))
        page.wait_for_selector("#odds-figure[data-done]")
        page.locator("#last").click()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / "play-phone.png"
        page.screenshot(path=str(path), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the screen
    finally:
        context.close()


@pytest.mark.parametrize("params", [dict(game="hand", seed=5), dict(game="prisoners", variant="moves=physical", seed=9),
                                    dict(game="one-handed", variant="reverse=on", suits=3, ranks=6, seed=4)])
def test_the_command_the_page_gives_plays_the_same_game(open_page, cli_run, params):
    import json
    import shlex

    page = open_page(query(**params))
    line = next(x for x in page.locator("#commands").text_content().splitlines() if x.startswith("solitaire play"))
    code, out, err = cli_run(*shlex.split(line)[1:], "--json")
    assert code == 0, err
    record = json.loads(out)
    assert outcome(page) == (str(record["score"]), "won" if record["won"] else "lost")
    assert page.evaluate("window.playPage.state.trace.steps.length") == len(record["steps"])


def test_the_page_works_opened_from_disk(page):
    """No server: the page and its figures load from file:// (nothing is fetched)."""
    from .conftest import ROOT

    page.goto((ROOT / "docs" / "play" / "index.html").as_uri() + "?game=prisoners&seed=11")
    page.wait_for_function("document.querySelector('[data-testid=result]').textContent !== ''")
    order = np.random.default_rng(11).permutation(52).tolist()
    trace = play(order, STANDARD, Variant.make("prisoners"))
    assert outcome(page) == (str(trace.score), "won" if trace.won else "lost")
    assert "Prisoner's Patience, standard deck" in page.locator("#figures").text_content()


def test_the_form_plays_a_new_game_and_shape_from_the_same_seed(open_page):
    page = open_page("?game=one-handed&seed=12")
    page.locator("#game").select_option("prisoners")
    page.locator("#suits").fill("3")
    page.locator("#ranks").fill("5")
    page.locator("#play").click()
    page.wait_for_url("**game=prisoners**")
    assert "seed=12" in page.url and "deck=" not in page.url
    deck = Deck(3, 5)
    order = np.random.default_rng(12).permutation(deck.size).tolist()
    trace = play(order, deck, Variant.make("prisoners"))
    page.wait_for_function("document.querySelector('[data-testid=result]').textContent !== ''")
    assert outcome(page) == (str(trace.score), "won" if trace.won else "lost")
    assert page.locator("#deck").input_value() == format_cards(order, deck)
