"""solitaire-odds: exact and Monte Carlo win probabilities of zero-player patience games.

The public Python API; the ``solitaire`` command line is a thin layer over it
(:mod:`solitaire.cli`). :func:`simulate` and :class:`SimulationResult` are imported on first use.
"""
from sim import GAMES, Deck, UsageError, Variant

__all__ = ["Deck", "Variant", "GAMES", "UsageError", "simulate", "SimulationResult"]


def __getattr__(name):
    if name in ("simulate", "SimulationResult"):
        import sim

        return getattr(sim, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
