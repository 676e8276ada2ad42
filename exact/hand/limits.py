"""Size limits of the exact Hand Solitaire analyses."""
from __future__ import annotations

#: Largest deck whose whole Hand Solitaire deck-order graph :func:`exact.hand.whole_deck.analyse_deck`
#: accepts (``solitaire poison --all``; ``max_cards=`` raises it for experiments). Exploring the
#: classes is cheap (3x4: 268,807 classes in 8 CPU-s); the exact answers have thousands of digits
#: (3x4: p_win's denominator has 13,235), and are found by the modular solver of
#: :mod:`exact.hand.chains` after lumping (3x4: 96,116 unknowns, dense core 4,815). Measured on one core
#: of the shared, heavily loaded machine (``benchmarks/bench_hand_graph.py``, table in
#: ``benchmarks/README.md``): 3x4 ``hand()`` 306 CPU-s and 2.7 GiB peak (3,902 lifting steps),
#: ``rank_resets=published`` 313 CPU-s and 2.3 GiB;
#: 4x3 115-127 CPU-s, 1.9 GiB; 2x6 ``step7=off`` 12 CPU-s (35 before 2026-11-26); the other 2x6, 6x2, 1x12, 12x1 and
#: every ``reshuffle=off`` analysis under 35 CPU-s. ``step7=off`` has a larger core and more digits:
#: 4x3 228 CPU-s and 2.2 GiB (111,205 unknowns, core 5,376, 7,635 lifting steps of 20 ms, E's
#: denominator 27,391 digits; 1,441 CPU-s before the numba elimination, 530 before the one-column
#: lifting); 3x4 590 CPU-s and 3.1 GiB (131,536 unknowns, core 9,651, 11,816 steps of 38 ms, E's
#: denominator 42,572 digits; 1,590 CPU-s before the one-column lifting: just inside the target). 14 cards
#: (``bench_hand_graph.py --beyond``): seven of the eight (deck, variant) pairs exact in at most
#: 250 CPU-s and 4.4 GiB (7x2 ``hand()`` 67 CPU-s, networkx 49 of them; 2x7 ``hand()`` 243); 2x7
#: ``step7=off`` outgrows 8 GiB (a dense core of 27,565); 4x4 is out of reach of this method: its
#: start class alone has 16!/(4!4!) = 3.6e10 canonical orders to play, about six CPU-hours of
#: exploration.
MAX_GRAPH_CARDS = 12
