"""The committed golden traces and stored figures are what their scripts make now (so they cannot go
stale), and the golden traces cover every game, variant and card notation the page must handle.
These run without a browser."""
import json

from sim.games import GAMES
from tests.scripts import load_script


def test_golden_traces_file_is_what_the_script_makes_now():
    script = load_script("make_golden_traces")
    committed = script.OUT.read_text(encoding="utf-8")
    assert committed == script.dumps(script.golden()), "run scripts/make_golden_traces.py"


def test_golden_traces_cover_every_variant_and_shape():
    script = load_script("make_golden_traces")
    golden = json.loads(script.OUT.read_text(encoding="utf-8"))
    variants = {g["variant"] for g in golden["traces"]}
    assert variants == {str(v) for game in GAMES for v in script.variants(game)}
    assert len(variants) == 2 * 2 * 2 * 2 + 2 * 2 * 2 + 2 * 2
    shapes = {(g["suits"], g["ranks"]) for g in golden["traces"]}
    assert {(4, 13), (5, 14), (1, 1)} <= shapes
    games = {g["game"] for g in golden["traces"]}
    assert games == set(GAMES)
    # every kind of event, a won and a lost game of each, Hand Solitaire's shuffles and seeds past 2^64
    events = {e["event"] for g in golden["traces"] for e in g["trace"]["steps"]}
    assert events == {"deal", "remove", "iteration", "discard", "rotate", "end", "move"}
    for game in GAMES:
        assert {g["trace"]["won"] for g in golden["traces"] if g["game"] == game} == {True, False}
    hand = [g for g in golden["traces"] if g["game"] == "hand" and "reshuffle=on" in g["variant"]]
    assert any(len(g["trace"]["choices"]) > 1 for g in hand)
    assert any(int(g["seed"]) >= 2**64 for g in hand)
    assert any(not isinstance(r["message"], str) for r in golden["refusals"]["variants"])
    assert len(golden["traces"]) >= 500
    assert script.OUT.stat().st_size < 4_000_000


def test_figures_file_is_what_the_store_gives_now():
    script = load_script("make_play_figures")
    committed = script.OUT.read_text(encoding="utf-8")
    now = script.figures()
    assert script.parse(committed) == now
    assert committed == script.render(now), "run scripts/make_play_figures.py"


def test_figures_hold_the_standard_deck_runs_and_exact_values():
    from fractions import Fraction

    from sim.store import ResultsStore

    script = load_script("make_play_figures")
    figures = script.parse(script.OUT.read_text(encoding="utf-8"))
    plain = figures["standard"]["one-handed(win=end,reverse=off,first4=kept)"]
    store = ResultsStore(script.STORE)
    record = store.load(plain["name"])
    assert (plain["games"], plain["wins"]) == (record["games"], record["wins"])
    assert plain["games"] == max(r["games"] for _, r in store.find(kind="simulation", game="one-handed", suits=4,
                                                                  ranks=13, variant=record["variant"]))
    exact = figures["exact"]["one-handed(win=end,reverse=off,first4=kept)"]
    stored = {f"{r['suits']}x{r['ranks']}": Fraction(r["p_win"])
              for _, r in store.find(kind="exact", game="one-handed", variant=record["variant"])}
    assert exact.keys() == stored.keys()
    assert Fraction(exact["4x5"]["p_win"]) == stored["4x5"]
    assert exact["4x5"]["value"] == float(stored["4x5"])
    assert {"prisoners(moves=published,wrap=on)", "prisoners(moves=physical,wrap=on)"} <= figures["best_play"].keys()
