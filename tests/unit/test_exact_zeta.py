"""The zeta method (exact.one_handed.zeta, zeta_plan, zeta_kernel, orbits, zeta_passes, crt): the zeta-domain recursion against
the DP and the phase method, the orbit canonical forms and counts against brute force, the residue
passes and their join (small primes forced), resuming, limits and the CLI."""
import itertools
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exact.one_handed.crt as crt
import exact.one_handed.zeta_passes as zeta_passes
from exact.one_handed import exact_distribution
from exact.invariants import InvariantError
from exact.one_handed.dp import dp_distribution
from exact.one_handed.limits import MAX_ZETA_TABLE_BYTES, choose_method, exact_limit, zeta_estimate
from exact.one_handed.orbits import WindowGroups, apply, orbit_counts
from exact.one_handed.phase import phase_distribution
from exact.one_handed.zeta import zeta_distribution_reference
from exact.one_handed.zeta import zeta_distribution
from exact.one_handed.zeta_kernel import zeta_pass
from exact.one_handed.zeta_plan import ZetaPlan
from sim import Deck, Variant
from sim.errors import UsageError

from ..strategies import all_variants, shapes

ALL_VARIANTS = [v for v in all_variants("one-handed") if not v.rules.final_once]  # zeta refuses final=once
KEPT = [v for v in ALL_VARIANTS if not v.rules.first4_reversed]
SMALL_PRIMES = [101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151]


@pytest.mark.parametrize("deck", shapes(6), ids=str)
@pytest.mark.parametrize("variant", KEPT, ids=str)
def test_reference_equals_dp(deck, variant):
    """The zeta-domain recursion in plain Python (every point, Python ints; it also checks that the
    S2' coordinate vanishes at points without its card, which the kernel relies on)."""
    assert zeta_distribution_reference(deck, variant) == dp_distribution(deck, variant)


@pytest.mark.parametrize("deck", shapes(10), ids=str)
def test_kernel_equals_dp_up_to_10_cards(deck):
    """Every variant: first4=reversed is played as kept, reverse=on on the transposed deck, win=any
    from the same passes as win=end."""
    for variant in ALL_VARIANTS:
        assert zeta_distribution(deck, variant) == dp_distribution(deck, variant)


@pytest.mark.parametrize("deck", [Deck(3, 4), Deck(4, 3), Deck(2, 6), Deck(6, 2)], ids=str)
@pytest.mark.parametrize("variant", [Variant.make("one-handed", win="any"), Variant.make("one-handed", reverse="on")],
                         ids=str)
def test_kernel_equals_phase_and_dp_on_12_cards(deck, variant):
    got = zeta_distribution(deck, variant)
    assert got == phase_distribution(deck, variant) == dp_distribution(deck, variant)


@pytest.mark.parametrize("deck", shapes(9, min_cards=5), ids=str)
def test_small_primes_force_many_residue_passes(deck):
    """Primes near 100 make every count pass through the Chinese remainder theorem (4 to 7 passes)."""
    variant = Variant.make("one-handed", win="any")
    stats = {}
    got = zeta_distribution(deck, variant, primes=SMALL_PRIMES, stats=stats)
    assert got == dp_distribution(deck, variant)
    assert stats["passes"] == len(crt.primes_for(deck.size, SMALL_PRIMES)) >= 2


@pytest.mark.slow
@pytest.mark.parametrize("deck", [Deck(1, 12), Deck(12, 1), Deck(4, 4), Deck(3, 5), Deck(5, 3), Deck(3, 6), Deck(6, 3)],
                         ids=str)
def test_kernel_equals_phase_on_12_to_18_cards(deck):
    for variant in KEPT:
        assert zeta_distribution(deck, variant) == phase_distribution(deck, variant)


@pytest.mark.slow
@pytest.mark.parametrize("deck", [Deck(2, 11), Deck(11, 2), Deck(2, 12), Deck(12, 2)], ids=str)
def test_kernel_equals_dp_past_two_to_the_64(deck):
    """22! and 24! pass 2**64: three residue passes, joined, equal the DP's multi-limb counts."""
    assert math.factorial(deck.size) > 2**64
    for variant in KEPT:
        assert zeta_distribution(deck, variant) == dp_distribution(deck, variant)


def test_residue_join_catches_a_wrong_pass():
    n = 8
    passes = {p: zeta_pass(2, 4, p) for p in crt.primes_for(n, SMALL_PRIMES)}
    counts, _ = crt.join(passes, n)
    assert counts == dp_distribution(Deck(2, 4), Variant.make("one-handed"))[0]
    p = min(passes)
    ends, nv = passes[p]
    bad = dict(passes)
    bad[p] = ([(e + 1) % p if j == 0 else e for j, e in enumerate(ends)], nv)
    with pytest.raises(InvariantError):
        crt.join(bad, n)


def test_crt_and_primes():
    primes = crt.largest_primes(4)
    assert all(crt.is_prime(p) and p < 2**31 for p in primes) and primes == sorted(primes, reverse=True)
    x = math.factorial(24) - 12345
    use = crt.primes_for(24)
    assert len(use) == 3 and crt.crt([x % p for p in use], use) == x
    with pytest.raises(UsageError, match="more primes"):
        crt.primes_for(10, [101, 103])


def test_interrupted_passes_resume_from_the_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "passes.json"
    real = zeta_passes._pass_task
    calls = []

    def dies_on_the_third(suits, ranks, prime, progress=None, checkpoint=None, mode="all"):
        calls.append(prime)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(suits, ranks, prime, progress, checkpoint, mode=mode)

    monkeypatch.setattr(zeta_passes, "_pass_task", dies_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        zeta_passes.zeta_counts(2, 4, primes=SMALL_PRIMES, checkpoint=str(path))
    assert len(json.loads(path.read_text())["passes"]) == 2
    calls.clear()
    monkeypatch.setattr(zeta_passes, "_pass_task", lambda *a, **k: (calls.append(a[2]), real(*a, **k))[1])
    stats = {}
    counts, _ = zeta_passes.zeta_counts(2, 4, primes=SMALL_PRIMES, checkpoint=str(path), stats=stats)
    assert counts == dp_distribution(Deck(2, 4), Variant.make("one-handed"))[0]
    assert stats["passes_reused"] == 2 and len(calls) == stats["passes"] - 2
    with pytest.raises(UsageError, match="another computation"):
        zeta_passes.zeta_counts(4, 2, primes=SMALL_PRIMES, checkpoint=str(path))


def test_parallel_passes_give_the_sequential_counts():
    one = zeta_passes.zeta_counts(3, 3, primes=SMALL_PRIMES)
    assert zeta_passes.zeta_counts(3, 3, primes=SMALL_PRIMES, workers=2) == one


def _group(suits, ranks, window):
    used_s = {c // ranks for c in window if c >= 0}
    used_r = {c % ranks for c in window if c >= 0}
    fs = [x for x in range(suits) if x not in used_s]
    fr = [x for x in range(ranks) if x not in used_r]
    for ps in itertools.permutations(fs):
        for pr in itertools.permutations(fr):
            pi, rho = list(range(suits)), list(range(ranks))
            for a, b in zip(fs, ps):
                pi[a] = b
            for a, b in zip(fr, pr):
                rho[a] = b
            yield pi, rho


@settings(max_examples=80, deadline=None)
@given(shape=st.sampled_from([(2, 3), (3, 2), (3, 4), (4, 3), (2, 5), (5, 2), (1, 5), (3, 3), (4, 2)]),
       data=st.data())
def test_canonical_form_is_an_orbit_invariant_in_the_orbit(shape, data):
    suits, ranks = shape
    n = suits * ranks
    window = tuple(data.draw(st.lists(st.integers(0, n - 1), unique=True, min_size=0, max_size=3)))
    window = (-1,) * (3 - len(window)) + window
    groups = WindowGroups(suits, ranks, [window])
    outside = [c for c in range(n) if c not in window]
    mask = sum(1 << c for c in data.draw(st.lists(st.sampled_from(outside), unique=True)))
    canon, pi, rho = groups.canonical(0, mask)
    assert apply(mask, pi, rho, suits, ranks) == canon
    orbit = {apply(mask, p, r, suits, ranks) for p, r in _group(suits, ranks, window)}
    assert {groups.canonical(0, x)[0] for x in orbit} == {canon}
    assert groups.orbit_size(0, mask) == len(orbit)


@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 5), (1, 6)])
def test_burnside_counts_equal_the_generated_orbits(shape):
    plan = ZetaPlan(*shape)
    generated = {}
    for _, masks, off in plan.layers():
        for i in range(len(plan.reps)):
            generated.setdefault(i, []).append(int(off[i + 1] - off[i]))
    for i, window in enumerate(plan.reps):
        counts = orbit_counts(*shape, window)
        assert generated[i] == counts + [0] * (len(generated[i]) - len(counts))


def test_burnside_counts_of_the_issue():
    """The orbit counts quoted in issue 16 (window-set orbits of 4x6 and 8x3, and of the standard deck)."""
    assert round(zeta_estimate(Deck(4, 6))["orbits"], -5) == 2_200_000
    assert round(zeta_estimate(Deck(8, 3))["orbits"], -4) == 410_000


def test_auto_takes_zeta_beyond_phase_and_dp_and_refuses_with_the_estimate():
    assert choose_method(Deck(4, 5), "auto") == "zeta" and choose_method(Deck(5, 4), "auto") == "zeta"
    assert choose_method(Deck(3, 5), "auto") == "phase"
    assert choose_method(Deck(2, 12), "auto") == "dp"
    assert choose_method(Deck(3, 7), "auto") == "zeta"
    assert choose_method(Deck(8, 3), "auto") == "zeta"
    assert choose_method(Deck(2, 13), "auto") == "zeta"
    assert choose_method(Deck(3, 3), "zeta") == "zeta"
    assert exact_limit(Deck(3, 8)) == 24 and exact_limit(Deck(4, 6)) == 20
    with pytest.raises(UsageError, match=r"7\.0 GiB per pass .*window-set orbits.*SOLITAIRE_ZETA_MAX_GIB"):
        choose_method(Deck(4, 6), "auto")  # 7.0 GiB of tables a pass: more than the 6 GiB the tests pin
    with pytest.raises(UsageError, match="simulate"):
        exact_distribution(Deck(4, 13))
    assert 6 * 2**30 < zeta_estimate(Deck(4, 6))["peak_bytes"] < MAX_ZETA_TABLE_BYTES


def test_the_default_memory_limit_follows_the_machine(monkeypatch):
    from exact.one_handed import limits

    monkeypatch.delenv("SOLITAIRE_ZETA_MAX_GIB")
    monkeypatch.setattr(limits, "physical_memory_bytes", lambda: 24 * 10**9)  # a 24 GB machine
    assert limits.zeta_table_limit() == int(0.7 * 24 * 10**9)
    assert choose_method(Deck(4, 6), "auto") == "zeta" and choose_method(Deck(3, 10), "auto") == "zeta"
    with pytest.raises(UsageError, match=r"17\.6 GiB per pass.*limit of 15\.6 GiB.*70% of this machine's memory"):
        choose_method(Deck(5, 5), "auto")
    monkeypatch.setattr(limits, "physical_memory_bytes", lambda: 2**40)  # a big machine: at most 20 GiB
    assert limits.zeta_table_limit() == MAX_ZETA_TABLE_BYTES == 20 * 2**30
    monkeypatch.setattr(limits, "physical_memory_bytes", lambda: None)  # the system does not say
    assert limits.zeta_table_limit() == limits.FALLBACK_ZETA_TABLE_BYTES


def test_physical_memory_is_read_from_the_system():
    from pathlib import Path

    from exact.one_handed.limits import physical_memory_bytes

    meminfo = Path("/proc/meminfo")
    if not meminfo.exists():
        pytest.skip("no /proc/meminfo to compare with")
    total_kib = int(next(line for line in meminfo.read_text().splitlines() if line.startswith("MemTotal:")).split()[1])
    assert abs(physical_memory_bytes() - total_kib * 1024) <= 0.01 * total_kib * 1024


@pytest.mark.parametrize("shape", [(3, 4), (2, 6), (3, 5), (4, 4)])
def test_the_memory_estimate_covers_the_tables_a_pass_makes(shape):
    stats = {}
    zeta_pass(*shape, 2147483647, stats=stats)
    estimate = zeta_estimate(Deck(*shape))["peak_bytes"]
    assert 0.9 * estimate <= stats["peak_table_bytes"] <= estimate


def test_the_memory_limit_is_raised_by_the_environment(monkeypatch):
    monkeypatch.setenv("SOLITAIRE_ZETA_MAX_GIB", "12")
    assert choose_method(Deck(4, 6), "auto") == "zeta" and exact_limit(Deck(4, 6)) == 24
    monkeypatch.setenv("SOLITAIRE_ZETA_MAX_GIB", "lots")
    with pytest.raises(UsageError, match="SOLITAIRE_ZETA_MAX_GIB"):
        choose_method(Deck(4, 6), "auto")


def test_api_and_cli(cli_run):
    result = exact_distribution(Deck(3, 3), "one-handed(win=any)", method="zeta")
    assert result.method == "zeta" and result.provenance["passes"] == 1
    assert result.score_counts == tuple(dp_distribution(Deck(3, 3), Variant.parse("one-handed(win=any)"))[0])
    code, out, err = cli_run("exact", "--suits", "2", "--ranks", "4", "--method", "zeta", "--json")
    assert code == 0 and err == ""
    obj = json.loads(out)
    assert obj["method"] == "zeta" and obj["p_win"] == "59/420"
    code, out, err = cli_run("exact", "--suits", "2", "--ranks", "3", "--method", "zeta", "--workers", "0")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    code, out, err = cli_run("exact", "--game", "prisoners", "--suits", "2", "--ranks", "3", "--workers", "2")
    assert code == 2 and "zeta" in err


def test_variants_share_their_passes_through_the_checkpoint_dir(tmp_path):
    first = exact_distribution(Deck(2, 4), "one-handed", method="zeta", checkpoint_dir=str(tmp_path))
    again = exact_distribution(Deck(2, 4), "one-handed(win=any)", method="zeta", checkpoint_dir=str(tmp_path))
    assert first.provenance["passes_reused"] == 0
    assert again.provenance["passes_reused"] == again.provenance["passes"] == 1
    assert again.score_counts == first.score_counts and again.wins > first.wins
    exact_distribution(Deck(2, 4), "one-handed(reverse=on)", method="zeta", checkpoint_dir=str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["zeta-passes-2x4.json", "zeta-passes-4x2.json"]


def test_final_once_is_refused_and_auto_takes_the_dp():
    once = Variant.make("one-handed", final="once")
    with pytest.raises(UsageError, match="final=once"):
        zeta_distribution(Deck(2, 3), once)
    with pytest.raises(UsageError, match="final=once"):
        choose_method(Deck(3, 7), "zeta", once)
    assert choose_method(Deck(2, 12), "auto", once) == "dp"
    with pytest.raises(UsageError, match="simulate"):
        choose_method(Deck(3, 7), "auto", once)


@pytest.mark.parametrize("shape", [(2, 3), (3, 2), (2, 4), (1, 5)])
def test_every_slot_has_one_degree_parity(shape):
    """What the kernel's half-degree layout relies on: in every A^ the reference builds, end(j) is
    nonzero only at degrees j, j + 2, ... and S1, R1, R3 only at odd degrees, S2, R2 only at even ones."""
    from exact.one_handed.phase import SENTINEL
    from exact.one_handed.zeta import ZetaReference

    suits, ranks = shape
    ref = ZetaReference(suits * ranks)
    cards = frozenset((s, r) for s in range(suits) for r in range(ranks))
    ref.mobius((SENTINEL, SENTINEL, SENTINEL), cards)
    ref.mobius((SENTINEL, SENTINEL, SENTINEL), cards, returns=False)
    parity = {"S1": 1, "R1": 1, "R3": 1, "S2": 0, "R2": 0}
    seen = 0
    for args, out in ref.recorded:
        for outcome, poly in out.items():
            for degree, count in enumerate(poly):
                if count:
                    seen += 1
                    if outcome[0] == "end":
                        assert outcome[1] <= degree and (degree - outcome[1]) % 2 == 0, (args, outcome, degree)
                    else:
                        assert degree % 2 == parity[outcome[0]], (args, outcome, degree)
    assert seen > 1000


def _fold(counts):
    """The core mode's five sums of a whole distribution."""
    return [counts[0], sum(c for j, c in enumerate(counts) if j & 1),
            sum(c for j, c in enumerate(counts) if j % 2 == 0 and j >= 2),
            sum(j * c for j, c in enumerate(counts) if j & 1), sum(j * c for j, c in enumerate(counts) if j % 2 == 0)]


@pytest.mark.parametrize("shape", [(1, 4), (2, 2), (2, 5), (3, 4), (4, 3), (5, 2)])
def test_core_mode_folds_the_whole_distribution(shape):
    counts, never = zeta_passes.zeta_counts(*shape)
    assert zeta_passes.zeta_counts(*shape, mode="core") == (_fold(counts), never)


def test_core_mode_with_small_primes_and_its_own_checkpoint(tmp_path):
    pool = [p for p in range(1 << 16, 1 << 17) if all(p % d for d in range(2, 257))][:40]
    path = tmp_path / "core.json"
    counts, never = zeta_passes.zeta_counts(3, 4, primes=pool)
    assert zeta_passes.zeta_counts(3, 4, primes=pool, mode="core", checkpoint=str(path)) == (_fold(counts), never)
    assert json.loads(path.read_text())["key"]["mode"] == "core"
    with pytest.raises(UsageError, match="another computation"):  # the whole distribution's passes differ
        zeta_passes.zeta_counts(3, 4, primes=pool, checkpoint=str(path))


def test_core_mode_tables_are_narrower():
    whole, core = ZetaPlan(3, 4), ZetaPlan(3, 4, mode="core")
    assert (whole.width, core.width) == (13 + 2 * 4 + 3, 5 + 2 * 4 + 3)
    assert zeta_estimate(Deck(4, 7), "core")["peak_bytes"] < zeta_estimate(Deck(4, 7))["peak_bytes"] / 2


def test_cli_only_p_win_by_zeta_equals_the_dp():
    from click.testing import CliRunner

    from solitaire.cli import cli

    runner = CliRunner()
    for variant in ("win=end", "win=any", "reverse=on"):
        base = ["exact", "--suits", "3", "--ranks", "4", "--variant", variant, "--json"]
        dp = json.loads(runner.invoke(cli, base + ["--method", "dp"]).output)
        core = json.loads(runner.invoke(cli, base + ["--method", "zeta", "--only", "p_win"]).output)
        assert (core["wins"], core["p_win"], core["mean_score"], core["method"]) == (
            dp["wins"], dp["p_win"], dp["mean_score"], "zeta")


def test_only_p_win_refused_for_other_methods(capsys):
    from solitaire.cli import main

    assert main(["exact", "--suits", "3", "--ranks", "4", "--method", "phase", "--only", "p_win"]) == 2
    assert "--only p_win is for --method word or --method zeta" in capsys.readouterr().err
