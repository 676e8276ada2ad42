"""Play the games: rules, kernels, seeding, Monte Carlo and statistics. Never imports :mod:`exact`.

:func:`simulate` and :class:`SimulationResult` are imported on first use (they bring numba and
scipy), so that importing :mod:`sim` for a deck or a variant stays quick.
"""
from .deck import Deck
from .errors import UsageError
from .variant import GAMES, Variant

__all__ = ["Deck", "Variant", "GAMES", "UsageError", "simulate", "SimulationResult"]

_LAZY = {"simulate": "montecarlo", "SimulationResult": "montecarlo"}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
