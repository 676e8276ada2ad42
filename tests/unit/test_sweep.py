"""`sweep`: exact cells only within the exact engine's limits, the seed in the text output."""
import json
from fractions import Fraction

from sim import Deck, Variant
from solitaire.sweep import is_exact_cell, sweep


def test_exact_cells_respect_the_engine_limit_for_the_shape():
    plain = Variant.make("one-handed")
    assert is_exact_cell(Deck(4, 5), plain, 20)  # 20 cards: the phase method's limit
    assert is_exact_cell(Deck(3, 7), plain, 24)  # 21 cards: the zeta method (about 0.6 GiB a pass)
    assert not is_exact_cell(Deck(4, 6), plain, 24)  # 24 cards: the zeta method's 7.0 GiB is over the 6 GiB the tests pin
    assert is_exact_cell(Deck(2, 11), plain, 24)  # 22 cards, narrow-deck DP limit 24
    assert is_exact_cell(Deck(2, 9), plain, 20)  # 18 cards
    assert not is_exact_cell(Deck(2, 9), plain, 17)  # --exact-max-cards still applies
    assert not is_exact_cell(Deck(2, 2), Variant.make("hand"), 20)  # no exact engine


def test_sweep_beyond_the_dp_limit_simulates_instead_of_refusing(cli_run):
    code, out, err = cli_run("sweep", "--suits", "4", "--ranks", "6", "--exact-max-cards", "24", "--games", "2000",
                             "--seed", "5", "--json")
    assert code == 0, err
    (cell,) = json.loads(out)["cells"]
    assert cell["source"] == "simulated" and cell["games"] == 2000


def test_prisoners_sweep_uses_the_prisoners_exact_engine():
    variant = Variant.make("prisoners")
    result = sweep([1], [5, 6], variant=variant, games=2000, seed=1, exact_max_cards=5, progress=False)
    assert result.cell(1, 5).source == "exact" and result.cell(1, 5).p_win_exact == Fraction(11, 12)
    assert result.cell(1, 6).source == "simulated"


def test_sweep_text_output_prints_the_seed(cli_run):
    code, out, err = cli_run("sweep", "--suits", "2", "--ranks", "5", "--games", "2000", "--exact-max-cards", "0",
                             "--seed", "7")
    assert code == 0, err
    assert "seed 7" in out
    code, out, err = cli_run("sweep", "--suits", "2", "--ranks", "5", "--games", "2000", "--exact-max-cards", "0")
    assert code == 0 and "seed 0" in out  # the documented default


def test_sweep_refuses_store_or_backend_with_a_custom_cell_simulation(tmp_path):
    import pytest

    from sim import UsageError

    def cell(deck, variant, games, seed):
        raise AssertionError("not reached")

    with pytest.raises(UsageError, match="simulate_cell"):
        sweep([2], [5], games=10, simulate_cell=cell, out=tmp_path / "s.h5", progress=False)
    with pytest.raises(UsageError, match="simulate_cell"):
        sweep([2], [5], games=10, simulate_cell=cell, backend="dask", progress=False)
