"""scripts/hand_poison_survey.py keeps its exact results in a store and reads them back instead of
recomputing; the report's whole-deck table reads that store; long fractions are shortened."""
import json
from fractions import Fraction

import pytest

from sim.fractions_text import fraction_digest, fraction_from_text
from exact.hand.whole_deck import HandGraphResult
from sim import Variant
from sim.store import ResultsStore
from tests.scripts import load_script


def test_survey_reads_what_its_store_holds(tmp_path, monkeypatch, capsys):
    script = load_script("hand_poison_survey")
    store, table = tmp_path / "graphs.h5", tmp_path / "survey.md"
    args = ["12", "--decks", "2x3,2x2", "--store", str(store), "--out", str(table)]
    computed = []
    real = script.analyse_deck

    def counting(deck, variant, **kw):
        computed.append((str(deck), str(variant)))
        return real(deck, variant, **kw)

    monkeypatch.setattr(script, "analyse_deck", counting)
    script.main(args)
    assert len(computed) == 8 and len(ResultsStore(store).names(kind="hand-graph")) == 8
    first = table.read_text()
    assert "| 2x3 | hand(step7=on,rank_resets=written,reshuffle=on) | {'4': 36} | 144 | 276 | 118/377 |" in first
    computed.clear()
    script.main(args)  # everything stored: nothing computed or saved again, the same table
    assert computed == [] and len(ResultsStore(store).names(kind="hand-graph")) == 8
    assert table.read_text().split("| deck |")[1] == first.split("| deck |")[1]
    # the solver's details travel with the stored result
    record = ResultsStore(store).find(kind="hand-graph", suits=2, ranks=3, variant=Variant.make("hand"))[0][1]
    assert record["provenance"]["solver"]["lumped_unknowns"] >= 1
    assert HandGraphResult.from_record(record).p_win == Fraction(118, 377)


def test_survey_refuses_a_foreign_store(tmp_path):
    script = load_script("hand_poison_survey")
    bad = tmp_path / "bad.h5"
    bad.write_text("not a store")
    with pytest.raises(SystemExit) as exit_info:
        script.main(["4", "--store", str(bad)])
    assert exit_info.value.code == 2


def test_long_fractions_are_shortened_and_read_back():
    big = Fraction(3**9000 + 1, 7**9000)
    text = fraction_digest(big)
    assert text.startswith(f"{float(big):.6g} (7606 digits; sha256 ") and len(text) < 60
    assert fraction_digest(Fraction(118, 377)) == "118/377"
    assert fraction_from_text(_text(big)) == big


def _text(x: Fraction) -> str:
    from sim.fractions_text import fraction_text

    return fraction_text(x)


def test_report_shows_the_stored_whole_decks_without_recomputing(tmp_path, monkeypatch):
    import exact.hand.whole_deck as whole_deck
    from solitaire.report import HAND_GRAPHS_STORE, hand_graph_section, write_report

    script = load_script("hand_poison_survey")
    out = tmp_path / "report"
    script.main(["12", "--decks", "2x3", "--store", str(out / HAND_GRAPHS_STORE)])

    def refuse(*args, **kw):
        raise AssertionError("the report recomputed a whole deck")

    monkeypatch.setattr(whole_deck, "analyse_deck", refuse)
    text = write_report(ResultsStore(tmp_path / "empty.h5"), out).read_text()
    assert "### Whole decks of 12 cards, exactly" in text  # the report's table: 12-card decks only
    assert "| 2x3 |" not in text
    section = hand_graph_section(out / HAND_GRAPHS_STORE, min_cards=6)
    # the other 6-card shapes are named as not stored, not left out silently
    assert any(line.startswith("Not stored yet") and "3x2 `hand(step7=on,rank_resets=written,reshuffle=on)`" in line
               and "2x3 `" not in line for line in section)
    rows = [line for line in section if line.startswith("| 2x3 |")]
    assert len(rows) == 4
    plain = next(r for r in rows if "`hand(step7=on,rank_resets=written,reshuffle=on)`" in r)
    assert "| 118/377 | 4: 36 | 276 of 720 |" in plain and "commit" in plain


def test_survey_lists_what_the_store_lacks_instead_of_computing_it(tmp_path, monkeypatch):
    script = load_script("hand_poison_survey")
    store, table = tmp_path / "graphs.h5", tmp_path / "survey.md"
    script.main(["12", "--decks", "2x3", "--store", str(store)])
    computed = []
    real = script.analyse_deck
    monkeypatch.setattr(script, "analyse_deck", lambda deck, variant, **kw: computed.append(deck) or real(deck, variant))
    script.main(["12", "--decks", "2x3,2x2", "--store", str(store), "--stored-only-from", "4", "--out", str(table)])
    assert computed == []  # 2x3 read, 2x2 (4 cards) neither stored nor computed
    text = table.read_text()
    assert "**Not in the store**" in text and "2x2 `hand(step7=on,rank_resets=written,reshuffle=on)`" in text
    assert "| 2x3 |" in text and "| 2x2 |" not in text
    with pytest.raises(SystemExit):
        script.main(["4", "--stored-only-from", "4"])  # needs --store


def test_poison_all_prints_long_fractions_short_and_json_in_full(cli_run):
    # 2x5 without step 7: p_win's denominator has 474 digits
    args = ("poison", "--suits", "2", "--ranks", "5", "--variant", "step7=off", "--all")
    code, text, _ = cli_run(*args)
    assert code == 0 and "digits; sha256 " in text
    assert max(len(line) for line in text.splitlines()) < 300
    code, out, _ = cli_run(*args, "--json")
    p_win = fraction_from_text(json.loads(out)["p_win"])
    assert code == 0 and len(str(p_win.denominator)) > 400 and fraction_digest(p_win) in text
