"""Size limits of the exact Hand Solitaire analyses."""
from __future__ import annotations

#: Largest deck whose whole Hand Solitaire deck-order graph :func:`exact.hand.whole_deck.analyse_deck`
#: accepts (``solitaire poison --all``). Exploring the classes is cheap (3x4: 268,807 classes); the
#: exact answers have thousands of digits (3x4: p_win's denominator has about 13,000), and are found
#: by the modular solver of :mod:`exact.chains` after lumping (3x4: 96,116 unknowns). Timings per
#: deck and variant: ``benchmarks/bench_hand_graph.py``.
MAX_GRAPH_CARDS = 12
