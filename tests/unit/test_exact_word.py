"""The word method (exact.one_handed.word*): its jobs, its plain reference, its kernel, its journal.

Two witnesses: the kernel against the plain reference (alphabet by alphabet) and against the other
exact methods (whole distributions), the reference against brute force over every order.
"""
from __future__ import annotations

import itertools
import json
import math
import os

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from exact import exact_distribution
from exact.invariants import InvariantError
from exact.one_handed.word import WordReference, deck_letters, word_counts_reference, word_distribution
from exact.one_handed.word_jobs import alphabet_jobs, alphabet_orbit_count
from exact.one_handed.word_kernel import solve_job
from exact.one_handed.word_plan import job_plan, layout
from exact.one_handed.word_run import CpuLeft, MissingJobs, plan_summary, word_counts, word_primes
from sim.deck import Deck
from sim.errors import UsageError
from sim.variant import Variant
from tests.naive import brute_force_one_handed

VARIANTS = ["one-handed", "one-handed(win=any)", "one-handed(reverse=on)", "one-handed(win=any,reverse=on)",
            "one-handed(first4=reversed)"]
#: every deck shape of at most 12 cards
SMALL_SHAPES = [(s, r) for s in range(1, 13) for r in range(1, 13) if s * r <= 12]


def _orbits_by_brute_force(suits, ranks):
    """{canonical subset: orbit size} by applying every renaming of suits and ranks to every subset."""
    cards = range(suits * ranks)
    seen = {}
    for k in range(suits * ranks + 1):
        for y in itertools.combinations(cards, k):
            images = set()
            for ps in itertools.permutations(range(suits)):
                for pr in itertools.permutations(range(ranks)):
                    images.add(tuple(sorted(ps[c // ranks] * ranks + pr[c % ranks] for c in y)))
            seen.setdefault(min(images), len(images))
    return seen


@pytest.mark.parametrize("suits,ranks", [(1, 3), (2, 2), (2, 3), (3, 2), (2, 4), (3, 3)])
def test_jobs_are_the_orbits_of_alphabets(suits, ranks):
    jobs = alphabet_jobs(suits, ranks)
    brute = _orbits_by_brute_force(suits, ranks)
    assert len(jobs) == len(brute) == alphabet_orbit_count(suits, ranks)
    got = {}
    for j in range(len(jobs)):
        y = jobs.alphabet(j)
        images = {tuple(sorted(ps[c // ranks] * ranks + pr[c % ranks] for c in y))
                  for ps in itertools.permutations(range(suits)) for pr in itertools.permutations(range(ranks))}
        got[min(images)] = jobs.orbit_size(j)
        assert jobs.sign(j) == (-1) ** (suits * ranks - len(y))
    assert got == brute


def test_burnside_counts_of_published_sizes():
    assert [alphabet_orbit_count(4, r) for r in (5, 6, 7)] == [1053, 3250, 9343]
    assert alphabet_orbit_count(4, 13) == 1670643
    assert alphabet_orbit_count(13, 4) == alphabet_orbit_count(4, 13)


@pytest.mark.parametrize("suits,ranks", [(1, 4), (2, 2), (2, 3), (3, 2), (1, 6)])
def test_reference_equals_brute_force(suits, ranks):
    deck = Deck(suits, ranks)
    for name in ("one-handed", "one-handed(win=any)"):
        variant = Variant.parse(name)
        counts, wins = word_distribution_reference_of(deck, variant)
        brute = brute_force_one_handed(deck, variant)
        assert counts == list(brute.score_counts) and wins == brute.wins


def word_distribution_reference_of(deck, variant):
    from exact.one_handed.word import word_distribution_reference

    return word_distribution_reference(deck, variant)


def _brute_words(alphabet, n, returns=True):
    """{score: restricted words of length n over the alphabet} by playing every word."""
    out = {}
    for word in itertools.product(alphabet, repeat=n):
        row, ok, emptied = [], True, False
        for c in word:
            if c in row[-3:]:
                ok = False
                break
            row.append(c)
            while len(row) >= 4:
                if row[-1][0] == row[-4][0]:
                    del row[-3:-1]
                elif row[-1][1] == row[-4][1]:
                    del row[-4:]
                    emptied = emptied or not row
                else:
                    break
        if ok and (returns or not emptied):
            out[len(row)] = out.get(len(row), 0) + 1
    return out


@pytest.mark.parametrize("suits,ranks", [(2, 2), (2, 3), (3, 2)])
def test_reference_counts_the_restricted_words(suits, ranks):
    letters = deck_letters(suits, ranks)
    n = len(letters)
    for k in range(1, n + 1):
        for alphabet in itertools.combinations(letters, k):
            assert WordReference(alphabet).words(n) == _brute_words(alphabet, n)
            never = sum(WordReference(alphabet, returns=False).words(n).values())
            assert never == sum(_brute_words(alphabet, n, returns=False).values())


@pytest.mark.parametrize("suits,ranks", [(2, 3), (3, 3), (2, 5), (4, 2), (1, 7)])
def test_kernel_equals_reference_job_by_job(suits, ranks):
    """Every job's residues are the reference's word counts at its alphabet, modulo each prime."""
    jobs = alphabet_jobs(suits, ranks)
    n = suits * ranks
    from exact.one_handed.crt import largest_primes
    from exact.one_handed.word_kernel import prime_bits

    # the last as wide as the kernel's sums allow on this deck
    primes = [67108859, 1000003] + largest_primes(1, below=2 ** prime_bits(n, ranks))
    for mode in ("all", "core"):
        lay = layout(n, ranks, mode)
        for j in range(len(jobs)):
            alphabet = [(c // ranks, c % ranks) for c in jobs.alphabet(j)]
            words = WordReference(alphabet).words(n)
            never = sum(WordReference(alphabet, returns=False).words(n).values())
            if mode == "all":
                want = [words.get(score, 0) for score in range(n + 1)]
            else:
                odd = [s for s in words if s & 1]
                even = [s for s in words if s and not s & 1]
                want = [words.get(0, 0), sum(words[s] for s in odd), sum(words[s] for s in even),
                        sum(s * words[s] for s in odd), sum(s * words[s] for s in even)]
            for p, (top, nv) in solve_job(job_plan(jobs, j), lay, n, primes).items():
                assert top == [w % p for w in want], (jobs.label(j), mode, p)
                assert nv == never % p


@pytest.mark.parametrize("suits,ranks", SMALL_SHAPES)
def test_word_equals_the_dp_on_every_small_deck(suits, ranks):
    deck = Deck(suits, ranks)
    variants = VARIANTS if suits * ranks <= 8 else VARIANTS[:2]
    for name in variants:
        variant = Variant.parse(name)
        word = exact_distribution(deck, variant, method="word")
        other = exact_distribution(deck, variant, method="dp")
        assert word.score_counts == other.score_counts and word.wins == other.wins, name


@pytest.mark.parametrize("suits,ranks", [(3, 4), (4, 3)])
def test_word_equals_phase_and_zeta(suits, ranks):
    deck = Deck(suits, ranks)
    for name in ("one-handed", "one-handed(win=any)"):
        variant = Variant.parse(name)
        word = exact_distribution(deck, variant, method="word")
        for method in ("phase", "zeta"):
            other = exact_distribution(deck, variant, method=method)
            assert word.score_counts == other.score_counts and word.wins == other.wins, (name, method)


@pytest.mark.parametrize("suits,ranks", [(2, 4), (3, 3), (4, 3)])
def test_core_mode_gives_p_win_never_and_the_mean(suits, ranks):
    full = word_counts(suits, ranks)
    core = word_counts(suits, ranks, mode="core")
    assert core.ends[0] == full.ends[0]
    assert core.never == full.never
    assert core.score_sum == full.score_sum


@settings(max_examples=8, deadline=None)
@given(st.sampled_from([(2, 3), (3, 2), (2, 4), (3, 3)]), st.integers(1, 5), st.integers(0, 4))
def test_shards_resume_and_merge_to_the_same_counts(tmp_path_factory, shape, parts, cut):
    """Jobs run in any split, interrupted anywhere (a journal cut mid-line), join to the same counts."""
    suits, ranks = shape
    folder = str(tmp_path_factory.mktemp("word"))
    whole = word_counts(suits, ranks)
    for i in range(parts):
        word_counts(suits, ranks, checkpoint_dir=folder, shard=(i, parts))
    # an interrupted shard: its last records lost, the next one cut in the middle of its line
    path = os.path.join(folder, f"word-{suits}x{ranks}-all.shard-0-of-{parts}.jsonl")
    with open(path) as fh:
        head, *records = fh.read().split("\n")[:-1]
    keep = max(0, len(records) - cut)
    cut_line = records[keep][: len(records[keep]) // 2] if keep < len(records) else ""
    with open(path, "w") as fh:
        fh.write("\n".join([head, *records[:keep]]) + "\n" + cut_line)
    if keep < len(records):
        with pytest.raises(MissingJobs):
            word_counts(suits, ranks, checkpoint_dir=folder, merge_only=True)
    resumed = word_counts(suits, ranks, checkpoint_dir=folder)
    assert (resumed.ends, resumed.never) == (whole.ends, whole.never)
    merged = word_counts(suits, ranks, checkpoint_dir=folder, merge_only=True)
    assert (merged.ends, merged.never) == (whole.ends, whole.never)


def test_a_foreign_journal_is_refused(tmp_path):
    word_counts(2, 3, checkpoint_dir=str(tmp_path))
    path = tmp_path / "word-2x3-all.jsonl"
    head, *rest = path.read_text().split("\n")
    key = json.loads(head)
    key["key"]["primes"] = [101]
    path.write_text(json.dumps(key) + "\n" + "\n".join(rest))
    with pytest.raises(UsageError, match="another computation"):
        word_counts(2, 3, checkpoint_dir=str(tmp_path))


def test_a_journal_is_read_whichever_computation_it_belongs_to(tmp_path):
    """``Journal.at`` takes the key from the file's head (tools that read finished journals); a torn
    last line is skipped, and a file that is not a journal is refused in one line."""
    from exact.one_handed.word_run import Journal, journal_name

    word_counts(2, 3, mode="core", checkpoint_dir=str(tmp_path))
    path = tmp_path / journal_name(2, 3, "core")
    journal = Journal.at(str(path))
    assert (journal.key["suits"], journal.key["ranks"], journal.key["mode"]) == (2, 3, "core")
    records = journal.read()
    assert len(records) == alphabet_orbit_count(2, 3)
    with open(path, "a") as fh:
        fh.write('{"job": 0, "resid')
    assert Journal.at(str(path)).read() == records
    other = tmp_path / "notes.jsonl"
    other.write_text("hello\n")
    with pytest.raises(UsageError, match="not a job journal"):
        Journal.at(str(other))
    with pytest.raises(UsageError, match="cannot read"):
        Journal.at(str(tmp_path / "missing.jsonl"))


def test_dask_gives_the_same_counts():
    pytest.importorskip("distributed")
    local = word_counts(3, 3)
    dask = word_counts(3, 3, backend="dask", workers=2)
    assert (dask.ends, dask.never) == (local.ends, local.never)


def test_cpu_left_prices_unmeasured_sizes_by_the_fit():
    est = CpuLeft({1: 10, 2: 8, 3: 6, 4: 6})
    est.measured(1, 8.0)
    assert est.seconds() == pytest.approx(3 * 8.0)  # one size known: its mean for every job left
    est.measured(2, 2.0)  # the cost falls by 4x per two letters: 2x a letter
    assert est.seconds() == pytest.approx(2 * 0.5)
    est.measured(3, 0.25)  # a size now measured is priced at its own mean
    assert est.seconds() == pytest.approx(0.25)
    est.measured(4, 0.5)
    assert est.seconds() == 0


def test_cpu_left_prices_by_planned_work_when_given():
    est = CpuLeft({1: 10, 2: 8, 3: 8, 4: 6}, work={10: 100.0, 8: 40.0, 6: 5.0})
    assert est.seconds() is None
    est.measured(9, 3.0, 12)  # measured without its work (an old record): no rate yet
    assert est.seconds() is None
    est.measured(1, 2.0, work=100.0)  # 0.02 s a unit of work
    assert est.seconds() == pytest.approx(0.02 * (40 + 40 + 5))
    est.measured(2, 1.0, work=20.0)  # 3 s over 120 units: 0.025
    assert est.seconds() == pytest.approx(0.025 * (40 + 5))


def test_size_work_is_the_mean_planned_work_of_each_size():
    from exact.one_handed.word_plan import job_plan, layout
    from exact.one_handed.word_run import deck_jobs, job_work, size_work

    jobs = deck_jobs(2, 3)
    primes = word_primes(6, 3)
    got = size_work(jobs, "all", primes, per_size=1000)  # every job planned
    lay = layout(6, 3)
    for k in got:
        members = [j for j in range(len(jobs)) if jobs.size(j) == k]
        want = sum(job_work(job_plan(jobs, j), lay, 6) for j in members) * len(primes) / len(members)
        assert got[k] == pytest.approx(want)
    assert set(got) == {jobs.size(j) for j in range(len(jobs))}


def test_a_long_run_prices_its_jobs_left_by_their_planned_work(tmp_path, monkeypatch):
    from exact.one_handed import word_run

    monkeypatch.setattr(word_run, "WORK_PRICED_FROM", 1)
    calls = []
    word_counts(3, 3, checkpoint_dir=str(tmp_path), progress=lambda d, t, c: calls.append((d, t, c)))
    assert calls[0][2] is None and calls[-1][2] == 0
    assert all(c is not None and c >= 0 for _, _, c in calls[1:])
    # the jobs left are priced at the measured rate times their sizes' planned work
    records = [json.loads(line) for line in (tmp_path / "word-3x3-all.jsonl").read_text().splitlines()[1:]]
    rate = sum(r["cpu_seconds"] for r in records[:5]) / sum(r["work"] for r in records[:5])
    work = word_run.size_work(word_run.deck_jobs(3, 3), "all", word_primes(9, 3))
    jobs = word_run.deck_jobs(3, 3)
    assert calls[5][2] == pytest.approx(rate * sum(work[jobs.size(r["job"])] for r in records[5:]))


def test_progress_reports_jobs_and_cpu_left(tmp_path):
    calls = []
    word_counts(3, 3, checkpoint_dir=str(tmp_path), progress=lambda d, t, c: calls.append((d, t, c)))
    total = calls[0][1]
    assert [d for d, _, _ in calls] == list(range(total + 1))
    assert calls[0][2] is None and calls[-1][2] == 0
    assert all(c is not None and c >= 0 for _, _, c in calls[1:])
    calls.clear()  # a resumed run prices nothing left from its journal
    word_counts(3, 3, checkpoint_dir=str(tmp_path), progress=lambda d, t, c: calls.append((d, t, c)))
    assert calls == [(total, total, 0)]


def test_primes_cover_every_count_and_are_as_few_as_the_kernel_allows():
    from exact.one_handed.word_kernel import PRIME_BITS, prime_bits

    for n, ranks in ((1, 1), (5, 5), (12, 3), (18, 3), (20, 5), (24, 6), (39, 3), (52, 13), (62, 2), (62, 31)):
        primes = word_primes(n, ranks)
        assert math.prod(primes) > n * math.factorial(n)
        assert all(p < 2 ** prime_bits(n, ranks) for p in primes)
        narrow = math.ceil((n * math.factorial(n) + 1).bit_length() / PRIME_BITS)
        assert len(primes) <= narrow
    assert [len(word_primes(24, 6)), max(word_primes(24, 6)).bit_length()] == [3, 28]  # 4x6: not four of 26 bits


def test_prime_bits_is_the_widest_width_whose_sums_cannot_overflow():
    from exact.one_handed.word_kernel import MAX_PRIME_BITS, PRIME_BITS, prime_bits

    def largest_sum(n, ranks, bits):  # the module docstring's bound on any sum, primes below 2**bits
        return (ranks + 1) * (n // 2 + 1) * 4**bits + 3 * n * 2**bits + n

    for suits in range(1, 63):
        for ranks in range(1, 62 // suits + 1):
            n = suits * ranks
            bits = prime_bits(n, ranks)
            assert PRIME_BITS <= bits <= MAX_PRIME_BITS
            assert largest_sum(n, ranks, bits) < 2**64
            assert bits == MAX_PRIME_BITS or largest_sum(n, ranks, bits + 1) >= 2**64
            assert largest_sum(n, ranks, PRIME_BITS) < 2**64, "26 bits are safe on every deck"


def test_wider_primes_count_the_same():
    # 6x3: two primes of 29 bits instead of three of 26, against the zeta method
    from exact.one_handed.word_kernel import prime_bits

    assert prime_bits(18, 3) == 29 and len(word_primes(18, 3)) == 2
    deck = Deck(6, 3)
    word = exact_distribution(deck, "one-handed", method="word")
    other = exact_distribution(deck, "one-handed", method="zeta")
    assert word.score_counts == other.score_counts and word.wins == other.wins


def test_plan_summary_names_the_largest_job():
    plan = plan_summary(3, 4)
    assert plan["jobs"] == alphabet_orbit_count(3, 4) == plan["jobs_planned"]
    assert plan["largest_job_table_bytes"] > 0 and plan["cpu_seconds_low"] <= plan["cpu_seconds"]


@pytest.mark.parametrize("mode", ["all", "core"])
def test_plan_without_a_journal_spans_the_rates_measured_on_other_decks(mode):
    from exact.one_handed.word_run import WORD_MEASURED_RATES

    plan = plan_summary(3, 4, mode=mode)  # every job planned: no sampling spread, only the rates'
    rates = WORD_MEASURED_RATES[mode].values()
    assert plan["seconds_per_work_low"] == min(rates) < plan["seconds_per_work"] < max(rates) == plan["seconds_per_work_high"]
    assert plan["cpu_seconds_low"] == pytest.approx(plan["work"] * min(rates))
    assert plan["cpu_seconds_high"] == pytest.approx(plan["work"] * max(rates))


def test_cli_word(tmp_path):
    from solitaire.cli import cli

    runner = CliRunner()
    out = runner.invoke(cli, ["exact", "--suits", "2", "--ranks", "3", "--method", "word", "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.output)
    dp = exact_distribution(Deck(2, 3), method="dp")
    assert got["score_counts"] == list(dp.score_counts) and got["method"] == "word"
    folder = str(tmp_path / "jobs")
    for i in range(2):
        res = runner.invoke(cli, ["exact", "--suits", "2", "--ranks", "3", "--method", "word", "--shard", f"{i}/2",
                                  "--checkpoint-dir", folder])
        assert res.exit_code == 0 and "--merge" in res.output
    res = runner.invoke(cli, ["exact", "--suits", "2", "--ranks", "3", "--method", "word", "--merge",
                              "--checkpoint-dir", folder, "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["score_counts"] == list(dp.score_counts)
    res = runner.invoke(cli, ["exact", "--suits", "2", "--ranks", "3", "--method", "word", "--plan"])
    assert res.exit_code == 0 and "core-hours" in res.output


@pytest.mark.parametrize("args,message", [
    (["--shard", "1/2"], "--checkpoint-dir"),
    (["--shard", "3/2", "--checkpoint-dir", "x"], "0 <= I < N"),
    (["--shard", "a"], "I/N"),
    (["--merge"], "--checkpoint-dir"),
    (["--variant", "final=once"], "final=once"),
])
def test_cli_word_refusals(tmp_path, args, message):
    from solitaire.cli import main

    import contextlib
    import io

    err = io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with contextlib.redirect_stderr(err):
            status = main(["exact", "--suits", "2", "--ranks", "3", "--method", "word", *args])
    finally:
        os.chdir(cwd)
    assert status == 2 and message in err.getvalue()
    assert not os.listdir(tmp_path)


def test_plan_refused_for_other_methods():
    from solitaire.cli import main

    assert main(["exact", "--suits", "2", "--ranks", "3", "--method", "dp", "--plan"]) == 2


def test_cli_only_p_win_agrees_with_the_whole_distribution():
    from solitaire.cli import cli

    runner = CliRunner()
    for variant in ("win=end", "win=any"):
        base = ["exact", "--suits", "3", "--ranks", "3", "--method", "word", "--variant", variant, "--json"]
        whole = json.loads(runner.invoke(cli, base).output)
        core = json.loads(runner.invoke(cli, base + ["--only", "p_win"]).output)
        assert (core["wins"], core["p_win"], core["mean_score"]) == (whole["wins"], whole["p_win"],
                                                                      whole["mean_score"])


def _stored_exact(max_cards):
    """Every stored exact One-Handed result of the committed store up to ``max_cards`` cards (but
    final=once, which the word method does not count)."""
    from pathlib import Path

    from sim.store import ResultsStore

    path = Path(__file__).resolve().parents[2] / "results" / "solitaire.h5"
    store = ResultsStore(str(path))
    out = []
    for _, record in store.find(kind="exact", game="one-handed"):
        variant = Variant.parse(record["variant"])
        if int(record["suits"]) * int(record["ranks"]) <= max_cards and not variant.rules.final_once:
            out.append(record)
    return out


def _check_stored(max_cards):
    records = _stored_exact(max_cards)
    assert records
    for record in records:
        deck = Deck(int(record["suits"]), int(record["ranks"]))
        word = exact_distribution(deck, Variant.parse(record["variant"]), method="word")
        assert list(word.score_counts) == [int(c) for c in record["score_counts"]], record["variant"]
        assert word.wins == int(record["wins"])


@pytest.mark.slow
def test_word_reproduces_every_stored_result_up_to_24_cards():
    """Every exact One-Handed result stored by the other methods, up to 24 cards, comes out identical."""
    _check_stored(24)


def test_word_reproduces_the_stored_results_up_to_14_cards():
    _check_stored(14)


_KERNEL_PRIMES = [8209, 1000003, 33554467, 67108859, 2**31 - 1, 4294967291]  # 8209: the first above 2**13


@settings(max_examples=300, deadline=None)
@given(x=st.integers(0, 2**64 - 1), p=st.sampled_from(_KERNEL_PRIMES))
def test_kernel_reduction_is_the_remainder(x, p):
    from exact.one_handed.word_kernel import _mod

    assert int(_mod(np.uint64(x), np.uint64(p), 1.0 / p)) == x % p


@pytest.mark.parametrize("p", _KERNEL_PRIMES)
def test_kernel_reduction_at_the_edges(p):
    # where the float quotient rounds across an integer: next to every multiple of p, and at 2**64 - 1
    from exact.one_handed.word_kernel import _mod

    top = (2**64 - 1) // p
    for k in (0, 1, 2**20, 2**32 - 1, top // 2, top - 1, top):
        for x in (k * p - 1, k * p, k * p + 1, k * p + p - 1):
            if 0 <= x < 2**64:
                assert int(_mod(np.uint64(x), np.uint64(p), 1.0 / p)) == x % p, (x, p)
    for x in (2**53 - 1, 2**53, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 2, 2**64 - 1):
        assert int(_mod(np.uint64(x), np.uint64(p), 1.0 / p)) == x % p, (x, p)


def test_kernel_refuses_primes_its_reduction_cannot_take():
    jobs = alphabet_jobs(2, 2)
    with pytest.raises(InvariantError, match="between 8192"):
        solve_job(job_plan(jobs, 0), layout(4, 2), 4, [8191])


def test_plan_calibrates_on_the_current_kernel(tmp_path):
    from exact.one_handed.word_run import journal_name

    word_counts(3, 3, checkpoint_dir=str(tmp_path))
    plan = plan_summary(3, 3, checkpoint_dir=str(tmp_path))
    assert plan["calibrated_on_jobs"] == alphabet_orbit_count(3, 3) and not plan["calibrated_on_older_kernel"]
    # calibrated on the deck's own jobs: one rate, so the interval is the sample's alone (none here)
    assert plan["seconds_per_work_low"] == plan["seconds_per_work"] == plan["seconds_per_work_high"]
    assert plan["cpu_seconds_low"] == pytest.approx(plan["cpu_seconds"]) == plan["cpu_seconds_high"]
    path = tmp_path / journal_name(3, 3, "all")
    head, *lines = path.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    older = []
    for rec in records:  # as an earlier kernel (no "kernel" field) would have measured them, ten times slower
        old = {k: v for k, v in rec.items() if k != "kernel"}
        old["cpu_seconds"] = 10 * rec["cpu_seconds"] + 1e-3
        older.append(json.dumps(old))
    path.write_text("\n".join([head] + older) + "\n")
    slow = plan_summary(3, 3, checkpoint_dir=str(tmp_path))
    assert slow["calibrated_on_older_kernel"] and slow["seconds_per_work"] > 5 * plan["seconds_per_work"]
    # one job measured again by the current kernel: the plan fits that one alone, and the join reads it
    with open(path, "a") as fh:
        fh.write(json.dumps(records[0]) + "\n")
    again = plan_summary(3, 3, checkpoint_dir=str(tmp_path))
    assert again["calibrated_on_jobs"] == 1 and not again["calibrated_on_older_kernel"]
    resumed, fresh = word_counts(3, 3, checkpoint_dir=str(tmp_path)), word_counts(3, 3)
    assert (resumed.ends, resumed.never, resumed.stats["jobs_reused"]) == (fresh.ends, fresh.never, 36)


def test_a_result_joined_from_journals_keeps_the_computing_peak(tmp_path):
    from exact.one_handed.word_run import journal_name, peak_rss_bytes

    first = word_counts(2, 3, checkpoint_dir=str(tmp_path))
    path = tmp_path / journal_name(2, 3, "all")
    head, *lines = path.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert all(0 < rec["peak_rss_bytes"] <= first.stats["peak_rss_bytes"] for rec in records)
    heavy = peak_rss_bytes() + 2**40  # as if one job had run in a process a terabyte larger
    records[-1]["peak_rss_bytes"] = heavy
    path.write_text("\n".join([head] + [json.dumps(rec) for rec in records]) + "\n")
    joined = word_counts(2, 3, checkpoint_dir=str(tmp_path))
    assert joined.stats["jobs_reused"] == len(records) and joined.stats["peak_rss_bytes"] == heavy
    assert (joined.ends, joined.never) == (first.ends, first.never)
    for rec in records:  # journals written before jobs kept their peak: the joining process's alone
        del rec["peak_rss_bytes"]
    path.write_text("\n".join([head] + [json.dumps(rec) for rec in records]) + "\n")
    assert 0 < word_counts(2, 3, checkpoint_dir=str(tmp_path)).stats["peak_rss_bytes"] < heavy


def test_one_worker_runs_its_jobs_off_the_main_thread(monkeypatch):
    # a signal handler runs only in the main thread between bytecodes, so a job (minutes in a kernel on
    # a large deck) must not hold it: Ctrl-C then stops a one-worker run at once, not after the job
    import threading

    import exact.one_handed.word_run as word_run

    threads = []
    real = word_run.run_job

    def spy(*args):
        threads.append(threading.current_thread())
        return real(*args)

    monkeypatch.setattr(word_run, "run_job", spy)
    spied = word_counts(2, 3)
    assert len(threads) == alphabet_orbit_count(2, 3)
    assert all(t is not threading.main_thread() for t in threads)
    monkeypatch.undo()
    fresh = word_counts(2, 3)
    assert (spied.ends, spied.never) == (fresh.ends, fresh.never)


def test_a_run_takes_its_jobs_by_alphabet_size_largest_first():
    """On a deck whose alphabet sizes hold more than 1,000 jobs each (4x7: 9,343 jobs), where an
    index could outweigh a size."""
    from exact.one_handed.word_run import deck_jobs, run_order

    jobs = deck_jobs(4, 7)
    todo = list(range(len(jobs)))[::-1]
    order = run_order(jobs, todo)
    assert sorted(order) == sorted(todo) and len(jobs) > 9000
    keys = [(-jobs.size(j), j) for j in order]
    assert keys == sorted(keys)


def test_word_rates_script_reads_a_journal(tmp_path):
    """``benchmarks/word_rates.py``: a journal's rate is its jobs' CPU over their work."""
    import sys
    from pathlib import Path

    from exact.one_handed.word_run import journal_name

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from word_rates import rate

    word_counts(2, 3, mode="core", checkpoint_dir=str(tmp_path))
    path = tmp_path / journal_name(2, 3, "core")
    records = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    got = rate(str(path))
    cpu, work = sum(r["cpu_seconds"] for r in records), sum(r["work"] for r in records)
    assert (got["deck"], got["mode"], got["jobs"]) == ("2x3", "core", alphabet_orbit_count(2, 3))
    assert got["seconds_per_work"] == pytest.approx(cpu / work) and got["cpu_hours"] == pytest.approx(cpu / 3600)


def test_word_mode_ratio_and_padding_benchmarks_run(tmp_path, capsys):
    """``benchmarks/word_mode_ratio.py`` runs a journal's core-mode jobs for the whole distribution;
    ``benchmarks/bench_word_padding.py`` runs jobs with both layouts and finds the residues equal."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import bench_word_padding
    import word_mode_ratio

    word_counts(3, 2, mode="core", checkpoint_dir=str(tmp_path))
    assert word_mode_ratio.main(["--dir", str(tmp_path), "--jobs", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("\njob ") == 3 and "the whole distribution over the core mode" in out
    assert bench_word_padding.main(["--deck", "2x2", "--jobs", "2", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("residues equal") == 2 and "DIFFER" not in out


def test_cli_plan_says_where_its_rate_comes_from(tmp_path):
    from solitaire.cli import cli

    runner = CliRunner()
    base = ["exact", "--suits", "2", "--ranks", "3", "--method", "word", "--plan"]
    out = runner.invoke(cli, base)
    assert out.exit_code == 0, out.output
    assert "no job of this deck measured" in out.output and "the middle of the rates measured on other decks" in out.output
    word_counts(2, 3, checkpoint_dir=str(tmp_path))
    out = runner.invoke(cli, base + ["--checkpoint-dir", str(tmp_path)])
    assert out.exit_code == 0, out.output
    assert f"from {alphabet_orbit_count(2, 3)} measured jobs" in out.output and "priced at" not in out.output


def test_plan_of_a_run_under_way_says_what_is_done_and_left(tmp_path):
    """``--plan`` with a journal of part of the jobs: their count and measured CPU, and the jobs still
    to run priced at the measured rate; nothing left once every job is done."""
    from solitaire.cli import cli

    from exact.one_handed.word_run import journal_name

    word_counts(3, 3, checkpoint_dir=str(tmp_path))
    path = tmp_path / journal_name(3, 3, "all")
    whole = plan_summary(3, 3, checkpoint_dir=str(tmp_path))
    assert whole["jobs_done"] == whole["jobs"] == 36 and whole["cpu_seconds_left"] == 0
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:11]) + "\n")  # the key and 10 jobs
    records = [json.loads(line) for line in lines[1:11]]
    part = plan_summary(3, 3, checkpoint_dir=str(tmp_path))
    assert part["jobs_done"] == 10
    assert part["cpu_seconds_done"] == pytest.approx(sum(r["cpu_seconds"] for r in records))
    assert 0 < part["cpu_seconds_left"] < part["cpu_seconds"]
    fresh = plan_summary(3, 3)
    assert fresh["jobs_done"] == 0 and fresh["cpu_seconds_left"] == pytest.approx(fresh["cpu_seconds"])
    out = CliRunner().invoke(cli, ["exact", "--suits", "3", "--ranks", "3", "--method", "word", "--plan",
                                   "--checkpoint-dir", str(tmp_path)])
    assert out.exit_code == 0, out.output
    assert "done: 10 of 36 jobs (" in out.output and " left\n" in out.output


def test_word_progress_estimate_benchmark_replays_a_journal(tmp_path, capsys):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import word_progress_estimate

    word_counts(3, 3, checkpoint_dir=str(tmp_path))
    assert word_progress_estimate.main([str(tmp_path / "word-3x3-all.jsonl"), "--at", "0.2,0.5"]) == 0
    out = capsys.readouterr().out
    assert out.count("by planned work") == 2 and "deck 3x3 all: 36 jobs" in out
