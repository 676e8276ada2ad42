"""The one text form of an exact fraction, ``"n/d"``, for Fractions of any size, and its parser.

Python refuses ``str(int)`` and ``int(str)`` beyond ``sys.get_int_max_str_digits()`` digits (4,300
by default) and this module does not change that limit of the process: a long integer is converted
by divide and conquer, ``n = q 10**k + r``, each part below the limit (converted in pieces of at
most :data:`PIECE` digits, or fewer when a lower limit is set), the low part padded with zeros to
exactly ``k`` digits. ``str(q) + str(r).zfill(k)`` is the decimal text of ``n`` because
``0 <= r < 10**k``; reading it back, ``int(high) * 10**k + int(low)`` with ``low`` the last ``k``
digits is the same identity read the other way.

>>> x = Fraction(-7, 3)
>>> fraction_text(x), fraction_from_text("-7/3") == x
('-7/3', True)
>>> big = Fraction(1, 10**5000)
>>> len(fraction_text(big)), fraction_from_text(fraction_text(big)) == big
(5003, True)
"""
from __future__ import annotations

import hashlib
import re
import sys
from fractions import Fraction

#: The most digits converted by one call of ``str``/``int`` (below every limit Python allows except
#: a lower one set by the process, which :func:`_piece` then follows).
PIECE = 4000

_LONG_FRACTION = re.compile(r"\s*([+-]?)(\d+)(?:/(\d+))?\s*", re.ASCII)


def _piece() -> int:
    """Digits one ``str``/``int`` call may convert now (the process's limit, never changed here)."""
    limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0
    return PIECE if limit == 0 else min(PIECE, limit)


def int_text(n: int) -> str:
    """The decimal text of the int ``n``, of any size.

    >>> int_text(-12345), len(int_text(10**10000))
    ('-12345', 10001)
    """
    if n < 0:
        return "-" + int_text(-n)
    return _digits(n, _piece())


def _digits(n: int, piece: int) -> str:
    # bit_length * log10(2) is at most the number of digits (3.32 bits per digit, rounded down)
    if n.bit_length() * 0.30102 < piece - 1:
        return str(n)
    k = max(1, int(n.bit_length() * 0.30103) // 2)
    q, r = divmod(n, 10**k)
    return _digits(q, piece) + _digits(r, piece).zfill(k)


def text_int(text: str) -> int:
    """The int of a decimal text of ASCII digits (any length; no sign).

    >>> text_int("0042"), text_int("9" * 10000) == 10**10000 - 1
    (42, True)
    """
    return _value(text, _piece())


def _value(text: str, piece: int) -> int:
    if len(text) <= piece:
        return int(text)
    k = len(text) // 2
    return _value(text[:-k], piece) * 10**k + _value(text[-k:], piece)


def fraction_text(x: Fraction) -> str:
    """``"n/d"`` in lowest terms (``Fraction`` is always reduced; 0 is ``"0/1"``), of any size.

    >>> fraction_text(Fraction(0)), fraction_text(Fraction(6, -4))
    ('0/1', '-3/2')
    """
    return f"{int_text(x.numerator)}/{int_text(x.denominator)}"


def fraction_from_text(text: str) -> Fraction:
    """The Fraction of an ``"n/d"`` text of any size (the inverse of :func:`fraction_text`); a short
    text is read by ``Fraction`` itself (so ``"3"`` and ``"0.5"`` are read as it reads them), a long
    one must be ``[sign]digits[/digits]``. A text that is neither raises ``ValueError``.

    >>> fraction_from_text("118/377"), fraction_from_text(" 3 ")
    (Fraction(118, 377), Fraction(3, 1))
    """
    text = str(text)
    if len(text) <= _piece():
        return Fraction(text)
    match = _LONG_FRACTION.fullmatch(text)
    if match is None:
        raise ValueError(f"invalid literal for Fraction: {text[:40]!r}...")
    sign, numerator, denominator = match.groups()
    value = Fraction(_value(numerator, _piece()), 1 if denominator is None else _value(denominator, _piece()))
    return -value if sign == "-" else value


def fraction_digest(x: Fraction, *, significant: int = 6) -> str:
    """A big fraction shortened for tables: ``"n/d"`` itself when it is short, otherwise its value
    as a float, the number of digits of its denominator and the start of the SHA-256 of its full
    ``"n/d"`` text (which tells two answers apart, and checks a full one printed elsewhere).

    >>> fraction_digest(Fraction(118, 377))
    '118/377'
    >>> fraction_digest(Fraction(1, 3**100))
    '1.94033e-48 (48 digits; sha256 02649532560f)'
    """
    text = fraction_text(x)
    if len(text) <= 24:
        return text
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    return f"{float(x):.{significant}g} ({len(text) - text.index('/') - 1} digits; sha256 {digest})"
