"""scripts/exact_table.py resumes from its store: decks and variants already stored are not computed
or saved again."""

from sim.store import ResultsStore
from tests.scripts import load_script


def test_exact_table_skips_what_its_store_holds(tmp_path, monkeypatch):
    script = load_script("exact_table")
    store, table = tmp_path / "store.h5", tmp_path / "table.md"
    args = ["--out", str(store), "--table", str(table), "--heatmap", str(tmp_path / "heatmap.png")]
    computed = []
    real = script.exact_distribution

    def counting(deck, variant, **kw):
        computed.append((str(deck), str(variant)))
        return real(deck, variant, **kw)

    monkeypatch.setattr(script, "exact_distribution", counting)
    script.main(["--max-cards", "3", *args])  # 1x1 1x2 2x1 1x3 3x1: 5 decks x 4 variants
    assert len(computed) == 20 and len(ResultsStore(store).names(kind="exact")) == 20
    first = table.read_text()
    computed.clear()
    script.main(["--max-cards", "4", *args])  # adds 1x4 2x2 4x1 only
    assert len(computed) == 12 and len(ResultsStore(store).names(kind="exact")) == 32
    assert {deck for deck, _ in computed} == {"1x4", "2x2", "4x1"}
    computed.clear()
    script.main(["--max-cards", "3", *args])  # all stored: nothing computed, the same table
    assert computed == [] and len(ResultsStore(store).names(kind="exact")) == 32
    assert table.read_text() == first


def test_exact_table_takes_more_decks(tmp_path):
    script = load_script("exact_table")
    store, table = tmp_path / "store.h5", tmp_path / "table.md"
    script.main(["--max-cards", "2", "--also", "2x3,3x2", "--out", str(store), "--table", str(table),
                 "--heatmap", str(tmp_path / "heatmap.png")])
    text = table.read_text()
    assert "| 2x3 | 6 |" in text and "| 3x2 | 6 |" in text and len(ResultsStore(store).names(kind="exact")) == 20
