"""exact.status: each verdict status is its stored text (store and --json unchanged) and has the
integer code its kernel returns."""
import json

import pytest

import exact.prisoners.solver_kernel as kernel
from exact.prisoners.solver import LOST, UNDECIDED, WON
from exact.status import BestPlayStatus, PoisonStatus

STORED = {BestPlayStatus: ("won", "lost", "undecided"), PoisonStatus: ("win-reachable", "trapped", "undecided")}


@pytest.mark.parametrize("kind", [BestPlayStatus, PoisonStatus])
def test_the_stored_texts_round_trip(kind):
    assert sorted(s.value for s in kind) == sorted(STORED[kind])
    for text in STORED[kind]:
        status = kind.parse(text)
        assert status == text and str(status) == text and f"{status}" == text
        assert json.loads(json.dumps({"status": status})) == {"status": text}
        assert kind.parse(json.loads(json.dumps(status))) is status
        assert kind.from_code(status.code) is status
    assert len({s.code for s in kind}) == len(kind)
    with pytest.raises(ValueError):
        kind.parse("drawn")
    with pytest.raises(ValueError):
        kind.from_code(max(s.code for s in kind) + 1)


def test_the_kernel_codes_are_the_statuses_codes():
    assert (kernel.LOST_CODE, kernel.WON_CODE, kernel.UNDECIDED_CODE) == (LOST.code, WON.code, UNDECIDED.code)
    assert kernel.PAUSED_CODE not in {s.code for s in BestPlayStatus}  # a paused search has no verdict yet
    assert (WON, LOST, UNDECIDED) == (BestPlayStatus.WON, BestPlayStatus.LOST, BestPlayStatus.UNDECIDED)
