"""scripts/exact_families.py: computes the narrow decks its store lacks by the word method (equal to
the DP), reads a deck's plain game from reverse=on on its transpose, and fits what it says it fits."""
from fractions import Fraction

import pytest

from exact import exact_distribution
from sim import Deck, Variant
from sim.store import ResultsStore
from tests.scripts import load_script


def test_fits_recover_their_forms():
    script = load_script("exact_families")
    a, b = script.fit_inverse([(s, 0.3 + 0.2 / s) for s in range(6, 20, 2)])
    assert a == pytest.approx(0.3) and b == pytest.approx(0.2)
    c, k = script.fit_power([(r, 0.5 * r ** -1.1) for r in range(6, 14)])
    assert c == pytest.approx(0.5) and k == pytest.approx(1.1)


def test_families_compute_store_and_draw(tmp_path):
    script = load_script("exact_families")
    store_path, table, figure = tmp_path / "s.h5", tmp_path / "f.md", tmp_path / "f.png"
    args = ["--out", str(store_path), "--table", str(table), "--figure", str(figure),
            "--checkpoint-dir", str(tmp_path / "jobs")]
    assert script.main(["--compute", "--workers", "2", "--decks", "3x2,4x2,2x3", *args]) == 0
    store = ResultsStore(store_path)
    assert len(store.names(kind="exact")) == 6  # the plain game and win=any of each deck
    for s, r in ((3, 2), (4, 2), (2, 3)):
        for text in (script.PLAIN, script.WIN_ANY):
            dp = exact_distribution(Deck(s, r), Variant.parse(text), method="dp")
            (_, rec), = store.find(kind="exact", suits=s, ranks=r, variant=text)
            assert Fraction(rec["p_win"]) == dp.p_win and rec["method"] == "word"
    text = table.read_text()
    assert "| 4x2 | 8 | 65/168 |" in text and "| 2x3 | 6 | 2/15 |" in text
    assert figure.exists() and figure.with_suffix(".svg").exists()
    names = store.names(kind="exact")
    assert script.main(["--compute", "--decks", "3x2,4x2", *args]) == 0  # stored: nothing computed again
    assert store.names(kind="exact") == names


def test_plain_game_read_from_the_transpose(tmp_path):
    script = load_script("exact_families")
    store = ResultsStore(tmp_path / "s.h5")
    store.save(exact_distribution(Deck(2, 5), Variant.parse("one-handed(reverse=on)"), method="dp"))
    values = script.family_values(store)
    assert set(values) == {(5, 2)}
    assert values[(5, 2)]["plain"].p_win == Fraction(569, 3780) and values[(5, 2)]["any"] is None


def test_a_wide_deck_is_refused():
    script = load_script("exact_families")
    with pytest.raises(SystemExit, match="not a narrow deck"):
        script.parse_decks("3x3")


def test_compute_adds_only_the_missing_variant(tmp_path):
    script = load_script("exact_families")
    store_path = tmp_path / "s.h5"
    store = ResultsStore(store_path)
    store.save(exact_distribution(Deck(3, 2), Variant.parse(script.PLAIN), method="dp"))
    args = ["--out", str(store_path), "--table", str(tmp_path / "f.md"), "--figure", str(tmp_path / "f.png"),
            "--checkpoint-dir", str(tmp_path / "jobs")]
    assert script.main(["--compute", "--decks", "3x2", *args]) == 0
    records = [rec for _, rec in store.find(kind="exact", suits=3, ranks=2)]
    assert sorted((rec["variant"], rec["method"]) for rec in records) == sorted([(script.PLAIN, "dp"), (script.WIN_ANY, "word")])


def test_a_signal_stops_the_computation_in_one_line(tmp_path, monkeypatch, capfd):
    import signal

    from sim import interrupts

    script = load_script("exact_families")
    exits = []
    monkeypatch.setattr(interrupts.os, "_exit", lambda status: exits.append(status))

    def stopped(*args):
        interrupts._handler(signal.SIGTERM, None)  # the handler's immediate stop, os._exit caught
        raise KeyboardInterrupt

    monkeypatch.setattr(script, "compute", stopped)
    jobs = tmp_path / "jobs"
    with pytest.raises(KeyboardInterrupt):
        script.main(["--compute", "--decks", "2x3", "--out", str(tmp_path / "s.h5"), "--checkpoint-dir", str(jobs),
                     "--table", str(tmp_path / "f.md"), "--figure", str(tmp_path / "f.png")])
    assert exits == [143]
    assert capfd.readouterr().err.endswith(
        f"exact_families.py: interrupted: the finished jobs are kept in {jobs}; the same command continues\n")
