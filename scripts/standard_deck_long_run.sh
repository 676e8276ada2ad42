#!/usr/bin/env bash
# The "is it 1/sqrt(2) %?" run: 2.5 * 10^10 games of the standard deck, five times tighter than the
# published 10^9-game interval. Checkpointed to the results store: if interrupted, run this script
# again and it resumes where it stopped (same seed, same chunk plan, no chunk counted twice).
# About 35 minutes on two cores at ~7 M games per core-second; `solitaire report` then uses it.
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-25000000000}
exec "${SOLITAIRE:-.venv/bin/solitaire}" simulate --suits 4 --ranks 13 --games "$GAMES" --seed 20261123 \
    --out results/solitaire.h5 --checkpoint-seconds 30 "$@"
