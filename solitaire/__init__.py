"""solitaire-odds: exact and Monte Carlo win probabilities of zero-player patience games.

The public Python API; the ``solitaire`` command line is a thin layer over it
(:mod:`solitaire.cli`).
"""
from sim import GAMES, Deck, SimulationResult, UsageError, Variant, simulate

__all__ = ["Deck", "Variant", "GAMES", "UsageError", "simulate", "SimulationResult"]
