"""Every result record follows the one Result protocol (sim.result): kind, to_dict, from_record,
provenance; and a record read back from its to_dict() content is the same result."""
import dataclasses

import pytest

from exact import exact_distribution
from exact.hand.poison import PoisonResult, classify_runs
from exact.hand.whole_deck import HandGraphResult, analyse_deck
from exact.prisoners.best_play import BestPlayEstimate, estimate_best_play
from exact.prisoners.solver import SolveResult, solve
from exact.result import ExactResult
from sim import Deck, Variant, simulate
from sim.montecarlo import SimulationResult
from sim.result import Result
from solitaire.sweep import SweepResult, sweep
from solitaire.validate import ValidationReport

RESULT_TYPES = [ExactResult, SimulationResult, SolveResult, BestPlayEstimate, SweepResult, ValidationReport,
                PoisonResult, HandGraphResult]


@pytest.mark.parametrize("cls", RESULT_TYPES, ids=lambda c: c.__name__)
def test_every_result_type_follows_the_protocol(cls):
    assert isinstance(cls.kind, str) and cls.kind
    assert callable(cls.to_dict) and callable(cls.from_record)
    assert "provenance" in {f.name for f in dataclasses.fields(cls)}
    assert "kind" not in {f.name for f in dataclasses.fields(cls)}  # a class fact, not per record
    assert len({c.kind for c in RESULT_TYPES}) == len(RESULT_TYPES)  # one type per kind


def _round_trips(result):
    assert isinstance(result, Result)
    again = type(result).from_record({**result.to_dict(), "provenance": result.provenance})
    assert again.to_dict() == result.to_dict()


def test_records_read_back_as_the_same_result():
    _round_trips(exact_distribution(Deck(2, 3)))
    _round_trips(exact_distribution(Deck(1, 4), "prisoners(moves=physical)"))
    _round_trips(simulate(Deck(2, 3), games=2000, seed=1, workers=1, progress=False))
    prisoners = Variant.make("prisoners", moves="physical")
    _round_trips(solve([0, 1, 2, 3, 4], Deck(1, 5), prisoners))
    _round_trips(estimate_best_play(Deck(1, 5), prisoners, decks=3, seed=1))
    _round_trips(sweep([1, 2], [2], games=500, seed=1, workers=1, progress=False))
    _round_trips(classify_runs(Deck(2, 2), decks=20, seed=1))
    _round_trips(analyse_deck(Deck(2, 3), iterations=3))
