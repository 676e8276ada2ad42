"""Hand Solitaire, exactly: the deck-order graph of a whole small deck (:mod:`exact.hand.graph`) and
the classification of single runs by exhaustive exploration (:mod:`exact.hand.poison`)."""
