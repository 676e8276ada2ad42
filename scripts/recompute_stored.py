"""Recompute a sample of the results in a store and check that every count is identical.

The witness that a refactoring kept every count bit-identical: simulations are played again from
their stored seed, chunk plan and game options (One-Handed, Hand Solitaire, Prisoner's Patience),
exact distributions are counted again with the method that made them, and poison-set runs are
classified again from their seed; each is compared count for count with what is stored. Results too
large to replay in a few minutes (``--max-games``, ``--max-exact-cards``) are skipped and listed.

Usage::

    python scripts/recompute_stored.py                       # results/solitaire.h5, a sample of each kind
    python scripts/recompute_stored.py --store FILE --all    # every result within the size limits

Exit status 0 when every recomputed result matches, 1 when one differs, 2 on a bad store.
"""
from __future__ import annotations

import argparse
import random
import sys
import time

from sim import Deck, Variant, simulate
from sim.errors import UsageError
from sim.store import DEFAULT_PATH, ResultsStore

#: Keys compared for each kind (the counts; times and provenance naturally differ).
SIMULATION_KEYS = ("games", "wins", "score_counts", "iterations_to_win", "capped")
EXACT_KEYS = ("orders", "score_counts", "wins", "p_win", "mean_score")
POISON_KEYS = ("decks", "trapped", "poison_set_sizes", "unwinnable", "undecided")


def _deck_variant(record) -> tuple[Deck, Variant]:
    return Deck(int(record["suits"]), int(record["ranks"])), Variant.parse(record["variant"])


def made_by_current_engine(record) -> bool:
    """Whether a stored simulation's identity (its ``run_key``) is what this engine would give it:
    a run of another engine version draws its games differently, so its counts are not expected."""
    from sim.montecarlo import run_identity
    from sim.store import run_key

    prov = record.get("provenance", {})
    if "run_key" not in prov:
        return True
    deck, variant = _deck_variant(record)
    identity = run_identity(deck, variant, seed=int(record["seed"]), games=int(record["games"]),
                            chunk_games=int(record["chunk_games"]), options=dict(prov.get("options") or {}))
    return run_key(identity) == prov["run_key"]


def recompute_simulation(record) -> dict:
    deck, variant = _deck_variant(record)
    options = dict(record.get("provenance", {}).get("options") or {})
    result = simulate(deck, variant, games=int(record["games"]), seed=int(record["seed"]),
                      chunk_games=int(record["chunk_games"]), options=options, progress=False)
    return result.to_dict()


def recompute_exact(record) -> dict:
    from exact import exact_distribution

    deck, variant = _deck_variant(record)
    return exact_distribution(deck, variant, method=record["method"]).to_dict()


def recompute_poison(record) -> dict:
    from exact.hand.poison import classify_runs

    deck, variant = _deck_variant(record)
    kwargs = {key: int(record[key]) for key in ("cap", "budget") if key in record}
    return classify_runs(deck, variant, decks=int(record["decks"]), seed=int(record["seed"]), **kwargs).to_dict()


def size_of(kind: str, record) -> int:
    """What a recomputation costs, roughly: games (simulation), cards (exact), decks (poison)."""
    if kind == "simulation":
        return int(record["games"])
    if kind == "exact":
        return int(record["suits"]) * int(record["ranks"])
    return int(record.get("decks", 0))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default=str(DEFAULT_PATH), help="results store [%(default)s]")
    parser.add_argument("--sample", type=int, default=6, help="results per (kind, game) [%(default)s]")
    parser.add_argument("--all", action="store_true", help="every result within the size limits")
    parser.add_argument("--max-games", type=int, default=10_000_000, help="largest simulation replayed [%(default)s]")
    parser.add_argument("--max-exact-cards", type=int, default=12, help="largest exact deck recounted [%(default)s]")
    parser.add_argument("--max-decks", type=int, default=100_000, help="largest poison run replayed [%(default)s]")
    parser.add_argument("--seed", type=int, default=0, help="which sample [%(default)s]")
    args = parser.parse_args(argv)
    try:
        store = ResultsStore(args.store)
        names = store.names()
    except UsageError as exc:
        print(f"recompute_stored: error: {exc}", file=sys.stderr)
        return 2
    plans = {"simulation": (recompute_simulation, SIMULATION_KEYS, args.max_games),
             "exact": (recompute_exact, EXACT_KEYS, args.max_exact_cards),
             "poison": (recompute_poison, POISON_KEYS, args.max_decks)}
    groups: dict[tuple, list] = {}
    skipped, other_engine = [], []
    for name in names:
        record = store.load(name)
        kind = record["kind"]
        if kind not in plans:
            continue
        if size_of(kind, record) > plans[kind][2]:
            skipped.append(name)
            continue
        if kind == "simulation" and not made_by_current_engine(record):
            other_engine.append(name)
            continue
        groups.setdefault((kind, record.get("game")), []).append((name, record))
    rng = random.Random(args.seed)
    failures = checked = 0
    for (kind, game), members in sorted(groups.items()):
        chosen = members if args.all else rng.sample(members, min(args.sample, len(members)))
        recompute, keys, _ = plans[kind]
        for name, record in chosen:
            t0 = time.perf_counter()
            fresh = recompute(record)
            diff = [key for key in keys if key in record and _plain(record[key]) != _plain(fresh.get(key))]
            checked += 1
            failures += bool(diff)
            status = "equal" if not diff else "DIFFERENT in " + ", ".join(diff)
            print(f"{status:>10}  {name}  ({time.perf_counter() - t0:.1f} s)", flush=True)
    print(f"{checked} results recomputed, {failures} different; {len(skipped)} skipped as too large to replay, "
          f"{len(other_engine)} made by another engine version (" + (", ".join(other_engine) or "none") + ")")
    return 1 if failures else 0


def _plain(value):
    """Lists and tuples, dict keys as strings: stored and fresh records compare alike."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


if __name__ == "__main__":
    sys.exit(main())
