"""The whole-graph analysis of Hand Solitaire keeps its work: the explored graph once, then the
p-adic lifting's state; a run stopped by a signal resumes from the next lifting step to the answers
of an uninterrupted run (both lifting modes: two columns, and m alone once h is exact)."""
import signal

import pytest

from exact.hand.whole_deck import GRAPH_CHECKPOINT_VERSION, analyse_deck
from sim import interrupts
from sim.deck import Deck
from sim.errors import UsageError


def _answers(result) -> dict:
    return {k: v for k, v in result.to_dict().items() if k != "seconds"}


@pytest.mark.parametrize("suits, ranks, variant, k, one_column", [
    (2, 5, "hand(step7=off)", 37, False),  # 200 steps, h and m lifted together
    (2, 4, "hand()", 20, True),  # P(win) = 1: m alone from the first step, 44 steps
    (2, 4, "hand()", 44, True),  # the stop comes with the last step: the resumed run only checks
])
def test_a_stopped_lifting_resumes_from_the_next_step_to_the_same_answers(tmp_path, stop_after, suits, ranks, variant,
                                                                         k, one_column):
    deck = Deck(suits, ranks)
    whole = analyse_deck(deck, variant)
    assert ("one_column_from_step" in whole.solver) == one_column
    steps = stop_after(k, signal.SIGTERM)
    with pytest.raises(interrupts.Interrupted) as stopped:
        analyse_deck(deck, variant, checkpoint_dir=tmp_path)
    assert stopped.value.signum == signal.SIGTERM
    assert stopped.value.saved.startswith(f"{k} lifting steps saved to {tmp_path}/hand-graph-{suits}x{ranks}-")
    assert len(list(tmp_path.glob("*.npz"))) == 2, "the explored graph and the lifting"
    first_run = len(steps)
    again = analyse_deck(deck, variant, checkpoint_dir=tmp_path)
    rerun = steps[first_run:]
    # the last step is seen once more (saved before the check modulo a second prime), the saved one
    # again when it was the last
    assert min(rerun) >= k and sorted(set(rerun) - {k}) == list(range(k + 1, whole.solver["steps"] + 1)), \
        "no step is lifted twice"
    assert again.solver["resumed"] and again.solver["steps"] == whole.solver["steps"]
    assert _answers(again) == _answers(whole)
    assert again.solver.get("one_column_from_step") == whole.solver.get("one_column_from_step")
    assert list(tmp_path.iterdir()) == [], "the files go once the answer is returned"


def test_a_saved_lifting_of_another_system_is_refused(tmp_path, stop_after):
    from exact.checkpoint import in_folder
    from sim.variant import Variant

    variant = "hand(step7=off)"

    def lifting(folder, suits, ranks):
        key = {"engine": "hand-graph", "suits": suits, "ranks": ranks, "variant": str(Variant.parse(variant)),
               "version": GRAPH_CHECKPOINT_VERSION, "part": "lifting"}
        return in_folder(folder, key)

    for folder, suits, ranks, k in ((tmp_path / "a", 2, 5, 30), (tmp_path / "b", 5, 2, 3)):
        stop_after(k)
        with pytest.raises(interrupts.Interrupted):
            analyse_deck(Deck(suits, ranks), variant, checkpoint_dir=folder)
    state, arrays = lifting(tmp_path / "a", 2, 5).load()
    lifting(tmp_path / "b", 5, 2).save(30, None, state, arrays)  # 2x5's digits under 5x2's name
    with pytest.raises(UsageError, match="is of another system .*remove it"):
        analyse_deck(Deck(5, 2), variant, checkpoint_dir=tmp_path / "b")


def test_the_fraction_method_is_not_checkpointed(tmp_path):
    result = analyse_deck(Deck(2, 3), "hand()", method="fractions", checkpoint_dir=tmp_path)
    assert not tmp_path.exists() or list(tmp_path.iterdir()) == []
    assert result.p_win == analyse_deck(Deck(2, 3), "hand()").p_win


def test_a_checkpoint_file_of_another_kind_is_refused_in_one_line(tmp_path):
    from exact.checkpoint import in_folder
    from sim.variant import Variant

    key = {"engine": "hand-graph", "suits": 2, "ranks": 4, "variant": str(Variant.parse("hand()")),
           "version": GRAPH_CHECKPOINT_VERSION, "part": "graph"}
    path = in_folder(tmp_path, key).path
    path.write_bytes(b"not a checkpoint")
    with pytest.raises(UsageError, match="cannot read the checkpoint"):
        analyse_deck(Deck(2, 4), "hand()", checkpoint_dir=tmp_path)
