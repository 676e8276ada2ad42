"""Hand Solitaire, exactly: the deck-order graph of a whole small deck (built by :mod:`exact.hand.graph`,
answered by :mod:`exact.hand.whole_deck`) and
the classification of single runs by exhaustive exploration (:mod:`exact.hand.poison`)."""
