"""The Dask backend gives the local backend's counts for the same seed (a real LocalCluster of two
worker processes on this machine), and a run checkpointed locally resumes on Dask."""
import json

import pytest

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
    monkeypatch.setattr(montecarlo, "DASK_CONNECT_TIMEOUT", "1s")
    with pytest.raises(UsageError, match="cannot reach the Dask scheduler"):
        simulate(Deck(2, 2), games=10, backend="dask", scheduler="tcp://127.0.0.1:9", progress=False)
