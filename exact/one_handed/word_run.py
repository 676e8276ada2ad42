"""Running the word method's jobs: primes, a journal of finished jobs, shards, threads or Dask, the join.

Every job (one orbit of alphabets, :mod:`exact.one_handed.word_jobs`) is computed modulo every prime
of the deck in one go (one plan, one canonicalisation), and its residues, unweighted, are appended to
a *journal*: a text file of one JSON object per line, the first line naming the computation (engine
version, deck, mode, primes, number of jobs). A job is written whole and flushed to disk before the
next starts, so an interrupted run keeps every finished job; a line cut by a crash is ignored on
reading and the job computed again. Jobs depend on nothing but the deck, so any subset can run
anywhere: ``shard=(i, N)`` runs the jobs ``j`` with ``j % N == i`` into its own journal, and the join
reads every journal of the computation in the folder, checks that each job is there (twice only with
equal residues) and sums ``sign * orbit size * residues`` per prime, then joins the primes by the
Chinese remainder theorem and checks the counts (:func:`join`). The result does not depend on how
the jobs were split, ordered or run: the sums are exact modular sums. Each job's record also keeps
its CPU seconds, its tables' bytes and the peak memory of the process that ran it when it finished,
so a result joined from journals states what computing it cost, not what reading the journals cost.
"""
from __future__ import annotations

import glob
import json
import math
import os
import random
import resource
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache

from joblib import Parallel, delayed

from sim import compiling as work_clock  # clocks that leave out kernel compilation
from sim.backends import check_backend, dask_client
from sim.checks import check_workers
from sim.errors import UsageError

from exact.invariants import require
from exact.one_handed.parity import check_parity
from exact.one_handed.crt import crt, first_primes_over, largest_primes
from exact.one_handed.word_jobs import AlphabetJobs, alphabet_jobs
from exact.one_handed.word_kernel import PRIME_BITS, prime_bits, solve_job, table_bytes
from exact.one_handed.word_plan import MODES, job_plan, layout

#: goes with every journal: a journal of another engine version is not read
WORD_ENGINE_VERSION = 1
#: the kernel's generation, kept in each job's record: ``--plan`` calibrates on the jobs of the
#: current generation where its folder has any, since an earlier kernel's seconds overstate the cost
#: (the residues do not depend on it, so a journal of any generation resumes)
WORD_KERNEL_VERSION = 2
#: sets are int64 masks and ranks int8 renamings in the kernels: decks of at most 62 cards
MAX_WORD_CARDS = 62
#: CPU seconds per unit of :func:`job_work`, one core, measured with kernel 2 on every job of these
#: decks (each deck's total CPU over its total work), by mode: ``--plan`` prices a deck that no
#: journal of its own calibrates at their geometric mean, its interval spanning the least and the
#: greatest of them. The rate is not one constant: on the whole distribution it falls as the deck
#: grows (likely because the cost model counts every coefficient of a convolution and the kernel
#: skips the zero ones), so a deck's own measured jobs price it better (``--checkpoint-dir``)
WORD_MEASURED_RATES = {
    "all": {"4x5": 8.20e-10, "3x7": 6.94e-10, "6x5": 7.10e-10, "8x4": 7.16e-10, "3x12": 5.25e-10,
            "3x13": 5.22e-10, "2x23": 3.87e-10, "5x6": 6.06e-10},
    "core": {"4x5": 1.06e-9, "3x7": 8.23e-10, "4x13": 1.08e-9},  # 4x13: 39 sampled jobs of 13-51 letters
}


def builtin_rate(mode: str) -> tuple:
    """``(central, least, greatest)`` CPU seconds per unit of work from :data:`WORD_MEASURED_RATES`."""
    rates = list(WORD_MEASURED_RATES[mode].values())
    return math.exp(sum(map(math.log, rates)) / len(rates)), min(rates), max(rates)


#: at most this many jobs of each alphabet size are planned by ``--plan`` (a seeded sample beyond)
PLAN_SAMPLE_PER_SIZE = 60


class MissingJobs(UsageError):
    """A merge found jobs missing: one line and exit status 1 (the journals are kept)."""

    exit_status = 1


def word_primes(n: int, ranks: int) -> list[int]:
    """The primes of a deck of ``n`` cards and ``ranks`` ranks (as built): the largest primes below
    ``2**26`` whose product exceeds ``n * n! + 1`` (every count, and the core mode's score sums, lies
    in ``[0, n * n!]``), or the largest below ``2**b`` for the widest ``b`` the kernel's sums allow on
    this deck (:func:`~exact.one_handed.word_kernel.prime_bits`) where that takes fewer primes. A job's
    work is proportional to its number of primes (4x6: three of 28 bits instead of four of 26); a
    deck that gains none keeps the 26-bit primes, which name its journals.

    >>> word_primes(4, 2)
    [67108859]
    >>> [p.bit_length() for p in word_primes(24, 6)], [p.bit_length() for p in word_primes(20, 5)]
    ([28, 28, 28], [26, 26, 26])
    """
    bound = n * math.factorial(n) + 1
    narrow = _primes_above(bound, PRIME_BITS)
    wide = _primes_above(bound, prime_bits(n, ranks))
    return wide if len(wide) < len(narrow) else narrow


def _primes_above(bound: int, bits: int) -> list[int]:
    """The fewest largest primes below ``2**bits`` whose product exceeds ``bound``."""
    out = first_primes_over(bound, largest_primes(bound.bit_length() // (bits - 1) + 1, below=2**bits))
    require(out is not None, "enough primes for every count")
    return out


@lru_cache(maxsize=4)
def deck_jobs(suits: int, ranks: int) -> AlphabetJobs:
    """The job list of a deck, built once per process."""
    return alphabet_jobs(suits, ranks)


def run_job(suits: int, ranks: int, job: int, mode: str, primes) -> dict:
    """One job, as a task for any worker (plain values in, a JSON-ready record out)."""
    jobs = deck_jobs(suits, ranks)
    n = suits * ranks
    t0 = work_clock.thread_time()
    plan = job_plan(jobs, job)
    lay = layout(n, ranks, mode)
    residues = solve_job(plan, lay, n, primes)
    return {"job": job, "label": jobs.label(job), "kernel": WORD_KERNEL_VERSION,
            "residues": {str(p): top + [never] for p, (top, never) in residues.items()},
            "windows": int(plan.windows.shape[0]), "pairs": int(plan.p_card.shape[0]), "kept": plan.kept,
            "work": job_work(plan, lay, n) * len(primes),
            "table_bytes": table_bytes(plan, lay, n, len(primes)), "cpu_seconds": round(work_clock.thread_time() - t0, 6),
            "peak_rss_bytes": peak_rss_bytes()}


def peak_rss_bytes() -> int:
    """This process's peak resident memory so far, in bytes (Linux reports ``ru_maxrss`` in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def job_work(plan, lay, n: int) -> float:
    """A job's work for one prime, in multiply-adds of residue vectors (the cost model of ``--plan``):
    every kept pair and every window's gathered sum convolve up to ``R + 1`` vectors of ``width / 2``
    slots over about ``n^2 / 4`` pairs of degrees; every pair gathers ``R + 1`` scalars as often."""
    ranks = lay.s1.shape[0]
    conv = n * n / 4
    return conv * ((2 * plan.kept + plan.windows.shape[0] * (ranks + 1)) * lay.width / 2
                   + plan.p_card.shape[0] * (ranks + 1) / 2)


def journal_key(suits: int, ranks: int, mode: str, primes) -> dict:
    return {"engine": WORD_ENGINE_VERSION, "suits": suits, "ranks": ranks, "mode": mode, "primes": list(primes),
            "jobs": len(deck_jobs(suits, ranks))}


def journal_name(suits: int, ranks: int, mode: str, shard=None) -> str:
    """``word-SxR-MODE.jsonl``, or ``word-SxR-MODE.shard-I-of-N.jsonl`` for a shard."""
    base = f"word-{suits}x{ranks}-{mode}"
    return base + (f".shard-{shard[0]}-of-{shard[1]}" if shard else "") + ".jsonl"


class Journal:
    """An append-only file of finished jobs (see the module docstring)."""

    def __init__(self, path: str, key: dict):
        self.path, self.key = path, key

    @classmethod
    def at(cls, path: str) -> "Journal":
        """The journal in the file ``path``, whichever computation it belongs to (its key is read from
        the file's first line): for tools that read finished journals, not for a run adding to one."""
        try:
            with open(path) as fh:
                head = fh.readline()
        except OSError as exc:
            raise UsageError(f"cannot read the job journal {path!r} ({exc.strerror})") from None
        try:
            key = json.loads(head)["key"]
        except (ValueError, KeyError, TypeError):
            raise UsageError(f"{path!r} is not a job journal of the word method") from None
        return cls(path, key)

    def read(self) -> dict:
        """``{job: record}`` of the file (empty if it does not exist); refuses a foreign file."""
        if not os.path.exists(self.path):
            return {}
        out = {}
        try:
            with open(self.path) as fh:
                lines = fh.read().split("\n")
        except OSError as exc:
            raise UsageError(f"cannot read the job journal {self.path!r} ({exc.strerror})") from None
        try:
            head = json.loads(lines[0])
        except ValueError:
            raise UsageError(f"{self.path!r} is not a job journal of the word method; give another folder or "
                             "remove it") from None
        if head.get("key") != self.key:
            raise UsageError(f"the job journal {self.path!r} belongs to another computation ({head.get('key')}); "
                             "give another folder or remove it")
        for line in lines[1:]:
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # the last line of an interrupted write
            out[int(rec["job"])] = rec
        return out

    def append(self, records: list[dict]) -> None:
        """Write ``records`` at the end of the file (creating it with its key line), flushed to disk."""
        new = not os.path.exists(self.path)
        torn = False
        if not new:
            with open(self.path, "rb") as fh:
                fh.seek(0, os.SEEK_END)
                if fh.tell():
                    fh.seek(-1, os.SEEK_END)
                    torn = fh.read(1) != b"\n"
        with open(self.path, "a") as fh:
            if new:
                fh.write(json.dumps({"key": self.key}) + "\n")
            if torn:  # the cut line of an interrupted write stays on its own line (and is ignored)
                fh.write("\n")
            for rec in records:
                fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
            fh.flush()
            os.fsync(fh.fileno())


def read_journals(folder: str, suits: int, ranks: int, mode: str, key: dict) -> dict:
    """Every finished job of the computation in ``folder`` (the main journal and every shard's); a
    job found twice must have equal residues (its record is the newer kernel's, or the last read)."""
    pattern = os.path.join(glob.escape(folder), f"word-{suits}x{ranks}-{mode}*.jsonl")
    done: dict = {}
    for path in sorted(glob.glob(pattern)):
        for job, rec in Journal(path, key).read().items():
            if job in done:
                require(done[job]["residues"] == rec["residues"], f"job {job} has two different results")
                if rec.get("kernel", 1) < done[job].get("kernel", 1):
                    continue  # keep the measurement of the newer kernel
            done[job] = rec
    return done


def join(done: dict, jobs: AlphabetJobs, primes, n: int, mode: str):
    """The weighted residues summed per prime and joined: ``(end values, never)`` as Python ints
    (``end`` values: the counts of every score, or the core mode's five sums)."""
    require(len(done) == len(jobs), "every job is needed for the join")
    lay = layout(n, jobs.ranks, mode)
    width = lay.ends.shape[0] + 1
    sums = {p: [0] * width for p in primes}
    for j in range(len(jobs)):
        weight = jobs.sign(j) * jobs.orbit_size(j)
        res = done[j]["residues"]
        for p in primes:
            vec = res[str(p)]
            acc = sums[p]
            for u in range(width):
                acc[u] = (acc[u] + weight * vec[u]) % p
    values = [crt([sums[p][u] for p in primes], list(primes)) for u in range(width)]
    total = math.factorial(n)
    if mode == "all":
        counts, never = values[:-1], values[-1]
        require(sum(counts) == total, "word counts must add up to (S*R)! (a job or a prime is wrong)")
        require(check_parity(counts, n), "a score with the wrong parity: the parity theorem fails")
    else:
        e0, eo, ee, mo, me, never = values
        require(e0 + eo + ee == total, "word counts must add up to (S*R)! (a job or a prime is wrong)")
        require(mo + me <= n * total, "the score sum lies in [0, n * n!]")
        require((eo if n & 1 else e0 + ee) == total, "every score has the parity of the deck")
    require(0 <= never <= total, "never-emptying orders lie in [0, n!]")
    return values[:-1], values[-1]


@dataclass(frozen=True)
class WordCounts:
    """What a word computation gives: ``ends`` (the score counts, or the core mode's
    ``[end(0), odd count, even count, odd score sum, even score sum]``) and ``never`` (orders whose row
    never empties), Python ints; ``stats`` of the run."""

    suits: int
    ranks: int
    mode: str
    ends: list
    never: int
    stats: dict

    @property
    def orders(self) -> int:
        return math.factorial(self.suits * self.ranks)

    @property
    def score_sum(self) -> int:
        """The sum of the scores over every order."""
        if self.mode == "all":
            return sum(j * c for j, c in enumerate(self.ends))
        return self.ends[3] + self.ends[4]


#: a run of at least this many jobs to do, with its progress shown, prices the jobs left by their
#: planned work (:func:`size_work`, a few planned jobs of each alphabet size) rather than by size alone
WORK_PRICED_FROM = 1000
#: the jobs planned per alphabet size for that price
WORK_SAMPLE_PER_SIZE = 5


def size_work(jobs: AlphabetJobs, mode: str, primes, per_size: int = WORK_SAMPLE_PER_SIZE,
              seed: int = 0) -> dict:
    """``{alphabet size: mean work of its jobs}`` (:func:`job_work`, all primes), each size from at
    most ``per_size`` of its jobs (a seeded sample), as :func:`plan_summary` plans them."""
    n = jobs.suits * jobs.ranks
    lay = layout(n, jobs.ranks, mode)
    return {k: sum(job_work(job_plan(jobs, j), lay, n) for j in chosen) * len(primes) / len(chosen)
            for k, _, chosen in size_samples(jobs, per_size, seed)}


def size_samples(jobs: AlphabetJobs, per_size: int, seed: int = 0):
    """``(alphabet size, its jobs, the jobs chosen)`` for each size in increasing order: every job of
    a size with at most ``per_size`` of them, else a sample of ``per_size`` drawn by one generator
    seeded with ``seed`` (the same jobs on every call); what :func:`plan_summary` and
    :func:`size_work` plan."""
    by_size: dict = {}
    for j in range(len(jobs)):
        by_size.setdefault(jobs.size(j), []).append(j)
    rng = random.Random(seed)
    for k, members in sorted(by_size.items()):
        yield k, members, (members if len(members) <= per_size else rng.sample(members, per_size))


class CpuLeft:
    """An estimate of the CPU seconds (one core) of the jobs still to run, from the jobs measured so far.

    Given ``work`` (``{alphabet size: mean planned work of a job}``, :func:`size_work`), the jobs
    left are priced at their sizes' mean work times the seconds per unit of work of the jobs measured
    so far (their total seconds over their total work; jobs measured without their work do not
    count). The planned work follows a job's cost closely, where the alphabet size alone does not:
    jobs of middling alphabets are the heaviest, and run after the larger ones.

    Without ``work``, each alphabet size's jobs are priced at the mean CPU seconds of the measured jobs of that size
    (this run's and the journals'); a size not measured yet at the fit of ``log(seconds)`` against the
    size over the measured sizes' means (the cost grows about geometrically with the alphabet), or at
    the one measured mean while only one size is known, but never above the mean of the nearest
    larger size measured. ``None`` before any job is measured. Jobs run
    largest alphabets first, so the sizes still to come are mostly below the measured ones and the
    estimate sharpens as each size is first measured.

    >>> est = CpuLeft({0: 3, 1: 3, 2: 2})
    >>> est.seconds() is None
    True
    >>> est.measured(0, 4.0); est.measured(2, 1.0)
    >>> round(est.seconds(), 6)  # job 1 (size 3) priced at the measured mean of size 3
    4.0
    """

    def __init__(self, sizes: dict, work: dict | None = None):
        self.left = dict(sizes)  # job -> alphabet size, jobs not finished
        self.sums: dict = {}  # size -> [total seconds, jobs]
        self.work = work
        self.rated = [0.0, 0.0]  # seconds and work of the jobs measured with their work

    def measured(self, job: int, seconds: float, size: int | None = None, work: float | None = None) -> None:
        """Job ``job`` (of alphabet ``size``, looked up if it is still to run) took ``seconds``
        (``work``: its planned work, as its record gives it)."""
        size = self.left.pop(job, size)
        if size is None or seconds <= 0:
            return
        acc = self.sums.setdefault(size, [0.0, 0])
        acc[0] += seconds
        acc[1] += 1
        if work:
            self.rated[0] += seconds
            self.rated[1] += work

    def seconds(self) -> float | None:
        if self.work is not None:
            if not self.rated[1]:
                return None
            return self.rated[0] / self.rated[1] * sum(self.work[size] for size in self.left.values())
        if not self.sums:
            return None
        means = {k: t / c for k, (t, c) in self.sums.items()}
        fit = None
        if len(means) > 1:
            xs = list(means)
            ys = [math.log(means[k]) for k in xs]
            mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
            sxx = sum((x - mx) ** 2 for x in xs)
            slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
            fit = (slope, my - slope * mx)
        total = 0.0
        for size in self.left.values():
            if size in means:
                total += means[size]
                continue
            # a smaller alphabet costs no more than the nearest larger one measured
            above = [means[k] for k in means if k > size]
            cap = means[min(k for k in means if k > size)] if above else math.inf
            if fit is not None:
                total += min(math.exp(fit[0] * size + fit[1]), cap)
            else:
                total += min(next(iter(means.values())), cap)
        return total


def word_counts(suits: int, ranks: int, *, mode: str = "all", workers: int = 1, backend: str = "local",
                scheduler=None, checkpoint_dir=None, shard=None, merge_only: bool = False, progress=None,
                stop=None) -> WordCounts | None:
    """Run (or resume) every job of the plain game on ``suits x ranks`` and join them.

    ``checkpoint_dir``: the folder of the job journals (finished jobs are read from every journal of
    the computation there and never run again). ``shard=(i, N)``: run only the jobs ``j % N == i``
    (into their own journal; needs ``checkpoint_dir``) and return ``None``. ``merge_only``: run
    nothing, join the journals (one line and exit 1 through :class:`RuntimeError` if jobs are missing).
    ``workers``: jobs at once on local threads (the kernels release the GIL), or Dask worker processes
    with ``backend="dask"``. ``progress(done, total, cpu_left)`` after each job, ``cpu_left`` the
    estimated CPU seconds (one core) of the jobs still to run (:class:`CpuLeft`; ``None`` until a job
    is measured); ``stop()`` is
    polled between jobs (an interrupt is handled by the caller: every finished job is already on disk).
    """
    require(mode in MODES, f"mode is one of {MODES}")
    n = suits * ranks
    if not 1 <= n <= MAX_WORD_CARDS:
        raise UsageError(f"the word method holds decks of at most {MAX_WORD_CARDS} cards, got {suits}x{ranks}")
    workers = check_workers(workers)
    check_backend(backend, scheduler)
    if shard is not None and checkpoint_dir is None:
        raise UsageError("a shard writes its jobs to a journal: give --checkpoint-dir")
    jobs = deck_jobs(suits, ranks)
    primes = word_primes(n, ranks)
    key = journal_key(suits, ranks, mode, primes)
    done: dict = {}
    journal = None
    if checkpoint_dir is not None:
        os.makedirs(checkpoint_dir, exist_ok=True)
        done = read_journals(checkpoint_dir, suits, ranks, mode, key)
        journal = Journal(os.path.join(checkpoint_dir, journal_name(suits, ranks, mode, shard)), key)
    mine = [j for j in range(len(jobs)) if shard is None or j % shard[1] == shard[0]]
    todo = [j for j in mine if j not in done]
    if merge_only and len(done) < len(jobs):
        raise MissingJobs(f"{len(jobs) - len(done)} of {len(jobs)} jobs are missing from {checkpoint_dir}: run "
                           "their shards (or the whole computation) first")
    say = progress if progress is not None else (lambda d, t, c: None)
    reused = len(mine) - len(todo)
    priced = progress is not None and len(todo) >= WORK_PRICED_FROM and not merge_only
    left = CpuLeft({j: jobs.size(j) for j in todo}, size_work(jobs, mode, primes) if priced else None)
    for rec in done.values():
        left.measured(rec["job"], rec["cpu_seconds"], jobs.size(rec["job"]), rec.get("work"))
    say(reused, len(mine), left.seconds())
    t0 = work_clock.perf_counter()

    ran = [0]  # jobs finished in this run (each job of todo finishes once)

    def finished(rec):
        done[rec["job"]] = rec
        if journal is not None:
            journal.append([rec])
        ran[0] += 1
        left.measured(rec["job"], rec["cpu_seconds"], work=rec.get("work"))
        say(reused + ran[0], len(mine), left.seconds())

    if todo and not merge_only:
        todo = run_order(jobs, todo)
        if backend == "dask":
            from distributed import as_completed

            client, closing = dask_client(scheduler, workers)
            try:
                futures = [client.submit(run_job, suits, ranks, j, mode, primes, pure=False) for j in todo]
                for fut in as_completed(futures):
                    finished(fut.result())
                    if stop is not None and stop():
                        break
            finally:
                for thing in closing:
                    thing.close()
        elif workers > 1 and len(todo) > 1:
            for rec in Parallel(n_jobs=workers, backend="threading", return_as="generator")(
                    delayed(run_job)(suits, ranks, j, mode, primes) for j in todo):
                finished(rec)
        else:
            # one job at a time on a thread of its own: the main thread waits where a signal reaches it
            # at once (a handler runs only between bytecodes of the main thread, never inside a kernel)
            pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="word-job")
            try:
                for j in todo:
                    finished(pool.submit(run_job, suits, ranks, j, mode, primes).result())
                    if stop is not None and stop():
                        break
            finally:
                pool.shutdown(wait=False, cancel_futures=True)
    stats = {"jobs": len(jobs), "jobs_reused": reused, "primes": ",".join(map(str, primes)),
             "job_cpu_seconds": round(sum(done[j]["cpu_seconds"] for j in mine if j in done), 3),
             "largest_job_table_bytes": max((done[j]["table_bytes"] for j in mine if j in done), default=0),
             # the largest of the processes that ran the jobs (as each job recorded it on finishing) and
             # of this one, which joins them: a result joined from journals keeps its computing peak
             "peak_rss_bytes": max([peak_rss_bytes()] + [done[j].get("peak_rss_bytes", 0) for j in mine if j in done]),
             "jobs_wall_seconds": round(work_clock.perf_counter() - t0, 3)}
    if shard is not None:
        return None
    ends, never = join(done, jobs, primes, n, mode)
    return WordCounts(suits, ranks, mode, ends, never, stats)


def run_order(jobs, todo) -> list:
    """The jobs ``todo`` in the order a run takes them: by alphabet size, largest first, then by
    index (the same order on every run). It is not the order of their cost: a job's tables and time
    peak at alphabets of middling size, not at the largest."""
    return sorted(todo, key=lambda j: (-jobs.size(j), j))


def plan_summary(suits: int, ranks: int, *, mode: str = "all", checkpoint_dir=None, seed: int = 0,
                 sample_per_size: int = PLAN_SAMPLE_PER_SIZE) -> dict:
    """What a computation will cost, before any work: the jobs, their estimated CPU seconds (one core)
    and the largest job's tables.

    Every job of each alphabet size is planned where there are at most ``sample_per_size`` of them,
    else a seeded sample of that many (the size's total work estimated as its mean times its count;
    the interval is two standard errors of the stratified estimate). Seconds per unit of work come
    from the jobs already measured in ``checkpoint_dir``'s journals (least squares through the
    origin; those of the current :data:`WORD_KERNEL_VERSION` where there are any, else those of an
    earlier kernel, flagged ``calibrated_on_older_kernel``), else from :func:`builtin_rate` (the
    rates measured on other decks: the interval then spans the least and the greatest of them too).
    With a journal, ``jobs_done`` and ``cpu_seconds_done`` are its finished jobs and their measured
    CPU, and ``cpu_seconds_left`` prices the jobs still to run, each at its alphabet size's mean
    planned work (what a run's progress bar shows)."""
    n = suits * ranks
    if not 1 <= n <= MAX_WORD_CARDS:
        raise UsageError(f"the word method holds decks of at most {MAX_WORD_CARDS} cards, got {suits}x{ranks}")
    jobs = deck_jobs(suits, ranks)
    primes = word_primes(n, ranks)
    lay = layout(n, ranks, mode)
    done: dict = {}
    if checkpoint_dir is not None and os.path.isdir(checkpoint_dir):
        done = read_journals(checkpoint_dir, suits, ranks, mode, journal_key(suits, ranks, mode, primes))
    total = variance = left = 0.0
    largest = (0, None)
    planned = 0
    for _, members, chosen in size_samples(jobs, sample_per_size, seed):
        works = []
        for j in chosen:
            plan = job_plan(jobs, j)
            works.append(job_work(plan, lay, n) * len(primes))
            need = table_bytes(plan, lay, n, len(primes))
            if need > largest[0]:
                largest = (need, j)
        planned += len(chosen)
        mean = sum(works) / len(works)
        total += mean * len(members)
        left += mean * sum(1 for j in members if j not in done)
        if len(chosen) < len(members) and len(works) > 1:
            var = sum((w - mean) ** 2 for w in works) / (len(works) - 1)
            variance += len(members) ** 2 * var / len(works) * (1 - len(works) / len(members))
    rate, rate_low, rate_high = builtin_rate(mode)
    calibrated, older = 0, False
    if done:
        measured = [rec for rec in done.values() if rec.get("work")]
        current = [rec for rec in measured if rec.get("kernel", 1) == WORD_KERNEL_VERSION]
        older = bool(measured) and not current
        pairs = [(rec["work"], rec["cpu_seconds"]) for rec in (current or measured)]
        if pairs:
            rate = rate_low = rate_high = sum(w * c for w, c in pairs) / sum(w * w for w, _ in pairs)
            calibrated = len(pairs)
    spread = 2 * math.sqrt(variance)
    return {"deck": f"{suits}x{ranks}", "mode": mode, "jobs": len(jobs), "jobs_planned": planned,
            "primes": len(primes), "work": total, "cpu_seconds": total * rate,
            "cpu_seconds_low": max(total - spread, 0) * rate_low, "cpu_seconds_high": (total + spread) * rate_high,
            "seconds_per_work": rate, "seconds_per_work_low": rate_low, "seconds_per_work_high": rate_high,
            "calibrated_on_jobs": calibrated, "calibrated_on_older_kernel": older,
            "jobs_done": len(done), "cpu_seconds_done": sum(float(rec.get("cpu_seconds", 0)) for rec in done.values()),
            "cpu_seconds_left": left * rate,
            "largest_job": jobs.label(largest[1]) if largest[1] is not None else "",
            "largest_job_table_bytes": largest[0]}

