"""The canonical form behind ``benchmarks/bench_odds_classes.py`` (how far relabelling could shrink the
phase engine's tables): two labelled card sets get the same form exactly when a permutation of the
suits and one of the ranks maps one onto the other (checked by brute force on a 4x5 deck)."""
import itertools
import sys
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_odds_classes import SUIT_PERMS, _canonical  # noqa: E402

CARDS = [(s, r) for s in range(4) for r in range(5)]


def _form(cards):
    suits, ranks, labels = (np.array([c[i] for c in cards]) for i in range(3))
    out = np.zeros(13, np.int64)
    _canonical(suits, ranks, labels, len(cards), SUIT_PERMS, out)
    return tuple(out)


def _isomorphic(a, b) -> bool:
    ranks_a, ranks_b = sorted({r for _, r, _ in a}), sorted({r for _, r, _ in b})
    if len(a) != len(b) or len(ranks_a) != len(ranks_b):
        return False
    return any({(sp[s], dict(zip(ranks_a, rp))[r], lab) for s, r, lab in a} == set(b)
               for sp in itertools.permutations(range(4)) for rp in itertools.permutations(ranks_b))


# a window's roles are labels 2, 3, 4 (its first three cards), the cards of the set X label 1
labelled = st.lists(st.sampled_from(CARDS), min_size=3, max_size=7, unique=True).map(
    lambda cs: [(s, r, 2 + i if i < 3 else 1) for i, (s, r) in enumerate(cs)])


@settings(max_examples=150)
@given(labelled, labelled, st.permutations(range(4)), st.permutations(range(13)), st.booleans())
def test_same_form_exactly_when_relabelled(a, b, suit_perm, rank_perm, relabel):
    if relabel:
        b = [(suit_perm[s], rank_perm[r], lab) for s, r, lab in a]
    assert (_form(a) == _form(b)) == _isomorphic(a, b)

