"""Play the games: rules, kernels, seeding, Monte Carlo and statistics. Never imports :mod:`exact`."""
from .deck import Deck
from .errors import UsageError
from .montecarlo import SimulationResult, simulate
from .variant import GAMES, Variant

__all__ = ["Deck", "Variant", "GAMES", "UsageError", "simulate", "SimulationResult"]
