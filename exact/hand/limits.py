"""Size limits of the exact Hand Solitaire analyses."""
from __future__ import annotations

#: Largest deck whose whole Hand Solitaire deck-order graph :func:`exact.hand.graph.analyse_deck`
#: accepts (``solitaire poison --all``). The time depends on the variant more than on the card
#: count: ``benchmarks/bench_hand.py`` (one core, the other one busy) analyses every 10-card deck in
#: under 0.4 s per variant except 2x5 with ``step7=off``, 23 s (21.6 s in the poison survey; 39 s on
#: a busier machine): its rational elimination carries fractions with hundreds of digits. Peak
#: memory stays near the process baseline (+6 MiB). 12-card decks are explored in under 10 s (3x4:
#: 268,807 classes) but the exact rational elimination of 2x6 did not finish in 6 minutes.
MAX_GRAPH_CARDS = 10
