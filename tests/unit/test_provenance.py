"""Provenance names the versions a result depends on, optional Dask libraries included when installed."""
import sys
from importlib import metadata

import pytest

from sim import provenance


def test_dask_versions_recorded_when_installed():
    pytest.importorskip("distributed")
    versions = provenance.library_versions()
    assert versions["dask"] == metadata.version("dask")
    assert versions["distributed"] == metadata.version("distributed")


def test_dask_versions_left_out_when_not_installed(monkeypatch):
    real = metadata.version

    def version(name):
        if name in ("dask", "distributed"):
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(provenance.metadata, "version", version)
    versions = provenance.library_versions()
    assert "dask" not in versions and "distributed" not in versions
    assert versions["numpy"] == real("numpy")  # the required ones are still there


def test_the_command_line_names_no_local_folder(monkeypatch):
    from sim import provenance

    monkeypatch.setattr(sys, "argv", ["/home/someone/.venv/bin/solitaire", "simulate", "--out", "results/x.h5"])
    assert provenance.command_line() == "solitaire simulate --out results/x.h5"
    monkeypatch.setattr(sys, "argv", ["scripts/exact_table.py", "--also", "4x6"])
    assert provenance.command_line() == "scripts/exact_table.py --also 4x6"


def test_the_commit_is_read_when_the_process_starts():
    """A record is written at the end of its run; the commit it names must be the one read when the
    process started (a fresh interpreter has it cached by the import alone, before any record)."""
    import subprocess

    code = "import sim.provenance as p; i = p.git_commit.cache_info(); print(i.misses, i.currsize)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["1", "1"]
