"""Hand Solitaire whole-deck graphs (``solitaire poison --all``): time and memory per deck and variant.

Each analysis runs in a fresh process (its peak memory, max resident set, is its own) on one core
(BLAS threads set to 1). Reported per deck and variant: CPU seconds in all and by phase (exploring
the classes, networkx, lumping, factoring, lifting, the second-prime check), peak RSS, classes,
unknowns before and after lumping, the dense core, lifting steps and the digits of the answers'
denominators. ``--reference`` also times the Fraction elimination (``method="fractions"``, the
method before the modular solver) on the same graph and prints the ratio; it is slow beyond 10 cards.
Nothing here asserts a time (SPEC: performance is measured, not asserted).

``--store FILE`` also saves each exact result (with its provenance and the solver's details) in a
results store, as ``scripts/hand_poison_survey.py --store`` does, so one run both measures and keeps
the answers (``results/hand_graphs.h5``, which the report reads); the children run one at a time,
so the store has one writer.

Usage: python benchmarks/bench_hand_graph.py [--cards 12] [--decks 3x4,2x6] [--variants "hand();hand(step7=off)"]
                                             [--reference] [--timeout 1200] [--store FILE]
                                             [--beyond --max-gib 4]   (the stretch: 2x7, 7x2, 4x4)

A run cut short by ``--timeout`` or ``--max-gib`` is reported with ``reached``: the last phase it
finished (classes explored, unknowns after lumping, the factorization and its dense core, the
lifting steps and digits so far), which says what stops it.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

VARIANTS = ("hand()", "hand(rank_resets=published)", "hand(step7=off)", "hand(reshuffle=off)")
ONE_CORE = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}


def _memory_watchdog(limit_gib: float) -> None:
    """End this process (exit 3, one JSON line on stderr) once its resident set passes ``limit_gib``."""
    import threading

    page = os.sysconf("SC_PAGE_SIZE")

    def watch():
        while True:
            with open("/proc/self/statm") as f:
                rss = int(f.read().split()[1]) * page
            if rss > limit_gib * 2**30:
                print(json.dumps({"phase": "memory limit", "rss_gib": rss / 2**30}), file=sys.stderr, flush=True)
                os._exit(3)
            time.sleep(0.2)

    threading.Thread(target=watch, daemon=True).start()


def one(deck_text: str, variant_text: str, method: str, store: str = "", max_cards: int = 12,
        max_gib: float = 0.0) -> dict:
    """One analysis in this process (saved to the results store ``store`` unless it is empty); each
    phase's details go to stderr as JSON lines, so a run cut short says how far it got."""
    from exact.hand.whole_deck import analyse_deck
    from sim import Deck, Variant

    suits, ranks = map(int, deck_text.split("x"))
    analyse_deck(Deck(2, 2), Variant.parse(variant_text), method=method)  # compile / load the numba cache
    if max_gib:
        _memory_watchdog(max_gib)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cpu0, wall0 = time.process_time(), time.perf_counter()

    def progress(details):
        details = dict(details, cpu_seconds=time.process_time() - cpu0,
                       max_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        print(json.dumps(details), file=sys.stderr, flush=True)

    r = analyse_deck(Deck(suits, ranks), Variant.parse(variant_text), method=method, progress=progress,
                     max_cards=max_cards)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    if store:
        from sim.store import ResultsStore

        ResultsStore(store).save(r)
    return {"deck": deck_text, "variant": str(r.variant), "method": method,
            "cpu_seconds": cpu, "wall_seconds": wall,
            "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "rss_before_mib": rss_before,
            "classes": r.classes, "poison_sets": r.poison_sets, "unwinnable_orders": r.unwinnable_orders,
            "p_win": float(r.p_win), "solver": r.solver}


def _last_progress(stderr) -> dict:
    """The last phase a child reported (how far a run cut short got), with the memory limit's
    line, if that is what ended it, merged in."""
    if isinstance(stderr, bytes):
        stderr = stderr.decode(errors="replace")
    found: dict = {}
    for line in reversed((stderr or "").splitlines()):
        if line.startswith("{"):
            try:
                details = json.loads(line)
            except ValueError:
                continue
            if details.get("phase") == "memory limit" and not found:
                found = {"stopped_by": "memory limit", "rss_gib": details["rss_gib"]}
                continue
            return {**details, **found}
    return found


def in_child(deck_text: str, variant_text: str, method: str, timeout: float, store: str = "", max_cards: int = 12,
             max_gib: float = 0.0) -> dict:
    env = dict(os.environ, **ONE_CORE)
    row = {"deck": deck_text, "variant": variant_text, "method": method}
    try:
        proc = subprocess.run([sys.executable, __file__, "--one", deck_text, variant_text, method, store,
                               str(max_cards), str(max_gib)],
                              capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        return dict(row, timed_out_after_s=timeout, reached=_last_progress(exc.stderr))
    if proc.returncode:
        reached = _last_progress(proc.stderr)
        if reached.get("stopped_by") == "memory limit":
            return dict(row, memory_limit_gib=max_gib, reached=reached)
        return dict(row, error=proc.stderr.strip().splitlines()[-1:], reached=reached)
    return json.loads(proc.stdout)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=12)
    parser.add_argument("--decks", help="comma-separated SxR (default: every deck of --cards cards)")
    parser.add_argument("--variants", default=";".join(VARIANTS), help="';'-separated variants")
    parser.add_argument("--reference", action="store_true", help="also time method='fractions' and print ratios")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds per analysis (then reported as such)")
    parser.add_argument("--store", default="", metavar="FILE",
                        help="also save each exact result in this results store (e.g. results/hand_graphs.h5)")
    parser.add_argument("--beyond", action="store_true",
                        help="allow decks past the limit of 12 cards (up to 16): the stretch runs (2x7, 7x2, 4x4)")
    parser.add_argument("--max-gib", type=float, default=0.0,
                        help="end an analysis whose resident memory passes this many GiB (reported as such)")
    parser.add_argument("--one", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        deck, variant, method, store, max_cards, max_gib = args.one
        print(json.dumps(one(deck, variant, method, store, int(max_cards), float(max_gib))))
        return
    decks = args.decks.split(",") if args.decks else [f"{s}x{args.cards // s}" for s in range(1, args.cards + 1)
                                                        if args.cards % s == 0]
    with open("/proc/loadavg") as f:
        print(f"# load average at start: {f.read().split()[0]}", flush=True)
    for deck in decks:
        for variant in args.variants.split(";"):
            row = in_child(deck, variant, "modular", args.timeout, args.store, 16 if args.beyond else 12,
                           args.max_gib)
            if args.reference:
                ref = in_child(deck, variant, "fractions", args.timeout)
                row["fractions_cpu_seconds"] = ref.get("cpu_seconds", ref.get("timed_out_after_s"))
                if "cpu_seconds" in ref and "cpu_seconds" in row:
                    row["speedup_cpu"] = ref["cpu_seconds"] / row["cpu_seconds"]
                    row["same_answer"] = ref["p_win"] == row["p_win"]
            print(json.dumps(row), flush=True)
    with open("/proc/loadavg") as f:
        print(f"# load average at end: {f.read().split()[0]}", flush=True)


if __name__ == "__main__":
    main()
