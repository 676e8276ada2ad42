"""The Dask backend gives the local backend's counts for the same seed (a real LocalCluster of two
worker processes on this machine), and a run checkpointed locally resumes on Dask."""
import json

import pytest

import sim.backends as backends
import sim.montecarlo as montecarlo
from sim import Deck, UsageError, simulate
from sim.store import ResultsStore

distributed = pytest.importorskip("distributed")

RUN = dict(games=100_000, chunk_games=10_000, progress=False)


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.mark.parametrize("deck, variant", [(Deck(4, 13), None), (Deck(4, 5), "one-handed(reverse=on,win=any)")])
def test_dask_gives_local_counts(client, deck, variant):
    local = simulate(deck, variant, seed=31, workers=2, **RUN)
    remote = simulate(deck, variant, seed=31, backend="dask", scheduler=client, **RUN)
    assert (remote.wins, remote.score_counts, remote.extra) == (local.wins, local.score_counts, local.extra)
    assert remote.provenance["backend"] == "dask" and remote.provenance["dask_threads"] == 2


def test_cli_with_scheduler_address(client, cli_run, tmp_path):
    args = ["simulate", "--suits", "4", "--ranks", "13", "--games", "60000", "--chunk-games", "10000",
            "--seed", "12", "--json", "--no-progress"]
    code, out, err = cli_run(*args, "--backend", "dask", "--scheduler", client.scheduler.address,
                             "--out", str(tmp_path / "d.h5"))
    assert code == 0, err
    code_local, out_local, _ = cli_run(*args)
    remote, local = json.loads(out), json.loads(out_local)
    assert (remote["wins"], remote["score_counts"]) == (local["wins"], local["score_counts"])
    assert ResultsStore(tmp_path / "d.h5").list()[0]["wins"] == local["wins"]


def test_local_checkpoint_resumes_on_dask(client, tmp_path, monkeypatch):
    store = ResultsStore(tmp_path / "s.h5")
    real = montecarlo.load_runner
    played = []

    def stopping_runner(deck, variant, options=None):
        runner = real(deck, variant, options)

        def run(state, games):
            if games == montecarlo.WARM_UP_GAMES:  # the compile warm-up (a throwaway stream), not a chunk
                return runner(state, games)
            if len(played) == 4:
                raise KeyboardInterrupt
            played.append(games)
            return runner(state, games)
        return run

    monkeypatch.setattr(montecarlo, "load_runner", stopping_runner)
    with pytest.raises(KeyboardInterrupt):
        simulate(Deck(4, 13), seed=44, workers=1, out=store, **RUN)
    monkeypatch.undo()
    assert store.checkpoints()[0]["chunks_done"] == 4
    resumed = simulate(Deck(4, 13), seed=44, backend="dask", scheduler=client, out=store, **RUN)
    local = simulate(Deck(4, 13), seed=44, workers=1, **RUN)
    assert (resumed.wins, resumed.score_counts) == (local.wins, local.score_counts)
    assert len(resumed.provenance["sessions"]) == 2


def test_unreachable_scheduler_is_a_usage_error(monkeypatch):
    monkeypatch.setattr(backends, "DASK_CONNECT_TIMEOUT", "1s")
    with pytest.raises(UsageError, match="cannot reach the Dask scheduler"):
        simulate(Deck(2, 2), games=10, backend="dask", scheduler="tcp://127.0.0.1:9", progress=False)


# --- sweep: the simulated cells on Dask are the local cells ------------------------------------

SWEEP = dict(games=20_000, seed=5, exact_max_cards=0, progress=False)


def test_sweep_on_dask_gives_local_cells(client):
    from solitaire.sweep import sweep

    local = sweep([2, 3], [4, 5], workers=2, **SWEEP)
    remote = sweep([2, 3], [4, 5], backend="dask", scheduler=client, **SWEEP)
    assert [c.source for c in local.cells].count("simulated") == 3  # 3x5 is decided by the parity theorem
    assert remote.cells == local.cells


def test_sweep_cli_with_scheduler_address(client, cli_run, tmp_path):
    args = ["sweep", "--suits", "2,4", "--ranks", "4", "--games", "20000", "--exact-max-cards", "0", "--json"]
    code, out, err = cli_run(*args, "--backend", "dask", "--scheduler", client.scheduler.address,
                             "--out", str(tmp_path / "d.h5"))
    assert code == 0, err
    code_local, out_local, _ = cli_run(*args)
    assert code_local == 0 and json.loads(out)["cells"] == json.loads(out_local)["cells"]
    stored = ResultsStore(tmp_path / "d.h5").list()
    assert [r["kind"] for r in stored] == ["simulation", "simulation", "sweep"]


def test_sweep_opens_one_dask_client_for_all_cells(monkeypatch):
    """Without an address, a sweep starts one local cluster, not one per cell (stand-in client)."""
    from solitaire.sweep import sweep

    opened, seen = [], []

    class Closable:
        def close(self):
            opened.append("closed")

    def fake_client(scheduler, workers):
        opened.append(("opened", scheduler, workers))
        return "the-client", [Closable()]

    def fake_simulate(deck, variant, *, scheduler, backend, **kwargs):
        seen.append((backend, scheduler))
        return simulate(deck, variant, games=kwargs["games"], seed=kwargs["seed"], workers=1, progress=False)

    monkeypatch.setattr(backends, "dask_client", fake_client)
    monkeypatch.setattr("solitaire.sweep.simulate", fake_simulate)
    sweep([2], [4, 6], backend="dask", workers=3, games=1000, seed=1, exact_max_cards=0, progress=False)
    assert opened == [("opened", None, 3), "closed"]
    assert seen == [("dask", "the-client")] * 2
    opened.clear()
    sweep([1], [3], backend="dask", games=1000, seed=1, exact_max_cards=0, progress=False)  # theorem only
    assert opened == []  # nothing to simulate, no cluster started


def test_sweep_scheduler_needs_the_dask_backend(cli_run):
    code, out, err = cli_run("sweep", "--suits", "2", "--ranks", "4", "--scheduler", "tcp://127.0.0.1:9")
    assert code == 2 and out == "" and "--backend dask" in err and "Traceback" not in err


def test_zeta_passes_on_dask_give_the_local_counts(client):
    """Each residue pass of the zeta method is a task; only this process joins them."""
    from exact.one_handed.zeta_passes import zeta_counts

    primes = [101, 103, 107, 109, 113, 127]
    assert zeta_counts(2, 4, primes=primes, backend="dask", scheduler=client) == zeta_counts(2, 4, primes=primes)
