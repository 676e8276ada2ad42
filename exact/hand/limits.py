"""Size limits of the exact Hand Solitaire analyses."""
from __future__ import annotations

#: Largest deck whose whole Hand Solitaire deck-order graph :func:`exact.hand.whole_deck.analyse_deck`
#: accepts (``solitaire poison --all``). Exploring the classes is cheap (3x4: 268,807 classes); the
#: exact answers have thousands of digits (3x4: p_win's denominator has about 13,000), and are found
#: by the modular solver of :mod:`exact.chains` after lumping (3x4: 96,116 unknowns). Measured on one
#: core of the shared machine (``benchmarks/bench_hand_graph.py``): 3x4 ``hand()`` 553 CPU-s, 2.6 GB
#: peak (5,170 lifting steps of 89 ms, dense core 4,815); 2x6 ``step7=off`` 69 CPU-s; the other
#: 2x6, 6x2, 1x12, 12x1 analyses under 6 CPU-s each; 4x3 not measured yet.
MAX_GRAPH_CARDS = 12
