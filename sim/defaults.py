"""The defaults of a Monte Carlo run that the command line shows in its options (defined here, without
numba, so that ``--help`` and shell completion stay quick; :mod:`sim.montecarlo` uses them)."""
from __future__ import annotations

#: Games per chunk (part of the chunk plan, so part of what a seed means).
DEFAULT_CHUNK_GAMES = 1 << 18
#: Runs estimated (by a short timed sample) to take longer than this ask to be confirmed
#: (``max_hours``; the CLI's ``--yes``).
DEFAULT_MAX_HOURS = 24.0
#: A run writing to a store checkpoints at most this often (seconds), and when it stops.
DEFAULT_CHECKPOINT_SECONDS = 10.0
