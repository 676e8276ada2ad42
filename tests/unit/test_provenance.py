"""Provenance names the versions a result depends on, optional Dask libraries included when installed."""
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
