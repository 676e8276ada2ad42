"""sim.fractions_text: the one "n/d" codec, exact for fractions of any size, whatever the process's
limit on int/str conversions."""
import hashlib
import random
import sys
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.fractions_text import fraction_digest, fraction_from_text, fraction_text, int_text, text_int


def _reference_text(x: Fraction) -> str:
    """``"n/d"`` by Python's own conversion with the limit lifted for this call only."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return f"{x.numerator}/{x.denominator}"
    finally:
        sys.set_int_max_str_digits(old)


def test_a_10000_digit_fraction_round_trips_both_ways():
    assert sys.get_int_max_str_digits() != 0  # the default limit is in force: the codec must not need it lifted
    x = Fraction(-(7**11834) + 3, 3**20960 + 2)  # 10,001 and 10,001 digits
    text = fraction_text(x)
    assert len(text.split("/")[0]) == 10_002 and len(text.split("/")[1]) == 10_001
    assert text == _reference_text(x)
    assert fraction_from_text(text) == x
    assert fraction_text(fraction_from_text(text)) == text
    with pytest.raises(ValueError):  # what the codec replaces: Python refuses it at the default limit
        str(x.numerator)


@pytest.mark.parametrize("limit", [640, 4300])
def test_the_process_limit_is_followed_and_left_as_it_is(limit):
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(limit)
    try:
        x = Fraction(10**5000 + 1, 3**3001)
        assert fraction_from_text(fraction_text(x)) == x
        assert sys.get_int_max_str_digits() == limit
    finally:
        sys.set_int_max_str_digits(old)


def _big(seed: int, digits: int) -> int:
    """A number of up to ``digits`` digits drawn from ``seed`` (hypothesis draws the seed and the
    size: drawing 12,000-digit integers directly exceeds its entropy budget)."""
    return random.Random(seed).randrange(10 ** max(digits, 1))


@given(st.integers(0, 2**32), st.integers(0, 12000), st.integers(0, 2**32), st.integers(0, 12000), st.booleans())
def test_round_trip_and_same_text_as_python(seed_a, digits_a, seed_b, digits_b, negative):
    x = Fraction(_big(seed_a, digits_a) * (-1 if negative else 1), _big(seed_b, digits_b) + 1)
    assert fraction_text(x) == _reference_text(x)
    assert fraction_from_text(fraction_text(x)) == x


@pytest.mark.parametrize("exponent, offset", [(0, -1), (0, 0), (1, -1), (1, 0), (3999, 0), (4000, -1), (4000, 0),
                                              (8001, 0), (12345, -1)])
def test_int_text_at_the_piece_boundaries(exponent, offset):
    n = 10**exponent + offset
    assert text_int(int_text(n)) == n
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        assert int_text(n) == str(n)
    finally:
        sys.set_int_max_str_digits(old)


@pytest.mark.parametrize("text", ["1/2/3", "x" * 5000, "1/" + "a" * 5000, "-" * 4500 + "1"])
def test_bad_text_is_refused(text):
    with pytest.raises((ValueError, ZeroDivisionError)):
        fraction_from_text(text)


def test_digest_of_a_long_fraction():
    x = Fraction(10**5000 + 1, 3 * 10**5000 + 7)
    digest = hashlib.sha256(_reference_text(x).encode()).hexdigest()[:12]
    assert fraction_digest(x) == f"0.333333 (5001 digits; sha256 {digest})"
