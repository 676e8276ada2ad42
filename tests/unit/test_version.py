"""The version and commit a result names: the release in a run's identity, the full version and the
commit in its provenance, read from the checkout or, in an installed wheel, from the version file
setuptools-scm writes into it."""
from __future__ import annotations

import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim import provenance

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("full, release", [
    ("0.1.0", "0.1.0"),
    ("0.1.0.post439+geb654394b.d20261128", "0.1.0"),
    ("0.2", "0.2.0"),
    ("1.4.2rc1", "1.4.2"),
    ("2.0.0.dev3+gabc", "2.0.0"),
    ("0+unknown", "0.0.0"),
])
def test_the_identity_names_the_release_not_the_commit_distance(monkeypatch, full, release):
    monkeypatch.setattr(provenance, "version", lambda: full)
    assert provenance.package_version() == release


def test_a_wheel_reports_the_commit_it_was_built_from(monkeypatch):
    built = types.ModuleType("sim._version")
    built.version, built.commit, built.dirty = "0.1.0.post3+gabc1234", "gabc1234def5678", False
    monkeypatch.setitem(sys.modules, "sim._version", built)
    assert provenance._built_commit() == "abc1234def5678"
    built.dirty = True
    assert provenance._built_commit() == "abc1234def5678-dirty"
    built.commit = None
    assert provenance._built_commit() is None


def test_a_checkout_reports_its_head():
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("not a git checkout")
    assert provenance.git_commit().removesuffix("-dirty") == head.stdout.strip()


def test_a_copy_inside_another_repository_does_not_report_that_repository(tmp_path):
    """A wheel installed in a virtual environment kept inside some git repository must not name that
    repository's commit: the package there is not a checkout of itself."""
    if shutil.which("git") is None:
        pytest.skip("no git")
    repo = tmp_path / "elsewhere"
    site = repo / "venv" / "site-packages"
    site.mkdir(parents=True)
    shutil.copytree(ROOT / "sim", site / "sim", ignore=shutil.ignore_patterns("__pycache__", "_version.py"))
    for args in (["init", "-q"], ["-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty",
                                  "-m", "x"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    other = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                           check=True).stdout.strip()
    (site / "sim" / "_version.py").write_text("version = '0.1.0'\ncommit = 'g0123456789abcdef'\ndirty = False\n")
    code = "import sim.provenance as p; print(p.git_commit())"
    out = subprocess.run([sys.executable, "-c", code], cwd=site, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0123456789abcdef" != other


def test_version_option_names_version_and_commit():
    from solitaire.cli import cli

    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"solitaire {provenance.version()} (commit {provenance.git_commit()})\n"


@pytest.mark.parametrize("described, count, node, expected", [
    ("v0.2.0-5-gabc1234", None, None, "0.2.0.post5+gabc1234"),
    ("v0.2.0-0-gabc1234", None, None, "0.2.0"),
    ("v1.0.0rc1-2-g1234567", None, None, "1.0.0rc1.post2+g1234567"),
    (None, "678", "eb9c2d026", "0.1.0.post678+geb9c2d026"),
    (None, None, None, None),
])
def test_a_checkout_is_versioned_as_setuptools_scm_would(monkeypatch, described, count, node, expected):
    answers = {"describe": described, "rev-list": count, "rev-parse": node}
    monkeypatch.setattr(provenance, "_git", lambda *args: answers[args[0]])
    assert provenance._checkout_version("0.1.0") == expected


def test_a_checkout_names_its_head_in_the_version():
    """An editable install's metadata keeps the version it was installed at; the version a record
    names is the checkout's, so it names the commit that ran."""
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=9", "HEAD"], capture_output=True,
                          text=True)
    if head.returncode != 0 or not provenance._in_checkout():
        pytest.skip("not a git checkout")
    described = subprocess.run(["git", "-C", str(ROOT), "describe", "--tags", "--exact-match"],
                               capture_output=True, text=True)
    if described.returncode == 0:
        pytest.skip("HEAD is a release tag")
    assert provenance.version().endswith("+g" + head.stdout.strip())


def test_a_journal_written_in_the_repository_does_not_make_the_code_dirty(tmp_path):
    """A long run appends its finished jobs to a journal under results/; the commit a record names is
    dirty only when the code differs from it."""
    if shutil.which("git") is None:
        pytest.skip("no git")
    repo = tmp_path / "checkout"
    shutil.copytree(ROOT / "sim", repo / "sim", ignore=shutil.ignore_patterns("__pycache__", "_version.py"))
    (repo / "results").mkdir()
    (repo / "results" / "journal.jsonl").write_text("{}\n")
    git = ["git", "-C", str(repo), "-c", "user.email=a@b", "-c", "user.name=a"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "x"]):
        subprocess.run(git + args, check=True, capture_output=True)
    code = "import sim.provenance as p; print(p.git_commit())"

    def commit():
        return subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True,
                              check=True).stdout.strip()

    head = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    with open(repo / "results" / "journal.jsonl", "a") as journal:
        journal.write("{}\n")
    assert commit() == head
    with open(repo / "sim" / "provenance.py", "a") as module:
        module.write("\n")
    assert commit() == head + "-dirty"
