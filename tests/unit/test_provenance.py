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
