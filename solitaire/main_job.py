"""The main job's computations: what ``solitaire report`` stores before it writes the report.

:func:`compute_defaults` fills a results store with the default computations (exact distributions of
small decks, the standard deck, the other rule readings, the published sweep, a validation, Hand
Solitaire and Prisoner's Patience runs), reusing whatever the store already holds, so a second run
is quick. :mod:`solitaire.report` then writes the report from the store alone.
"""
from __future__ import annotations

import importlib.util

from exact import ExactResult, exact_distribution
from sim import Deck, Variant, simulate
from sim.montecarlo import DEFAULT_CHUNK_GAMES, run_identity
from sim.games import REGISTRY
from sim.store import run_key

from .poison import classify_runs_stored
from .report import STANDARD, exact_records
from .sweep import sweep, sweep_identity
from .validate import default_cases, exact_for, validate

#: The main job's default computations (minutes on a laptop); each is stored and reused on a rerun.
DEFAULT_SEED = 20261123
#: Seed of the main job's standard-deck One-Handed runs: not DEFAULT_SEED, which
#: scripts/standard_deck_long_run.sh uses (with the same chunk plan, so those games would be its first chunks).
STANDARD_SEED = 1
DEFAULT_PLAN = {
    "exact_max_cards": 12,
    "standard_games": 100_000_000,
    "reading_games": 10_000_000,
    "sweep": {"suits": range(3, 8), "ranks": range(9, 16), "games": 10_000_000},  # the published sweep
    "validate": {"max_cards": 8, "games": 100_000, "coverage": 10, "coverage_games": 20_000},
    "hand_runs": 100_000,
    "poison_decks": 50_000,
    "prisoners_games": 2_000_000,
}

#: The games whose exact results the main job keeps in the store (and reads back when validating):
#: the ones its sweep computes exactly.
STORED_EXACT_GAMES = ("one-handed",)


def _have_game(game: str) -> bool:
    return game in REGISTRY and importlib.util.find_spec(REGISTRY[game].runner.partition(":")[0]) is not None


def missing_defaults(store, *, plan: dict | None = None, seed: int = DEFAULT_SEED,
                     standard_seed: int = STANDARD_SEED) -> list[str]:
    """What :func:`compute_defaults` would compute on ``store`` (one line each), computing nothing:
    empty when the store holds the whole main job (a report then only renders it)."""
    missing: list[str] = []
    compute_defaults(store, plan=plan, seed=seed, standard_seed=standard_seed, missing=missing)
    return missing


def compute_defaults(store, *, plan: dict | None = None, seed: int = DEFAULT_SEED,
                     standard_seed: int = STANDARD_SEED, workers: int | None = None,
                     progress: bool | None = None, say=print, missing: list | None = None) -> None:
    """Fill ``store`` with the main job's computations, skipping what it already holds.

    ``standard_seed`` seeds the standard-deck One-Handed runs (plain and the other rule readings),
    ``seed`` everything else. With a list ``missing``, nothing is computed: a line per computation
    the store lacks is appended to it instead (:func:`missing_defaults`).
    """
    plan = {**DEFAULT_PLAN, **(plan or {})}
    if missing is not None:
        def say(message):  # noqa: F811  (a plan says nothing)
            pass
    one_handed = Variant.make("one-handed")

    say(f"exact distributions of every deck up to {plan['exact_max_cards']} cards")

    have = {(r["suits"], r["ranks"]) for r in exact_records(store, one_handed)}
    for cards in range(1, plan["exact_max_cards"] + 1):
        for s in range(1, cards + 1):
            if cards % s == 0 and (s, cards // s) not in have:
                if missing is not None:
                    missing.append(f"exact {s}x{cards // s}")
                    continue
                store.save(exact_distribution(Deck(s, cards // s), one_handed))

    def run(deck, variant, games, options=None, seed=seed):
        if missing is not None:
            identity = run_identity(deck, variant, seed=seed, games=games, chunk_games=DEFAULT_CHUNK_GAMES,
                                    options=dict(options or {}))
            if store.find_run(identity) is None:
                missing.append(f"simulation {variant} {deck}, {games:,} games, seed {seed}")
            return None
        return simulate(deck, variant, games=games, seed=seed, workers=workers, progress=progress,
                        out=store, reuse=True, options=options)

    say(f"standard deck, {plan['standard_games']:,} games, seed {standard_seed}")
    run(STANDARD, one_handed, plan["standard_games"], seed=standard_seed)
    say(f"standard deck under other rule readings, {plan['reading_games']:,} games each, seed {standard_seed}")
    for spec in ({"win": "any"}, {"reverse": "on"}, {"reverse": "on", "win": "any"}, {"first4": "reversed"}):
        run(STANDARD, Variant.make("one-handed", **spec), plan["reading_games"], seed=standard_seed)

    sw = plan["sweep"]
    if not store.find(kind="sweep", games=sw["games"], seed=seed) and _plan(missing, "sweep"):
        say(f"sweep {min(sw['suits'])}-{max(sw['suits'])} suits x {min(sw['ranks'])}-{max(sw['ranks'])} ranks, "
            f"{sw['games']:,} games a cell")
        result = sweep(list(sw["suits"]), list(sw["ranks"]), variant=one_handed, games=sw["games"], seed=seed,
                       exact_max_cards=plan["exact_max_cards"], workers=workers, progress=progress,
                       exact_source=lambda d, v: _stored_exact(store, d, v),
                       simulate_cell=lambda d, v, g, s: simulate(d, v, games=g, seed=s, workers=workers,
                                                                 progress=False, out=store, reuse=True))
        # the identity `solitaire sweep` gives the same sweep, so that it is served this record
        result.provenance["run_key"] = run_key(sweep_identity(
            list(sw["suits"]), list(sw["ranks"]), variant=one_handed, games=sw["games"], seed=seed,
            exact_max_cards=plan["exact_max_cards"]))
        store.save(result)

    va = plan["validate"]
    if (not store.find(kind="validation", game="one-handed,prisoners", games=va["games"], seed=seed)
            and _plan(missing, "validation")):
        say(f"validation against exact values (decks up to {va['max_cards']} cards, every variant of "
            "One-Handed and Prisoner's Patience)")

        cases = default_cases(va["max_cards"]) + default_cases(va["max_cards"], game="prisoners")
        validate(cases, games=va["games"], seed=seed, coverage=va["coverage"], coverage_games=va["coverage_games"],
                 workers=workers, progress=progress, out=store, notify=say,
                 exact_source=lambda d, v: (_stored_exact(store, d, v) if v.game in STORED_EXACT_GAMES
                                            else exact_for(d, v)))

    if _have_game("hand") and plan["hand_runs"]:
        say(f"Hand Solitaire, {plan['hand_runs']:,} runs per reading")
        for spec in ({"rank_resets": "published"}, {}):
            run(STANDARD, Variant.make("hand", **spec), plan["hand_runs"], options={"cap": 1000})
    if _have_game("hand") and plan["poison_decks"]:
        from exact.hand.poison import DEFAULT_BUDGET, DEFAULT_CAP


        for spec in ({"rank_resets": "published"}, {"step7": "off"}):
            variant = Variant.make("hand", **spec)
            if (not store.find(kind="poison", variant=str(variant), decks=plan["poison_decks"], seed=seed)
                    and _plan(missing, f"poison {variant}")):
                say(f"poison sets: {plan['poison_decks']:,} decks of {variant}")
                # checkpointed in the store's journal, so a stopped report resumes the classification
                classify_runs_stored(store, STANDARD, variant, decks=plan["poison_decks"], seed=seed, cap=DEFAULT_CAP,
                                     budget=DEFAULT_BUDGET, progress=progress, notify=say)
    if _have_game("prisoners") and plan["prisoners_games"]:
        say(f"Prisoner's Patience, {plan['prisoners_games']:,} games per move policy")
        for moves in ("published", "physical"):
            run(STANDARD, Variant.make("prisoners", moves=moves), plan["prisoners_games"])


def _plan(missing: list | None, what: str) -> bool:
    """Whether to compute ``what``: yes, unless only planning (then it is noted as missing)."""
    if missing is None:
        return True
    missing.append(what)
    return False


def _stored_exact(store, deck: Deck, variant: Variant):
    """The exact result of this deck and variant from the store, computed and stored if missing."""
    found = store.find(kind="exact", suits=deck.suits, ranks=deck.ranks, variant=str(variant))
    if found:
        return ExactResult.from_record(found[-1][1])
    result = exact_distribution(deck, variant)
    store.save(result)
    return result
